"""Front-view lifting (``LiftConfig(view="front")``): furniture seen from the front or side.

The scene is ray-cast here from axis-aligned boxes (a level camera 1 m up looking along +x): an open
bookcase with a middle board and a book standing on it, a table with a mug on its top, and a book
on the floor in front of the bookcase. The detections are the objects' projected bounding boxes.
"""

from __future__ import annotations

import numpy as np
import pytest

from symplan_core.perception.detection import Detection
from symplan_core.perception.frames import CameraIntrinsics, Frame
from symplan_core.perception.lifting import DepthLifter, LiftConfig
from symplan_core.perception.relations import Region, RelationConfig, infer_relations

K = CameraIntrinsics(fx=525.0, fy=525.0, cx=319.5, cy=239.5, width=640, height=480)
POSE = np.eye(4)
POSE[:3, :3] = [[0, 0, 1], [-1, 0, 0], [0, -1, 0]]  # optical z -> world x, x -> -y, y -> -z
POSE[2, 3] = 1.0

# (x0, x1), (y0, y1), (z0, z1) in metres; world x forward, y left, z up
BOOKCASE = [((2.0, 2.35), (0.96, 1.0), (0.0, 1.2)), ((2.0, 2.35), (0.2, 0.24), (0.0, 1.2)),
            ((2.0, 2.35), (0.2, 1.0), (1.17, 1.2)), ((2.0, 2.35), (0.2, 1.0), (0.0, 0.05)),
            ((2.32, 2.35), (0.2, 1.0), (0.0, 1.2)), ((2.0, 2.32), (0.2, 1.0), (0.58, 0.61))]
BOOK = [((2.05, 2.28), (0.5, 0.56), (0.61, 0.85))]
TABLE = [((1.8, 2.6), (-1.0, -0.2), (0.72, 0.75))] + [
    ((x, x + 0.04), (y, y + 0.04), (0.0, 0.72)) for x in (1.8, 2.56) for y in (-1.0, -0.24)]
MUG = [((2.0, 2.1), (-0.65, -0.55), (0.75, 0.85))]
FLOOR_BOOK = [((1.7, 1.9), (0.35, 0.45), (0.0, 0.25))]
ROOM = [((0.0, 5.0), (-3.0, 3.0), (-0.05, 0.0)), ((3.5, 3.6), (-3.0, 3.0), (0.0, 3.0))]
OBJECTS = {"bookcase": BOOKCASE, "book": BOOK, "table": TABLE, "mug": MUG, "floor_book": FLOOR_BOOK}


def _render() -> np.ndarray:
    """z-depth (float32, metres) of the scene: slab intersection of every pixel ray with every box."""
    v, u = np.mgrid[0:K.height, 0:K.width].astype(np.float64)
    rays = np.stack([(u - K.cx) / K.fx, (v - K.cy) / K.fy, np.ones_like(u)], -1) @ POSE[:3, :3].T
    origin = POSE[:3, 3]
    depth = np.full(u.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        for parts in [*OBJECTS.values(), ROOM]:
            for box in parts:
                lo = np.array([b[0] for b in box]) + 1e-9
                hi = np.array([b[1] for b in box]) - 1e-9
                t1, t2 = (lo - origin) / rays, (hi - origin) / rays
                near = np.nanmax(np.minimum(t1, t2), axis=-1)
                far = np.nanmin(np.maximum(t1, t2), axis=-1)
                hit = (far >= near) & (near > 0)
                depth = np.where(hit & (near < depth), near, depth)  # camera z = t: the ray's z is 1
    return np.where(np.isfinite(depth), depth, 0.0).astype(np.float32)


def _detection(name: str) -> Detection:
    """What a perfect detector reports: the projected bounding box of the object's parts."""
    corners = np.array([[x, y, z] for box in OBJECTS[name] for x in box[0] for y in box[1] for z in box[2]])
    cam = (corners - POSE[:3, 3]) @ POSE[:3, :3]
    u, v = K.fx * cam[:, 0] / cam[:, 2] + K.cx, K.fy * cam[:, 1] / cam[:, 2] + K.cy
    x0, x1 = np.clip([u.min(), u.max()], 0, K.width - 1)
    y0, y1 = np.clip([v.min(), v.max()], 0, K.height - 1)
    return Detection(name, 0.9, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))


@pytest.fixture(scope="module")
def frame() -> Frame:
    depth = _render()
    return Frame(np.full((K.height, K.width, 3), 128, np.uint8), depth, pose=POSE)


def _relations(frame: Frame, view: str) -> tuple[set[tuple[str, ...]], dict]:
    lifter = DepthLifter(frame, K, POSE, LiftConfig(view=view))
    lifter.set_detections([_detection(name) for name in OBJECTS])
    regions, boxes = [], {}
    for name in OBJECTS:
        box = lifter.lift(_detection(name))
        assert box is not None, name
        boxes[name] = box
        regions.append(Region(f"{name}#0", name, box))
    found = infer_relations(regions, RelationConfig())
    return {(r.predicate, *r.args) for r in found.relations}, boxes


def test_front_view_boxes_have_the_heights_and_depth_of_the_objects(frame) -> None:
    _facts, boxes = _relations(frame, "front")
    assert all(b.front for b in boxes.values())
    book, case, mug, table = boxes["book"], boxes["bookcase"], boxes["mug"], boxes["table"]
    assert abs(book.bottom - 0.61) < 0.03 and abs(book.top - 0.85) < 0.03
    assert abs(mug.bottom - 0.75) < 0.02 and abs(table.top - 0.75) < 0.02
    assert case.bottom <= 0.06 and abs(case.top - 1.2) <= 0.04  # (its foot is below the image)
    assert abs((case.cx - case.w / 2) - 2.0) < 0.03  # the footprint starts at the bookcase's front
    assert abs(case.cy - 0.6) < 0.05 and abs(case.d - 0.8) < 0.08  # and spans its width


def test_front_view_finds_the_book_inside_the_bookcase_and_the_mug_on_the_table(frame) -> None:
    facts, _boxes = _relations(frame, "front")
    assert ("inside", "book", "bookcase") in facts
    assert ("ontop", "mug", "table") in facts
    assert not any(f[1] == "floor_book" for f in facts)  # on the floor in front of it: not inside it
    assert not any(f[1] == "bookcase" or f[1] == "table" for f in facts)  # the floor itself is not detected


def test_the_top_view_lifting_misses_the_book_on_the_edge_on_board(frame) -> None:
    facts, boxes = _relations(frame, "top")
    assert ("inside", "book", "bookcase") not in facts
    assert not any(b.front for b in boxes.values())


def test_front_view_needs_a_camera_that_looks_forward(frame) -> None:
    down = np.eye(4)
    down[:3, :3] = np.diag([1.0, -1.0, -1.0])  # straight down: no front to see
    lifter = DepthLifter(frame, K, down, LiftConfig(view="front"))
    assert lifter.lift(_detection("book")) is None
