"""What a goal may vouch for: curated task files are trusted, drafts under judgement are not."""

from __future__ import annotations

import pytest

from symplan_core.bddl import parse_problem
from symplan_core.engine import ErrorKind, compile_task, verify

TASK = """(define (problem evidence-0) (:domain omnigibson)
  (:objects table.n.02_1 - table.n.02 car.n.01_1 - car.n.01 floor.n.01_1 - floor.n.01 agent.n.01_1 - agent.n.01)
  (:init (inroom table.n.02_1 kitchen) (inroom car.n.01_1 garage) (inroom floor.n.01_1 kitchen)
         (ontop agent.n.01_1 floor.n.01_1))
  (:goal (and %s)))"""


@pytest.mark.parametrize(("goal", "plan", "kind"), [
    ("(toggled_on ?table.n.02_1)", "navigate(table_1)\ntoggle_on(table_1)", ErrorKind.AFFORDANCE),
    ("(ontop ?car.n.01_1 ?floor.n.01_1)", "navigate(car_1)\ngrasp(car_1)\nnavigate(floor_1)\nplace_on_top(car_1, floor_1)",
     ErrorKind.AFFORDANCE),
])
def test_without_goal_evidence_the_goal_proves_no_ability_and_moves_no_fixture(behavior_dir, goal, plan, kind) -> None:
    problem = parse_problem(TASK % goal)
    assert verify(compile_task(problem), plan).strict_pass  # a curated file's goal is its author's word
    judged = verify(compile_task(problem, goal_evidence=False), plan)
    assert not judged.strict_pass and judged.errors[0].kind is kind


def test_initial_state_evidence_counts_either_way(behavior_dir) -> None:
    problem = parse_problem((TASK % "(not (open ?table.n.02_1))").replace(
        "(ontop agent.n.01_1 floor.n.01_1))", "(ontop agent.n.01_1 floor.n.01_1) (open table.n.02_1))"))
    assert verify(compile_task(problem, goal_evidence=False), "navigate(table_1)\nclose(table_1)").strict_pass
