"""Relation inference from 3-D boxes (property tests) and 3-D lifting of rendered scenes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symplan_core.perception import LiftConfig
from symplan_core.perception.lifting import Box3D, DepthLifter
from symplan_core.perception.relations import Region, RelationConfig, infer_relations

FLOOR = Region("floor#0", "floor.n.01_1", Box3D(0, 0, 20, 20, 0, 0.0, -1.0), "floor", True, "kitchen")
size = st.floats(0.05, 0.6)
coord = st.floats(-3, 3)
height = st.floats(0.05, 0.5)


def facts(regions, config=None):
    return {(r.predicate, *r.args) for r in infer_relations(regions, config).relations}


def _moved(box: Box3D, dx: float, dy: float, angle: float) -> Box3D:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return Box3D(c * box.cx - s * box.cy + dx, s * box.cx + c * box.cy + dy, box.w, box.d, box.yaw + angle,
                 box.top, box.bottom, box.inner)


@settings(max_examples=60, deadline=None)
@given(w=size, d=size, x=coord, y=coord, h=height, frac=st.floats(0.2, 0.8), fx=st.floats(0.1, 0.9),
       fy=st.floats(0.1, 0.9), h2=height)
def test_a_box_resting_on_another_is_ontop_it_and_nothing_else(w, d, x, y, h, frac, fx, fy, h2) -> None:
    table = Box3D(x, y, w, d, 0, h, 0.0)
    cw, cd = w * frac, d * frac
    cx = x - w / 2 + cw / 2 + (w - cw) * fx
    cy = y - d / 2 + cd / 2 + (d - cd) * fy
    cup = Box3D(cx, cy, cw, cd, 0, h + h2, h)
    regions = [FLOOR, Region("t#0", "table_1", table), Region("c#0", "cup_1", cup)]
    assert facts(regions) == {("ontop", "table_1", "floor.n.01_1"), ("ontop", "cup_1", "table_1"),
                              ("inroom", "floor.n.01_1", "kitchen")}


@settings(max_examples=40, deadline=None)
@given(dx=coord, dy=coord, angle=st.floats(-180, 180))
def test_relations_do_not_change_when_the_whole_scene_moves(dx, dy, angle) -> None:
    bin_box = Box3D(1.0, 1.0, 0.6, 0.5, 0, 0.4, 0.0, inner=0.05)
    apple = Box3D(1.0, 0.95, 0.1, 0.1, 0, 0.15, 0.05)
    shelf = Box3D(2.5, 1.0, 0.8, 0.4, 0, 0.7, 0.0)
    book = Box3D(2.4, 1.0, 0.2, 0.1, 0, 0.75, 0.7)
    pen = Box3D(2.58, 1.0, 0.1, 0.1, 0, 0.74, 0.7)  # 0.03 from the book's end: next to it
    boxes = {"bin_1": bin_box, "apple_1": apple, "shelf_1": shelf, "book_1": book, "pen_1": pen}

    def scene(move):
        floor = Region("floor#0", "floor.n.01_1", move(FLOOR.box), "floor", True, "kitchen")
        return [floor] + [Region(f"{k}#0", k, move(b)) for k, b in boxes.items()]

    config = RelationConfig(nextto_gap=0.06)
    base = facts(scene(lambda b: b), config)
    assert ("inside", "apple_1", "bin_1") in base and ("ontop", "book_1", "shelf_1") in base
    assert ("nextto", "book_1", "pen_1") in base or ("nextto", "pen_1", "book_1") in base
    assert facts(scene(lambda b: _moved(b, dx, dy, angle)), config) == base


@settings(max_examples=40, deadline=None)
@given(gap=st.floats(0.0, 0.2), w=st.floats(0.05, 0.4))
def test_nextto_follows_the_gap_threshold(gap, w) -> None:
    a = Box3D(0, 0, w, w, 0, 0.1, 0.0)
    b = Box3D(w + gap, 0, w, w, 0, 0.1, 0.0)
    found = facts([FLOOR, Region("a#0", "a_1", a), Region("b#0", "b_1", b)], RelationConfig(nextto_gap=0.05))
    near = ("nextto", "a_1", "b_1") in found
    if gap < 0.045:
        assert near
    elif gap > 0.055:
        assert not near


def test_every_object_gets_at_most_one_support_and_substances_become_covered_or_filled() -> None:
    table = Region("t#0", "table_1", Box3D(0, 0, 1, 1, 0, 0.5, 0.0), fixture=False)
    bowl = Region("b#0", "bowl_1", Box3D(0.2, 0.2, 0.3, 0.3, 0, 0.65, 0.5, inner=0.53))
    water = Region("w#0", "water_1", Box3D(0.2, 0.2, 0.1, 0.1, 0, 0.56, 0.53), "substance")
    dust = Region("w#1", "dust_1", Box3D(-0.3, -0.3, 0.1, 0.1, 0, 0.53, 0.5), "substance")
    sink = Region("s#0", "sink_1", Box3D(3, 3, 0.5, 0.5, 0, 0.8, 0.0), fixture=True)
    result = infer_relations([FLOOR, table, bowl, water, dust, sink])
    found = {(r.predicate, *r.args) for r in result.relations}
    assert ("filled", "bowl_1", "water_1") in found and ("covered", "table_1", "dust_1") in found
    assert ("ontop", "bowl_1", "table_1") in found and ("inroom", "sink_1", "kitchen") in found
    assert not any(f[0] == "ontop" and f[1] == "sink_1" for f in found)  # fixtures are located by room
    supports = [f[1] for f in found if f[0] in ("ontop", "inside")]
    assert len(supports) == len(set(supports))


def test_things_under_a_frame_stand_on_its_support_and_are_under_it() -> None:
    desk = Region("d#0", "desk_1", Box3D(0, 0, 1, 0.6, 0, 0.5, 0.0, inner=0.0))
    bag = Region("g#0", "bag_1", Box3D(0, -0.05, 0.2, 0.2, 0, 0.2, 0.0))
    found = facts([FLOOR, desk, bag])
    assert {("under", "bag_1", "desk_1"), ("ontop", "bag_1", "floor.n.01_1")} <= found
    assert ("inside", "bag_1", "desk_1") not in found


def test_a_floating_object_is_reported_unsupported() -> None:
    kite = Region("k#0", "kite_1", Box3D(0, 0, 0.2, 0.2, 0, 1.5, 1.4))
    result = infer_relations([FLOOR, kite])
    assert result.unsupported == ["k#0"]


def test_lifting_recovers_the_rendered_boxes(car_scene) -> None:
    from symplan_core.perception import make_detector

    frame = car_scene.frames(1)[0]
    lifter = DepthLifter(frame, car_scene.intrinsics, frame.pose, LiftConfig())
    items = {i.marker_id: i for i in car_scene.items if i.marker_id is not None and i.kind in ("solid", "container")}
    detections = [d for d in make_detector("fiducial", fiducial_map=car_scene.fiducial_map).detect(frame)
                  if d.marker_id in items]
    assert len(detections) == len(items)
    for det in detections:
        box, item = lifter.lift(det), items[det.marker_id]
        assert box.top == pytest.approx(item.z1, abs=0.005)
        assert box.bottom == pytest.approx(item.z0, abs=0.005)
        assert box.cx == pytest.approx((item.x0 + item.x1) / 2, abs=0.01)
        assert box.cy == pytest.approx((item.y0 + item.y1) / 2, abs=0.01)
        assert sorted((box.w, box.d)) == pytest.approx(sorted(item.size), abs=0.02)
