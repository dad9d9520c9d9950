"""Adversarial plans for every tightened action: what physics forbids is rejected with the
right error kind and the literal that is missing (the RL reward must not pay for it).

The positive counterparts (same actions in a setup where physics allows them) are in
tests/engine/test_actions.py.
"""

from __future__ import annotations

import pytest

from symplan_core.engine import ErrorKind, compile_task, parse_plan
from symplan_core.tasks import load_problem

AFF, MISSING = ErrorKind.AFFORDANCE, ErrorKind.MISSING_STEP
PEPPERS, TOWELS, FIRE = "b1k/cook_red_peppers", "b1k/fold_towels", "b1k/setting_the_fire"
TO_BOARD = ["navigate(chopping_board_1)"]
HUMMUS_AT = ["navigate(hummus__box_1)", "grasp(hummus__box_1)"]  # a held source of hummus
LIT = ["navigate(table_1)", "grasp(cigar_lighter_1)"]
NEWSPAPER = "newspaper.n.03_1"
# lids and jars in a closed cabinet: open it, take a lid out onto it, shut it again, pick the lid up
# (the plan itself closed the cabinet, so the error is the order of steps)
SYRUP = "b1k/can_syrup"
LID_IN_HAND = ["navigate(cabinet_1)", "open(cabinet_1)", "grasp(lid_1)", "place_on_top(lid_1, cabinet_1)",
               "close(cabinet_1)", "grasp(lid_1)"]

# id -> (task, plan; its LAST call is judged, (kind, precondition literal or "" for AFFORDANCE))
CASES = {
    # fire needs something flammable and a flame
    "ignite_a_chopping_board": (PEPPERS, TO_BOARD + ["ignite(chopping_board_1)"], (AFF, "")),
    "ignite_without_a_lighter": (FIRE, ["navigate(newspaper_1)", "ignite(newspaper_1)"],
                                 (MISSING, "(holding cigar_lighter_1)")),
    "ignite_with_an_unlit_lighter": (FIRE, LIT + ["ignite(newspaper_1)"], (MISSING, "(toggled_on cigar_lighter_1)")),
    "burn_a_pan": ("b1k/cook_red_peppers", ["navigate(frying_pan_1)", "burn(frying_pan_1)"], (AFF, "")),
    # only cloth folds, drapes and lies over things; folding takes a hand
    "fold_a_chopping_board": (PEPPERS, TO_BOARD + ["fold(chopping_board_1)"], (AFF, "")),
    "unfold_a_chopping_board": (PEPPERS, TO_BOARD + ["unfold(chopping_board_1)"], (AFF, "")),
    "fold_with_full_hands": (TOWELS, ["navigate(washer_1)", "grasp(hand_towel_2)", "fold(hand_towel_1)"],
                             (MISSING, "(free_hand)")),
    "drape_a_knife": (PEPPERS, ["navigate(carving_knife_1)", "grasp(carving_knife_1)", "navigate(chopping_board_1)",
                                "drape(carving_knife_1, chopping_board_1)"], (AFF, "")),
    "overlay_a_knife": (PEPPERS, ["navigate(carving_knife_1)", "grasp(carving_knife_1)", "navigate(chopping_board_1)",
                                  "overlay(carving_knife_1, chopping_board_1)"], (AFF, "")),
    "attach_into_a_closed_cabinet": (SYRUP, LID_IN_HAND + ["attach(lid_1, hingeless_jar_1)"],
                                     (ErrorKind.WRONG_TEMPORAL_ORDER, "(open cabinet_1)")),
    "screw_into_a_closed_cabinet": (SYRUP, LID_IN_HAND + ["screw(lid_1, hingeless_jar_1)"],
                                    (ErrorKind.WRONG_TEMPORAL_ORDER, "(open cabinet_1)")),
    # an attachment needs an attachment point on both sides (B-1K's ``attachable``)
    "attach_a_knife_to_a_pepper": (PEPPERS, ["navigate(carving_knife_1)", "grasp(carving_knife_1)",
                                             "navigate(bell_pepper_1)", "attach(carving_knife_1, bell_pepper_1)"],
                                   (AFF, "")),
    "attach_a_lid_to_a_stockpot": (SYRUP, LID_IN_HAND + ["navigate(stockpot_1)", "attach(lid_1, stockpot_1)"],
                                   (AFF, "")),
    # a wall nail and a hanger hold what hangs on them: nothing is set on top of one
    "set_a_wreath_on_a_nail": ("b1k/decorating_outside_for_holidays",
                               ["navigate(wreath_1)", "grasp(wreath_1)", "navigate(wall_nail_1)",
                                "place_on_top(wreath_1, wall_nail_1)"], (AFF, "")),
    "set_a_dress_on_a_hanger": ("b1k/putting_clothes_into_closet",
                                ["navigate(dress_1)", "grasp(dress_1)", "navigate(hanger_1)",
                                 "place_on_top(dress_1, hanger_1)"], (AFF, "")),
    # a substance comes from a source within reach
    "fill_from_nowhere": (PEPPERS, ["navigate(frying_pan_1)", "fill(frying_pan_1, hummus_1)"],
                          (MISSING, "(near agent hummus__box_1)")),
    "saturate_a_chopping_board": (PEPPERS, HUMMUS_AT + ["navigate(chopping_board_1)", "saturate(chopping_board_1, hummus_1)"],
                                  (AFF, "")),
    "soak_away_from_the_sink": ("b100/cleaning_bathrooms", ["navigate(rag_1)", "soak(rag_1, water_1)"],
                                (MISSING, "(inside rag_1 sink_1)")),
    "fill_a_container_from_itself": ("b1k/bottling_wine", ["navigate(bucket_1)", "fill(bucket_1, red_wine_1)"],
                                     None),  # already full: redundant, not an error (see below)
    "water_empty_handed": ("b1k/watering_outdoor_flowers", ["navigate(pot_plant_1)", "water(pot_plant_1)"],
                           (MISSING, "(holding watering_can_1)")),
    "paint_empty_handed": ("b1k/painting_porch", ["navigate(floor_1)", "paint(floor_1)"],
                           (MISSING, "(holding spray_paint__can_1)")),
    # making needs the ingredient, processed the way the product's name says
    "halve_an_egg_without_a_knife": ("b1k/halve_an_egg", ["navigate(countertop_1)", "make(half__hard-boiled_egg_1)"],
                                     (MISSING, "(holding slicer)")),
    "halve_an_egg_far_from_it": ("b1k/halve_an_egg", ["make(half__hard-boiled_egg_1)"],
                                 (MISSING, "(near agent hard-boiled_egg_1)")),
    "boil_water_off_the_stove": ("b1k/boil_water", ["navigate(cabinet_1)", "open(cabinet_1)",
                                                    "make(cooked__water_1)"], (MISSING, "(ontop kettle_1 stove_1)")),
    "boil_water_on_a_cold_stove": ("b1k/boil_water", ["navigate(cabinet_1)", "open(cabinet_1)", "grasp(kettle_1)",
                                                      "navigate(stove_1)", "place_on_top(kettle_1, stove_1)",
                                                      "make(cooked__water_1)"], (MISSING, "(toggled_on stove_1)")),
    # abilities and hands
    "break_a_pan": (PEPPERS, ["navigate(frying_pan_1)", "break_obj(frying_pan_1)"], (AFF, "")),
    "set_a_timer_on_a_board": (PEPPERS, TO_BOARD + ["set_timer(chopping_board_1)"], (AFF, "")),
    "repair_with_full_hands": (FIRE, ["navigate(table_1)", "grasp(newspaper_1)", "repair(cigar_lighter_1)"],
                               (MISSING, "(free_hand)")),
    "patch_with_full_hands": (PEPPERS, ["navigate(countertop_1)", "grasp(carving_knife_1)",
                                        "patch(chopping_board_1)"], (MISSING, "(free_hand)")),
    "uncrimp_with_full_hands": (PEPPERS, ["navigate(countertop_1)", "grasp(carving_knife_1)",
                                          "uncrimp(chopping_board_1)"], (MISSING, "(free_hand)")),
    # discovered actions (actions="full")
    "freeze_on_the_counter": ("b1k/freeze_meat", ["navigate(steak_1)", "freeze(steak_1)"],
                              (MISSING, "(inside steak_1 electric_refrigerator_1)")),
    "thaw_in_the_fridge": ("b1k/defrost_meat", ["navigate(electric_refrigerator_1)", "thaw(chicken_1)"],
                           (MISSING, "(away chicken_1 electric_refrigerator_1)")),
    "cool_in_a_hot_oven": ("b1k/cool_cakes", ["navigate(oven_1)", "cool(fruitcake_1)"],
                           (MISSING, "(away fruitcake_1 oven_1)")),
    "detach_with_full_hands": ("b1k/attach_a_camera_to_a_tripod",
                               ["navigate(digital_camera_1)", "grasp(digital_camera_1)", "navigate(camera_tripod_1)",
                                "attach(digital_camera_1, camera_tripod_1)", "grasp(camera_tripod_1)",
                                "detach(digital_camera_1, camera_tripod_1)"], (MISSING, "(free_hand)")),
    "empty_with_full_hands": ("b1k/bottling_wine", ["navigate(countertop_1)", "grasp(wine_bottle_1)",
                                                    "empty(bucket_1, red_wine_1)"], (MISSING, "(free_hand)")),
    "undrape_with_full_hands": (TOWELS, ["navigate(washer_1)", "grasp(hand_towel_1)", "navigate(hamper_1)",
                                         "drape(hand_towel_1, hamper_1)", "navigate(washer_1)", "grasp(hand_towel_2)",
                                         "navigate(hamper_1)", "undrape(hand_towel_1, hamper_1)"],
                                (MISSING, "(free_hand)")),
}


def _judge(task_name: str, lines: list[str], robot: str = "single"):
    task = compile_task(load_problem(task_name), robot, actions="full")
    state = task.initial_state()
    calls = parse_plan("\n".join(lines)).calls
    for call in calls[:-1]:
        assert not task.apply(state, call).errors, f"set-up step {call.text} failed"
    return task.apply(state, calls[-1])


@pytest.mark.parametrize("case", [c for c, v in CASES.items() if v[2] is not None])
def test_loose_call_is_rejected_with_the_right_kind(behavior_dir, case):
    task_name, lines, (kind, literal) = CASES[case]
    outcome = _judge(task_name, lines)
    assert outcome.errors, f"{lines[-1]} was accepted"
    first = outcome.errors[0]
    assert (first.kind, first.precondition) == (kind, literal), first.line()
    assert first.hint
    assert outcome.applied == (kind is not AFF)  # malformed calls are skipped, missing steps apply


def test_a_container_is_not_its_own_source_but_a_full_one_is_redundant(behavior_dir):
    outcome = _judge(*CASES["fill_a_container_from_itself"][:2])
    assert outcome.errors == [] and [w.kind for w in outcome.warnings] == [ErrorKind.ADDITIONAL_STEP]


def test_repairing_the_broken_mailbox_takes_a_free_hand_and_no_tool_the_task_lacks(behavior_dir):
    ok = _judge("b1k/fixing_mailbox", ["navigate(mailbox_1)", "repair(mailbox_1)"])
    assert ok.errors == [] and ("broken", "mailbox.n.01_1") in ok.removed


def test_a_held_lighter_is_switched_on_in_hand_and_lights_the_newspaper(behavior_dir):
    outcome = _judge(FIRE, LIT + ["toggle_on(cigar_lighter_1)", "ignite(newspaper_1)"])
    assert outcome.errors == [] and ("on_fire", NEWSPAPER) in outcome.added


def test_fire_spreads_to_what_touches_something_burning(behavior_dir):
    plan = LIT + ["toggle_on(cigar_lighter_1)", "ignite(newspaper_1)", "toggle_off(cigar_lighter_1)",
                  "place_on_top(cigar_lighter_1, table_1)", "navigate(firewood_1)", "grasp(firewood_1)",
                  "navigate(newspaper_1)", "place_on_top(firewood_1, newspaper_1)", "ignite(firewood_1)"]
    assert _judge(FIRE, plan).errors == []


def test_a_made_substance_is_where_its_ingredient_was(behavior_dir):
    plan = ["navigate(cabinet_1)", "open(cabinet_1)", "grasp(kettle_1)", "navigate(stove_1)",
            "place_on_top(kettle_1, stove_1)", "toggle_on(stove_1)", "make(cooked__water_1)"]
    outcome = _judge("b1k/boil_water", plan)
    assert outcome.errors == [] and ("filled", "kettle.n.01_1", "cooked__water.n.01_1") in outcome.added

