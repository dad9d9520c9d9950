"""Room distractors and the room co-occurrence model, on real BEHAVIOR tasks."""

from __future__ import annotations

import random

import pytest

from symplan_core.data.distractors import add_distractors, goal_objects
from symplan_core.data.placements import (
    TOOL_ABILITIES,
    Placement,
    is_fixture,
    is_movable,
    rooms_of,
    support_of,
)
from symplan_core.data.validate import validate_definition
from symplan_core.prompts import build_prompt
from symplan_core.tasks import load_problem, synset_info


def test_room_model_counts_movable_objects_on_room_fixtures(placements) -> None:
    assert placements.problems > 900 and len(placements.placements) > 1000
    for placement in list(placements.placements)[:300]:
        assert is_movable(placement.synset) and is_fixture(placement.support)
        assert placement.relation in ("ontop", "inside")
    fridge = "electric_refrigerator.n.01"
    inside_fridge = [p for p in placements.placements if p.support == fridge and p.relation == "inside"]
    assert inside_fridge and all(p.room for p in inside_fridge)
    assert placements.relation_for(inside_fridge[0].synset, fridge) == "inside"
    assert placements.relation_for("apple.n.01", "countertop.n.01") == "ontop"
    assert placements.relation_for("apple.n.01", "no_such_fixture.n.01") is None


@pytest.mark.parametrize("task", ["b1k/turning_on_radio", "b1k/adding_fabric_softener", "b100/cleaning_high_chair",
                                  "b100/assembling_gift_baskets"])
def test_distractors_are_new_room_objects_on_fixtures_and_leave_the_goal_alone(placements, task) -> None:
    original = load_problem(task)
    extension = add_distractors(original, placements, random.Random(7), 3)
    extended = extension.problem
    assert 1 <= len(extension.distractors) <= 3 and extended.goal == original.goal
    assert all(extended.objects[i] == t for i, t in original.objects.items())
    assert set(original.init) <= set(extended.init)
    rooms, task_rooms = rooms_of(extended), set(rooms_of(original).values())
    avoid = goal_objects(original)
    for inst, typ in extension.distractors.items():
        assert typ not in original.objects.values()  # no goal quantifier can range over it
        assert not synset_info(typ).abilities & TOOL_ABILITIES
        _, relation, support = support_of(extended, inst)
        assert support not in avoid and rooms[support] in task_rooms
        assert Placement(rooms[support], typ, relation, extended.objects[support]) in placements.placements
    for fixture in extension.fixtures:
        assert fixture not in original.objects and rooms[fixture] in task_rooms
    assert add_distractors(original, placements, random.Random(7), 3) == extension  # seeded


def test_an_extended_task_still_strict_passes_without_touching_its_distractors(placements) -> None:
    original = load_problem("b1k/adding_fabric_softener")
    extension = add_distractors(original, placements, random.Random(1), 3)
    check = validate_definition(extension.problem, ("single", "dual"), expect_goal=original.goal,
                                irrelevant=extension.added)
    assert check.ok, check.detail
    task = check.tasks["single"]
    environment = build_prompt(task)[1]["content"]  # listed like any other object, with its placement
    for inst in extension.distractors:
        assert f"({support_of(extension.problem, inst)[1]} {task.names.short(inst)} " in environment


def test_a_plan_that_uses_a_distractor_is_rejected(placements) -> None:
    original = load_problem("b1k/turning_on_radio")
    check = validate_definition(original, ("single",), irrelevant={"radio_receiver.n.01_1"})
    assert check.reason == "distractor_used"
