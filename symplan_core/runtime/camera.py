"""The camera frame buffer: image messages -> synchronised frames -> a short recent buffer.

:class:`CameraFeed` feeds ``symplan_core.rosio.stream.CameraStream`` (the decoder and stamp
synchroniser that ``symplan replay`` uses too) from the subscription callbacks, keeps the last
few synchronised frames (bounded in count and thinned to ``max_rate_hz``), and knows the camera's
health: no frames, stale frames, colour without depth (unsynchronised), rejected images (bad
encoding, wrong sizes) and an unavailable detector. Callbacks never raise: a bad message is
counted and remembered for /diagnostics, and the node keeps running. Messages are duck-typed
(sensor_msgs Image / CompressedImage / CameraInfo fields); no rclpy in here.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from symplan_core.errors import SymPlanError
from symplan_core.rosio.images import ImageError
from symplan_core.rosio.stream import CameraStream, CameraStreamError
from symplan_core.runtime.config import CameraSection
from symplan_core.runtime.health import ERROR, OK, WARN, Health

if TYPE_CHECKING:  # perception needs OpenCV (the vision extra); a BDDL-only node runs without it
    from symplan_core.perception.frames import CameraIntrinsics, Frame

#: A rejected image keeps the camera in WARN for this long after the last one (then it is history).
_ERROR_MEMORY_S = 5.0


class CameraUnavailable(SymPlanError):
    """No usable frames for a goal; the message says which camera problem it is."""


class CameraFeed:
    """See the module docstring. Thread-safe: subscription callbacks and the goal thread share it."""

    def __init__(self, config: CameraSection | None = None, required: bool = False) -> None:
        """``config`` None: no camera (no topics). ``required``: the scene comes from this camera
        (``scene.source: camera``), so a missing topic or detector is an error, not a note."""
        self.config = config or CameraSection(rgb_topic="")
        self.required = required
        self.enabled = bool(self.config.rgb_topic or self.config.depth_topic)
        self.stream = CameraStream(self.config.sync_tolerance_s, with_depth=bool(self.config.depth_topic))
        self.detector_error = ""  # set by the node when the configured detector cannot be built
        self.color_frames = 0  # colour images decoded
        self.depth_frames = 0
        self.rejected = 0
        self.last_error = ""
        self._last_error_at = float("-inf")
        self._last_frame_at = float("-inf")  # monotonic receive time of the last synchronised frame
        self._last_color_at = float("-inf")
        self._recent: deque[tuple[float, Frame]] = deque(maxlen=max(1, self.config.buffer_frames))
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)

    # ---- callbacks (never raise) ------------------------------------------------------------
    def _guarded(self, kind: str, handle: Callable[[], list[Frame]]) -> Exception | None:
        try:
            frames = handle()
        except (ImageError, CameraStreamError) as exc:
            with self._lock:
                self.rejected += 1
                self.last_error, self._last_error_at = f"{kind} {exc}", time.monotonic()
            return exc
        except Exception as exc:  # noqa: BLE001 - process boundary: a malformed message must not kill the node
            with self._lock:
                self.rejected += 1
                self.last_error = f"{kind} {type(exc).__name__}: {exc}"
                self._last_error_at = time.monotonic()
            return exc
        now = time.monotonic()
        with self._arrived:
            for frame in frames:
                last = self._recent[-1][1] if self._recent else None
                if last is not None and frame.stamp - last.stamp < 1.0 / self.config.max_rate_hz:
                    continue  # thinned: consecutive frames at camera rate add nothing for perception
                self._recent.append((now, frame))
            if frames:
                self._last_frame_at = now
                self._arrived.notify_all()
        return None

    def _check_size(self, msg: Any) -> None:
        size = len(msg.data)
        if size > self.config.max_image_bytes:
            raise ImageError("too_large", f"{size} bytes of data, over camera.max_image_bytes "
                                          f"({self.config.max_image_bytes})")

    def on_rgb(self, msg: Any) -> Exception | None:
        return self._guarded("rgb", lambda: self._accept(msg, self.stream.on_color, "color_frames"))

    def on_depth(self, msg: Any) -> Exception | None:
        return self._guarded("depth", lambda: self._accept(msg, self.stream.on_depth, "depth_frames"))

    def _accept(self, msg: Any, decode: Callable[[Any], list[Frame]], counter: str) -> list[Frame]:
        """Size-check, decode and count one image (a rejected one raises before it is counted)."""
        self._check_size(msg)
        frames = decode(msg)
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)
            if counter == "color_frames":
                self._last_color_at = time.monotonic()
        return frames

    def on_info(self, msg: Any) -> Exception | None:
        def take() -> list[Frame]:
            self.stream.on_info(msg)
            return []

        return self._guarded("camera_info", take)

    # ---- for a goal -------------------------------------------------------------------------
    def recent(self, window_s: float) -> list[Frame]:
        """Synchronised frames received within the last ``window_s`` seconds, oldest first."""
        cutoff = time.monotonic() - window_s
        with self._lock:
            return [frame for at, frame in self._recent if at >= cutoff]

    def wait_for_frames(self, window_s: float, timeout_s: float, should_cancel: Callable[[], bool] = lambda: False,
                        min_frames: int = 1) -> tuple[list[Frame], CameraIntrinsics]:
        """(frames, intrinsics) once ``min_frames`` fresh frames (or as many as came before the
        timeout, if any) and camera info are there; CameraUnavailable otherwise (the message names
        the camera problem)."""
        problem = self.blocking_problem()
        if problem:
            raise CameraUnavailable(problem)
        deadline = time.monotonic() + timeout_s
        wanted = min(max(1, min_frames), self.config.buffer_frames)
        while True:
            frames = self.recent(window_s)
            intrinsics = self.stream.intrinsics
            remaining = deadline - time.monotonic()
            if intrinsics is not None and (len(frames) >= wanted or (frames and remaining <= 0)):
                return frames, intrinsics
            if remaining <= 0 or should_cancel():
                raise CameraUnavailable(self.frame_problem(waited_s=timeout_s) or "no usable frames")
            with self._arrived:
                self._arrived.wait(min(0.05, remaining))

    def frames_after(self, since: float, min_frames: int, timeout_s: float,
                     should_cancel: Callable[[], bool] = lambda: False) -> tuple[list[Frame], CameraIntrinsics]:
        """(frames received after ``since`` (``time.monotonic()``), intrinsics) once ``min_frames`` of
        them are there; as many as came when ``timeout_s`` (counted from ``since``) ends, if any;
        CameraUnavailable otherwise (execution monitoring: frames of the world after a skill)."""
        wanted = min(max(1, min_frames), self.config.buffer_frames)
        deadline = since + timeout_s
        while True:
            with self._lock:
                frames = [frame for at, frame in self._recent if at >= since]
            intrinsics = self.stream.intrinsics
            remaining = deadline - time.monotonic()
            if intrinsics is not None and (len(frames) >= wanted or (frames and remaining <= 0)):
                return frames[-wanted:], intrinsics
            if remaining <= 0 or should_cancel():
                raise CameraUnavailable(self.frame_problem(waited_s=timeout_s) or
                                        f"no frame within {timeout_s:g} s of the report")
            with self._arrived:
                self._arrived.wait(min(0.05, max(remaining, 0.001)))

    # ---- health -----------------------------------------------------------------------------
    def blocking_problem(self) -> str:
        """A configuration problem that no waiting can fix ("" when there is none)."""
        if not self.required:
            return ""
        missing = [name for name, topic in (("camera.rgb_topic", self.config.rgb_topic),
                                            ("camera.depth_topic", self.config.depth_topic),
                                            ("camera.info_topic", self.config.info_topic)) if not topic]
        if missing:
            return f"scene.source is camera but {', '.join(missing)} is empty"
        if self.detector_error:
            return f"detector unavailable: {self.detector_error}"
        return ""

    def frame_problem(self, waited_s: float | None = None) -> str:
        """Why there are no fresh frames ("" when frames are arriving)."""
        now = time.monotonic()
        with self._lock:
            last_frame, last_color = self._last_frame_at, self._last_color_at
            rejected_recently = now - self._last_error_at < _ERROR_MEMORY_S
            error = self.last_error
            unmatched = self.stream.sync.stats.unmatched_color
        within = f" within {waited_s:g} s" if waited_s is not None else ""
        if rejected_recently and now - last_frame > self.config.stale_after_s:
            return f"bad frames: {error}"
        if last_color == float("-inf"):
            return f"no frames on {self.config.rgb_topic}{within}"
        if self.stream.intrinsics is None:
            return f"no CameraInfo on {self.config.info_topic}{within}"
        if now - last_frame > self.config.stale_after_s and now - last_color <= self.config.stale_after_s:
            return (f"unsynchronised depth: colour frames on {self.config.rgb_topic} have no depth on "
                    f"{self.config.depth_topic} within {self.config.sync_tolerance_s:g} s ({unmatched} unmatched)")
        if now - last_frame > self.config.stale_after_s:
            return f"stale frames: the last one arrived {now - last_frame:.1f} s ago"
        return ""

    def health(self) -> Health:
        now = time.monotonic()
        with self._lock:
            values = {"frames": str(self.color_frames), "depth_frames": str(self.depth_frames),
                      "rejected": str(self.rejected), "buffered": str(len(self._recent)),
                      "unmatched_color": str(self.stream.sync.stats.unmatched_color),
                      "last_error": self.last_error}
            last_frame, rejected_recently = self._last_frame_at, now - self._last_error_at < _ERROR_MEMORY_S
            error = self.last_error
        if last_frame > float("-inf"):
            values["last_frame_age_s"] = f"{now - last_frame:.2f}"
        if not self.enabled and not self.required:
            return Health("camera", OK, "camera disabled (no topic)", values)
        blocking = self.blocking_problem()
        if blocking:
            return Health("camera", ERROR, blocking, values)
        if rejected_recently:
            return Health("camera", WARN, f"rejected image: {error}", values)
        problem = self.frame_problem()
        if problem:
            level = WARN if self.required else OK
            return Health("camera", level, problem if self.required else f"{problem} (scene comes from BDDL)",
                          values)
        return Health("camera", OK, "receiving frames", values)
