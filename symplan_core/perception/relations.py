"""Relations from 3-D boxes: ``ontop``, ``inside``, ``under``, ``nextto``, ``inroom`` (and, for
substance patches, ``covered`` / ``filled``). ``onfloor`` is B-100's spelling of ``ontop`` a floor:
the writer's dialect conversion produces it.

Every region stands on at most one support: the surface (a top, or the interior floor of an open
container) whose height matches the region's bottom within ``support_tolerance`` and under which
at least ``min_overlap`` of its footprint lies; the closest height wins, then the larger overlap.
Boxes lifted in the front view (``Box3D.front``) that find no such surface may stand on a level
inside a larger front box (a shelf board seen edge-on): ``inside`` the tightest one.
Fixtures (BEHAVIOR ``sceneObject``) standing on a floor are located by room (``inroom``), as the
benchmark files do; movable things on a floor get ``ontop`` it. States vision cannot see are not
produced here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
from pydantic import BaseModel, ConfigDict, Field

from symplan_core.perception.errors import PerceptionError
from symplan_core.perception.lifting import Box3D


class RelationConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    support_tolerance: float = Field(default=0.025, gt=0, description="metres between a bottom and a surface")
    min_overlap: float = Field(default=0.5, gt=0, le=1, description="fraction of the footprint over the support")
    nextto_gap: float = Field(default=0.02, ge=0, description="metres between footprints to call them next to")
    nextto: bool = Field(default=True, description="infer nextto between things on the same support")


@dataclass
class Region:
    """One lifted thing. ``owner`` is the instance it belongs to (several patches of one
    substance share an owner); ``room`` is set for floors and room markers."""

    key: str
    owner: str | None
    box: Box3D
    kind: str = "object"  # object | floor | room | substance
    fixture: bool = False
    room: str | None = None

    @property
    def instance(self) -> str:
        """The instance a relation names for this region (every kind has one but a room marker)."""
        if self.owner is None:
            raise PerceptionError(f"region {self.key} ({self.kind}) belongs to no instance")
        return self.owner


@dataclass(frozen=True)
class Relation:
    predicate: str
    args: tuple[str, ...]
    regions: tuple[str, ...]  # region keys that support it
    detail: str = ""


@dataclass
class RelationResult:
    relations: list[Relation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # region keys with no support found


def overlap_area(a: Box3D, b: Box3D) -> float:
    """Area of the intersection of two footprints (OpenCV rotated-rectangle intersection)."""
    kind, points = cv2.rotatedRectangleIntersection(a.rect, b.rect)
    if kind == cv2.INTERSECT_NONE or points is None or len(points) < 3:
        return 0.0
    return float(cv2.contourArea(points))


def _grown(box: Box3D, margin: float) -> Box3D:
    return Box3D(box.cx, box.cy, box.w + 2 * margin, box.d + 2 * margin, box.yaw, box.top, box.bottom, box.inner)


def contains_point(box: Box3D, x: float, y: float) -> bool:
    return cv2.pointPolygonTest(box.corners.reshape(-1, 1, 2), (x, y), False) >= 0


def is_frame(box: Box3D, tol: float) -> bool:
    """Open with its interior at its own bottom: a rim on legs (things under it stand beside its feet)."""
    return box.inner is not None and abs(box.inner - box.bottom) <= tol


def room_of_point(regions: list[Region], x: float, y: float) -> str | None:
    """The room whose floor region (floor or room marker) contains a point; the smallest one wins."""
    best = None
    for r in regions:
        if r.room and r.kind in ("floor", "room") and contains_point(r.box, x, y):
            if best is None or r.box.area < best.box.area:
                best = r
    return best.room if best else None


def infer_relations(regions: list[Region], config: RelationConfig | None = None) -> RelationResult:
    config = config or RelationConfig()
    tol = config.support_tolerance
    out = RelationResult()
    supports: dict[str, tuple[str, Region]] = {}
    for a in regions:
        if a.kind in ("floor", "room"):
            room = a.room or room_of_point([r for r in regions if r.kind == "room"], a.box.cx, a.box.cy)
            if a.kind == "floor" and a.owner and room:
                out.relations.append(Relation("inroom", (a.owner, room), (a.key,), "floor's room"))
            continue
        best = None
        for b in regions:
            if b is a or b.owner == a.owner or b.kind == "substance":
                continue
            surfaces = [("ontop", b.box.top)]
            if b.box.inner is not None and b.kind == "object" and not is_frame(b.box, tol):
                surfaces.append(("inside", b.box.inner))
            for rel, z in surfaces:
                dz = abs(a.box.bottom - z)
                if dz > tol:
                    continue
                share = _share(a.box, b.box)
                if share < config.min_overlap:
                    continue
                rank = (b.kind == "room", dz, -share)  # a room marker only when no thing or floor fits
                if best is None or rank < best[0]:
                    best = (rank, rel, b)
        if best is None and a.box.front:
            best = _front_level(a, regions, config)
        if best is None:
            out.unsupported.append(a.key)
            continue
        _rank, rel, b = best
        supports[a.key] = (rel, b)
        out.relations.extend(_support_facts(a, rel, b, regions))
    out.relations.extend(_under(regions, tol, config.min_overlap))
    if config.nextto:
        out.relations.extend(_nextto(regions, supports, config.nextto_gap))
    return out


FRONT_DEPTH_SLACK = 0.05  # metres a front-view box's front may lie before its support's


def _share(a: Box3D, b: Box3D) -> float:
    """The fraction of ``a``'s footprint over ``b``'s. Between two front-view boxes, whose depth
    behind the front is assumed, not seen: the fraction of ``a``'s width within ``b``'s, provided
    ``a``'s front lies within ``b``'s depth (not in front of it)."""
    if not (a.front and b.front):
        return overlap_area(a, b) / max(a.area, 1e-9)
    yaw = math.radians(b.yaw)
    f = (math.cos(yaw), math.sin(yaw))
    lat = (-f[1], f[0])
    a_s, b_s = a.cx * f[0] + a.cy * f[1], b.cx * f[0] + b.cy * f[1]
    a_t, b_t = a.cx * lat[0] + a.cy * lat[1], b.cx * lat[0] + b.cy * lat[1]
    a_front = a_s - a.w / 2
    if not b_s - b.w / 2 - FRONT_DEPTH_SLACK <= a_front <= b_s + b.w / 2:
        return 0.0
    width = min(a_t + a.d / 2, b_t + b.d / 2) - max(a_t - a.d / 2, b_t - b.d / 2)
    return max(0.0, width) / max(a.d, 1e-9)


def _front_level(a: Region, regions: list[Region], config: RelationConfig):
    """Front view: ``a`` stands on a level inside another front box ``b`` (a shelf board, a cabinet
    floor), which the camera sees edge-on: ``a``'s bottom lies strictly inside ``b``'s height, ``a``
    does not reach above ``b``, and ``min_overlap`` of ``a``'s footprint is ``b``'s. The tightest such
    ``b`` (smallest footprint) holds it: ``inside``."""
    tol = config.support_tolerance
    best = None
    for b in regions:
        if b is a or b.owner == a.owner or b.kind != "object" or not b.box.front:
            continue
        if not (b.box.bottom + tol < a.box.bottom < b.box.top - tol and a.box.top <= b.box.top + tol):
            continue
        if b.box.area <= a.box.area:
            continue
        share = _share(a.box, b.box)
        if share < config.min_overlap:
            continue
        rank = (b.box.area, -share)
        if best is None or rank < best[0]:
            best = (rank, "inside", b)
    return best


def _support_facts(a: Region, rel: str, b: Region, regions: list[Region]) -> list[Relation]:
    keys = (a.key, b.key)
    if a.kind == "substance":
        if b.kind == "room" or not b.owner:
            return []
        return [Relation("covered" if rel == "ontop" else "filled", (b.instance, a.instance), keys, f"patch {rel}")]
    if b.kind in ("floor", "room"):
        room = b.room or room_of_point(regions, b.box.cx, b.box.cy)
        if a.fixture or b.kind == "room" or not b.owner:
            return [Relation("inroom", (a.instance, room), keys, "stands on the room's floor")] if room else []
    return [Relation(rel, (a.instance, b.instance), keys)]


def _under(regions: list[Region], tol: float, min_overlap: float) -> list[Relation]:
    found = []
    for b in regions:
        if b.kind != "object" or not is_frame(b.box, tol):
            continue
        for a in regions:
            if a is b or a.kind not in ("object",) or a.owner == b.owner:
                continue
            if abs(a.box.bottom - b.box.bottom) <= tol and a.box.top < b.box.top - tol / 2 \
                    and overlap_area(a.box, b.box) / max(a.box.area, 1e-9) >= min_overlap:
                found.append(Relation("under", (a.instance, b.instance), (a.key, b.key)))
    return found


def _nextto(regions: list[Region], supports: dict[str, tuple[str, Region]], gap: float) -> list[Relation]:
    by_key = {r.key: r for r in regions}
    found = []
    keys = sorted(k for k in supports if by_key[k].kind == "object")
    for i, ka in enumerate(keys):
        for kb in keys[i + 1:]:
            a, b = by_key[ka], by_key[kb]
            if a.owner == b.owner or supports[ka][1].key != supports[kb][1].key or supports[ka][0] != supports[kb][0]:
                continue
            if overlap_area(a.box, b.box) > 0.05 * min(a.box.area, b.box.area):
                continue
            if overlap_area(_grown(a.box, gap), b.box) > 0:
                found.append(Relation("nextto", (a.instance, b.instance), (ka, kb)))
    return found
