"""Synthetic RGB-D scenes from real BEHAVIOR tasks: the test and evaluation camera.

``render_task(problem, seed)`` lays the task's ``:init`` out as tagged boxes
(:mod:`symplan_core.perception.rigs.layout`) and returns a :class:`RenderedTask`: intrinsics, the
camera pose, the fiducial map (marker id -> synset / room) a detector reads, the ground truth
(marker id -> instance) only an evaluation may read, and :meth:`RenderedTask.frames` to render
key frames with noise. It is deterministic for a seed.

The camera is a static overhead pinhole camera looking straight down with a long focal length
(near-orthographic, so tall furniture hides little of its neighbours). Only horizontal faces are
drawn (top faces, container rims and interiors, tags), painted in ascending height: for a camera
looking straight down that is an exact z-buffer for horizontal faces, and every face has one depth.
The clean image is rendered once per scene; each frame adds its own noise:

* ``missed``: probability that a tag is unreadable in a frame (painted over);
* ``occluders``: rectangles (people, arms) between camera and scene, near the camera;
* ``blur`` (Gaussian sigma, px), ``pixel`` (Gaussian sigma, grey levels);
* ``depth`` (Gaussian sigma, metres) and ``dropout`` (fraction of depth pixels with no reading).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from symplan_core.bddl.model import Problem
from symplan_core.perception.fiducial import DEFAULT_DICTIONARY, FiducialMap, MarkerEntry
from symplan_core.perception.frames import CameraIntrinsics, Frame, overhead_pose
from symplan_core.perception.rigs.layout import BASE, TAG, WALL, lay_out, ledge_y0, tag_spot

WIDTH, HEIGHT = 640, 480
FOCAL = 4000.0  # pixels: a long lens, see the module docstring
_VOID_BELOW = 1.0  # the void between and around rooms lies this far below the floors
_QUIET = 0.12  # white border of a tag, as a fraction of its side
_MARKER_PX = 96


class NoiseConfig(BaseModel):
    """Per-frame noise knobs; ``NoiseConfig.default()`` is the documented default setting."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pixel: float = Field(default=0.0, ge=0, description="Gaussian pixel noise sigma, grey levels")
    blur: float = Field(default=0.0, ge=0, description="Gaussian blur sigma, pixels")
    occluders: int = Field(default=0, ge=0, description="occluding rectangles per frame")
    occluder_size: float = Field(default=0.12, gt=0, le=1, description="occluder side / image width")
    missed: float = Field(default=0.0, ge=0, le=1, description="probability a tag is unreadable in a frame")
    depth: float = Field(default=0.0, ge=0, description="Gaussian depth noise sigma, metres")
    dropout: float = Field(default=0.0, ge=0, le=1, description="fraction of depth pixels with no reading")

    @classmethod
    def default(cls) -> NoiseConfig:
        return cls(pixel=4.0, blur=0.7, occluders=1, missed=0.15, depth=0.004, dropout=0.01)

    def scaled(self, factor: float) -> NoiseConfig:
        """Every knob times ``factor`` (occluder count rounded; probabilities capped at 1)."""
        return NoiseConfig(pixel=self.pixel * factor, blur=self.blur * factor,
                           occluders=int(round(self.occluders * factor)), occluder_size=self.occluder_size,
                           missed=min(1.0, self.missed * factor), depth=self.depth * factor,
                           dropout=min(1.0, self.dropout * factor))


@dataclass
class _Face:
    x0: float
    y0: float
    x1: float
    y1: float
    z: float
    color: tuple[int, int, int]
    marker_id: int | None = None  # a tag face


class RenderedTask:
    """A rendered task: camera, fiducial map, ground truth and the frames it yields."""

    def __init__(self, problem: Problem, seed: int = 0, marker_ids: dict[str, int] | None = None) -> None:
        """``marker_ids``: instance (or ``room:NAME``) -> tag id to keep (a re-render of a changed
        world keeps each thing's tag, so a detector's map stays right); others get unused ids."""
        self.problem = problem
        self.seed = seed
        rng = np.random.default_rng(seed)
        self.rooms = lay_out(problem, rng)
        self.items = [i for room in self.rooms for i in room.walk()]
        self.truth: dict[int, str] = {}
        markers: dict[int, MarkerEntry] = {}
        ids: dict[str, int] = {}
        fixed = dict(marker_ids or {})
        free = (i for i in range(max(fixed.values(), default=-1) + 1, 1 << 20) if i not in fixed.values())
        for item in self.items:  # one id per instance (every patch of a substance shares it) and room
            if item.kind == "room":
                continue
            who = item.instance or f"room:{item.room}"
            if who not in ids:
                ids[who] = fixed[who] if who in fixed else len(ids) if not fixed else next(free)
                self.truth[ids[who]] = who
                markers[ids[who]] = MarkerEntry(synset=item.synset, room=item.room)
            item.marker_id = ids[who]
            item.color = tuple(int(c) for c in rng.integers(60, 200, 3))
        for room in self.rooms:
            red, green, blue = (int(c) for c in rng.integers(150, 215, 3))
            room.color = (red, green, blue)
        self.fiducial_map = FiducialMap(dictionary=DEFAULT_DICTIONARY, markers=markers)
        x1 = max(r.x1 for r in self.rooms)
        y1 = max(r.y1 for r in self.rooms)
        top = max(i.z1 for i in self.items)
        margin = TAG
        height = max(FOCAL * (x1 / 2 + margin) / (WIDTH / 2 - 4), FOCAL * (y1 / 2 + margin) / (HEIGHT / 2 - 4))
        self.camera_height = max(height, top + 1.0)
        self.pose = overhead_pose(x1 / 2, y1 / 2, self.camera_height)
        self.intrinsics = CameraIntrinsics(fx=FOCAL, fy=FOCAL, cx=(WIDTH - 1) / 2, cy=(HEIGHT - 1) / 2,
                                           width=WIDTH, height=HEIGHT)
        self._faces = self._faces_of()
        self._clean: tuple[np.ndarray, np.ndarray] | None = None
        self._tag_px: list[tuple[int, int, int, int]] = []

    # -- geometry -----------------------------------------------------------------------
    def _faces_of(self) -> list[_Face]:
        faces: list[_Face] = []
        for item in self.items:
            c = item.color
            if item.kind == "room":
                faces.append(_Face(item.x0, item.y0, item.x1, item.y1, 0.0, c))
                continue
            if item.kind in ("container", "frame"):
                ledge = ledge_y0(item)
                if item.kind == "container":  # the interior floor runs under the walls: no gap at the rim
                    shade, inset = (int(c[0] * 0.7), int(c[1] * 0.7), int(c[2] * 0.7)), WALL / 3
                    faces.append(_Face(item.x0 + inset, item.y0 + inset, item.x1 - inset, item.y1 - inset,
                                       item.z0 + BASE, shade))
                z = item.z1
                faces += [_Face(item.x0, item.y0, item.x0 + WALL, ledge, z, c),
                          _Face(item.x1 - WALL, item.y0, item.x1, ledge, z, c),
                          _Face(item.x0, item.y0, item.x1, item.y0 + WALL, z, c),
                          _Face(item.x0, ledge, item.x1, item.y1, z, c)]
            elif item.kind in ("solid", "patch"):
                faces.append(_Face(item.x0, item.y0, item.x1, item.y1, item.z1, c))
            tx, ty, tz = tag_spot(item)
            faces.append(_Face(tx, ty, tx + TAG, ty + TAG, tz, (255, 255, 255), item.marker_id))
        # Ascending height; at equal height a tag after the surface it is painted on.
        faces.sort(key=lambda f: (f.z, f.marker_id is not None))
        return faces

    def project(self, x: float, y: float, z: float, pose: np.ndarray | None = None) -> tuple[float, float]:
        """World point -> pixel (u, v) for the scene's camera (or an overhead camera at ``pose``)."""
        cam_x, cam_y, cam_z = (self.pose if pose is None else pose)[:3, 3]
        depth = cam_z - z
        k = self.intrinsics
        return k.fx * (x - cam_x) / depth + k.cx, k.fy * (cam_y - y) / depth + k.cy

    def _pixel_rect(self, face: _Face, pose: np.ndarray | None = None) -> tuple[int, int, int, int]:
        u0, v1 = self.project(face.x0, face.y0, face.z, pose)
        u1, v0 = self.project(face.x1, face.y1, face.z, pose)
        return (int(round(u0)), int(round(v0)), int(round(u1)), int(round(v1)))

    def min_tag_pixels(self) -> int:
        """Side of the smallest tag in the image, in pixels (readability of the layout)."""
        sides = [min(r[2] - r[0], r[3] - r[1]) for f in self._faces if f.marker_id is not None
                 for r in [self._pixel_rect(f)]]
        return min(sides) if sides else 0

    # -- rendering ----------------------------------------------------------------------
    def clean(self) -> tuple[np.ndarray, np.ndarray]:
        """The noise-free RGB and depth images of the scene's camera (cached)."""
        if self._clean is None:
            rgb, depth, self._tag_px = self._render(self.pose)
            self._clean = (rgb, depth)
        return self._clean

    def _render(self, pose: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, int, int]]]:
        cam_z = float(pose[2, 3])
        rgb = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        depth = np.full((HEIGHT, WIDTH), cam_z + _VOID_BELOW, np.float32)
        tags: list[tuple[int, int, int, int]] = []
        dictionary = self.fiducial_map.aruco_dictionary()
        for face in self._faces:
            u0, v0, u1, v1 = self._pixel_rect(face, pose)
            cu0, cv0, cu1, cv1 = max(u0, 0), max(v0, 0), min(u1, WIDTH), min(v1, HEIGHT)
            if cu1 <= cu0 or cv1 <= cv0:
                continue
            depth[cv0:cv1, cu0:cu1] = cam_z - face.z
            if face.marker_id is None:
                rgb[cv0:cv1, cu0:cu1] = face.color
                continue
            tag = _tag_image(dictionary, face.marker_id, u1 - u0, v1 - v0)
            rgb[cv0:cv1, cu0:cu1] = tag[cv0 - v0:cv1 - v0, cu0 - u0:cu1 - u0, None]
            tags.append((cu0, cv0, cu1, cv1))
        return rgb, depth, tags

    def frames(self, count: int = 8, noise: NoiseConfig | None = None, fps: float = 10.0,
               motion: float = 0.0) -> list[Frame]:
        """``count`` frames, each with its own noise draw. ``motion`` (metres) moves the overhead
        camera by up to that much in x and y per frame (a hand-held or robot-mounted camera:
        each frame then has its own pose, and things near the edge may leave the view)."""
        noise = noise or NoiseConfig()
        rgb0, depth0 = self.clean()
        out = []
        for index in range(count):
            rng = np.random.default_rng([self.seed, index, 7])
            if motion > 0:
                dx, dy = rng.uniform(-motion, motion, 2)
                pose = overhead_pose(self.pose[0, 3] + dx, self.pose[1, 3] + dy, self.pose[2, 3])
                rgb, depth, tags = self._render(pose)
            else:
                pose, rgb, depth, tags = self.pose, rgb0.copy(), depth0.copy(), self._tag_px
            self._apply_noise(rgb, depth, tags, noise, rng)
            out.append(Frame(rgb, depth, stamp=index / fps, pose=pose.copy(), source=f"synthetic#{index}"))
        return out

    def _apply_noise(self, rgb: np.ndarray, depth: np.ndarray, tags: list[tuple[int, int, int, int]],
                     noise: NoiseConfig, rng: np.random.Generator) -> None:
        if noise.missed > 0:
            for u0, v0, u1, v1 in tags:
                if rng.random() < noise.missed:  # unreadable: glare / smudge over the tag's centre
                    du, dv = (u1 - u0) // 4, (v1 - v0) // 4
                    rgb[v0 + dv:v1 - dv, u0 + du:u1 - du] = 235
        for _ in range(noise.occluders):
            side = int(noise.occluder_size * WIDTH * rng.uniform(0.6, 1.4))
            u, v = int(rng.integers(0, WIDTH - side // 2)), int(rng.integers(0, HEIGHT - side // 2))
            rgb[v:v + side, u:u + int(side * rng.uniform(0.4, 1.0))] = tuple(int(c) for c in rng.integers(20, 120, 3))
            depth[v:v + side, u:u + int(side * rng.uniform(0.4, 1.0))] = float(rng.uniform(0.8, 1.5))
        if noise.blur > 0:
            cv2.GaussianBlur(rgb, (0, 0), noise.blur, dst=rgb)
        if noise.pixel > 0:
            rgb[...] = cv2.add(rgb, _noise_crop(rng, 3, noise.pixel), dtype=cv2.CV_8U)
        if noise.depth > 0:
            depth += _noise_crop(rng, 1, noise.depth)
        if noise.dropout > 0:
            chance = np.empty(depth.shape, np.uint8)
            cv2.setRNGSeed(int(rng.integers(2**31)))
            # OpenCV's stubs type low/high as arrays only; randu documents scalar bounds
            cv2.randu(chance, 0, 256)  # type: ignore[call-overload]
            depth[chance < noise.dropout * 256] = 0.0


_PAD = 64
_NOISE_TILES: dict[tuple[int, float], np.ndarray] = {}


def _noise_crop(rng: np.random.Generator, channels: int, sigma: float) -> np.ndarray:
    """Gaussian noise for one frame: a crop, at a random offset, of one fixed larger tile.

    Drawing 1M normals per frame costs ~10 ms here; a seeded tile drawn once per sigma and
    cropped at per-frame offsets costs well under 1 ms and is as deterministic. Colour noise
    is int16 (added with saturation), depth noise float32 metres.
    """
    key = (channels, sigma)
    tile = _NOISE_TILES.get(key)
    if tile is None:
        if len(_NOISE_TILES) > 8:
            _NOISE_TILES.clear()
        shape = (HEIGHT + _PAD, WIDTH + _PAD) + ((channels,) if channels > 1 else ())
        unit = np.random.default_rng(12345 + channels).standard_normal(shape, np.float32) * np.float32(sigma)
        tile = _NOISE_TILES[key] = np.round(unit).astype(np.int16) if channels > 1 else unit
    du, dv = (int(v) for v in rng.integers(0, _PAD, 2))
    return tile[dv:dv + HEIGHT, du:du + WIDTH]


def _tag_image(dictionary, marker_id: int, width: int, height: int) -> np.ndarray:
    side = _MARKER_PX
    quiet = int(round(side * _QUIET))
    canvas = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
    canvas[quiet:quiet + side, quiet:quiet + side] = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    return cv2.resize(canvas, (max(width, 1), max(height, 1)), interpolation=cv2.INTER_AREA)


def render_task(problem: Problem, seed: int = 0, marker_ids: dict[str, int] | None = None) -> RenderedTask:
    """A synthetic scene for a parsed BEHAVIOR problem (see the module docstring); ``marker_ids``
    keeps given things' tag ids (a re-render of a changed world)."""
    return RenderedTask(problem, seed, marker_ids)
