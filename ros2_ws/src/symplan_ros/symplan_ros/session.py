"""Planning session: plan -> verify -> subgoals -> apply effects -> replan. No ROS in here.

The ROS node is a thin shell around :class:`PlanningSession`; tests drive the same class
without DDS. The safety invariant lives here: a :class:`Subgoal` exists only inside a
:class:`ValidatedPlan`, and a ValidatedPlan is only built from a plan that strict-passed
the engine from the session's current symbolic state (the state the subgoals will run on)
and that assumed no unknown affordance (unless ``allow_unknown_affordances``). Planning,
repair rounds and the fallback run in symplan_core's repair loop (the one evaluation uses).
LLM output is only ever parsed by the engine (data, never code).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from symplan_ros import core_adapter as core
from symplan_ros.scene import Scene, SceneError, SceneSource, TaskRequest


class Outcome(Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELED = "canceled"


@dataclass(frozen=True)
class Subgoal:
    plan_id: str
    index: int
    count: int
    action: str
    args: tuple[str, ...]
    text: str
    expected_add: tuple[str, ...]
    expected_del: tuple[str, ...]
    call: Any = field(compare=False, repr=False)  # the engine's Call, applied on SUCCEEDED


@dataclass(frozen=True)
class ValidatedPlan:
    plan_id: str
    attempt: int
    gcr: float
    subgoals: tuple[Subgoal, ...]
    source: str  # backend name that produced it ("reference" for the fallback)
    text: str = ""  # the calls the engine verified, one per line (what the subgoals are)


@dataclass
class SessionResult:
    success: bool
    message: str
    bddl: str = ""
    plan_id: str = ""
    gcr: float = 0.0
    strict_pass: bool = False
    replans: int = 0
    executed: list[Subgoal] = field(default_factory=list)  # validated subgoals, in order run
    errors: list[str] = field(default_factory=list)
    canceled: bool = False
    plans: list[ValidatedPlan] = field(default_factory=list)  # every plan validated, aborted ones too
    scene: dict[str, Any] = field(default_factory=dict)  # how the scene was made (camera: verdicts, provenance)


class _Canceled(Exception):
    """Raised from the repair loop's event hook: the goal was cancelled between two backend calls."""


# (stage, attempt, message[, subgoal_index, subgoal_count])
Feedback = Callable[..., None]
Dispatch = Callable[[Subgoal], tuple[Outcome, str]]  # run one subgoal, report its outcome


class PlanningSession:
    """Owns the backend and the symbolic state of one goal at a time.

    Not thread-safe by design: the node runs one goal at a time and serialises calls.
    """

    def __init__(self, backend: Any, robot: str = "single", prompt_variant: str = "guided",
                 repair_rounds: int = 2, fallback: str = "reference", replan_limit: int = 3,
                 backend_name: str = "backend", allow_unknown_affordances: bool = False,
                 max_tokens: int | None = None) -> None:
        self.backend = backend
        self.backend_name = backend_name
        self.robot = robot
        self.prompt_variant = prompt_variant
        self.repair_rounds = repair_rounds
        self.fallback = fallback
        self.replan_limit = replan_limit
        # A plan that relies on an object of a synset in no table is not verified unless allowed.
        self.allow_unknown_affordances = allow_unknown_affordances
        self.max_tokens = max_tokens  # None: the backend's default sampling
        self._fallback_backend: Any = None
        self._ids = itertools.count()
        self.last_backend_error: str | None = None  # for the LLM-endpoint diagnostic

    # ---- planning ----------------------------------------------------------------------
    def accepts(self, result: Any) -> bool:
        """What the runtime treats as verified: a strict pass that assumed no unknown affordance."""
        return result.strict_pass and (self.allow_unknown_affordances or not result.assumes_affordances)

    def plan(self, task: Any, state: Any, attempt: int, goal_id: str, feedback: Feedback, history: list[str],
             should_cancel: Callable[[], bool] = lambda: False) -> tuple[ValidatedPlan | None, list[str]]:
        """Ask the backend (with repair rounds, then the fallback) for a plan from ``state``.

        Returns the validated plan, or None and the error trace of every rejected attempt.
        Raises _Canceled when ``should_cancel`` turns true before a backend call (a call in
        flight is not interrupted: it is bounded by planner.max_tokens and the backend's timeout).
        """
        messages, prompt_task = core.prompt_messages(task, state, self.prompt_variant, history)
        # The reference planner reads the task, not the conversation: a repair round would repeat
        # the same search (up to its time budget each), so it gets none.
        repair_rounds = 0 if self.backend_name == "reference" else self.repair_rounds
        rounds = repair_rounds + 1

        def on_event(event: str, round_: int | None) -> None:
            if event in ("ask", "fallback") and should_cancel():
                raise _Canceled
            if event == "ask":
                feedback("planning" if round_ == 0 else "repairing", attempt,
                         f"asking {self.backend_name} (round {(round_ or 0) + 1}/{rounds})")
            elif event == "fallback":
                feedback("repairing", attempt, "falling back to the reference planner")
            else:
                feedback("verifying", attempt, "checking the plan with the engine")

        fallback = None
        if self.fallback == "reference" and self.backend_name != "reference":
            if self._fallback_backend is None:
                self._fallback_backend = core.make_backend("reference")
            fallback = self._fallback_backend
        trace = core.repair(self.backend, prompt_task, messages, repair_rounds, fallback, self.accepts, on_event,
                            self.max_tokens)
        models = [a for a in trace.attempts if a.source == "model"]
        self.last_backend_error = models[-1].completion.error if models else None
        errors: list[str] = []
        for a in trace.attempts:
            where = f"attempt {attempt} " + (f"round {a.round}" if a.round is not None else "fallback")
            if a.result is None:
                errors.append(f"{where}: backend error: {a.completion.error}")
            elif not a.accepted:
                errors.extend(f"{where}: {line}" for line in core.rejection_lines(a.result))
        chosen = trace.accepted
        if chosen is None:
            return None, errors
        plan_id = f"{goal_id}-{attempt}-{next(self._ids)}"
        subgoals = core.subgoals_for(task, state, chosen.result.calls, plan_id, Subgoal)
        source = "reference" if chosen.round is None else self.backend_name
        text = "\n".join(s.text for s in subgoals)
        return ValidatedPlan(plan_id, attempt, float(chosen.result.gcr), tuple(subgoals), source, text), errors

    # ---- the whole goal ----------------------------------------------------------------
    def run(self, request: TaskRequest, scene_source: SceneSource, dispatch: Dispatch,
            feedback: Feedback, should_cancel: Callable[[], bool] = lambda: False,
            on_scene: Callable[[Scene, str, str], None] | None = None) -> SessionResult:
        """Plan and execute one goal; never raises for bad input (see SessionResult.errors).
        ``on_scene(scene, goal_id, robot)`` is told the problem before anything is planned."""
        goal_id = uuid.uuid4().hex[:8]
        robot = request.robot or self.robot
        feedback("scene", 0, "resolving the scene")
        try:
            scene: Scene = scene_source.resolve(request, feedback, should_cancel)
        except SceneError as exc:
            if should_cancel():  # a cancel ends the wait for camera frames: it is no camera fault
                return self._canceled(SessionResult(False, "", scene=exc.scene))
            return SessionResult(False, f"scene: {exc}", errors=[f"scene: {r}" for r in exc.reasons],
                                 scene=exc.scene)
        if on_scene is not None:
            on_scene(scene, goal_id, robot)
        feedback("bddl_check", 0, f"compiling {scene.origin}")
        try:
            task = core.compile_task(scene.problem, robot, scene.goal_evidence)
        except Exception as exc:  # noqa: BLE001 - any compile failure is a typed result, not a crash
            return SessionResult(False, f"bddl_check: {exc}", bddl=scene.bddl_text,
                                 errors=[f"bddl_check: {type(exc).__name__}: {exc}"], scene=scene.details)
        state = task.initial_state()
        result = SessionResult(False, "", bddl=scene.bddl_text, scene=scene.details)
        history: list[str] = []
        attempt = 0
        while True:
            if should_cancel():
                return self._canceled(result)
            try:
                plan, errors = self.plan(task, state, attempt, goal_id, feedback, history, should_cancel)
            except _Canceled:
                return self._canceled(result)
            result.errors.extend(errors)
            if plan is None:
                result.message = f"no plan strict-passed the engine (attempt {attempt})"
                return result
            result.plans.append(plan)
            result.plan_id, result.gcr, result.strict_pass = plan.plan_id, plan.gcr, True
            if not request.execute:
                result.executed.extend(plan.subgoals)  # validated, reported, not dispatched
                result.success, result.message = True, "plan validated (execute=false)"
                return result
            failure = self._execute(task, state, plan, dispatch, feedback, should_cancel, result)
            if failure is None:
                result.success = True
                result.message = f"goal reached with {len(result.executed)} subgoals, {result.replans} replans"
                return result
            if result.canceled:
                return self._canceled(result)
            history.append(failure)
            result.errors.append(f"attempt {attempt}: {failure}")
            if result.replans >= self.replan_limit:
                result.message = f"replan limit {self.replan_limit} reached: {failure}"
                return result
            result.replans += 1
            attempt += 1
            feedback("planning", attempt, f"replanning from the current state after: {failure}")

    def _execute(self, task: Any, state: Any, plan: ValidatedPlan, dispatch: Dispatch,
                 feedback: Feedback, should_cancel: Callable[[], bool],
                 result: SessionResult) -> str | None:
        """Run the plan's subgoals in order; None when all succeeded, else why it stopped."""
        feedback("executing", plan.attempt, f"{len(plan.subgoals)} validated subgoals from {plan.source}",
                 0, len(plan.subgoals))
        for sub in plan.subgoals:
            if should_cancel():
                result.canceled = True
                return "canceled"
            feedback("executing", plan.attempt, f"subgoal {sub.index + 1}/{sub.count}: {sub.text}",
                     sub.index, sub.count)
            outcome, message = dispatch(sub)
            feedback("executing", plan.attempt,
                     f"subgoal {sub.index + 1}/{sub.count}: {sub.text} -> {outcome.value.upper()}"
                     + ("" if outcome is Outcome.SUCCEEDED else f" ({message})"), sub.index, sub.count)
            if outcome is Outcome.CANCELED:
                result.canceled = True
                return "canceled"
            if outcome is not Outcome.SUCCEEDED:
                return f"subgoal {sub.index} {sub.text} {outcome.value}: {message}".rstrip(": ")
            errors = core.apply(task, state, sub.call)
            result.executed.append(sub)
            if errors:
                # The controller says done but the engine cannot apply it: the state is unknown.
                return f"subgoal {sub.index} {sub.text} not applicable to the symbolic state: {errors}"
        return None

    @staticmethod
    def _canceled(result: SessionResult) -> SessionResult:
        result.success, result.canceled, result.message = False, True, "canceled"
        return result

    def close(self) -> None:
        """Release the backends' threads and connections (the session is not used afterwards)."""
        for backend in (self.backend, self._fallback_backend):
            close = getattr(backend, "close", None)
            if close is not None:
                close()

    def verify_text(self, problem: Any, plan_text: str, robot: str = "") -> Any:
        """One-shot verification for the ~/verify_plan service (nothing executed)."""
        task = core.compile_task(problem, robot or self.robot)
        return core.verify(task, plan_text, task.initial_state())
