"""Exact goal semantics on synthetic problems (forn = at least n, forpairs = one-to-one matching)."""

from __future__ import annotations

import pytest
from plans import plan_text

from symplan_core.bddl import parse_problem
from symplan_core.engine import compile_task, verify

# Left: rag_1..3, right: bowl_1..3. Row and column coverage hold (every rag and every bowl
# has an edge) but rag_2 and rag_3 only reach bowl_1: no perfect matching exists.
NO_MATCHING = ["(covered bowl.n.01_1 rag.n.01_1)", "(covered bowl.n.01_2 rag.n.01_1)",
               "(covered bowl.n.01_3 rag.n.01_1)", "(covered bowl.n.01_1 rag.n.01_2)",
               "(covered bowl.n.01_1 rag.n.01_3)"]
PERFECT = ["(covered bowl.n.01_1 rag.n.01_1)", "(covered bowl.n.01_2 rag.n.01_2)",
           "(covered bowl.n.01_3 rag.n.01_3)", "(covered bowl.n.01_1 rag.n.01_2)"]


def task_with(init: list[str], goal: str, extra_objects: str = ""):
    text = f"""(define (problem synthetic-0) (:domain omnigibson)
      (:objects rag.n.01_1 rag.n.01_2 rag.n.01_3 - rag.n.01 bowl.n.01_1 bowl.n.01_2 bowl.n.01_3 - bowl.n.01
                floor.n.01_1 - floor.n.01 {extra_objects} agent.n.01_1 - agent.n.01)
      (:init {' '.join(init)} (inroom floor.n.01_1 kitchen) (ontop agent.n.01_1 floor.n.01_1))
      (:goal (and {goal})))"""
    return compile_task(parse_problem(text))


def holds(init: list[str], goal: str, extra_objects: str = "") -> bool:
    return verify(task_with(init, goal, extra_objects), "").engine_pass


FORPAIRS = "(forpairs (?bowl.n.01 - bowl.n.01) (?rag.n.01 - rag.n.01) (covered ?bowl.n.01 ?rag.n.01))"


def test_forpairs_needs_a_one_to_one_matching_not_just_coverage():
    assert holds(PERFECT, FORPAIRS)
    assert not holds(NO_MATCHING, FORPAIRS)


@pytest.mark.parametrize(("n", "with_matching", "without"), [(2, True, True), (3, True, False)])
def test_fornpairs_counts_matched_pairs(n, with_matching, without):
    goal = f"(fornpairs ({n}) (?bowl.n.01 - bowl.n.01) (?rag.n.01 - rag.n.01) (covered ?bowl.n.01 ?rag.n.01))"
    assert holds(PERFECT, goal) is with_matching
    assert holds(NO_MATCHING, goal) is without


@pytest.mark.parametrize(("n", "expected"), [(1, True), (2, True), (3, False)])
def test_forn_means_at_least_n(n, expected):
    init = ["(folded rag.n.01_1)", "(folded rag.n.01_2)"]
    assert holds(init, f"(forn ({n}) (?rag.n.01 - rag.n.01) (folded ?rag.n.01))") is expected


def test_forall_and_exists_over_instances():
    init = ["(folded rag.n.01_1)", "(folded rag.n.01_2)"]
    assert not holds(init, "(forall (?rag.n.01 - rag.n.01) (folded ?rag.n.01))")
    assert holds(init + ["(folded rag.n.01_3)"], "(forall (?rag.n.01 - rag.n.01) (folded ?rag.n.01))")
    assert holds(init, "(exists (?rag.n.01 - rag.n.01) (not (folded ?rag.n.01)))")
    assert not holds([], "(exists (?rag.n.01 - rag.n.01) (folded ?rag.n.01))")


def test_quantifiers_over_a_type_with_no_instances():
    assert holds([], "(forall (?cup.n.01 - cup.n.01) (folded ?cup.n.01))")
    assert not holds([], "(exists (?cup.n.01 - cup.n.01) (folded ?cup.n.01))")


def test_imply_not_and_or():
    assert holds([], "(imply (folded rag.n.01_1) (folded rag.n.01_2))")
    assert not holds(["(folded rag.n.01_1)"], "(imply (folded rag.n.01_1) (folded rag.n.01_2))")
    assert holds(["(folded rag.n.01_1)"], "(not (folded rag.n.01_2))")
    assert holds(["(folded rag.n.01_2)"], "(or (folded rag.n.01_1) (folded rag.n.01_2))")
    assert not holds([], "(or (folded rag.n.01_1) (folded rag.n.01_2))")


def test_nested_quantifiers_bind_independently():
    goal = "(forall (?rag.n.01 - rag.n.01) (exists (?bowl.n.01 - bowl.n.01) (covered ?bowl.n.01 ?rag.n.01)))"
    assert holds(NO_MATCHING, goal)
    assert not holds(NO_MATCHING[:3], goal)


def test_gcr_counts_top_level_conjuncts():
    goal = "(folded rag.n.01_1) (folded rag.n.01_2) (folded rag.n.01_3) (folded bowl.n.01_1)"
    result = verify(task_with(["(folded rag.n.01_1)"], goal), "")
    assert result.goal_conjuncts == [True, False, False, False]
    assert result.gcr == 0.25 and not result.engine_pass


def test_grounded_fraction_counts_forall_instances_separately():
    goal = "(forall (?rag.n.01 - rag.n.01) (folded ?rag.n.01)) (folded bowl.n.01_1)"
    result = verify(task_with(["(folded rag.n.01_1)", "(folded rag.n.01_2)"], goal), "")
    assert result.gcr == 0.0
    assert result.grounded_fraction == pytest.approx(2 / 4)


def test_gcr_and_grounded_fraction_on_a_real_task(compiled):
    task = compiled("b1k/clearing_food_from_table_into_fridge")
    result = verify(task, plan_text(
        "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)", "navigate(tupperware_1)",
        "grasp(tupperware_1)", "navigate(electric_refrigerator_1)",
        "place_inside(tupperware_1, electric_refrigerator_1)"))
    # conjuncts: pie in a tupperware, chicken in a tupperware, all tupperware in fridge, fridge closed
    assert result.goal_conjuncts == [False, False, False, False]
    assert result.grounded_fraction == pytest.approx(1 / 5)  # only (inside tupperware_1 fridge)


def test_gcr_of_a_partial_real_plan(compiled):
    from plans import gift_baskets_single
    result = verify(compiled("b100/assembling_gift_baskets"), plan_text(*gift_baskets_single()[:16]))
    assert result.goal_conjuncts == [True, False, False, False] and result.gcr == 0.25


def test_future_objects_are_not_real_until_made():
    extra = "apple.n.01_1 - apple.n.01"
    task = task_with(["(future apple.n.01_1)"], "(real apple.n.01_1)", extra)
    assert verify(task, "").gcr == 0.0
    assert verify(task, "make(apple_1)").strict_pass


def test_compiled_goals_agree_with_evaluation_on_every_behavior_goal(behavior_dir, monkeypatch):
    """GoalEvaluator.compile (quantifiers expanded once per task) gives evaluate's verdict for
    every conjunct of every B-100 and B-1K goal, under pseudo-random fact oracles; with a tiny
    expansion limit it falls back to plain evaluation and still agrees."""
    import zlib

    from symplan_core.engine import goals
    from symplan_core.engine.goals import GoalEvaluator

    def oracle(seed: int):
        return lambda pred, args: zlib.crc32(repr((seed, pred, args)).encode()) % 3 == 0

    files = sorted(behavior_dir.glob("*/problems/*.bddl"))
    assert len(files) > 1000
    checked = 0
    for limit in (goals.MAX_GROUND_NODES, 3):
        monkeypatch.setattr(goals, "MAX_GROUND_NODES", limit)
        for path in files[:: 1 if limit > 3 else 10]:
            problem = parse_problem(path.read_text(encoding="utf-8"), str(path))
            by_type: dict[str, list[str]] = {}
            for inst, typ in problem.objects.items():
                by_type.setdefault(typ, []).append(inst)
            evaluator = GoalEvaluator(by_type)
            for conjunct in evaluator.conjuncts(problem.goal):
                test = evaluator.compile(conjunct)
                for seed in range(3):
                    holds_fn = oracle(seed)
                    assert test(holds_fn) == evaluator.evaluate(conjunct, holds_fn), (path.name, seed)
                    checked += 1
    assert checked > 10_000


def test_a_goal_naming_an_undeclared_object_or_an_unbound_variable_is_a_task_error():
    # Qwen 1.5B wrote `(nextto ?water_glass.n.02 ?sink.n.01)` with no quantifier over the sink:
    # before, it compiled and the reference planner crashed with a KeyError far from the cause.
    from symplan_core.errors import TaskError

    with pytest.raises(TaskError, match=r"'sink.n.01', which is neither a declared object nor a variable"):
        task_with([], "(forall (?rag.n.01 - rag.n.01) (nextto ?rag.n.01 ?sink.n.01))")
    with pytest.raises(TaskError, match=r"'cup.n.01_1'"):
        task_with([], "(ontop cup.n.01_1 floor.n.01_1)")
    assert task_with([], "(forall (?rag.n.01 - rag.n.01) (nextto ?rag.n.01 ?bowl.n.01_1))")  # ?inst is an instance
