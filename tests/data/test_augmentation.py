"""Seeded augmentation on real tasks, and the property that the factory emits only valid samples."""

from __future__ import annotations

import random
from dataclasses import replace

from factory_helpers import TRAIN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symplan_core.bddl import parse_problem
from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.model import Atom, Literal
from symplan_core.bddl.writer import write_problem
from symplan_core.data.augment import init_aug, object_aug, siblings
from symplan_core.data.factory import Factory, FactoryConfig
from symplan_core.data.validate import validate_definition
from symplan_core.engine import check_format, compile_task
from symplan_core.planners.reference import plan_task
from symplan_core.prompts import goal_instructions
from symplan_core.tasks import load_problem, synset_info


def test_init_aug_moves_objects_between_fixtures_and_keeps_the_goal(behavior_dir, placements) -> None:
    original = load_problem("b1k/adding_fabric_softener")
    draft = init_aug(original, random.Random(3), placements)
    assert draft.problem is not None and draft.kind == "init_aug"
    assert draft.problem.goal == original.goal and draft.problem.objects == original.objects
    changed = set(draft.problem.init) ^ set(original.init)
    assert len(changed) == 2 * len(draft.details["moves"])  # each move swaps one placement fact
    for move in draft.details["moves"]:
        relation, support = move["to"]
        assert any(lit.args == (move["object"], support) and lit.predicate == relation for lit in draft.problem.init)
        assert move["from"][1] != support
    assert init_aug(original, random.Random(3), placements) == draft  # same seed, same draft


def test_swap_renames_a_type_everywhere_for_a_sibling_with_the_same_abilities(behavior_dir) -> None:
    original = load_problem("b1k/putting_shoes_on_rack")
    for seed in range(40):
        draft = object_aug(original, random.Random(seed))
        if draft.problem is not None and draft.details["method"] == "swap":
            break
    else:  # pragma: no cover - the task has swappable types
        raise AssertionError("no swap in 40 seeds")
    old, new = draft.details["from"], draft.details["to"]
    assert new in siblings(old) and synset_info(new).abilities == synset_info(old).abilities
    text = write_problem(draft.problem)
    assert old not in text and new in text
    assert len(draft.problem.instances_of(new)) == len(original.instances_of(old))
    assert parse_problem(text) == draft.problem  # variables and quantifier types renamed consistently


def test_count_copies_an_instance_and_its_goal_conjuncts(behavior_dir) -> None:
    original = load_problem("b1k/adding_fabric_softener")  # sheet_1 must go into the washer
    for seed in range(60):
        draft = object_aug(original, random.Random(seed))
        if draft.problem is not None and draft.details["method"] == "count" and "added" in draft.details:
            break
    else:  # pragma: no cover
        raise AssertionError("no instance added in 60 seeds")
    new, template = draft.details["added"], draft.details["copied_from"]
    assert draft.problem.objects[new] == original.objects[template]
    copied = {lit.predicate for lit in draft.problem.init if lit.args[:1] == (new,)}
    assert copied == {lit.predicate for lit in original.init if lit.args[:1] == (template,)}
    named = {a for atom in iter_atoms(draft.problem.goal) for a in atom.args}
    assert (template in named) == (new in named)


def test_drafts_that_break_a_task_are_rejected_by_validation(behavior_dir) -> None:
    original = load_problem("b1k/turning_on_radio")
    impossible = replace(original, goal=Atom("inside", ("table.n.02_1", "radio_receiver.n.01_1")))  # a fixture
    assert validate_definition(impossible, ("single",)).reason == "unsolved"
    done = replace(original, init=tuple(lit for lit in original.init if lit.predicate != "toggled_on")
                   + tuple(Literal(atom) for atom in iter_atoms(original.goal)))
    assert validate_definition(done, ("single",), require_open_goal=True).reason == "goal_holds_initially"
    unknown = replace(original, init=(*original.init, Literal(Atom("ontop", ("ghost.n.01_1", "table.n.02_1")))))
    assert validate_definition(unknown, ("single",)).reason == "check"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), activity=st.sampled_from(TRAIN))
def test_every_emitted_sample_is_valid_for_any_seed(seed, activity, test_activities, placements) -> None:
    factory = Factory(FactoryConfig(splits=("b1k/train",), tasks=(activity,), seed=seed, train_robots="both",
                                    distractors=2), test_activities, placements)
    rows = list(factory.rows())
    counts = factory.counts["b1k/train"]
    if counts.original == 0:  # the reference planner cannot solve the original: excluded, counted, no drafts
        assert not rows and sum(n for r, n in counts.excluded.items() if r.startswith("original:")) == 1
        return
    for kind, made in (("init_aug", counts.init_aug), ("object_aug", counts.object_aug)):
        tried = sum(n for reason, n in counts.excluded.items() if reason.startswith(kind + ":"))
        assert made == 1 or tried >= 1, (kind, counts.excluded)  # a missing draft is always counted
    for row in rows:
        problem = parse_problem(row.bddl)
        task = compile_task(problem, row.robot, row.action_set)
        plan = plan_task(task)
        assert plan.strict_pass, (row.id, plan.reason)
        assert not check_format(plan.response), row.id  # the gold answer passes the engine's format check
        request = "\n".join(turn.content for turn in row.prompt[1:])
        assert all(sentence.lower() in request.lower() for sentence in goal_instructions(task)), row.id
        if row.source != "object_aug":
            assert problem.goal == load_problem(f"b1k/{activity}").goal
