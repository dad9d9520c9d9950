"""Test backends and checks shared by the ROS tests (real symplan_core classes, no mocks).

`suffix_backend` is a tiny planner for one real BEHAVIOR task: from the task it is given
(``PlannerPrompt.task`` starts at the live state on a replan) it returns the shortest suffix of
a known-good plan that strict-passes the engine. It stands in for the reference planner where
a test needs a deterministic plan.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from symplan_core.engine import compile_task, verify
from symplan_core.llm.base import FunctionBackend, PlannerPrompt
from symplan_core.tasks import load_problem

ROOT = Path(__file__).resolve().parents[2]
TASK, BENCH = "bringing_in_wood", "b100"
GOOD_PLAN = "\n".join(
    f"navigate(plywood_{i})\ngrasp(plywood_{i})\nnavigate(floor_2)\nplace_on_top(plywood_{i}, floor_2)"
    for i in (1, 2, 3)
)


def _suffix(prompt: PlannerPrompt) -> str:
    task = prompt.task
    lines = GOOD_PLAN.splitlines()
    state = task.initial_state()
    for start in range(len(lines) + 1):
        text = "\n".join(lines[start:])
        if verify(task, text, state).strict_pass:
            return text
    return "give_up()"


def suffix_backend() -> FunctionBackend:
    return FunctionBackend(_suffix, name="suffix")


def garbage_backend() -> FunctionBackend:
    # What a confused LLM might return: prose, code-ish text, and an unknown action.
    return FunctionBackend(lambda _p: "Sure! import os; os.system('x')\nteleport(plywood_1)\n((", name="garbage")


def replay(dispatched: list, failed: set[int] = frozenset()) -> None:
    """Re-check the invariant independently: group dispatched subgoals by plan, and verify each
    plan's full text strict-passes from the symbolic state in which its first subgoal ran."""
    task = compile_task(load_problem(TASK, BENCH))
    state = task.initial_state()
    plans: dict[str, list] = {}
    for sub in dispatched:
        plans.setdefault(sub.plan_id, []).append(sub)
    position = 0
    for plan_id, subs in plans.items():
        count = subs[0].count
        assert [s.index for s in subs] == list(range(len(subs))), f"{plan_id} out of order"
        # The full plan (all `count` steps) must strict-pass from here; rebuild it from the
        # subgoals that ran plus nothing else only when the plan completed.
        texts = [s.text for s in subs]
        if len(subs) == count:
            assert verify(task, "\n".join(texts), state).strict_pass, f"{plan_id} not strict-pass"
        for s in subs:
            if position not in failed:
                from symplan_core.engine import parse_plan

                (call,) = parse_plan(s.text).calls
                assert not task.apply(state, call).errors
            position += 1


def domain_id_for(name: str) -> int:
    """A DDS domain per test module (and per process), so parallel runs do not cross-talk."""
    return 10 + (zlib.crc32(name.encode()) + os.getpid()) % 90
