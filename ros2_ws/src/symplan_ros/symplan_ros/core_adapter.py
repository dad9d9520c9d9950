"""The few symplan_core calls the ROS runtime makes, in one place.

Keeping them here means the session reads as planning logic and an API change in
symplan_core is a one-file change on the ROS side. Imports are lazy so that importing
symplan_ros (e.g. for the launch-file test) does not load the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def compile_task(problem: Any, robot: str, goal_evidence: bool = True) -> Any:
    """``goal_evidence=False`` for a scene whose goal an LLM drafted (its goal vouches for nothing)."""
    from symplan_core.engine import compile_task as _compile

    return _compile(problem, robot=robot, goal_evidence=goal_evidence)


def verify(task: Any, plan_text: str, state: Any) -> Any:
    from symplan_core.engine import verify as _verify

    # verify() runs on its own copy of ``state``: the live state is not advanced.
    return _verify(task, plan_text, state=state)


def repair(backend: Any, task: Any, messages: Sequence[dict[str, str]], rounds: int, fallback: Any,
           accept: Any, on_event: Any, max_tokens: int | None = None) -> Any:
    """symplan_core's repair loop (the one evaluation uses): ask, verify from ``task``'s initial
    state, feed the engine's errors back for ``rounds`` rounds, then ``fallback`` (a backend or
    None). A backend error ends the model rounds: an unreachable endpoint will not recover.
    ``max_tokens`` caps each answer (the paper's sampling otherwise)."""
    from symplan_core.runtime.repair import repair_sample
    from symplan_core.llm.base import Sampling

    sampling = Sampling(max_tokens=max_tokens) if max_tokens else None
    return repair_sample(backend, task, messages, None, None, rounds, sampling, "symplan_ros", fallback or False,
                         accept=accept, stop_on_backend_error=True, on_event=on_event)


def apply(task: Any, state: Any, call: Any) -> list[str]:
    """Apply a SUCCEEDED subgoal's effects to the live state; return engine errors (if any)."""
    return [e.message for e in task.apply(state, call, trace=False).errors]


def error_lines(result: Any) -> list[str]:
    """The engine's errors in its one line format (``step N `call`: KIND: message (hint: ...)``,
    N 1-based); without errors, why the verdict is not a strict pass. Never empty on failure."""
    return [e.line() for e in result.errors] or result.failure_lines()


def rejection_lines(result: Any) -> list[str]:
    """Why the runtime rejected a verdict: its failure lines, or for a strict pass that
    assumed unknown affordances, those diagnostics."""
    return result.failure_lines() or [
        f"{d.line()} [not verified: engine.allow_unknown_affordances is false]" for d in result.diagnostics]


def to_json_text(result: Any) -> str:
    import json

    try:
        return json.dumps(result.to_json(), default=str)
    except Exception as exc:  # noqa: BLE001 - the JSON is informative only
        return json.dumps({"error": f"to_json failed: {exc}"})


def _literal_text(lit: tuple[str, ...]) -> str:
    return "(" + " ".join(lit) + ")"


def _delta(outcome: Any) -> tuple[list[str], list[str]]:
    return sorted(map(_literal_text, outcome.added)), sorted(map(_literal_text, outcome.removed))


def call_text(call: Any) -> str:
    text = getattr(call, "text", "")
    return text or f"{call.action}({', '.join(call.args)})"


def subgoals_for(task: Any, state: Any, calls: Sequence[Any], plan_id: str, subgoal_type: type) -> list[Any]:
    """Subgoals of a verified plan: full instance names, expected effects (simulated on a copy)."""
    sim = state.copy()
    out = []
    for index, call in enumerate(calls):
        added, removed = _delta(task.apply(sim, call))
        out.append(subgoal_type(
            plan_id=plan_id, index=index, count=len(calls), action=call.action,
            args=tuple(task.names.full(a) or a for a in call.args), text=call_text(call), expected_add=tuple(added),
            expected_del=tuple(removed), call=call,
        ))
    return out


# ---- backends and prompts ------------------------------------------------------------------
def make_backend(spec: str) -> Any:
    """Backend for a spec (``reference`` included); raises BackendSpecError /
    BackendUnavailableError (configure fails)."""
    from symplan_core.planners.reference_backend import make_planner_backend

    return make_planner_backend(spec)


def backend_name(spec: str) -> str:
    return spec.split(":", 1)[0].split("?", 1)[0].strip().lower() or "backend"


def task_at_state(task: Any, state: Any) -> Any:
    """The compiled task with ``state`` as its initial state (for replanning from "now")."""
    return task.at_state(state)


def prompt_messages(task: Any, state: Any, variant: str,
                    history: Sequence[str]) -> tuple[list[dict[str, str]], Any]:
    """(chat messages, task for PlannerPrompt.task) for planning from ``state``.

    The first plan uses the task's initial environment; a replan (``history`` non-empty) shows
    the live state and the executed steps. Whatever the prompt says, execution is gated by
    verification from the live state.
    """
    from symplan_core.prompts import build_prompt

    if not history:
        return build_prompt(task, task.robot, variant=variant), task
    messages = build_prompt(task, task.robot, variant=variant, state=state, history=history)
    return messages, task_at_state(task, state)
