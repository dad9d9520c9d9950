"""The few symplan_core calls the ROS runtime makes, in one place.

Keeping them here means the session reads as planning logic and an API change in
symplan_core is a one-file change on the ROS side. Imports are lazy so that importing
symplan_ros (e.g. for the launch-file test) does not load the engine.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import Any


def compile_task(problem: Any, robot: str) -> Any:
    from symplan_core.engine import compile_task as _compile

    return _compile(problem, robot=robot)


def verify(task: Any, plan_text: str, state: Any) -> Any:
    from symplan_core.engine import verify as _verify

    # verify() runs on its own copy of ``state``: the live state is not advanced.
    return _verify(task, plan_text, state=state)


def apply(task: Any, state: Any, call: Any) -> list[str]:
    """Apply a SUCCEEDED subgoal's effects to the live state; return engine errors (if any)."""
    return [e.message for e in task.apply(state, call, trace=False).errors]


def error_lines(result: Any) -> list[str]:
    """The engine's errors as "step N: KIND: message (hint: ...)" lines; never empty on failure."""
    lines = [f"step {e.step}: {e.kind.value}: {e.message}" + (f" (hint: {e.hint})" if e.hint else "")
             for e in result.errors]
    if not lines and not result.calls:
        lines.append("format: the response contains no action calls")
    if not lines and not result.strict_pass:
        lines.append(f"goal not reached (gcr={result.gcr:.2f})")
    return lines


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
    from symplan_core.llm import BackendUnavailableError
    from symplan_core.llm import make_backend as _make

    try:
        return _make(spec)
    except BackendUnavailableError:
        if backend_name(spec) != "reference":
            raise
        # Until symplan_core.planners.reference exposes make_planner_backend(), wrap its
        # plan_task() the way the backend contract describes (FunctionBackend over the task).
        from symplan_core.llm.base import FunctionBackend
        from symplan_core.planners.reference import plan_task

        return FunctionBackend(lambda prompt: plan_task(prompt.task).response or "", name="reference")


def backend_name(spec: str) -> str:
    return spec.split(":", 1)[0].split("?", 1)[0].strip().lower() or "backend"


def complete(backend: Any, messages: Any) -> tuple[str, str | None]:
    """One completion; (text, None) or ("", error). Backends report failures as data."""
    try:
        completions = backend.plan(messages, n=1)
    except Exception as exc:  # noqa: BLE001 - a broken backend is an error result, not a crash
        return "", f"{type(exc).__name__}: {exc}"
    if not completions:
        return "", "backend returned no completion"
    first = completions[0]
    if getattr(first, "error", None):
        return "", str(first.error)
    return first.text, None


def task_at_state(task: Any, state: Any) -> Any:
    """The compiled task with ``state`` as its initial state (for replanning from "now").

    symplan_core has no public constructor for this yet; a shallow copy shares the immutable
    world/goal and only swaps the initial state.
    """
    at = getattr(task, "at_state", None)
    if callable(at):
        return at(state)
    clone = copy.copy(task)
    clone._initial = state.copy()  # noqa: SLF001 - see docstring; replace with task.at_state()
    return clone


def _fallback_prompt(task: Any, robot: str) -> list[dict[str, str]]:
    """Used only while symplan_core.prompts is unavailable: task text plus action signatures."""
    from symplan_core.bddl.writer import write_problem

    actions = "\n".join(f"- {spec.signature}: {spec.doc}" for spec in task.specs.values())
    return [
        {"role": "system", "content": f"You plan for a {robot}-arm robot. Answer with one action call per line."},
        {"role": "user", "content": f"Task:\n{write_problem(task.source_problem)}\nActions:\n{actions}"},
    ]


def prompt_messages(task: Any, state: Any, robot: str, variant: str, history: Sequence[str]) -> Any:
    """The planning prompt as a PlannerPrompt whose ``task`` starts at ``state``.

    Structured planners (the reference planner) read ``task``; LLMs read the messages, which
    on a replan also say what happened so far. Whatever the prompt, execution is gated by
    verification from the live state, not by the prompt.
    """
    from symplan_core.llm.base import ChatMessage, PlannerPrompt

    current = task_at_state(task, state) if history else task
    try:
        from symplan_core.prompts import build_prompt
    except ImportError:
        built: Any = _fallback_prompt(current, robot)
    else:
        built = build_prompt(current, robot, variant=variant)
    if isinstance(built, PlannerPrompt):
        messages = list(built.messages)
    else:
        messages = [ChatMessage(m["role"], m["content"]) for m in built]
    if history:
        messages.append(ChatMessage("user", (
            "Execution so far (the state has changed since the task was stated):\n- "
            + "\n- ".join(history) + "\nWrite a new plan that reaches the goal from the current state.")))
    return PlannerPrompt(messages=tuple(messages), task=current)


def repair_messages(messages: Any, text: str, errors: Sequence[str]) -> Any:
    feedback = ("The plan was rejected by the symbolic verifier:\n- " + "\n- ".join(errors)
                + "\nReturn a corrected complete plan in the same format.")
    from symplan_core.llm.base import ChatMessage

    return replace(messages, messages=(*messages.messages, ChatMessage("assistant", text),
                                       ChatMessage("user", feedback)))
