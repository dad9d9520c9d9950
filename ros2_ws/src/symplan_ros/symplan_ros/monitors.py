"""Camera intake and health reporting for the planner node (diagnostic_msgs, no updater lib).

diagnostic_updater is not available from PyPI, so the node builds DiagnosticArray messages
itself from these small health records.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from symplan_ros.images import ImageError, image_to_numpy
from symplan_ros.scene import KeyFrameBuffer

OK, WARN, ERROR = 0, 1, 2  # diagnostic_msgs/DiagnosticStatus levels (bytes on the wire)


@dataclass
class Health:
    name: str
    level: int
    message: str
    values: dict[str, str]


class CameraMonitor:
    """Converts incoming images, feeds the key-frame buffer and tracks camera health."""

    def __init__(self, keyframes: KeyFrameBuffer) -> None:
        self.keyframes = keyframes
        self.enabled = False
        self.frames = 0
        self.depth_frames = 0
        self.rejected = 0
        self.last_error = ""
        self.last_frame_s = 0.0
        self.latest_depth: Any = None
        self.camera_info: Any = None
        self._lock = threading.Lock()

    def _convert(self, msg: Any, kind: str) -> Any:
        """The image as numpy, or the ImageError (counted, remembered); never raises."""
        try:
            return image_to_numpy(msg)
        except ImageError as exc:
            with self._lock:
                self.rejected += 1
                self.last_error = f"{kind} {exc}"
            return exc

    def on_rgb(self, msg: Any) -> ImageError | None:
        image = self._convert(msg, "rgb")
        if isinstance(image, ImageError):
            return image
        self.keyframes.offer(image, msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)
        with self._lock:
            self.frames += 1
            self.last_frame_s = time.monotonic()
            self.last_error = ""
        return None

    def on_depth(self, msg: Any) -> ImageError | None:
        depth = self._convert(msg, "depth")
        if isinstance(depth, ImageError):
            return depth
        with self._lock:
            self.depth_frames += 1
            self.latest_depth = depth
        return None

    def on_info(self, msg: Any) -> None:
        self.camera_info = msg

    def health(self) -> Health:
        with self._lock:
            values = {
                "frames": str(self.frames), "depth_frames": str(self.depth_frames),
                "rejected": str(self.rejected), "keyframes": str(len(self.keyframes)),
                "last_error": self.last_error,
            }
            if not self.enabled:
                return Health("camera", OK, "camera disabled (no topic)", values)
            if self.last_error:
                return Health("camera", WARN, f"rejected image: {self.last_error}", values)
            if self.frames == 0:
                return Health("camera", OK, "no frames yet (scene comes from BDDL)", values)
            age = time.monotonic() - self.last_frame_s
            values["last_frame_age_s"] = f"{age:.2f}"
            return Health("camera", OK, "receiving frames", values)


def diagnostic_array(node_name: str, stamp: Any, items: list[Health]) -> Any:
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

    arr = DiagnosticArray()
    arr.header.stamp = stamp
    for h in items:
        arr.status.append(DiagnosticStatus(
            level=bytes([h.level]), name=f"{node_name}: {h.name}", message=h.message,
            hardware_id=node_name,
            values=[KeyValue(key=k, value=v) for k, v in h.values.items()],
        ))
    return arr
