"""Issue 22's physics: cleaning needs a cleaning tool (soaked, for a stain) or a running sink or
washer; soaking needs the substance there (a running tap, a container of it); soak, clean, thaw
and place_inside check abilities; an object in no table is not graspable by default; cooking
without a heat source fails like freezing without a cold source; an unstated ``open`` is an
assumption, from evidence, that the verdict names. Each lenient plan is rejected with the
right kind and literal, and its physical counterpart passes. Real BEHAVIOR task files."""

from __future__ import annotations

import pytest

from symplan_core.engine import ErrorKind, compile_task, parse_plan, verify
from symplan_core.engine.world import igibson_abilities, open_defaults
from symplan_core.tasks import load_problem

AFF, MISSING = ErrorKind.AFFORDANCE, ErrorKind.MISSING_STEP
STOVE, STONE = "b100/cleaning_stove", "b1k/clean_a_baking_stone"
RAG_FROM_CABINET = ["navigate(cabinet_1)", "open(cabinet_1)", "grasp(rag_1)"]
RAG_IN_SINK = RAG_FROM_CABINET + ["navigate(sink_1)", "place_on_top(rag_1, sink_1)"]
SHEET_IN_SINK = ["navigate(cookie_sheet_1)", "grasp(cookie_sheet_1)", "navigate(sink_1)",
                 "place_on_top(cookie_sheet_1, sink_1)"]


def _judge(task_name: str, lines: list[str], robot: str = "single", **options):
    task = compile_task(load_problem(task_name), robot, actions="full", **options)
    state = task.initial_state()
    calls = parse_plan("\n".join(lines)).calls
    for call in calls[:-1]:
        assert not task.apply(state, call).errors, f"set-up step {call.text} failed"
    return task.apply(state, calls[-1])


# id -> (task, plan whose LAST call is judged, (kind, precondition literal; "" for AFFORDANCE))
LENIENT = {
    # clean: a cleaning tool in hand, soaked when a stain covers the object
    "clean_a_stained_stove_empty_handed": (STOVE, ["navigate(stove_1)", "clean(stove_1)"],
                                           (MISSING, "(saturated rag_1 water_1)")),
    "clean_a_stain_with_a_dry_rag": (STOVE, RAG_FROM_CABINET + ["navigate(stove_1)", "clean(stove_1)"],
                                     (MISSING, "(saturated rag_1 water_1)")),
    "clean_holding_a_soap_bottle_not_a_tool": (STONE, ["navigate(liquid_soap__bottle_1)",
                                                      "grasp(liquid_soap__bottle_1)", "navigate(cookie_sheet_1)",
                                                      "clean(cookie_sheet_1)"],
                                               (MISSING, "(inside cookie_sheet_1 sink_1)")),
    "wash_in_a_sink_that_is_off": (STONE, SHEET_IN_SINK + ["clean(cookie_sheet_1)"],
                                   (MISSING, "(inside cookie_sheet_1 sink_1)")),
    # soak: the object in or under a tap of the substance that is on, or in a container of it
    "soak_next_to_the_sink": (STOVE, RAG_FROM_CABINET + ["navigate(sink_1)", "soak(rag_1, water_1)"],
                              (MISSING, "(inside rag_1 sink_1)")),
    "soak_in_a_sink_that_is_off": (STOVE, RAG_IN_SINK + ["soak(rag_1, water_1)"], (MISSING, "(toggled_on sink_1)")),
    "soak_with_no_water_in_the_task": ("b100/making_tea", ["navigate(cabinet_1)", "open(cabinet_1)",
                                                           "soak(tea_bag_1, water_1)"],
                                       (MISSING, "(filled ?container water_1)")),
    # abilities (iGibson's, from EAI's scene data, for B-100; B-1K's table for B-1K)
    "soak_a_pan": ("b100/washing_pots_and_pans", ["navigate(sink_1)", "soak(pan_1, water_1)"], (AFF, "")),
    "clean_an_envelope": ("b100/sorting_mail", ["navigate(envelope_1)", "clean(envelope_1)"], (AFF, "")),
    "thaw_cereal": ("b100/storing_the_groceries", ["navigate(cereal_1)", "thaw(cereal_1)"], (AFF, "")),
    "place_inside_a_chopping_board": ("b1k/cook_red_peppers", ["navigate(frying_pan_1)", "grasp(frying_pan_1)",
                                                              "navigate(chopping_board_1)",
                                                              "place_inside(frying_pan_1, chopping_board_1)"],
                                      (AFF, "")),
    "grasp_a_boat_in_no_table": ("b1k/prepare_a_boat_for_fishing", ["navigate(boat_1)", "grasp(boat_1)"], (AFF, "")),
    # vehicle.n.01: only iGibson's scene data knows it (its abilities), no table says it can be lifted
    "grasp_a_vehicle_only_igibson_knows": ("b100/waxing_cars_or_other_vehicles", ["navigate(vehicle_1)", "grasp(vehicle_1)"],
                                           (AFF, "")),
    # heat like cold: no source in the task, no cooking
    "cook_with_no_heat_source": ("b100/preserving_food", ["navigate(strawberry_1)", "wait_for_cooked(strawberry_1)"],
                                 (MISSING, "(ontop strawberry_1 ?heat_source)")),
    "freeze_with_no_cold_source": ("b1k/make_stewed_fruit", ["navigate(pear_1)", "freeze(pear_1)"],
                                   (MISSING, "(inside pear_1 ?cold_source)")),
}


@pytest.mark.parametrize("case", list(LENIENT))
def test_lenient_call_is_rejected_with_the_right_kind_and_literal(behavior_dir, case):
    task_name, lines, (kind, literal) = LENIENT[case]
    outcome = _judge(task_name, lines)
    assert outcome.errors, f"{lines[-1]} was accepted"
    first = outcome.errors[0]
    assert (first.kind, first.precondition) == (kind, literal), first.line()
    assert first.hint
    assert outcome.applied == (kind is not AFF)


PHYSICAL = {
    "clean_a_stain_with_a_rag_soaked_in_the_running_sink": (
        STOVE, RAG_IN_SINK + ["toggle_on(sink_1)", "soak(rag_1, water_1)", "grasp(rag_1)", "navigate(stove_1)",
                              "clean(stove_1)"], ("covered", ("stove.n.01_1", "stain.n.01_1"), False)),
    "wash_in_the_running_sink_without_a_tool": (
        STONE, SHEET_IN_SINK + ["toggle_on(sink_1)", "clean(cookie_sheet_1)"],
        ("covered", ("cookie_sheet.n.01_1", "stain.n.01_1"), False)),
    "dust_comes_off_with_a_dry_rag": ("b1k/clean_a_suitcase", ["navigate(bag_1)", "grasp(rag_1)", "clean(bag_1)"],
                                      ("covered", ("bag.n.06_1", "dirt.n.02_1"), False)),
    "thaw_a_fish_out_of_the_fridge": (
        "b100/thawing_frozen_food", ["navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)",
                                     "grasp(fish_1)", "navigate(sink_1)", "place_next_to(fish_1, sink_1)", "thaw(fish_1)"],
        ("frozen", ("fish.n.02_1",), False)),
    "water_a_fixed_plant_from_a_held_watering_can": (
        "b1k/watering_outdoor_flowers", ["navigate(watering_can_1)", "grasp(watering_can_1)", "navigate(pot_plant_1)",
                                         "saturate(pot_plant_1, water_1)"],
        ("saturated", ("pot_plant.n.01_1", "water.n.06_1"), True)),
}


@pytest.mark.parametrize("case", list(PHYSICAL))
def test_physical_counterpart_passes(behavior_dir, case):
    task_name, lines, (pred, args, truth) = PHYSICAL[case]
    task = compile_task(load_problem(task_name), "single", actions="full")
    state = task.initial_state()
    for call in parse_plan("\n".join(lines)).calls:
        outcome = task.apply(state, call)
        assert outcome.errors == [], (call.text, [e.line() for e in outcome.errors])
    assert state.holds(pred, args) is truth


def test_a_task_with_stains_and_a_sink_gets_the_sinks_water(behavior_dir):
    """cleaning_bathtub states no soaked, so B-100 names no water; its sink gives water to soak the brush."""
    task = compile_task(load_problem("b100/cleaning_bathtub"))
    assert task.world.taps == {"water.n.06_1": ("sink.n.01_1",)}
    assert "water.n.06_1" not in task.source_problem.objects


def test_a_synset_in_no_table_is_graspable_when_the_goal_moves_it(compiled):
    result = verify(compiled("b1k/buying_office_supplies"), "navigate(tape_1)\ngrasp(tape_1)")
    assert result.errors == [] and [d.kind for d in result.diagnostics] == [ErrorKind.UNKNOWN_AFFORDANCE]


def test_igibson_table_gives_b100_categories_their_own_abilities():
    table = igibson_abilities()
    assert {"soakable", "stainable"} <= table["rag.n.01"]
    assert "soakable" not in table["plate.n.04"] and table["envelope.n.01"] == frozenset()
    assert "openable" in table["cabinet.n.01"]  # an ability list, not the scene's values


@pytest.mark.usefixtures("behavior_dir")
class TestUnstatedOpen:
    BOOKS = "b100/boxing_books_up_for_storage"
    INTO_CARTON = ["navigate(book_1)", "grasp(book_1)", "navigate(carton_1)", "place_inside(book_1, carton_1)"]

    def test_cartons_are_open_by_default_and_the_verdict_names_the_assumption(self):
        assert open_defaults()["carton.n.02"] is True and open_defaults()["cabinet.n.01"] is False
        outcome = _judge(self.BOOKS, self.INTO_CARTON)
        assert outcome.errors == []
        (diag,) = outcome.diagnostics
        assert diag.kind is ErrorKind.ASSUMED_STATE and diag.precondition == "(open carton_1)"
        assert "does not state" in diag.message and "EAI's gold plans" in diag.message

    def test_a_task_level_override_closes_them(self):
        outcome = _judge(self.BOOKS, self.INTO_CARTON, open_defaults={"carton.n.02": False})
        assert [(e.kind, e.precondition) for e in outcome.errors] == [(MISSING, "(open carton_1)")]
        assert [d.precondition for d in outcome.diagnostics] == ["(not (open carton_1))"]

    def test_the_assumption_is_named_where_a_call_first_relies_on_it(self):
        task = compile_task(load_problem("b100/making_tea"))
        assert "cabinet.n.01_1" in task.world.assumed_open  # unstated: closed by default, and said so
        result = verify(task, "navigate(cabinet_1)\nopen(cabinet_1)\ngrasp(knife_1)")  # navigate reads no state
        assert [(d.step, d.precondition) for d in result.diagnostics] == [(1, "(not (open cabinet_1))")]
        stated = compile_task(load_problem("b100/locking_every_door"))  # (open door.n.01_1), (open door.n.01_2)
        assert not {"door.n.01_1", "door.n.01_2"} & set(stated.world.assumed_open)

    def test_each_assumption_is_reported_once_per_plan(self):
        task = compile_task(load_problem(self.BOOKS))
        plan = self.INTO_CARTON + ["navigate(book_2)", "grasp(book_2)", "navigate(carton_1)",
                                   "place_inside(book_2, carton_1)"]
        result = verify(task, "\n".join(plan))
        assert [d.precondition for d in result.diagnostics].count("(open carton_1)") == 1
        assert result.to_json()["diagnostics"][0]["kind"] == "ASSUMED_STATE"
