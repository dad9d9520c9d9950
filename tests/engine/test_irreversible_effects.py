"""Slicing, breaking, burning and setting on fire cannot be undone: a plan may do them only to
what the goal asks to be sliced, broken, burnt or on fire (``asked:`` checks). A guided Qwen plan for store_beer
broke every bottle before putting it in the fridge, and the engine used to accept it. Each
lenient call now fails with UNWANTED_EFFECT; the tasks whose goals ask for the state still
plan and pass, and the guide (``executable_calls``) never offers the harmful call. Real
BEHAVIOR task files."""

from __future__ import annotations

import pytest

from symplan_core.engine import ErrorKind, compile_task, parse_plan, verify
from symplan_core.engine.successors import executable_calls
from symplan_core.planners.reference import plan_task
from symplan_core.tasks import load_problem

UNWANTED = ErrorKind.UNWANTED_EFFECT


def _task(name: str, robot: str = "single"):
    return compile_task(load_problem(name, "b1k"), robot)


def _last_call_errors(task, lines: list[str]):
    state = task.initial_state()
    calls = parse_plan("\n".join(lines)).calls
    for call in calls[:-1]:
        assert not task.apply(state, call).errors, f"set-up step {call.text} failed"
    return task.apply(state, calls[-1]).errors, state


LENIENT = {
    # the store_beer plan the guided 1.5B model wrote (issue 20's ROS demo): nothing asks for broken bottles
    "break_a_bottle_that_should_go_in_the_fridge": ("store_beer", ["navigate(beer_bottle_1)",
                                                                  "break_obj(beer_bottle_1)"]),
    # the goal asks for cooked peppers, not burnt ones
    "burn_the_pepper_that_should_be_cooked": ("cook_red_peppers", [
        "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)", "grasp(bell_pepper_1)",
        "navigate(stove_1)", "place_on_top(bell_pepper_1, stove_1)", "toggle_on(stove_1)",
        "burn(bell_pepper_1)"]),
    # the goal asks for the peppers cooked, and says nothing of slicing them
    "slice_a_pepper_that_should_be_cooked": ("cook_red_peppers", [
        "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)", "navigate(carving_knife_1)",
        "grasp(carving_knife_1)", "navigate(electric_refrigerator_1)", "cut(bell_pepper_1)"]),
    # a goal that says "not broken" asks for the opposite
    "break_the_chair_the_task_repairs": ("fixing_broken_chair", ["navigate(armchair_1)", "repair(armchair_1)",
                                                                 "break_obj(armchair_1)"]),
}


@pytest.mark.parametrize("case", sorted(LENIENT))
def test_an_irreversible_change_the_goal_does_not_ask_for_fails_as_unwanted_effect(case):
    task_name, lines = LENIENT[case]
    errors, _ = _last_call_errors(_task(task_name), lines)
    assert [e.kind for e in errors] == [UNWANTED], [e.line() for e in errors]
    assert "cannot be undone" in errors[0].message and errors[0].hint
    assert errors[0].precondition == ""  # nothing a plan can do makes it wanted


def test_a_plan_that_breaks_what_it_stores_is_no_strict_pass():
    task = _task("store_beer")
    reference = plan_task(task)
    text = "\n".join(f"{a}({', '.join(task.names.short(x) for x in args)})" for a, args in reference.calls)
    assert verify(task, parse_plan(text)).strict_pass
    broken_first = text.replace("grasp(beer_bottle_1)", "break_obj(beer_bottle_1)\ngrasp(beer_bottle_1)")
    result = verify(task, parse_plan(broken_first))
    assert result.goal_conjuncts and all(result.goal_conjuncts)  # the bottles still end in the fridge
    assert not result.strict_pass
    assert [e.kind for e in result.errors] == [UNWANTED]


def test_setting_the_fire_may_ignite_what_its_goal_wants_on_fire():
    task = _task("setting_the_fire")
    # a quantified goal (forall firewood: on_fire) asks it of every instance of the type
    assert {("on_fire", "firewood.n.01_1"), ("on_fire", "firewood.n.01_2"),
            ("on_fire", "newspaper.n.03_1")} <= task.world.asked
    reference = plan_task(task)
    assert any(action == "ignite" for action, _ in reference.calls)
    text = "\n".join(f"{a}({', '.join(task.names.short(x) for x in args)})" for a, args in reference.calls)
    result = verify(task, parse_plan(text))
    assert result.strict_pass, result.failure_lines()


def test_chopping_vegetables_may_slice_what_its_goal_wants_sliced():
    task = compile_task(load_problem("chopping_vegetables", "b100"), "single")
    assert ("sliced", "tomato.n.01_2") in task.world.asked  # (forall (?tomato.n.01 - tomato.n.01) (sliced ...))
    reference = plan_task(task)
    assert ("cut", ("tomato.n.01_2",)) in reference.calls
    text = "\n".join(f"{a}({', '.join(task.names.short(x) for x in args)})" for a, args in reference.calls)
    assert verify(task, parse_plan(text)).strict_pass


def test_halving_an_egg_may_cut_the_egg_its_goal_makes_halves_of():
    task = _task("halve_an_egg")  # goal: (real half__hard-boiled_egg_1) (real half__hard-boiled_egg_2)
    assert ("sliced", "hard-boiled_egg.n.01_1") in task.world.asked
    errors, _ = _last_call_errors(task, ["navigate(countertop_1)", "grasp(carving_knife_1)",
                                         "cut(hard-boiled_egg_1)"])
    assert errors == []


def test_the_guide_never_offers_an_unwanted_irreversible_call_but_offers_a_wanted_one():
    beer = _task("store_beer")
    state = beer.initial_state()
    beer.apply(state, parse_plan("navigate(beer_bottle_1)").calls[0])
    offered = executable_calls(beer, state)
    assert ("grasp", ("beer_bottle.n.01_1",)) in offered
    assert not [call for call in offered if call[0] == "break_obj"]

    fire = _task("setting_the_fire")
    _, state = _last_call_errors(fire, ["navigate(table_1)", "grasp(cigar_lighter_1)", "toggle_on(cigar_lighter_1)",
                                        "navigate(firewood_1)"])
    assert ("ignite", ("firewood.n.01_1",)) in executable_calls(fire, state)
