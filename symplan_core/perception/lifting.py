"""3-D lifting: a detection + depth + intrinsics (+ camera pose) -> one 3-D box in the world.

The visible surface an object shows the camera is segmented from depth with OpenCV's
``floodFill`` (fixed range around a robust seed depth) started at the detection: the marker's
centre, or a box's centre. Its outer contour (``findContours``) is back-projected through the
intrinsics and the camera pose and ``minAreaRect`` gives the footprint; the surface height is
the box top. Around the outline, a thin ring (``dilate``) shows what the object stands on: its
height is the box bottom. Inside the outline, surfaces *below* the top (a hole in the mask) mean
an open container or a frame (a table seen from above with something under it): their lowest
level is the box's ``inner`` floor.

World frame: z up (the frame's pose, or the configured default pose, maps camera to world).

``view="front"`` (:meth:`DepthLifter.lift_front`) is for cameras that look at furniture from the
front or at a slant (a shelf, a cabinet, a table seen from the side), where the visible surfaces are
vertical and the surface segmentation above gives footprints a few centimetres deep. It takes the
depth inside the detection's box, keeps the nearest ``front_depth`` metres of it (the object and
what it holds, not the wall behind), and reads the box off those points: top and bottom are high
and low percentiles of their heights (the bottom is where the object meets what it stands on), the
footprint spans their lateral extent and reaches ``front_depth`` behind their front (what the camera
cannot see is assumed), aligned with the camera's heading. Such boxes carry ``front=True``;
:mod:`~symplan_core.perception.relations` then also accepts a level inside another front box as a
support (a shelf board, a cabinet floor): ``inside``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from symplan_core.perception.detection import Detection
from symplan_core.perception.frames import CameraIntrinsics, Frame


class LiftConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    surface_tolerance: float = Field(default=0.015, gt=0, description="metres: one surface in the flood fill")
    ring_px: int = Field(default=3, ge=1, le=20, description="width of the ring that shows the support")
    min_hole_fraction: float = Field(default=0.1, ge=0, le=1, description="of the footprint, to call it open")
    max_depth: float = Field(default=100.0, gt=0, description="metres; farther readings are invalid")
    view: Literal["top", "front"] = Field(default="top", description="top: surfaces facing the camera (overhead, "
                                          "table-top views); front: furniture seen from the front or side")
    front_depth: float = Field(default=0.35, gt=0, description="front view: metres of depth kept behind an "
                               "object's front, and the depth its footprint is given")


@dataclass(frozen=True)
class Box3D:
    """A box in the world: footprint (centre, size, yaw in degrees), top and bottom heights, and
    ``inner``: the interior floor height of an open container or frame, else None."""

    cx: float
    cy: float
    w: float
    d: float
    yaw: float
    top: float
    bottom: float
    inner: float | None = None
    partial: bool = False  # its surface runs out of the image: the footprint may be cut
    front: bool = False  # lifted in the front view (its back is assumed, not seen)

    @property
    def rect(self) -> tuple[tuple[float, float], tuple[float, float], float]:
        """The footprint as an OpenCV rotated rectangle."""
        return (self.cx, self.cy), (self.w, self.d), self.yaw

    @property
    def corners(self) -> np.ndarray:
        return cv2.boxPoints(self.rect)

    @property
    def area(self) -> float:
        return self.w * self.d

    @property
    def open(self) -> bool:
        return self.inner is not None

    def to_json(self) -> dict:
        out = {"center": [round(self.cx, 4), round(self.cy, 4)], "size": [round(self.w, 4), round(self.d, 4)],
               "yaw": round(self.yaw, 2), "top": round(self.top, 4), "bottom": round(self.bottom, 4)}
        if self.inner is not None:
            out["inner"] = round(self.inner, 4)
        if self.front:
            out["view"] = "front"
        return out


def _normalised(rect) -> tuple[float, float, float, float, float]:
    """``minAreaRect`` output with the angle in [-45, 45) (swapping the sides as needed)."""
    (cx, cy), (w, d), angle = rect
    turns = math.floor((angle + 45.0) / 90.0)  # a rectangle turned by 90 degrees is itself, sides swapped
    if turns % 2:
        w, d = d, w
    return float(cx), float(cy), float(w), float(d), float(angle - 90.0 * turns)


class DepthLifter:
    """Lifts the detections of one frame (holds that frame's reusable buffers)."""

    def __init__(self, frame: Frame, intrinsics: CameraIntrinsics, pose: np.ndarray, config: LiftConfig) -> None:
        if frame.depth is None:
            raise ValueError("DepthLifter needs a frame with depth")
        self.config = config
        depth = frame.depth
        bad = ~np.isfinite(depth) | (depth <= 0) | (depth > config.max_depth)
        self.depth = np.where(bad, np.float32(0.0), depth).astype(np.float32) if bad.any() else depth.copy()
        self.valid = ~bad
        self.k = intrinsics
        self.rotation = pose[:3, :3]
        self.origin = pose[:3, 3]
        self.mask = np.zeros((depth.shape[0] + 2, depth.shape[1] + 2), np.uint8)
        self.others: list[tuple[float, float, float, float]] = []
        self.kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * config.ring_px + 1,) * 2)

    def set_detections(self, detections: list[Detection]) -> None:
        """All detections of this frame: the front view leaves the pixels of smaller things inside a
        box (books in a bookcase, a mug on a table) out of that box's points."""
        self.others = [d.box for d in detections]

    def world(self, us: np.ndarray, vs: np.ndarray, ds: np.ndarray) -> np.ndarray:
        """Pixels with depth -> world points (N x 3)."""
        cam = np.stack([(us - self.k.cx) * ds / self.k.fx, (vs - self.k.cy) * ds / self.k.fy, ds], axis=1)
        return cam @ self.rotation.T + self.origin

    def heights(self, us: np.ndarray, vs: np.ndarray, ds: np.ndarray) -> np.ndarray:
        """World z of pixels with depth (the third row of :meth:`world`, without the rest)."""
        r = self.rotation[2]
        return ((us - self.k.cx) / self.k.fx * r[0] + (vs - self.k.cy) / self.k.fy * r[1] + r[2]) * ds + self.origin[2]

    def _seed(self, det: Detection) -> tuple[int, int, float] | None:
        """A valid pixel near the detection's centre and the median depth around it."""
        h, w = self.depth.shape
        x0, y0, x1, y1 = det.box
        cu, cv = det.center
        ru, rv = max(1, int((x1 - x0) / 4)), max(1, int((y1 - y0) / 4))
        u0, u1 = max(int(cu) - ru, 0), min(int(cu) + ru + 1, w)
        v0, v1 = max(int(cv) - rv, 0), min(int(cv) + rv + 1, h)
        if u1 <= u0 or v1 <= v0:
            return None
        patch = self.depth[v0:v1, u0:u1]
        good = patch[self.valid[v0:v1, u0:u1]]
        if good.size < max(3, patch.size // 4):
            return None
        value = float(np.median(good))
        near = np.abs(patch - value) <= self.config.surface_tolerance / 2
        vv, uu = np.nonzero(near & self.valid[v0:v1, u0:u1])
        if vv.size == 0:
            return None
        pick = int(np.argmin((uu + u0 - cu) ** 2 + (vv + v0 - cv) ** 2))
        return int(uu[pick] + u0), int(vv[pick] + v0), value

    def lift(self, det: Detection) -> Box3D | None:
        """The box for one detection, or None when depth at it is missing or unusable."""
        if self.config.view == "front":
            return self.lift_front(det)
        seed = self._seed(det)
        if seed is None:
            return None
        su, sv, value = seed
        tol = self.config.surface_tolerance
        original = self.depth[sv, su]
        self.depth[sv, su] = value  # fixed-range flood fill compares against the seed pixel: make it robust
        flags = 4 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (255 << 8)
        _n, _img, _mask, (rx, ry, rw, rh) = cv2.floodFill(self.depth, self.mask, (su, sv), 0, tol, tol, flags)
        self.depth[sv, su] = original
        pad = self.config.ring_px + 1
        h, w = self.depth.shape
        x0, y0 = max(rx - pad, 0), max(ry - pad, 0)
        x1, y1 = min(rx + rw + pad, w), min(ry + rh + pad, h)
        region = self.mask[y0 + 1:y1 + 1, x0 + 1:x1 + 1].copy()
        self.mask[ry:ry + rh + 2, rx:rx + rw + 2] = 0
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None
        outline = max(contours, key=cv2.contourArea)
        filled = np.zeros_like(region)
        cv2.drawContours(filled, [outline], -1, 255, thickness=cv2.FILLED)
        depth = self.depth[y0:y1, x0:x1]
        valid = self.valid[y0:y1, x0:x1]
        # The surface: its own pixels at their own depth give the top.
        vv, uu = _sample((region > 0) & valid)
        if vv.size == 0:
            return None
        top = float(np.median(self.heights(uu + x0, vv + y0, depth[vv, uu])))
        # The outline, back-projected at the surface depth, gives the footprint.
        pts = outline.reshape(-1, 2).astype(np.float64)
        rim = self.world(pts[:, 0] + x0, pts[:, 1] + y0, np.full(len(pts), value))
        cx, cy, bw, bd, yaw = _normalised(cv2.minAreaRect(rim[:, :2].astype(np.float32)))
        # Around it: the highest surface below the top is what it stands on.
        ring = (cv2.dilate(filled, self.kernel) > 0) & (filled == 0) & valid
        bottom = self._level(ring, depth, x0, y0, below=top - tol, lowest=False)
        # Inside it: surfaces below the top (not the object's own, not what stands on it).
        hole = (filled > 0) & (region == 0) & valid
        inner = None
        if cv2.countNonZero(hole.view(np.uint8)) >= self.config.min_hole_fraction * max(cv2.contourArea(outline), 1.0):
            inner = self._level(hole, depth, x0, y0, below=top - tol, lowest=True)
        if bottom is None:
            bottom = inner if inner is not None else top - 2 * tol
        partial = rx <= 0 or ry <= 0 or rx + rw >= w or ry + rh >= h
        return Box3D(cx, cy, bw, bd, yaw, top, bottom, inner, partial)

    def lift_front(self, det: Detection) -> Box3D | None:
        """The front-view box of one detection (module docstring), or None without enough depth."""
        h, w = self.depth.shape
        x0, y0, x1, y1 = det.box
        mx, my = 0.08 * (x1 - x0), 0.03 * (y1 - y0)  # box edges often take in the background
        u0, u1 = int(max(x0 + mx, 0)), int(min(x1 - mx, w - 1)) + 1
        v0, v1 = int(max(y0 + my, 0)), int(min(y1 - my, h - 1)) + 1
        if u1 - u0 < 2 or v1 - v0 < 2:
            return None
        step = max(1, int(math.sqrt((u1 - u0) * (v1 - v0) / 4000)))
        vv, uu = np.mgrid[v0:v1:step, u0:u1:step]
        good = self.valid[vv, uu]
        if np.count_nonzero(good) < 20:
            return None
        area = (x1 - x0) * (y1 - y0)
        for ox0, oy0, ox1, oy1 in self.others:  # things held by this one are not this one
            inter = max(0.0, min(x1, ox1) - max(x0, ox0)) * max(0.0, min(y1, oy1) - max(y0, oy0))
            other = (ox1 - ox0) * (oy1 - oy0)
            if 0 < other < 0.8 * area and inter >= 0.5 * other:
                good &= ~((uu >= ox0) & (uu <= ox1) & (vv >= oy0) & (vv <= oy1))
        if np.count_nonzero(good) < 20:
            return None
        uu, vv = uu[good].astype(np.float64), vv[good].astype(np.float64)
        ds = self.depth[vv.astype(np.int64), uu.astype(np.int64)].astype(np.float64)
        keep = ds <= np.percentile(ds, 10) + self.config.front_depth
        pts = self.world(uu[keep], vv[keep], ds[keep])
        heading = self.rotation[:2, 2]
        norm = float(np.hypot(*heading))
        if norm < 0.2:  # looking (nearly) straight down: there is no front to see
            return None
        f = heading / norm
        lateral = np.array([-f[1], f[0]])
        s, t = pts[:, :2] @ f, pts[:, :2] @ lateral
        s0 = float(np.percentile(s, 5))
        s1 = max(float(np.percentile(s, 95)), s0 + self.config.front_depth)
        margin = mx * float(np.median(ds[keep])) / self.k.fx  # the trimmed box edges, back in metres
        t0, t1 = (float(v) for v in np.percentile(t, [3, 97]))
        t0, t1 = t0 - margin, max(t1, t0 + 0.01) + margin
        top, bottom = (float(v) for v in np.percentile(pts[:, 2], [97, 3]))
        centre = (s0 + s1) / 2 * f + (t0 + t1) / 2 * lateral
        yaw = math.degrees(math.atan2(f[1], f[0]))
        partial = x0 <= 1 or y0 <= 1 or x1 >= w - 2 or y1 >= h - 2
        return Box3D(float(centre[0]), float(centre[1]), s1 - s0, t1 - t0, yaw, top, bottom, None, partial, front=True)

    def _level(self, where: np.ndarray, depth: np.ndarray, x0: int, y0: int, below: float,
               lowest: bool) -> float | None:
        """A surface height among pixels below ``below``: the most populated level (around an
        object: what it stands on), or the lowest well-populated one (inside: the interior floor)."""
        vv, uu = _sample(where)
        if vv.size == 0:
            return None
        zs = self.heights(uu + x0, vv + y0, depth[vv, uu])
        zs = np.sort(zs[zs < below])
        if zs.size < 3:
            return None
        if lowest:
            return float(np.median(zs[:max(3, zs.size // 10)]))
        width = self.config.surface_tolerance
        bins = np.floor((zs - zs[0]) / width).astype(np.int64)
        counts = np.bincount(bins)
        fullest = int(np.argmax(counts))
        return float(np.median(zs[(bins >= fullest - 1) & (bins <= fullest + 1)]))


def _sample(where: np.ndarray, budget: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """Row/column indices of (a regular subsample of) the true pixels: large regions cost no more."""
    step = max(1, int(math.sqrt(cv2.countNonZero(where.view(np.uint8)) / budget)))
    vv, uu = np.nonzero(where[::step, ::step])
    return vv * step, uu * step


def fuse_boxes(boxes: list[Box3D]) -> Box3D:
    """One box from per-pose boxes of the same thing: per-field medians (yaw is wrapped first),
    over the boxes seen whole when there are any (a surface cut by the image border is smaller)."""
    whole = [b for b in boxes if not b.partial]
    boxes = whole or boxes
    if len(boxes) == 1:
        return boxes[0]
    ref = boxes[0].yaw
    yaws = [ref + ((b.yaw - ref + 45.0) % 90.0) - 45.0 for b in boxes]
    inner = [b.inner for b in boxes if b.inner is not None]
    return Box3D(
        cx=float(np.median([b.cx for b in boxes])), cy=float(np.median([b.cy for b in boxes])),
        w=float(np.median([b.w for b in boxes])), d=float(np.median([b.d for b in boxes])),
        yaw=float(np.median(yaws)), top=float(np.median([b.top for b in boxes])),
        bottom=float(np.median([b.bottom for b in boxes])),
        inner=float(np.median(inner)) if len(inner) * 2 > len(boxes) else None, partial=not whole,
        front=any(b.front for b in boxes),
    )
