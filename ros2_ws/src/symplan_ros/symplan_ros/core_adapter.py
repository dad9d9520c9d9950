"""The few symplan_core calls the ROS runtime makes, in one place.

Keeping them here means the session reads as planning logic and an API change in
symplan_core is a one-file change on the ROS side. Imports are lazy so that importing
symplan_ros (e.g. for the launch-file test) does not load the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def compile_task(problem: Any, robot: str) -> Any:
    from symplan_core.engine import compile_task as _compile

    return _compile(problem, robot=robot)


def verify(task: Any, plan_text: str, state: Any) -> Any:
    from symplan_core.engine import verify as _verify

    # A copy: verification simulates the plan and must not advance the live state.
    return _verify(task, plan_text, state=state.copy())


def apply(task: Any, state: Any, call: Any) -> list[str]:
    """Apply a SUCCEEDED subgoal's effects to the live state; return engine errors (if any)."""
    outcome = task.apply(state, call)
    return [str(getattr(e, "message", e)) for e in (outcome.errors or [])]


def error_lines(result: Any) -> list[str]:
    lines = []
    for e in result.errors:
        step = getattr(e, "step", None)
        hint = getattr(e, "hint", "") or ""
        where = f"step {step}: " if step is not None else ""
        lines.append(f"{where}{getattr(e, 'kind', 'error')}: {getattr(e, 'message', e)}"
                     + (f" (hint: {hint})" if hint else ""))
    if not lines and not getattr(result, "format_ok", True):
        lines.append("format: the response contains no parsable plan")
    if not lines and not result.strict_pass:
        lines.append(f"goal not reached (gcr={float(result.gcr):.2f})")
    return lines


def to_json_text(result: Any) -> str:
    import json

    try:
        return json.dumps(result.to_json(), default=str)
    except Exception as exc:  # noqa: BLE001 - the JSON is informative only
        return json.dumps({"error": f"to_json failed: {exc}"})


def _literal_text(lit: Any) -> str:
    if isinstance(lit, str):
        return lit
    to_list = getattr(lit, "to_list", None)
    if to_list is not None:
        parts = to_list()
        if parts and parts[0] == "not":
            return "(not (" + " ".join(map(str, parts[1])) + "))"
        return "(" + " ".join(map(str, parts)) + ")"
    if isinstance(lit, tuple):
        return "(" + " ".join(map(str, lit)) + ")"
    return str(lit)


def _delta(outcome: Any) -> tuple[list[str], list[str]]:
    delta = getattr(outcome, "delta", None)
    if delta is None:
        return [], []
    added = getattr(delta, "added", None)
    removed = getattr(delta, "removed", None)
    if added is None and isinstance(delta, tuple) and len(delta) == 2:
        added, removed = delta
    return [_literal_text(x) for x in (added or ())], [_literal_text(x) for x in (removed or ())]


def call_text(call: Any) -> str:
    text = getattr(call, "text", "")
    return text or f"{call.action}({', '.join(call.args)})"


def subgoals_for(task: Any, state: Any, calls: Sequence[Any], plan_id: str, subgoal_type: type) -> list[Any]:
    """Subgoals of a verified plan, with each step's expected effects (simulated on a copy)."""
    sim = state.copy()
    out = []
    for index, call in enumerate(calls):
        added, removed = _delta(task.apply(sim, call))
        out.append(subgoal_type(
            plan_id=plan_id, index=index, count=len(calls), action=call.action,
            args=tuple(call.args), text=call_text(call), expected_add=tuple(added),
            expected_del=tuple(removed), call=call,
        ))
    return out


# ---- backends and prompts ------------------------------------------------------------------
def make_backend(spec: str) -> Any:
    from symplan_core.llm import make_backend as _make

    return _make(spec)


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


def prompt_messages(task: Any, problem: Any, state: Any, robot: str, variant: str,
                    history: Sequence[str]) -> Any:
    """The planning prompt for ``task``; on a replan, it says what happened so far.

    The verification that gates execution is always from the live state; the prompt only
    has to steer the planner towards a plan that passes it.
    """
    from symplan_core.prompts import build_prompt

    prompt = build_prompt(task, robot, variant=variant, state=state) if history else build_prompt(
        task, robot, variant=variant)
    if not history:
        return prompt
    note = ("Execution so far (the state has changed since the task was stated):\n- "
            + "\n- ".join(history)
            + "\nWrite a new plan that reaches the goal from the current state.")
    return _append(prompt, [{"role": "user", "content": note}])


def repair_messages(messages: Any, text: str, errors: Sequence[str]) -> Any:
    feedback = ("The plan was rejected by the symbolic verifier:\n- " + "\n- ".join(errors)
                + "\nReturn a corrected complete plan in the same format.")
    return _append(messages, [{"role": "assistant", "content": text},
                              {"role": "user", "content": feedback}])


def _append(prompt: Any, extra: list[dict[str, str]]) -> Any:
    """Append chat messages to a list-of-dicts prompt or a PlannerPrompt (keeping its task)."""
    if isinstance(prompt, list | tuple):
        return [*prompt, *extra]
    from dataclasses import replace

    from symplan_core.llm.base import ChatMessage

    return replace(prompt, messages=(*prompt.messages, *(ChatMessage(m["role"], m["content"]) for m in extra)))
