"""Planning session: plan -> verify -> subgoals -> apply effects -> replan (the execution state machine).

The ROS node (``symplan_ros.planner_node``) is a thin shell around :class:`PlanningSession`;
tests drive the same class without DDS. The safety invariant lives here: a :class:`Subgoal` exists only inside a
:class:`ValidatedPlan`, and a ValidatedPlan is only built from a plan that strict-passed
the engine from the session's current symbolic state (the state the subgoals will run on)
and that assumed no unknown affordance (unless ``allow_unknown_affordances``). Planning,
repair rounds and the fallback run in symplan_core's repair loop (the one evaluation uses).
LLM output is only ever parsed by the engine (data, never code).
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from symplan_core.bddl import Problem
from symplan_core.engine import Call, CompiledTask, State, VerifyResult, compile_task, verify
from symplan_core.errors import SymPlanError
from symplan_core.llm import PlannerBackend, Sampling
from symplan_core.planners.reference_backend import make_planner_backend
from symplan_core.prompts import build_prompt
from symplan_core.prompts.builder import Variant
from symplan_core.runtime.clarify import AnswerRejected, OpenQuestion, Question
from symplan_core.runtime.config import EngineSection, ExecutionSection, PlannerSection, RuntimeConfig
from symplan_core.runtime.monitor import EffectVerdict, ExecutionMonitor, MonitorResult, reground
from symplan_core.runtime.repair import repair_sample
from symplan_core.runtime.sources import ClarificationNeeded, Scene, SceneError, SceneSource, TaskRequest


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
    call: Call = field(compare=False, repr=False)  # the engine's Call, applied on SUCCEEDED


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
    checks: list[tuple[Subgoal, MonitorResult]] = field(default_factory=list)  # execution monitoring verdicts
    #: The open question a goal ended with (``needs_clarification``), or that a rejected answer left open.
    question: Question | None = None
    answer_rejected: bool = False  # the goal's answer resumed nothing (runtime.clarify.AnswerRejected)

    @property
    def outcome(self) -> str:
        """succeeded | failed | canceled | needs_clarification | answer_rejected (Plan.Result.outcome)."""
        if self.success:
            return "succeeded"
        if self.canceled:
            return "canceled"
        if self.answer_rejected:
            return "answer_rejected"
        return "needs_clarification" if self.question is not None else "failed"


class _Canceled(Exception):
    """Raised from the repair loop's event hook: the goal was cancelled between two backend calls."""


# (stage, attempt, message[, subgoal_index, subgoal_count])
Feedback = Callable[..., None]
Dispatch = Callable[[Subgoal], tuple[Outcome, str]]  # run one subgoal, report its outcome
OnCheck = Callable[[Subgoal, MonitorResult], None]  # told each execution-monitoring verdict


class PlanningSession:
    """Owns the backend and the symbolic state of one goal at a time.

    ``planner``, ``execution`` and ``engine`` are the configuration's sections, used as they are
    (``planner.backend`` is the spec ``backend`` was built from; the session names the backend by
    its ``name``). Not thread-safe by design: the node runs one goal at a time and serialises calls.
    """

    def __init__(self, backend: PlannerBackend, robot: str = "single", planner: PlannerSection | None = None,
                 execution: ExecutionSection | None = None, engine: EngineSection | None = None,
                 monitor: ExecutionMonitor | None = None) -> None:
        self.backend = backend
        self.monitor = monitor  # None: SUCCEEDED is believed (execution.monitor off)
        self.planner = planner or PlannerSection()
        self.execution = execution or ExecutionSection()
        self.engine = engine or EngineSection()
        self.robot = robot
        self._fallback_backend: PlannerBackend | None = None
        self._ids = itertools.count()
        self.last_backend_error: str | None = None  # for the LLM-endpoint diagnostic
        self.questions = OpenQuestion()  # the question the last goal asked, until answered (runtime.clarify)

    @property
    def backend_name(self) -> str:
        return self.backend.name

    @classmethod
    def from_config(cls, config: RuntimeConfig, backend: PlannerBackend | None = None,
                    monitor: ExecutionMonitor | None = None) -> PlanningSession:
        """The session a configuration describes; ``backend`` None: built from ``planner.backend``
        by the one planner factory (raises BackendSpecError / BackendUnavailableError); ``monitor``:
        the execution monitor (``runtime.monitor.monitor_for``), None when monitoring is off."""
        planner = config.planner
        if backend is None:
            backend = make_planner_backend(planner.backend_spec)
        return cls(backend, config.robot, planner, config.execution, config.engine, monitor)

    # ---- planning ----------------------------------------------------------------------
    def accepts(self, result: VerifyResult) -> bool:
        """What the runtime treats as verified: a strict pass that assumed no unknown affordance."""
        # A plan that relies on an object of a synset in no table is not verified unless allowed.
        return result.strict_pass and (self.engine.allow_unknown_affordances or not result.assumes_affordances)

    def plan(self, task: CompiledTask, state: State, attempt: int, goal_id: str, feedback: Feedback,
             history: list[str],
             should_cancel: Callable[[], bool] = lambda: False) -> tuple[ValidatedPlan | None, list[str]]:
        """Ask the backend (with repair rounds, then the fallback) for a plan from ``state``.

        Returns the validated plan, or None and the error trace of every rejected attempt.
        Raises _Canceled when ``should_cancel`` turns true before a backend call (a call in
        flight is not interrupted: it is bounded by planner.max_tokens and the backend's timeout).
        """
        messages, prompt_task = prompt_messages(task, state, self.planner.prompt_variant, history)
        # The reference planner reads the task, not the conversation: a repair round would repeat
        # the same search (up to its time budget each), so it gets none.
        repair_rounds = 0 if self.backend_name == "reference" else self.planner.repair_rounds
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

        fallback: PlannerBackend | None = None
        if self.planner.fallback == "reference" and self.backend_name != "reference":
            if self._fallback_backend is None:
                self._fallback_backend = make_planner_backend("reference")
            fallback = self._fallback_backend
        # A backend error ends the model rounds: an unreachable endpoint will not recover.
        trace = repair_sample(self.backend, prompt_task, messages, None, None, repair_rounds,
                              Sampling(max_tokens=self.planner.max_tokens), "symplan_ros",
                              fallback or False, accept=self.accepts, stop_on_backend_error=True, on_event=on_event)
        models = [a for a in trace.attempts if a.source == "model"]
        self.last_backend_error = models[-1].completion.error if models else None
        errors: list[str] = []
        for a in trace.attempts:
            where = f"attempt {attempt} " + (f"round {a.round}" if a.round is not None else "fallback")
            if a.result is None:
                errors.append(f"{where}: backend error: {a.completion.error}")
            elif not a.accepted:
                errors.extend(f"{where}: {line}" for line in rejection_lines(a.result))
        chosen = trace.accepted
        if chosen is None or chosen.result is None:
            return None, errors
        plan_id = f"{goal_id}-{attempt}-{next(self._ids)}"
        subgoals = subgoals_for(task, state, chosen.result.calls, plan_id)
        source = "reference" if chosen.round is None else self.backend_name
        text = "\n".join(s.text for s in subgoals)
        return ValidatedPlan(plan_id, attempt, float(chosen.result.gcr), tuple(subgoals), source, text), errors

    # ---- the whole goal ----------------------------------------------------------------
    def run(self, request: TaskRequest, scene_source: SceneSource, dispatch: Dispatch,
            feedback: Feedback, should_cancel: Callable[[], bool] = lambda: False,
            on_scene: Callable[[Scene, str, str], None] | None = None,
            on_check: OnCheck | None = None) -> SessionResult:
        """Plan and execute one goal; never raises for bad input (see SessionResult.errors).
        ``on_scene(scene, goal_id, robot)`` is told the problem before anything is planned;
        ``on_check(subgoal, verdict)`` each execution-monitoring verdict."""
        goal_id = uuid.uuid4().hex[:8]
        robot = request.robot or self.robot
        answering = bool(request.answer.strip() or request.clarification_id.strip())
        try:
            if answering:  # a follow-up goal: the open question's chosen reading is the scene
                feedback("scene", 0, f"resuming question {request.clarification_id} with answer {request.answer!r}")
                asked_for = self.questions.question.robot if self.questions.question else ""
                scene: Scene = self.questions.answer(request)
                robot = request.robot or asked_for or self.robot  # the robot the candidates were verified for
            else:  # a new goal may change the world an open question was asked about
                self.questions.close()
                feedback("scene", 0, "resolving the scene")
                scene = scene_source.resolve(request, feedback, should_cancel)
        except ClarificationNeeded as asked:
            question = self.questions.ask(asked, robot)
            return SessionResult(False, f"needs clarification: {question.question}", scene=asked.details,
                                 errors=[f"clarification: {line}" for line in question.lines()], question=question)
        except AnswerRejected as exc:
            return SessionResult(False, str(exc), errors=[str(exc)], question=exc.question, answer_rejected=True)
        except SceneError as exc:
            if should_cancel():  # a cancel ends the wait for camera frames: it is no camera fault
                return self._canceled(SessionResult(False, "", scene=exc.scene))
            return SessionResult(False, f"scene: {exc}", errors=[f"scene: {r}" for r in exc.reasons],
                                 scene=exc.scene)
        if on_scene is not None:
            on_scene(scene, goal_id, robot)
        feedback("bddl_check", 0, f"compiling {scene.origin}")
        try:
            # goal_evidence=False for a scene whose goal an LLM drafted (its goal vouches for nothing).
            task = compile_task(scene.problem, robot=robot, goal_evidence=scene.goal_evidence)
        except SymPlanError as exc:  # a problem the engine cannot compile is a typed result, not a crash
            return SessionResult(False, f"bddl_check: {exc}", bddl=scene.bddl_text,
                                 errors=[f"bddl_check: {type(exc).__name__}: {exc}"], scene=scene.details)
        state = task.initial_state()
        result = SessionResult(False, "", bddl=scene.bddl_text, scene=scene.details)
        if self.monitor is not None:
            self.monitor.bind(dict(scene.problem.objects), scene.details)
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
            failure = self._execute(task, state, plan, dispatch, feedback, should_cancel, result, on_check)
            if failure is None:
                result.success = True
                result.message = f"goal reached with {len(result.executed)} subgoals, {result.replans} replans"
                return result
            if result.canceled:
                return self._canceled(result)
            history.append(failure)
            result.errors.append(f"attempt {attempt}: {failure}")
            if result.replans >= self.execution.replan_limit:
                result.message = f"replan limit {self.execution.replan_limit} reached: {failure}"
                return result
            result.replans += 1
            attempt += 1
            feedback("planning", attempt, f"replanning from the current state after: {failure}")

    def _execute(self, task: CompiledTask, state: State, plan: ValidatedPlan, dispatch: Dispatch,
                 feedback: Feedback, should_cancel: Callable[[], bool],
                 result: SessionResult, on_check: OnCheck | None = None) -> str | None:
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
                failure = f"subgoal {sub.index} {sub.text} {outcome.value}: {message}".rstrip(": ")
                if self.monitor is not None:
                    failure += self._relook(task, state, sub, feedback, should_cancel, plan.attempt)
                return failure
            if self.monitor is not None:
                contradiction = self._monitor(task, state, sub, time.monotonic(), feedback, should_cancel,
                                              plan.attempt, result, on_check)
                if contradiction:
                    return contradiction
            errors = apply_effects(task, state, sub.call)
            result.executed.append(sub)
            if errors:
                # The controller says done but the engine cannot apply it: the state is unknown.
                return f"subgoal {sub.index} {sub.text} not applicable to the symbolic state: {errors}"
        return None

    def _monitor(self, task: CompiledTask, state: State, sub: Subgoal, reported_at: float, feedback: Feedback,
                 should_cancel: Callable[[], bool], attempt: int, result: SessionResult,
                 on_check: OnCheck | None) -> str | None:
        """Check a SUCCEEDED subgoal with the camera; why it failed when the camera contradicts it
        (``state`` is then re-grounded on what was seen), else None (the effects are applied)."""
        assert self.monitor is not None
        where = f"subgoal {sub.index + 1}/{sub.count}: {sub.text}"
        feedback("monitoring", attempt, f"{where}: checking its effects on fresh camera frames", sub.index, sub.count)
        check, seen = self.monitor.check(sub.expected_add, sub.expected_del, reported_at, should_cancel, sub.args)
        result.checks.append((sub, check))
        if on_check is not None:
            on_check(sub, check)
        feedback("monitoring", attempt, f"{where} -> {check.verdict.value.upper()}: {check.reason}",
                 sub.index, sub.count)
        if check.verdict is not EffectVerdict.CONTRADICTED or seen is None:
            return None
        changes = reground(state, seen, task) + _forget_reach(state)
        return (f"subgoal {sub.index} {sub.text} reported SUCCEEDED but the camera contradicts it: {check.reason}"
                + (f"; re-grounded on the camera: {'; '.join(changes)}" if changes else ""))

    def _relook(self, task: CompiledTask, state: State, sub: Subgoal, feedback: Feedback,
                should_cancel: Callable[[], bool], attempt: int) -> str:
        """After a FAILED or timed-out subgoal: re-ground ``state`` on a fresh look and forget the
        robot's reach (the camera cannot confirm where the robot is); what changed, as a suffix."""
        assert self.monitor is not None
        feedback("monitoring", attempt, f"subgoal {sub.index + 1}/{sub.count}: {sub.text} failed: "
                 "re-grounding the state on fresh camera frames", sub.index, sub.count)
        _check, seen = self.monitor.check((), (), time.monotonic(), should_cancel, record=False)
        changes = (reground(state, seen, task) if seen is not None else []) + _forget_reach(state)
        return f"; re-grounded on the camera: {'; '.join(changes)}" if changes else ""

    @staticmethod
    def _canceled(result: SessionResult) -> SessionResult:
        result.success, result.canceled, result.message = False, True, "canceled"
        return result

    def close(self) -> None:
        """Release the backends' threads and connections (the session is not used afterwards)."""
        for backend in (self.backend, self._fallback_backend):
            if backend is not None:
                backend.close()

    def verify_text(self, problem: Problem, plan_text: str, robot: str = "") -> VerifyResult:
        """One-shot verification for the ~/verify_plan service (nothing executed)."""
        task = compile_task(problem, robot=robot or self.robot)
        return verify(task, plan_text, state=task.initial_state())


def _forget_reach(state: State) -> list[str]:
    """The robot is no longer believed near anything (a replan navigates again)."""
    if not state.near and state.at is None:
        return []
    state.near, state.at = frozenset(), None
    return ["the robot's reach is forgotten (it navigates again)"]


# ---- the engine's answers in the runtime's terms -------------------------------------------------
def apply_effects(task: CompiledTask, state: State, call: Call) -> list[str]:
    """Apply a SUCCEEDED subgoal's effects to the live state; the engine's errors (if any)."""
    return [e.message for e in task.apply(state, call, trace=False).errors]


def error_lines(result: VerifyResult) -> list[str]:
    """The engine's errors in its one line format (``step N `call`: KIND: message (hint: ...)``,
    N 1-based); without errors, why the verdict is not a strict pass. Never empty on failure."""
    return [e.line() for e in result.errors] or result.failure_lines()


def rejection_lines(result: VerifyResult) -> list[str]:
    """Why the runtime rejected a verdict: its failure lines, or for a strict pass that
    assumed unknown affordances, those diagnostics."""
    return result.failure_lines() or [
        f"{d.line()} [not verified: engine.allow_unknown_affordances is false]" for d in result.diagnostics]


def call_text(call: Call) -> str:
    return call.text or f"{call.action}({', '.join(call.args)})"


def _literal_text(lit: tuple[str, ...]) -> str:
    return "(" + " ".join(lit) + ")"


def subgoals_for(task: CompiledTask, state: State, calls: Sequence[Call], plan_id: str) -> list[Subgoal]:
    """Subgoals of a verified plan: full instance names, expected effects (simulated on a copy)."""
    sim = state.copy()
    out = []
    for index, call in enumerate(calls):
        outcome = task.apply(sim, call)
        out.append(Subgoal(
            plan_id=plan_id, index=index, count=len(calls), action=call.action,
            args=tuple(task.names.full(a) or a for a in call.args), text=call_text(call),
            expected_add=tuple(sorted(map(_literal_text, outcome.added))),
            expected_del=tuple(sorted(map(_literal_text, outcome.removed))), call=call,
        ))
    return out


def prompt_messages(task: CompiledTask, state: State, variant: Variant,
                    history: Sequence[str]) -> tuple[list[dict[str, str]], CompiledTask]:
    """(chat messages, task for PlannerPrompt.task) for planning from ``state``.

    The first plan uses the task's initial environment; a replan (``history`` non-empty) shows
    the live state and the executed steps, and the task is the compiled task with ``state`` as
    its initial state. Whatever the prompt says, execution is gated by verification from the
    live state.
    """
    if not history:
        return build_prompt(task, task.robot, variant=variant), task
    messages = build_prompt(task, task.robot, variant=variant, state=state, history=history)
    return messages, task.at_state(state)
