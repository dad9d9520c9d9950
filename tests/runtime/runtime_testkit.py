"""Test backends and checks shared by the runtime and ROS tests (real symplan_core classes, no mocks).

`suffix_backend` is a tiny planner for one real BEHAVIOR task: from the task it is given
(``PlannerPrompt.task`` starts at the live state on a replan) it returns the shortest suffix of
a known-good plan that strict-passes the engine. It stands in for the reference planner where
a test needs a deterministic plan.
"""

from __future__ import annotations

from symplan_core.engine import compile_task, verify
from symplan_core.llm.base import FunctionBackend, PlannerPrompt
from symplan_core.tasks import load_problem

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


def replay(dispatched: list, failed: set[int] = frozenset(), plans: dict[str, str] | None = None) -> None:
    """Re-check the invariant independently: group dispatched subgoals by plan, and verify each
    plan's full text strict-passes from the symbolic state in which its first subgoal ran.

    ``plans`` (plan_id -> the validated plan's text, from ``SessionResult.plans``) lets aborted
    plans be re-verified too; without it (subgoals seen over DDS) only completed plans can be
    rebuilt from their subgoals. ``failed``: positions in ``dispatched`` the controller failed
    (their effects are not applied)."""
    from symplan_core.engine import parse_plan

    task = compile_task(load_problem(TASK, BENCH))
    state = task.initial_state()
    by_plan: dict[str, list] = {}
    for sub in dispatched:
        by_plan.setdefault(sub.plan_id, []).append(sub)
    position = 0
    for plan_id, subs in by_plan.items():
        assert [s.index for s in subs] == list(range(len(subs))), f"{plan_id} out of order"
        texts = [s.text for s in subs]
        if plans is not None:
            assert plan_id in plans, f"{plan_id} published subgoals but was never validated"
            full = plans[plan_id]
            assert full.splitlines()[:len(texts)] == texts, f"{plan_id}: subgoals differ from the validated plan"
        else:
            full = "\n".join(texts) if len(subs) == subs[0].count else None
        if full is not None:
            assert verify(task, full, state).strict_pass, f"{plan_id} not strict-pass from the state it ran on"
        for s in subs:
            if position not in failed:
                (call,) = parse_plan(s.text).calls
                assert not task.apply(state, call).errors
            position += 1
