"""Scene sources: where the planner's symbolic problem (a :class:`Scene`) comes from.

* :class:`BddlSceneSource`: the goal's BDDL text, the goal's task id, or a BDDL file / task id
  given as parameters (``scene.source: bddl``);
* :class:`CameraSceneSource`: the camera (``scene.source: camera``): recent synchronised frames ->
  key frames -> ``symplan_core.perception.perceive`` with the goal's instruction -> a BDDL draft
  that the perception verifier (syntax, objects, init, goal executability) must accept. A goal
  that brings its own BDDL or task id still uses it. A rejected draft is a :class:`SceneError`
  carrying every axis' reasons: nothing downstream of it runs. An instruction whose candidate
  goals disagree raises :class:`ClarificationNeeded` (a question, not a guess: ``runtime.clarify``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from symplan_core.bddl import BDDLError, Problem, parse_problem
from symplan_core.bddl.writer import write_problem
from symplan_core.errors import SymPlanError
from symplan_core.fetch import DataError
from symplan_core.runtime.camera import CameraFeed, CameraUnavailable
from symplan_core.runtime.config import CameraSection, PerceptionSection, RuntimeConfig, SceneSection
from symplan_core.runtime.limits import RequestRejected, read_bddl_file
from symplan_core.tasks import load_problem

if TYPE_CHECKING:  # perception needs OpenCV (the vision extra); a BDDL-only node runs without it
    from symplan_core.perception import CameraIntrinsics, Detector, Frame, PerceptionResult


class SceneError(SymPlanError, ValueError):
    """The request names no usable scene (no BDDL, unknown task, unreadable file, no camera frames,
    a rejected perception draft). ``reasons`` lists each problem (perception: one per failed axis)."""

    def __init__(self, message: str, reasons: list[str] | None = None,
                 scene: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.reasons = reasons or [message]
        self.scene = scene or {}  # what perception saw (verdicts, provenance), when it ran


class ClarificationNeeded(Exception):  # an outcome a scene source reports, not an error
    """Raised by a scene source: the instruction is ambiguous in this scene (``runtime.clarify``).
    ``result`` is the perception result with its ``clarification``; ``scene_of`` turns the chosen
    candidate's (accepted) result into the goal's :class:`Scene`; ``details`` is what perception saw."""

    def __init__(self, result: PerceptionResult, instruction: str, scene_of: Callable[[PerceptionResult], Scene],
                 details: dict[str, Any]) -> None:
        assert result.clarification is not None, "only a result that asks raises ClarificationNeeded"
        super().__init__(result.clarification.question)
        self.result = result
        self.instruction = instruction
        self.scene_of = scene_of
        self.details = details


@dataclass(frozen=True)
class TaskRequest:
    """What a Plan goal asks for, independent of ROS message types."""

    instruction: str = ""
    bddl: str = ""
    task_id: str = ""
    benchmark: str = ""
    robot: str = ""
    execute: bool = True
    answer: str = ""  # the answer to an open clarification question (runtime.clarify)
    clarification_id: str = ""  # which question it answers


@dataclass(frozen=True)
class Scene:
    problem: Problem
    bddl_text: str
    origin: str  # human-readable: "goal bddl", "task assembling_gift_baskets", "camera ..."
    details: dict[str, Any] = field(default_factory=dict)  # perception verdicts + provenance (camera)
    goal_evidence: bool = True  # False: an LLM drafted the goal, which may not vouch for abilities


Feedback = Callable[..., None]  # (stage, attempt, message)


class SceneSource(Protocol):
    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,
                should_cancel: Callable[[], bool] | None = None) -> Scene: ...


class BddlSceneSource:
    """Goal BDDL text > goal task id > ``bddl_file`` parameter > ``task_id`` parameter.

    Which files a request may name is the node's input check (:mod:`symplan_core.runtime.limits`);
    files are read here only up to ``max_bytes``."""

    def __init__(self, scene: SceneSection | None = None, max_bytes: int = 65_536) -> None:
        scene = scene or SceneSection()
        self._task_id = scene.task_id
        self._benchmark = scene.benchmark
        self._bddl_file = scene.bddl_file
        self._max_bytes = max_bytes

    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,  # noqa: ARG002 - SceneSource's signature
                should_cancel: Callable[[], bool] | None = None) -> Scene:  # noqa: ARG002
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
            problem = load_problem(task, request.benchmark or self._benchmark or None)
            return Scene(problem, write_problem(problem), f"task {task}")
        except (BDDLError, DataError, OSError, UnicodeDecodeError, RequestRejected) as exc:
            raise SceneError(f"{type(exc).__name__}: {exc}") from exc


class CameraSceneSource:
    """Perceive the scene from the camera for goals without BDDL or a task id. ``detector`` None:
    it could not be built (``feed.detector_error`` says why; goals needing the camera fail)."""

    def __init__(self, bddl: BddlSceneSource, feed: CameraFeed, perception: PerceptionSection,
                 detector: Detector | None, robot: str = "single") -> None:
        self.bddl = bddl
        self.feed = feed
        self.perception = perception
        self.detector = detector
        self.robot = robot

    @property
    def camera(self) -> CameraSection:
        return self.feed.config

    def resolve(self, request: TaskRequest, feedback: Feedback | None = None,
                should_cancel: Callable[[], bool] | None = None) -> Scene:
        if request.bddl.strip() or request.task_id:
            return self.bddl.resolve(request)
        notify = feedback or (lambda *_args: None)
        if not request.instruction.strip():
            raise SceneError("camera: the goal has no instruction (perception needs it for the objects and goal)")
        notify("perceiving", 0, f"waiting for frames on {self.feed.config.rgb_topic}")
        try:
            frames, intrinsics = self.feed.wait_for_frames(self.camera.window_s, self.camera.wait_s,
                                                           should_cancel or (lambda: False), self.camera.min_frames)
        except CameraUnavailable as exc:
            raise SceneError(f"camera: {exc}") from None
        return self._perceive(frames, intrinsics, request, notify)

    def _perceive(self, frames: list[Frame], intrinsics: CameraIntrinsics, request: TaskRequest,
                  notify: Feedback) -> Scene:
        from symplan_core.perception import (  # the vision extra: imported when a goal needs it
            KeyFrameConfig,
            KeyFrameSelector,
            PerceptionConfig,
            PerceptionError,
        )
        from symplan_core.perception import perceive as run_perception

        camera, perception = self.camera, self.perception
        keyframes = KeyFrameConfig(max_frames=camera.keyframe_capacity, min_change=camera.keyframe_threshold)
        key = KeyFrameSelector(keyframes).extend(frames)
        notify("perceiving", 0, f"{len(key)} key frames of {len(frames)} recent frames")
        config = PerceptionConfig(goal=perception.goal, llm=perception.llm or None, judge=perception.judge or None,
                                  confirm=perception.confirm, llm_redrafts=perception.redrafts,
                                  llm_samples=perception.samples, llm_agreement=perception.agreement,
                                  ask_unanswered=perception.ask_unanswered, robot=request.robot or self.robot, keyframes=keyframes)
        if self.detector is None:  # wait_for_frames reports why first; this keeps the promise explicit
            raise SceneError(f"camera: detector unavailable: {self.feed.detector_error}")
        try:
            result = run_perception(key, request.instruction, self.detector, intrinsics, config)
        except PerceptionError as exc:
            raise SceneError(f"camera: perception failed: {exc}") from None
        verdicts = [v.to_json() for v in result.verdicts]
        summary = "; ".join(f"{v['axis']} {'ok' if v['passed'] else 'not checked' if v['passed'] is None else 'REJECTED'}"
                            for v in verdicts)
        notify("checking_scene", 0, summary + "".join(f" | {r}" for r in result.reasons))
        details = _details(result)
        if result.needs_clarification:  # candidate goals disagree: ask instead of guessing
            raise ClarificationNeeded(result, request.instruction, lambda chosen: self._scene(chosen, len(key)),
                                      details)
        if not result.accepted or result.problem is None or result.bddl is None:
            raise SceneError(f"camera: scene rejected ({'; '.join(result.reasons)})", result.reasons, details)
        return self._scene(result, len(key))

    def _scene(self, result: PerceptionResult, key_frames: int) -> Scene:
        """The scene of an accepted perception result (the goal's, or a clarification's answer)."""
        if not result.accepted or result.problem is None or result.bddl is None:
            raise SceneError(f"camera: scene rejected ({'; '.join(result.reasons)})", result.reasons,
                             _details(result))
        return Scene(result.problem, result.bddl, f"camera ({key_frames} key frames)", _details(result),
                     goal_evidence=result.provenance.get("goal", {}).get("source") == "retrieval")


def _details(result: PerceptionResult) -> dict[str, Any]:
    """What perception saw, for the goal's result (``scene_json``) and the scene markers."""
    return {"origin": "camera", "accepted": result.accepted, "verdicts": [v.to_json() for v in result.verdicts],
            "provenance": result.provenance, "timings_ms": result.timings_ms}


def scene_source_for(config: RuntimeConfig) -> tuple[SceneSource, CameraFeed]:
    """The scene source and camera feed a configuration names. A detector that cannot be built
    does not fail configuration: the feed reports it (diagnostics ERROR) and goals that need the
    camera fail with it, while goals with BDDL or a task id still run."""
    camera = config.scene.source == "camera"
    feed = CameraFeed(config.camera, required=camera)
    bddl = BddlSceneSource(config.scene, config.limits.max_bddl_bytes)
    if not camera:
        return bddl, feed
    detector = None
    try:
        from symplan_core.perception import PerceptionError, make_detector  # the vision extra

        detector = make_detector(config.perception.detector)
    except ImportError as exc:
        feed.detector_error = f"perception needs the vision extra ({exc})"
    except PerceptionError as exc:
        feed.detector_error = str(exc)
    return CameraSceneSource(bddl, feed, config.perception, detector, config.robot), feed
