"""Goal grounding: the literals the planner commits to must be jointly achievable in the engine."""

from __future__ import annotations

from symplan_core.bddl import parse_problem
from symplan_core.engine import compile_task
from symplan_core.planners.grounding import Grounder
from symplan_core.tasks import load_problem


def _ground(task_name: str) -> set[str]:
    task = compile_task(load_problem(task_name), "single", "full")
    return {str(t) for t in Grounder(task.evaluator, task.initial_state(), task.world).ground(task.problem.goal)}


def test_a_shoe_is_not_chosen_both_under_the_table_and_next_to_it():
    targets = _ground("b100/cleaning_sneakers")
    under = {t.split()[1] for t in targets if t.startswith("(under ")}
    beside = {t.split()[1] for t in targets if t.startswith("(nextto gym_shoe")}
    assert len(under) == len(beside) == 2 and not under & beside


def test_filled_contradicts_not_contains():
    # canning_food: one bowl with steak and no pineapple, another with pineapple and no steak.
    targets = _ground("b1k/canning_food")
    steak = next(t for t in targets if t.startswith("(filled") and "diced__steak" in t).split()[1]
    pineapple = next(t for t in targets if t.startswith("(filled") and "diced__pineapple" in t).split()[1]
    assert steak != pineapple


def test_one_attachment_per_object():
    targets = _ground("b1k/changing_light_bulbs")
    bulbs = [t.split()[1] for t in targets if t.startswith("(attached light_bulb")]
    assert len(bulbs) == 2 and len(set(bulbs)) == 2  # a bulb cannot be screwed into both lamps


def test_a_conjunct_without_a_consistent_choice_is_grounded_first_on_retry():
    # buying_groceries: (imply (inside milk sack_1) (not (inside banana ?sack))) forbids the
    # greedy choice "milk and banana both in sack_1".
    targets = _ground("b1k/buying_groceries")
    milk = next(t for t in targets if t.startswith("(inside carton__of__milk")).split()[2].rstrip(")")
    banana = next(t for t in targets if t.startswith("(inside banana")).split()[2].rstrip(")")
    assert milk != "sack.n.01_1" and banana != milk  # milk in sack_1 would leave the banana no sack


def test_objects_not_yet_related_are_preferred():
    # One price tag per product group rather than the same tag touching four products.
    targets = _ground("b1k/selling_products_at_flea_market")
    tags = [t.split()[1] for t in targets if t.startswith("(touching price_tag")]
    assert len(tags) == 4 and len(set(tags)) == 4


_TRIANGLE = """(define (problem triangle-0) (:domain omnigibson)
  (:objects book.n.02_1 - book.n.02 folder.n.02_1 - folder.n.02 backpack.n.01_1 - backpack.n.01
            bed.n.01_1 - bed.n.01 floor.n.01_1 - floor.n.01 agent.n.01_1 - agent.n.01)
  (:init (ontop book.n.02_1 floor.n.01_1) (ontop folder.n.02_1 floor.n.01_1) (ontop backpack.n.01_1 floor.n.01_1)
         (inroom bed.n.01_1 bedroom) (inroom floor.n.01_1 bedroom) (ontop agent.n.01_1 floor.n.01_1))
  (:goal (and (nextto ?folder.n.02_1 ?book.n.02_1) (nextto ?folder.n.02_1 ?backpack.n.01_1)
              (nextto ?book.n.02_1 ?backpack.n.01_1) (ontop ?backpack.n.01_1 ?bed.n.01_1))))"""


def test_three_objects_pairwise_next_to_each_other_are_planned():
    from symplan_core.planners.reference import plan_task

    result = plan_task(compile_task(parse_problem(_TRIANGLE), "single"))
    assert result.strict_pass, result.reason
