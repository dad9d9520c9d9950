"""Scene sources: where the planner's symbolic problem comes from.

* :class:`BddlSceneSource`: the goal's BDDL text, the goal's task id, or a BDDL file / task id
  given as parameters (``scene.source: bddl``);
* :class:`CameraSceneSource`: the camera (``scene.source: camera``): recent synchronised frames ->
  key frames -> ``symplan_core.perception.perceive`` with the goal's instruction -> a BDDL draft
  that the perception verifier (syntax, objects, init, goal executability) must accept. A goal
  that brings its own BDDL or task id still uses it. A rejected draft is a :class:`SceneError`
  carrying every axis' reasons: nothing downstream of it runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class SceneError(ValueError):
    """The request names no usable scene (no BDDL, unknown task, unreadable file, no camera frames,
    a rejected perception draft). ``reasons`` lists each problem (perception: one per failed axis)."""

    def __init__(self, message: str, reasons: list[str] | None = None,
                 scene: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.reasons = reasons or [message]
        self.scene = scene or {}  # what perception saw (verdicts, provenance), when it ran


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
    origin: str  # human-readable: "goal bddl", "task assembling_gift_baskets", "camera ..."
    details: dict[str, Any] = field(default_factory=dict)  # perception verdicts + provenance (camera)
    goal_evidence: bool = True  # False: an LLM drafted the goal, which may not vouch for abilities


Feedback = Callable[..., None]  # (stage, attempt, message)

# ~/task_bddl carries the problem behind this header line (a BDDL comment): which goal, which robot.
_HEADER = re.compile(r"^; symplan goal_id=(\S+)(?: robot=(\S+))?")


def task_message(bddl_text: str, goal_id: str, robot: str) -> str:
    """The ~/task_bddl text of a goal's problem."""
    return f"; symplan goal_id={goal_id} robot={robot}\n{bddl_text}"


def read_task_message(text: str) -> tuple[str, str | None]:
    """(goal id, robot or None) from a ~/task_bddl text; ("", None) without a header."""
    m = _HEADER.match(text)
    return (m.group(1), m.group(2)) if m else ("", None)


class SceneSource(Protocol):
    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,
                should_cancel: Callable[[], bool] | None = None) -> Scene: ...


class BddlSceneSource:
    """Goal BDDL text > goal task id > ``bddl_file`` parameter > ``task_id`` parameter.

    Which files a request may name is the node's input check (``symplan_ros.limits``); files are
    read here only up to ``max_bytes``."""

    def __init__(self, task_id: str = "", benchmark: str = "", bddl_file: str = "",
                 max_bytes: int = 65_536) -> None:
        self._task_id = task_id
        self._benchmark = benchmark
        self._bddl_file = bddl_file
        self._max_bytes = max_bytes

    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,
                should_cancel: Callable[[], bool] | None = None) -> Scene:
        from symplan_core.bddl import BDDLError, parse_problem
        from symplan_core.bddl.writer import write_problem
        from symplan_core.fetch import DataError
        from symplan_ros.limits import RequestRejected, read_bddl_file

        try:
            if request.bddl.strip():
                problem = parse_problem(request.bddl, filename="<goal>")
                return Scene(problem, request.bddl, "goal bddl")
            path = self._bddl_file if self._bddl_file and not request.task_id else ""
            task = request.task_id or self._task_id
            if not path and task.endswith(".bddl"):
                path = task
            if path:
                text = read_bddl_file(path, self._max_bytes)
                return Scene(parse_problem(text, filename=path), text, f"file {path}")
            if not task:
                raise SceneError("no scene: the goal has neither bddl nor task_id and no scene parameter is set")
            if request.task_id and Path(task).exists():
                # symplan_core.tasks reads an existing path before looking a name up: a name must
                # not reach a file of the working directory.
                raise SceneError(f"task_id {task!r} is an activity name and also a path in the working directory")
            from symplan_core.tasks import load_problem

            problem = load_problem(task, request.benchmark or self._benchmark or None)
            return Scene(problem, write_problem(problem), f"task {task}")
        except (BDDLError, DataError, OSError, UnicodeDecodeError, RequestRejected) as exc:
            raise SceneError(f"{type(exc).__name__}: {exc}") from exc


@dataclass(frozen=True)
class PerceptionSettings:
    """How the camera source perceives (node parameters ``perception.*`` and ``camera.*``)."""

    # Built from a PlannerConfig only (scene_source_for): its defaults are the parameters' defaults.
    detector: Any  # a built symplan_core.perception Detector, or None (see CameraFeed.detector_error)
    goal: str
    llm: str
    judge: str
    robot: str
    window_s: float
    wait_s: float
    min_frames: int
    max_key_frames: int
    min_change: float


class CameraSceneSource:
    """Perceive the scene from the camera for goals without BDDL or a task id."""

    def __init__(self, bddl: BddlSceneSource, feed: Any, settings: PerceptionSettings) -> None:
        self.bddl = bddl
        self.feed = feed  # symplan_ros.camera.CameraFeed
        self.settings = settings

    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,
                should_cancel: Callable[[], bool] | None = None) -> Scene:
        if request.bddl.strip() or request.task_id:
            return self.bddl.resolve(request)
        from symplan_ros.camera import CameraUnavailable

        notify = feedback or (lambda *_args: None)
        if not request.instruction.strip():
            raise SceneError("camera: the goal has no instruction (perception needs it for the objects and goal)")
        notify("perceiving", 0, f"waiting for frames on {self.feed.config.rgb_topic}")
        try:
            frames, intrinsics = self.feed.wait_for_frames(self.settings.window_s, self.settings.wait_s,
                                                           should_cancel or (lambda: False), self.settings.min_frames)
        except CameraUnavailable as exc:
            raise SceneError(f"camera: {exc}") from None
        return self._perceive(frames, intrinsics, request, notify)

    def _perceive(self, frames: list[Any], intrinsics: Any, request: TaskRequest, notify: Feedback) -> Scene:
        from symplan_core.perception import (
            KeyFrameConfig,
            KeyFrameSelector,
            PerceptionConfig,
            PerceptionError,
        )
        from symplan_core.perception import perceive as run_perception

        s = self.settings
        keyframes = KeyFrameConfig(max_frames=s.max_key_frames, min_change=s.min_change)
        key = KeyFrameSelector(keyframes).extend(frames)
        notify("perceiving", 0, f"{len(key)} key frames of {len(frames)} recent frames")
        config = PerceptionConfig(goal=s.goal, llm=s.llm or None, judge=s.judge or None,
                                  robot=request.robot or s.robot, keyframes=keyframes)
        try:
            result = run_perception(key, request.instruction, s.detector, intrinsics, config)
        except PerceptionError as exc:
            raise SceneError(f"camera: perception failed: {exc}") from None
        verdicts = [v.to_json() for v in result.verdicts]
        summary = "; ".join(f"{v['axis']} {'ok' if v['passed'] else 'not checked' if v['passed'] is None else 'REJECTED'}"
                            for v in verdicts)
        notify("checking_scene", 0, summary + "".join(f" | {r}" for r in result.reasons))
        details = {"origin": "camera", "accepted": result.accepted, "verdicts": verdicts,
                   "provenance": result.provenance, "timings_ms": result.timings_ms}
        if not result.accepted:
            raise SceneError(f"camera: scene rejected ({'; '.join(result.reasons)})", result.reasons, details)
        return Scene(result.problem, result.bddl, f"camera ({len(key)} key frames)", details,
                     goal_evidence=s.goal == "retrieval")


def scene_source_for(config: Any) -> tuple[SceneSource, Any]:
    """The node's scene source and camera feed for a ``PlannerConfig``. A detector that cannot be
    built does not fail configuration: the feed reports it (diagnostics ERROR) and goals that need
    the camera fail with it, while goals with BDDL or a task id still run."""
    from symplan_ros.camera import CameraFeed, FeedConfig

    camera = config.scene_source == "camera"
    feed = CameraFeed(FeedConfig(rgb_topic=config.rgb_topic, depth_topic=config.depth_topic,
                                 info_topic=config.info_topic, sync_tolerance_s=config.sync_tolerance_s,
                                 stale_after_s=config.stale_after_s, buffer_frames=config.buffer_frames,
                                 max_rate_hz=config.max_rate_hz, required=camera,
                                 max_image_bytes=config.max_image_bytes))
    bddl = BddlSceneSource(config.scene_task_id, config.scene_benchmark, config.scene_bddl_file,
                           config.max_bddl_bytes)
    if not camera:
        return bddl, feed
    detector = None
    try:
        from symplan_core.perception import PerceptionError, make_detector

        detector = make_detector(config.detector)
    except ImportError as exc:
        feed.detector_error = f"perception needs the vision extra ({exc})"
    except PerceptionError as exc:
        feed.detector_error = str(exc)
    settings = PerceptionSettings(detector=detector, goal=config.perception_goal, llm=config.perception_llm,
                                  judge=config.perception_judge, robot=config.robot, window_s=config.window_s,
                                  wait_s=config.wait_s, min_frames=config.min_frames,
                                  max_key_frames=config.keyframe_capacity, min_change=config.keyframe_threshold)
    return CameraSceneSource(bddl, feed, settings), feed
