"""Every one of the paper's 34 actions, on real B-1K tasks, in a setup where physics allows it
(a held source for fill, a cloth to fold, a lit lighter to ignite, ...): preconditions met,
effect observed. tests/engine/test_physical_actions.py checks the same actions rejected
without those conditions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from symplan_core.bddl.model import And, Atom
from symplan_core.engine import ACTION_SETS, compile_task, parse_plan
from symplan_core.tasks import load_problem

PEPPERS = "b1k/cook_red_peppers"  # stove (heat source), fridge (openable), pan, knife, hummus box, peppers
PAN, STOVE, FRIDGE = "frying_pan.n.01_1", "stove.n.01_1", "electric_refrigerator.n.01_1"
BOARD, KNIFE, PEPPER, HUMMUS = "chopping_board.n.01_1", "carving_knife.n.01_1", "bell_pepper.n.02_1", "hummus.n.01_1"

OPEN_FRIDGE = ["navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)"]
PAN_ON_HOT_STOVE = ["navigate(frying_pan_1)", "grasp(frying_pan_1)", "navigate(stove_1)",
                    "place_on_top(frying_pan_1, stove_1)", "toggle_on(stove_1)"]
HOLD_KNIFE_AT_BOARD = ["navigate(carving_knife_1)", "grasp(carving_knife_1)", "navigate(chopping_board_1)"]
HUMMUS_AT = ["navigate(hummus__box_1)", "grasp(hummus__box_1)"]  # a held source of hummus
TOWELS, FIRE, CHAIR = "b1k/fold_towels", "b1k/setting_the_fire", "b1k/fixing_broken_chair"
TOWEL, LIGHTER, NEWSPAPER = "hand_towel.n.01_1", "cigar_lighter.n.01_1", "newspaper.n.03_1"
# a rag, a running sink with water, a stained and crumby cookie sheet: soak the rag in the sink, clean with it
STONE, RAG, SHEET = "b1k/clean_a_baking_stone", "rag.n.01_1", "cookie_sheet.n.01_1"
RAG_SOAKED = ["navigate(rag_1)", "grasp(rag_1)", "navigate(sink_1)", "place_on_top(rag_1, sink_1)", "toggle_on(sink_1)",
              "soak(rag_1, water_1)"]
HOLD_TOWEL_AT_HAMPER = ["navigate(hand_towel_1)", "grasp(hand_towel_1)", "navigate(hamper_1)"]
# both sides of an attachment have an attachment point (B-1K's ``attachable``)
DARTBOARD_TASK, DARTBOARD, NAIL = "b1k/hang_a_dartboard", "dartboard.n.01_1", "wall_nail.n.01_1"
HOLD_DARTBOARD_AT_NAIL = ["navigate(dartboard_1)", "grasp(dartboard_1)", "navigate(wall_nail_1)"]

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
    "clean": (STONE, RAG_SOAKED + ["grasp(rag_1)", "navigate(cookie_sheet_1)", "clean(cookie_sheet_1)"],
              ("covered", (SHEET, "stain.n.01_1"), False)),
    "wait_for_cooked": (PEPPERS, PAN_ON_HOT_STOVE + OPEN_FRIDGE + [
        "grasp(bell_pepper_1)", "navigate(frying_pan_1)", "place_inside(bell_pepper_1, frying_pan_1)",
        "wait_for_cooked(bell_pepper_1)"], ("cooked", (PEPPER,), True)),
    "soak": (STONE, RAG_SOAKED, ("saturated", (RAG, "water.n.06_1"), True)),
    "fill": (PEPPERS, HUMMUS_AT + ["navigate(frying_pan_1)", "fill(frying_pan_1, hummus_1)"],
             ("contains", (PAN, HUMMUS), True)),
    "fold": (TOWELS, ["navigate(hand_towel_1)", "fold(hand_towel_1)"], ("folded", (TOWEL,), True)),
    "unfold": (TOWELS, ["navigate(hand_towel_1)", "fold(hand_towel_1)", "unfold(hand_towel_1)"],
               ("folded", (TOWEL,), False)),
    "attach": (DARTBOARD_TASK, HOLD_DARTBOARD_AT_NAIL + ["attach(dartboard_1, wall_nail_1)"],
               ("attached", (DARTBOARD, NAIL), True)),
    "screw": (DARTBOARD_TASK, HOLD_DARTBOARD_AT_NAIL + ["screw(dartboard_1, wall_nail_1)"],
              ("touching", (NAIL, DARTBOARD), True)),
    "overlay": (TOWELS, HOLD_TOWEL_AT_HAMPER + ["overlay(hand_towel_1, hamper_1)"],
                ("overlaid", (TOWEL, "hamper.n.02_1"), True)),
    "drape": (TOWELS, HOLD_TOWEL_AT_HAMPER + ["drape(hand_towel_1, hamper_1)"],
              ("draped", (TOWEL, "hamper.n.02_1"), True)),
    "heat": (PEPPERS, PAN_ON_HOT_STOVE + ["heat(frying_pan_1)"], ("hot", (PAN,), True)),
    "burn": (PEPPERS, PAN_ON_HOT_STOVE + OPEN_FRIDGE + [
        "grasp(bell_pepper_1)", "navigate(frying_pan_1)", "place_inside(bell_pepper_1, frying_pan_1)",
        "burn(bell_pepper_1)"], ("burnt", (PEPPER,), True)),
    "water": ("b1k/watering_outdoor_flowers", ["navigate(watering_can_1)", "grasp(watering_can_1)",
                                               "navigate(pot_plant_1)", "water(pot_plant_1)"],
              ("watered", ("pot_plant.n.01_1",), True)),
    "saturate": (STONE, RAG_SOAKED[:-1] + ["saturate(rag_1, water_1)"], ("saturated", (RAG, "water.n.06_1"), True)),
    "paint": ("b1k/painting_porch", ["navigate(spray_paint__can_1)", "grasp(spray_paint__can_1)",
                                     "navigate(floor_1)", "paint(floor_1)"], ("painted", ("floor.n.01_1",), True)),
    "set_timer": (PEPPERS, ["navigate(stove_1)", "set_timer(stove_1)"], ("timeset", (STOVE,), True)),
    "make": ("b1k/halve_an_egg", ["navigate(countertop_1)", "grasp(carving_knife_1)", "make(half__hard-boiled_egg_1)"],
             ("real", ("half__hard-boiled_egg.n.01_1",), True)),
    "break_obj": (FIRE, ["navigate(cigar_lighter_1)", "break_obj(cigar_lighter_1)"], ("broken", (LIGHTER,), True)),
    "repair": (CHAIR, ["navigate(armchair_1)", "repair(armchair_1)"], ("broken", ("armchair.n.01_1",), False)),
    "ignite": (FIRE, ["navigate(table_1)", "grasp(cigar_lighter_1)", "toggle_on(cigar_lighter_1)", "ignite(newspaper_1)"],
               ("on_fire", (NEWSPAPER,), True)),
    "patch": (PEPPERS, ["navigate(chopping_board_1)", "patch(chopping_board_1)"], ("torn", (BOARD,), False)),
    "uncrimp": (PEPPERS, ["navigate(chopping_board_1)", "uncrimp(chopping_board_1)"], ("crumpled", (BOARD,), False)),
}
#: facts planted before the plan for actions whose precondition state no action creates
PLANTED = {"patch": ("torn", BOARD), "uncrimp": ("crumpled", BOARD)}
#: irreversible changes are for what the goal wants so (``asked:``): these cases' goals are
#: extended to ask for them (no released B-1K goal asks for a sliced or burnt pepper or a broken lighter)
ASKED = {"cut": ("sliced", PEPPER), "burn": ("burnt", PEPPER), "break_obj": ("broken", LIGHTER)}


def _task_asking(task_name: str, robot: str, predicate: str, obj: str):
    problem = load_problem(task_name)
    goal = And((problem.goal, Atom(predicate, (obj,))))
    return compile_task(replace(problem, goal=goal), robot)


def test_every_paper_action_has_a_case():
    assert set(CASES) == {spec.name for spec in ACTION_SETS["b1k"]}
    assert len(CASES) == 34


@pytest.mark.parametrize("action", sorted(CASES))
@pytest.mark.parametrize("robot", ["single", "dual"])
def test_action_applies_its_effect_without_errors(compiled, action, robot):
    task_name, lines, (pred, args, expected) = CASES[action]
    task = _task_asking(task_name, robot, *ASKED[action]) if action in ASKED else compiled(task_name, robot)
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
