"""What the planner believes it sees, in the camera's frame (for ``~/scene_markers``; no rclpy).

Perception lifts objects into a world frame (z up) through the camera pose it used (the frames'
pose, else ``PerceptionConfig.default_pose()``, an overhead camera); :func:`box_in_camera` maps a
lifted box back into the camera's optical frame (x right, y down, z forward, REP 103), so the
boxes line up with the images whose ``frame_id`` the markers carry. A :class:`CameraView` is built
from the scene's provenance when a goal is perceived (:func:`view_from_provenance`) and from the
execution monitor's latest snapshot after each check (:func:`view_from_snapshot`); ``active``
names the running subgoal's objects.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class ViewObject:
    name: str  # the planner's instance
    synset: str
    center: Vec3  # camera frame, metres
    size: Vec3  # along the box's own axes (footprint width, depth; height)
    orientation: tuple[float, float, float, float]  # quaternion x, y, z, w (camera frame)


@dataclass(frozen=True)
class CameraView:
    objects: tuple[ViewObject, ...] = ()
    relations: tuple[tuple[str, str, str], ...] = ()  # (predicate, a, b) between objects of the view
    active: frozenset[str] = frozenset()  # the running subgoal's objects

    def with_active(self, names: Iterable[str]) -> CameraView:
        return replace(self, active=frozenset(names))


def quaternion(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """(x, y, z, w) of a 3 x 3 rotation matrix."""
    m = rotation
    trace = float(m[0, 0] + m[1, 1] + m[2, 2])
    if trace > 0:
        s = math.sqrt(trace + 1.0) * 2
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x, y, z = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x, y, z = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x, y, z = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    return float(x), float(y), float(z), float(w)


def box_in_camera(cx: float, cy: float, w: float, d: float, yaw_deg: float, top: float, bottom: float,
                  pose: np.ndarray) -> tuple[Vec3, Vec3, tuple[float, float, float, float]]:
    """(centre, size, orientation) in the camera frame of a world box (``pose``: camera -> world)."""
    to_camera = np.asarray(pose, dtype=float)[:3, :3].T
    origin = np.asarray(pose, dtype=float)[:3, 3]
    centre = to_camera @ (np.array([cx, cy, (top + bottom) / 2.0]) - origin)
    yaw = math.radians(yaw_deg)
    spin = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0.0, 0.0, 1.0]])
    size = (max(float(w), 1e-3), max(float(d), 1e-3), max(float(top - bottom), 1e-3))
    return (float(centre[0]), float(centre[1]), float(centre[2])), size, quaternion(to_camera @ spin)


def _relations(facts: Iterable[tuple[str, ...]], names: set[str]) -> tuple[tuple[str, str, str], ...]:
    out = []
    for fact in facts:
        if len(fact) == 3 and fact[1] in names and fact[2] in names:
            out.append((fact[0], fact[1], fact[2]))
    return tuple(sorted(set(out)))


def view_from_provenance(provenance: Mapping[str, Any], pose: np.ndarray) -> CameraView:
    """The detected objects (first fused box each) and observed two-object facts of a perceived scene."""
    objects = []
    for inst, entry in sorted((provenance.get("objects") or {}).items()):
        boxes = entry.get("boxes") or []
        if entry.get("source") != "detection" or not boxes:
            continue
        box = boxes[0]
        centre, size, orientation = box_in_camera(box["center"][0], box["center"][1], box["size"][0],
                                                  box["size"][1], box.get("yaw", 0.0), box["top"], box["bottom"], pose)
        objects.append(ViewObject(inst, str(entry.get("type") or ""), centre, size, orientation))
    names = {o.name for o in objects}
    facts = []
    for fact in provenance.get("facts") or []:
        if fact.get("source") == "observed" and not fact["fact"].startswith("(not"):
            facts.append(tuple(fact["fact"].strip("()").split()))
    return CameraView(tuple(objects), _relations(facts, names))


def view_from_snapshot(snapshot: Any, names: Mapping[str, str]) -> CameraView:
    """A monitoring snapshot (``perception.pipeline.SceneSnapshot``) in the planner's names
    (``names``: scene instance -> planner instance; objects it does not name keep their own)."""
    objects = []
    for inst, obj in sorted(snapshot.objects.items()):
        b = obj.box
        centre, size, orientation = box_in_camera(b.cx, b.cy, b.w, b.d, b.yaw, b.top, b.bottom, snapshot.pose)
        objects.append(ViewObject(names.get(inst, inst), obj.synset, centre, size, orientation))
    facts = [(rel[0], *(names.get(a, a) for a in rel[1:])) for rel in snapshot.relations]
    return CameraView(tuple(objects), _relations(facts, {o.name for o in objects}))
