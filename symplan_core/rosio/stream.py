"""Camera messages -> synchronised perception frames: one path for the live node and bag replay.

:class:`CameraStream` takes ``sensor_msgs`` colour images (raw or compressed), depth images and
``CameraInfo`` as they come, decodes them (:mod:`symplan_core.rosio.images`), pairs colour with
depth by stamp (:class:`~symplan_core.rosio.sync.StampSync`) and yields perception
:class:`~symplan_core.perception.Frame` objects. It checks what perception would otherwise trip
over later: depth whose size differs from its colour frame, and camera info that contradicts the
images. Failures raise typed errors (:class:`ImageError`, :class:`CameraStreamError`); the caller
decides whether that ends a replay or becomes a diagnostic on a running node.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from symplan_core.errors import SymPlanError
from symplan_core.rosio.images import decode_color, decode_depth, stamp_seconds
from symplan_core.rosio.sync import StampSync


class CameraStreamError(SymPlanError, ValueError):
    """Messages that decode but do not fit together (sizes, camera info); ``reason`` is a short tag."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class StreamStats:
    color: int = 0
    depth: int = 0
    frames: int = 0
    last_stamp: float | None = None


class CameraStream:
    """Decode, check and pair camera messages into frames (see the module docstring)."""

    def __init__(self, tolerance_s: float = 0.05, with_depth: bool = True) -> None:
        self.sync: StampSync[np.ndarray] = StampSync(tolerance_s, with_depth)
        self.intrinsics: Any = None  # perception CameraIntrinsics, from the first CameraInfo
        self.stats = StreamStats()
        self._lock = threading.Lock()

    def on_info(self, msg: Any) -> None:
        from symplan_core.perception import CameraIntrinsics, IntrinsicsError

        try:
            intrinsics = CameraIntrinsics.from_camera_info(msg)
        except IntrinsicsError as exc:
            raise CameraStreamError("bad_camera_info", str(exc)) from None
        with self._lock:
            if self.intrinsics is not None and intrinsics != self.intrinsics:
                # A camera whose calibration changes mid-stream would mix two geometries in one scene.
                old = self.intrinsics
                raise CameraStreamError("camera_info_changed",
                                        f"camera info changed from {old.width}x{old.height} fx={old.fx:g} to "
                                        f"{intrinsics.width}x{intrinsics.height} fx={intrinsics.fx:g}")
            self.intrinsics = intrinsics

    def on_color(self, msg: Any) -> list[Any]:
        rgb = decode_color(msg)
        with self._lock:
            self.stats.color += 1
        return self._frames(self.sync.add_color(stamp_seconds(msg), rgb))

    def on_depth(self, msg: Any) -> list[Any]:
        depth = decode_depth(msg)
        with self._lock:
            self.stats.depth += 1
        return self._frames(self.sync.add_depth(stamp_seconds(msg), depth))

    def _frames(self, pairs) -> list[Any]:
        from symplan_core.perception import Frame, PerceptionError

        frames = []
        for pair in pairs:
            rgb = pair.color.item
            depth = pair.depth.item if pair.depth is not None else None
            if depth is not None and depth.shape != rgb.shape[:2]:
                raise CameraStreamError("depth_size_mismatch",
                                        f"depth {depth.shape[1]}x{depth.shape[0]} does not match colour "
                                        f"{rgb.shape[1]}x{rgb.shape[0]} at t={pair.color.stamp:.3f} s")
            intrinsics = self.intrinsics
            if intrinsics is not None and (intrinsics.width, intrinsics.height) != (rgb.shape[1], rgb.shape[0]):
                raise CameraStreamError("camera_info_mismatch",
                                        f"image {rgb.shape[1]}x{rgb.shape[0]} but camera info says "
                                        f"{intrinsics.width}x{intrinsics.height}")
            try:
                frames.append(Frame(rgb, depth, stamp=pair.color.stamp, source=f"camera@{pair.color.stamp:.3f}s"))
            except PerceptionError as exc:  # e.g. an image too small to perceive anything in
                raise CameraStreamError("bad_frame", str(exc)) from None
        with self._lock:
            self.stats.frames += len(frames)
            if frames:
                self.stats.last_stamp = frames[-1].stamp
        return frames
