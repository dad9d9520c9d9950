"""Every one of the paper's 34 actions, on a real B-1K kitchen task: preconditions met, effect observed."""

from __future__ import annotations

import pytest

from symplan_core.engine import ACTION_SETS, parse_plan

PEPPERS = "b1k/cook_red_peppers"  # stove (heat source), fridge (openable), pan, knife, hummus box, peppers
PAN, STOVE, FRIDGE = "frying_pan.n.01_1", "stove.n.01_1", "electric_refrigerator.n.01_1"
BOARD, KNIFE, PEPPER, HUMMUS = "chopping_board.n.01_1", "carving_knife.n.01_1", "bell_pepper.n.02_1", "hummus.n.01_1"

OPEN_FRIDGE = ["navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)"]
PAN_ON_HOT_STOVE = ["navigate(frying_pan_1)", "grasp(frying_pan_1)", "navigate(stove_1)",
                    "place_on_top(frying_pan_1, stove_1)", "toggle_on(stove_1)"]
HOLD_KNIFE_AT_BOARD = ["navigate(carving_knife_1)", "grasp(carving_knife_1)", "navigate(chopping_board_1)"]

# action -> (task, setup + call lines, (predicate, args, expected truth) after the last call)
CASES = {
    "navigate": (PEPPERS, ["navigate(countertop_1)"], ("near", (BOARD,), True)),
    "grasp": (PEPPERS, ["navigate(frying_pan_1)", "grasp(frying_pan_1)"], ("grasped", ("agent", PAN), True)),
    "place_on_top": (PEPPERS, PAN_ON_HOT_STOVE[:4], ("ontop", (PAN, STOVE), True)),
    "place_inside": (PEPPERS, OPEN_FRIDGE + ["navigate(frying_pan_1)", "grasp(frying_pan_1)",
                                             "navigate(electric_refrigerator_1)",
                                             "place_inside(frying_pan_1, electric_refrigerator_1)"],
                     ("inside", (PAN, FRIDGE), True)),
    "place_next_to": (PEPPERS, ["navigate(frying_pan_1)", "grasp(frying_pan_1)", "navigate(chopping_board_1)",
                                "place_next_to(frying_pan_1, chopping_board_1)"], ("nextto", (BOARD, PAN), True)),
    "place_under": (PEPPERS, ["navigate(chopping_board_1)", "grasp(chopping_board_1)", "navigate(stove_1)",
                              "place_under(chopping_board_1, stove_1)"], ("under", (BOARD, STOVE), True)),
    "open": (PEPPERS, OPEN_FRIDGE, ("open", (FRIDGE,), True)),
    "close": (PEPPERS, OPEN_FRIDGE + ["close(electric_refrigerator_1)"], ("open", (FRIDGE,), False)),
    "toggle_on": (PEPPERS, ["navigate(stove_1)", "toggle_on(stove_1)"], ("toggled_on", (STOVE,), True)),
    "toggle_off": (PEPPERS, ["navigate(stove_1)", "toggle_on(stove_1)", "toggle_off(stove_1)"],
                   ("toggled_on", (STOVE,), False)),
    "cut": (PEPPERS, OPEN_FRIDGE + ["navigate(carving_knife_1)", "grasp(carving_knife_1)",
                                    "navigate(electric_refrigerator_1)", "cut(bell_pepper_1)"],
            ("sliced", (PEPPER,), True)),
    "pour": (PEPPERS, ["navigate(hummus__box_1)", "grasp(hummus__box_1)", "navigate(frying_pan_1)",
                       "pour(hummus__box_1, frying_pan_1)"], ("filled", (PAN, HUMMUS), True)),
    "clean": (PEPPERS, ["navigate(hummus__box_1)", "grasp(hummus__box_1)", "navigate(frying_pan_1)",
                        "pour(hummus__box_1, frying_pan_1)", "clean(frying_pan_1)"], ("covered", (PAN, HUMMUS), False)),
    "wait_for_cooked": (PEPPERS, PAN_ON_HOT_STOVE + OPEN_FRIDGE + [
        "grasp(bell_pepper_1)", "navigate(frying_pan_1)", "place_inside(bell_pepper_1, frying_pan_1)",
        "wait_for_cooked(bell_pepper_1)"], ("cooked", (PEPPER,), True)),
    "soak": (PEPPERS, ["navigate(chopping_board_1)", "soak(chopping_board_1, hummus_1)"],
             ("saturated", (BOARD, HUMMUS), True)),
    "fill": (PEPPERS, ["navigate(frying_pan_1)", "fill(frying_pan_1, hummus_1)"], ("contains", (PAN, HUMMUS), True)),
    "fold": (PEPPERS, ["navigate(chopping_board_1)", "fold(chopping_board_1)"], ("folded", (BOARD,), True)),
    "unfold": (PEPPERS, ["navigate(chopping_board_1)", "fold(chopping_board_1)", "unfold(chopping_board_1)"],
               ("folded", (BOARD,), False)),
    "attach": (PEPPERS, HOLD_KNIFE_AT_BOARD + ["attach(carving_knife_1, chopping_board_1)"],
               ("attached", (KNIFE, BOARD), True)),
    "screw": (PEPPERS, HOLD_KNIFE_AT_BOARD + ["screw(carving_knife_1, chopping_board_1)"],
              ("touching", (BOARD, KNIFE), True)),
    "overlay": (PEPPERS, HOLD_KNIFE_AT_BOARD + ["overlay(carving_knife_1, chopping_board_1)"],
                ("overlaid", (KNIFE, BOARD), True)),
    "drape": (PEPPERS, HOLD_KNIFE_AT_BOARD + ["drape(carving_knife_1, chopping_board_1)"],
              ("draped", (KNIFE, BOARD), True)),
    "heat": (PEPPERS, PAN_ON_HOT_STOVE + ["heat(frying_pan_1)"], ("hot", (PAN,), True)),
    "burn": (PEPPERS, PAN_ON_HOT_STOVE + ["burn(frying_pan_1)"], ("burnt", (PAN,), True)),
    "water": (PEPPERS, ["navigate(chopping_board_1)", "water(chopping_board_1)"], ("watered", (BOARD,), True)),
    "saturate": (PEPPERS, ["navigate(chopping_board_1)", "saturate(chopping_board_1, hummus_1)"],
                 ("saturated", (BOARD, HUMMUS), True)),
    "paint": (PEPPERS, ["navigate(chopping_board_1)", "paint(chopping_board_1)"], ("painted", (BOARD,), True)),
    "set_timer": (PEPPERS, ["navigate(stove_1)", "set_timer(stove_1)"], ("timeset", (STOVE,), True)),
    "make": ("b1k/halve_an_egg", ["make(half__hard-boiled_egg_1)"], ("real", ("half__hard-boiled_egg.n.01_1",), True)),
    "break_obj": (PEPPERS, ["navigate(frying_pan_1)", "break_obj(frying_pan_1)"], ("broken", (PAN,), True)),
    "repair": (PEPPERS, ["navigate(frying_pan_1)", "break_obj(frying_pan_1)", "repair(frying_pan_1)"],
               ("broken", (PAN,), False)),
    "ignite": (PEPPERS, ["navigate(chopping_board_1)", "ignite(chopping_board_1)"], ("on_fire", (BOARD,), True)),
    "patch": (PEPPERS, ["navigate(chopping_board_1)", "patch(chopping_board_1)"], ("torn", (BOARD,), False)),
    "uncrimp": (PEPPERS, ["navigate(chopping_board_1)", "uncrimp(chopping_board_1)"], ("crumpled", (BOARD,), False)),
}
#: facts planted before the plan for actions whose precondition state no action creates
PLANTED = {"patch": ("torn", BOARD), "uncrimp": ("crumpled", BOARD)}


def test_every_paper_action_has_a_case():
    assert set(CASES) == {spec.name for spec in ACTION_SETS["b1k"]}
    assert len(CASES) == 34


@pytest.mark.parametrize("action", sorted(CASES))
@pytest.mark.parametrize("robot", ["single", "dual"])
def test_action_applies_its_effect_without_errors(compiled, action, robot):
    task_name, lines, (pred, args, expected) = CASES[action]
    task = compiled(task_name, robot)
    state = task.initial_state()
    if action in PLANTED:
        state.facts.add(PLANTED[action])
    calls = parse_plan("\n".join(lines)).calls
    assert calls[-1].action == action

    def observed() -> bool:
        return args[0] in state.near if pred == "near" else state.holds(pred, args)

    for k, call in enumerate(calls):
        if k == len(calls) - 1:
            assert observed() is not expected, "the last call must be what changes it"
        outcome = task.apply(state, call)
        assert outcome.errors == [] and outcome.applied, (call.text, outcome.errors)
    assert observed() is expected
