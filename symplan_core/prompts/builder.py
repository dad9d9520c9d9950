"""The planner prompt: one builder for evaluation, data generation and the runtime.

``build_prompt(task)`` returns chat messages (``[{"role", "content"}, ...]``):

* system: the robot (single arm = one hand, dual arm = two hands), the action rules, the
  allowed actions with signatures and one-line docs taken from the task's action specs, and the
  paper's output format ``<think>…</think><answer><steps>…</steps><code>…</code></answer>``;
* user: the environment block (objects + initial state, short names, no goal; distractor
  objects when given) and the request in English from :mod:`symplan_core.prompts.goal_text`.

Variants are named: ``guided`` (the paper's Guided prompt, default) and ``forbid`` (Guided plus
explicit forbidden behaviours). :func:`repair_message` turns an engine verdict into the
follow-up turn of verifier-in-the-loop repair.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Literal

from symplan_core.bddl.environment import render_environment
from symplan_core.bddl.model import Atom, Problem
from symplan_core.bddl.model import Literal as InitLiteral
from symplan_core.engine.state import State
from symplan_core.engine.verify import CompiledTask, VerifyResult
from symplan_core.prompts.goal_text import goal_to_english

Variant = Literal["guided", "forbid"]
VARIANTS: tuple[str, ...] = ("guided", "forbid")

_ROBOT = {
    "single": "a single-arm mobile robot with ONE hand: it can hold at most one object at a time",
    "dual": "a dual-arm mobile robot with TWO hands: it can hold at most two objects at a time",
}

OUTPUT_FORMAT = """\
Answer in exactly this format and nothing else:
<think>your reasoning about the objects, their states and the order of actions</think>
<answer><steps>
1. a short natural-language description of the first step
2. ...
</steps><code>
action(arg, arg)
action(arg)
</code></answer>
The <code> block holds one allowed action call per line, in execution order, using object names
exactly as listed in the environment. Write no other code."""

_RULES = """\
Rules:
- navigate to an object before you grasp it, use it, or place something on, in, next to or under it.
- grasp needs a free hand; placing (place_*) needs the object to be in your hand, and frees that hand.
- {hands}
- Open a closed container before taking something out of it or putting something inside it.
- Only movable objects can be grasped; floors, furniture and substances (water, dust, ...) cannot.
- Use only the allowed actions and only objects listed in the environment.
- The plan must leave every requirement of the task satisfied at the end."""

_HANDS = {
    "single": "With one hand you must place (or otherwise use up) the held object before grasping another.",
    "dual": "With two hands you may carry two objects at once; a third grasp needs a hand freed first.",
}

_FORBID = """\
Forbidden:
- Do NOT invent objects, actions or arguments; do NOT shorten or rename objects.
- Do NOT grasp when your hands are full, and do NOT place an object you are not holding.
- Do NOT grasp fixtures (floors, tables, counters, cabinets, beds, ...) or substances.
- Do NOT put anything inside a closed container, and do NOT act on objects you have not navigated to.
- Do NOT repeat an action whose effect already holds (e.g. opening an open door).
- Do NOT write loops, variables, comments or any text outside the required tags."""


def action_lines(task: CompiledTask) -> list[str]:
    """``- signature: doc`` for every action of the task's action set, in spec order."""
    return [f"- {spec.signature}: {spec.doc}" for spec in task.specs.values()]


def system_prompt(task: CompiledTask, variant: Variant = "guided") -> str:
    if variant not in VARIANTS:
        raise ValueError(f"unknown prompt variant {variant!r}; choose from {', '.join(VARIANTS)}")
    parts = [
        f"You are the task planner of {_ROBOT[task.robot]}. You turn a household task into a "
        "sequence of robot actions that is executed exactly as written.",
        _RULES.format(hands=_HANDS[task.robot]),
    ]
    if variant == "forbid":
        parts.append(_FORBID)
    parts.append("Allowed actions:\n" + "\n".join(action_lines(task)))
    parts.append(OUTPUT_FORMAT)
    return "\n\n".join(parts)


def _problem_at(task: CompiledTask, state: State) -> Problem:
    """The task's problem with ``state``'s literals (sorted, so prompts are reproducible) as init.
    Rooms never change and the engine does not store them, so ``inroom`` comes from the task."""
    rooms = tuple(lit for lit in task.problem.init if lit.predicate == "inroom")
    live = tuple(InitLiteral(Atom(lit[0], tuple(lit[1:]))) for lit in sorted(state.literals()))
    return dataclasses.replace(task.problem, init=live + rooms)


def environment_block(task: CompiledTask, distractors: Mapping[str, str] | None = None,
                      state: State | None = None) -> str:
    """The environment with short names; ``distractors`` (name -> type) are extra listed objects.
    With ``state``, the listed literals are that state's instead of the task's initial ones."""
    problem = task.problem if state is None else _problem_at(task, state)
    text = render_environment(problem, task.names)
    if not distractors:
        return text
    by_type: dict[str, list[str]] = {}
    for name, typ in distractors.items():
        by_type.setdefault(typ, []).append(name)
    extra = [f"        {' '.join(names)} - {typ}" for typ, names in by_type.items()]
    head, sep, tail = text.partition("\n    )\n    (:init")
    return head + "\n" + "\n".join(extra) + sep + tail


def user_prompt(task: CompiledTask, distractors: Mapping[str, str] | None = None,
                state: State | None = None, history: Sequence[str] = (), request: str | None = None) -> str:
    """The request. ``state`` (with ``history``, the steps already executed) makes it a replan:
    the environment shows what is true now and the plan must start from there. ``request``
    replaces the goal-to-English task block (the first turn of a dialogue)."""
    if state is None:
        if request is None:
            request = f"Task:\n{goal_to_english(task)}\n\nWrite the plan."
        return (
            "Environment (objects and their initial state):\n"
            f"{environment_block(task, distractors)}\n\n"
            f"{request}"
        )
    done = "".join(f"\n- {step}" for step in history) or "\n- (nothing yet)"
    where = f"\nThe robot is now next to {task.names.short(state.at)}." if state.at else ""
    return (
        "Environment (objects and their state NOW, after part of the task was executed):\n"
        f"{environment_block(task, distractors, state)}\n\n"
        f"Executed so far:{done}{where}\n\n"
        f"Task:\n{goal_to_english(task)}\n\n"
        "Write a new complete plan that reaches the goal from the current state."
    )


def build_prompt(
    task: CompiledTask,
    robot: str | None = None,
    variant: Variant = "guided",
    distractors: Mapping[str, str] | None = None,
    state: State | None = None,
    history: Sequence[str] = (),
    dialogue: Sequence[Mapping[str, str]] | None = None,
) -> list[dict[str, str]]:
    """Chat messages for one episode. ``robot`` defaults to (and must match) ``task.robot``:
    the hand capacity the engine checks is the task's. ``state``/``history`` build a replan
    prompt from a live state (verify the answer with ``task.at_state(state)``). ``dialogue``
    (user/assistant turns from :mod:`symplan_core.prompts.dialogue`, first and last by the user)
    replaces the task block: its first turn follows the environment, the others follow as messages."""
    if robot is not None and robot != task.robot:
        raise ValueError(f"task was compiled for the {task.robot} robot, not {robot!r}; recompile it")
    system = {"role": "system", "content": system_prompt(task, variant)}
    if not dialogue:
        return [system, {"role": "user", "content": user_prompt(task, distractors, state, history)}]
    roles = [turn["role"] for turn in dialogue]
    if state is not None or roles[0] != "user" or roles[-1] != "user" or "system" in roles:
        raise ValueError("a dialogue starts and ends with a user turn, has no system turn, and is not a replan")
    first = {"role": "user", "content": user_prompt(task, distractors, request=dialogue[0]["content"])}
    return [system, first, *({"role": t["role"], "content": t["content"]} for t in dialogue[1:])]


def repair_message(result: VerifyResult, max_errors: int = 8) -> dict[str, str]:
    """The user turn that feeds the engine's verdict (errors + hints) back to the planner."""
    lines = ["The engine executed your plan and it did not pass."]
    if not result.format_ok and result.format_issues:
        lines.append("Format problems: " + "; ".join(result.format_issues) + ".")
    if result.errors:
        lines.append("Errors:")
        lines += [f"- {e.line()}" for e in result.errors[:max_errors]]
        if len(result.errors) > max_errors:
            lines.append(f"- ... and {len(result.errors) - max_errors} more")
    unmet = result.goal_conjuncts.count(False)
    if unmet:
        lines.append(f"After the plan, {unmet} of {len(result.goal_conjuncts)} task requirements are not met.")
    if not result.calls:
        lines.append("No action calls were found in a <code> block.")
    lines.append("Write the complete corrected plan in the same format.")
    return {"role": "user", "content": "\n".join(lines)}


def repair_conversation(
    messages: Sequence[Mapping[str, str]], response: str, result: VerifyResult
) -> list[dict[str, str]]:
    """Messages for the next repair round: the history, the failed answer, the engine's verdict."""
    return [*map(dict, messages), {"role": "assistant", "content": response}, repair_message(result)]
