"""The engine-backed solvability check used by action discovery's validate phase."""

from __future__ import annotations

from symplan_core.bddl.model import Problem
from symplan_core.engine import compile_task
from symplan_core.engine.actions import ActionSpec
from symplan_core.planners.reference import plan_task


def solve_with(problem: Problem, base_set: str, extra: list[ActionSpec]) -> bool:
    """Whether the reference planner strict-passes ``problem`` with ``base_set`` + ``extra``."""
    task = compile_task(problem, "single", base_set)
    task.add_actions(extra)
    return plan_task(task, time_budget=2.0).strict_pass
