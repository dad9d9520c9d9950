"""Scene sources: where the planner's symbolic problem comes from.

Until a perception component exists, the problem is the goal's BDDL text, the goal's task id,
or a BDDL file / task id given as parameters. Camera frames are still collected into a bounded
key-frame buffer, exposed on the scene source so a perception-backed source can use them.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class SceneError(ValueError):
    """The request names no usable scene (no BDDL, unknown task, unreadable file)."""


@dataclass(frozen=True)
class TaskRequest:
    """What a Plan goal asks for, independent of ROS message types."""

    instruction: str = ""
    bddl: str = ""
    task_id: str = ""
    benchmark: str = ""
    robot: str = ""
    execute: bool = True


@dataclass(frozen=True)
class Scene:
    problem: Any  # symplan_core.bddl.Problem
    bddl_text: str
    origin: str  # human-readable: "goal bddl", "task assembling_gift_baskets", "file x.bddl"


@dataclass(frozen=True)
class KeyFrame:
    stamp_s: float
    image: np.ndarray
    difference: float  # mean absolute difference to the previous key frame, in [0, 1]


class KeyFrameBuffer:
    """Keeps at most ``capacity`` frames that differ enough from the last kept one.

    Difference is the mean absolute grey-level change on a subsampled copy, so the cost per
    frame stays small for full-resolution streams.
    """

    def __init__(self, capacity: int = 16, threshold: float = 0.08, sample_px: int = 64) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.threshold = threshold
        self._sample_px = sample_px
        self._frames: deque[KeyFrame] = deque(maxlen=capacity)
        self._last_small: np.ndarray | None = None
        self._lock = threading.Lock()  # camera callbacks and planner threads both touch it

    def _small(self, image: np.ndarray) -> np.ndarray:
        grey = image.astype(np.float32)
        if grey.ndim == 3:
            grey = grey[..., :3].mean(axis=2)
        stride = max(1, max(grey.shape[:2]) // self._sample_px)
        small = grey[::stride, ::stride]
        peak = float(np.iinfo(image.dtype).max) if image.dtype.kind in "ui" else max(1.0, float(small.max()))
        return small / peak

    def offer(self, image: np.ndarray, stamp_s: float) -> bool:
        """Add ``image`` if it is a key frame; return True if it was kept."""
        small = self._small(image)
        with self._lock:
            last = self._last_small
            if last is not None and last.shape == small.shape:
                diff = float(np.abs(small - last).mean())
                if diff < self.threshold:
                    return False
            else:
                diff = 1.0
            self._frames.append(KeyFrame(stamp_s, image, diff))
            self._last_small = small
            return True

    def frames(self) -> list[KeyFrame]:
        with self._lock:
            return list(self._frames)

    def __len__(self) -> int:
        with self._lock:
            return len(self._frames)


class SceneSource(Protocol):
    keyframes: KeyFrameBuffer

    def resolve(self, request: TaskRequest) -> Scene: ...


class BddlSceneSource:
    """Goal BDDL text > goal task id > ``bddl_file`` parameter > ``task_id`` parameter."""

    def __init__(self, keyframes: KeyFrameBuffer, task_id: str = "", benchmark: str = "",
                 bddl_file: str = "") -> None:
        self.keyframes = keyframes
        self._task_id = task_id
        self._benchmark = benchmark
        self._bddl_file = bddl_file

    def resolve(self, request: TaskRequest) -> Scene:
        from symplan_core.bddl import BDDLError, parse_problem
        from symplan_core.bddl.writer import write_problem
        from symplan_core.data.fetch import DataError

        try:
            if request.bddl.strip():
                problem = parse_problem(request.bddl, filename="<goal>")
                return Scene(problem, request.bddl, "goal bddl")
            if self._bddl_file and not request.task_id:
                text = Path(self._bddl_file).read_text()
                return Scene(parse_problem(text, filename=self._bddl_file), text, f"file {self._bddl_file}")
            task = request.task_id or self._task_id
            if not task:
                raise SceneError("no scene: the goal has neither bddl nor task_id and no scene parameter is set")
            from symplan_core.tasks import load_problem

            problem = load_problem(task, request.benchmark or self._benchmark or None)
            return Scene(problem, write_problem(problem), f"task {task}")
        except (BDDLError, DataError, OSError, UnicodeDecodeError) as exc:
            raise SceneError(f"{type(exc).__name__}: {exc}") from exc
