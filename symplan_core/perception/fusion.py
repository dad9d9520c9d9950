"""From per-frame detections to observed things with fused 3-D boxes.

Frames that share a camera pose (a static camera: the common case for key frames of one view)
are fused first: their depth becomes the per-pixel median of up to five of them (OpenCV
min/max sorting network), which removes occluders and dropout seen in a minority of frames, and
detections of the same thing (the same marker id, or the same label at the same place) are merged
(median corners) so each thing is lifted once per pose. Things seen from several poses are
associated in the world (marker id; else label and distance) and their boxes fused
(:func:`~symplan_core.perception.lifting.fuse_boxes`).

A marker id seen at several places at once is a substance (one instance, many patches) or a
mistake; which of the two is decided later, when the task's dialect is known.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import cv2
import numpy as np

from symplan_core.perception.detection import Detection
from symplan_core.perception.errors import PerceptionError
from symplan_core.perception.frames import CameraIntrinsics, Frame
from symplan_core.perception.lifting import Box3D, DepthLifter, LiftConfig, fuse_boxes


@dataclass
class Sighting:
    """One thing at one place: its merged detection per pose group and the fused box."""

    detections: list[Detection] = field(default_factory=list)
    boxes: list[Box3D] = field(default_factory=list)
    box: Box3D | None = None

    @property
    def fused(self) -> Box3D:
        """The fused box, which :func:`observe` sets on every sighting it returns."""
        if self.box is None:
            raise RuntimeError("a sighting's box was read before observe fused it")
        return self.box

    @property
    def frames(self) -> list[int]:
        return sorted({d.frame for d in self.detections})


@dataclass
class Observed:
    """Everything seen under one identity: a marker id, or a label (several places = several sightings)."""

    key: str
    label: str
    marker_id: int | None = None
    synset: str | None = None
    room: str | None = None
    sightings: list[Sighting] = field(default_factory=list)

    @property
    def frames(self) -> list[int]:
        return sorted({f for s in self.sightings for f in s.frames})

    @property
    def score(self) -> float:
        scores = [d.score for s in self.sightings for d in s.detections]
        return float(np.mean(scores)) if scores else 0.0


def _median_depth(frames: list[Frame]) -> np.ndarray:
    """Per-pixel median of the depth of up to five frames (min/max network, no sort)."""
    picks = [frames[int(round(i * (len(frames) - 1) / 4))] for i in range(5)] if len(frames) >= 5 else frames[:3]
    ds = [f.depth for f in picks if f.depth is not None]
    if len(ds) < len(picks):
        raise PerceptionError("a frame without depth cannot be lifted to 3-D")
    if len(ds) < 3:
        return ds[0]

    def med3(a, b, c):
        return cv2.max(cv2.min(a, b), cv2.min(cv2.max(a, b), c))

    if len(ds) == 3:
        return med3(*ds)
    a, b, c, d, e = ds
    return med3(e, cv2.max(cv2.min(a, b), cv2.min(c, d)), cv2.min(cv2.max(a, b), cv2.max(c, d)))


def _pose_groups(frames: list[Frame], default_pose: np.ndarray) -> list[tuple[np.ndarray, list[int]]]:
    groups: list[tuple[np.ndarray, list[int]]] = []
    for index, frame in enumerate(frames):
        pose = frame.pose if frame.pose is not None else default_pose
        for gpose, members in groups:
            if np.allclose(gpose, pose, atol=1e-6):
                members.append(index)
                break
        else:
            groups.append((pose, [index]))
    return groups


def _merge(dets: list[Detection]) -> Detection:
    corners = np.median(np.stack([d.corners for d in dets]), axis=0).astype(np.float32) \
        if len({len(d.corners) for d in dets}) == 1 else dets[0].corners
    best = max(dets, key=lambda d: d.score)
    return Detection(best.label, float(np.mean([d.score for d in dets])), corners, best.kind, best.marker_id,
                     best.synset, best.room, best.frame)


def _cluster(dets: list[Detection]) -> list[list[Detection]]:
    """Detections of one identity grouped by place in the image (same pose)."""
    clusters: list[list[Detection]] = []
    for det in sorted(dets, key=lambda d: (d.frame, d.center)):
        x0, y0, x1, y1 = det.box
        reach = max(x1 - x0, y1 - y0) * 0.75
        for cluster in clusters:
            cx, cy = cluster[0].center
            if math.hypot(det.center[0] - cx, det.center[1] - cy) <= reach and all(c.frame != det.frame for c in cluster):
                cluster.append(det)
                break
        else:
            clusters.append([det])
    return clusters


def identity(det: Detection) -> str:
    return f"marker:{det.marker_id}" if det.marker_id is not None else f"label:{det.label}"


def observe(frames: list[Frame], detections: list[list[Detection]], intrinsics: CameraIntrinsics,
            default_pose: np.ndarray, config: LiftConfig) -> tuple[list[Observed], list[str]]:
    """Observed things with fused boxes, and notes on what could not be lifted."""
    notes: list[str] = []
    found: dict[str, Observed] = {}
    for pose, members in _pose_groups(frames, default_pose):
        group_frames = [frames[i] for i in members]
        depth = _median_depth(group_frames)
        lifter = DepthLifter(Frame(group_frames[0].rgb, depth, pose=pose), intrinsics, pose, config)
        lifter.set_detections([det for i in members for det in detections[i]])
        by_identity: dict[str, list[Detection]] = defaultdict(list)
        for i in members:
            for det in detections[i]:
                by_identity[identity(det)].append(det)
        for key, dets in by_identity.items():
            obs = found.get(key)
            if obs is None:
                obs = found[key] = Observed(key, dets[0].label, dets[0].marker_id, dets[0].synset, dets[0].room)
            for cluster in _cluster(dets):
                box = lifter.lift(_merge(cluster))
                if box is None:
                    notes.append(f"{obs.label} ({key}) in frames {sorted({d.frame for d in cluster})}: "
                                 "no usable depth at the detection")
                    continue
                _associate(obs, cluster, box)
    for obs in found.values():
        for sighting in obs.sightings:
            sighting.box = fuse_boxes(sighting.boxes)
        obs.sightings.sort(key=lambda s: (-len(s.frames), s.fused.cx, s.fused.cy))
    return [o for o in found.values() if o.sightings], notes


def _associate(obs: Observed, cluster: list[Detection], box: Box3D) -> None:
    """Add a pose group's sighting to the same place seen from another pose, or a new place."""
    for sighting in obs.sightings:
        ref = sighting.boxes[0]
        if ref.front and box.front and (min(ref.top, box.top) < max(ref.bottom, box.bottom)
                                        or set(sighting.frames) & {d.frame for d in cluster}):
            continue  # front-view boxes (their depth assumed): one above the other, or told apart in a frame
        if math.hypot(ref.cx - box.cx, ref.cy - box.cy) <= 0.5 * max(ref.w, ref.d, box.w, box.d):
            sighting.detections.extend(cluster)
            sighting.boxes.append(box)
            return
    obs.sightings.append(Sighting(list(cluster), [box]))
