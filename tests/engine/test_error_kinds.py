"""Each error kind on real tasks: what is reported, and whether the call's effects apply."""

from __future__ import annotations

from plans import FRIDGE_PLAN, TEA_PLAN, kinds, plan_text

from symplan_core.engine import verify

GIFTS = "b100/assembling_gift_baskets"
FRIDGE = "b1k/clearing_food_from_table_into_fridge"


def test_skipping_open_before_place_inside_closed_fridge_engine_passes_but_not_strict(compiled):
    lines = [line for line in FRIDGE_PLAN if line != "open(electric_refrigerator_1)"]
    result = verify(compiled(FRIDGE), plan_text(*lines))
    assert result.engine_pass and not result.strict_pass
    missing = [e for e in result.errors if e.kind.value == "MISSING_STEP"]
    assert [e.call for e in missing] == ["place_inside(tupperware_1, electric_refrigerator_1)",
                                         "place_inside(tupperware_2, electric_refrigerator_1)"]
    assert all(e.precondition == "(open electric_refrigerator_1)" for e in missing)
    assert "open(electric_refrigerator_1)" in missing[0].hint
    # closing a fridge that was never opened is redundant: a warning, not an error
    assert [w.kind.value for w in result.warnings] == ["ADDITIONAL_STEP"]


def test_grasping_from_a_closed_cabinet_names_the_open_literal(compiled):
    lines = [line for line in TEA_PLAN if line != "open(cabinet_1)"]
    result = verify(compiled("b100/making_tea"), plan_text(*lines))
    first = result.errors[0]
    assert (first.kind.value, first.call, first.precondition) == \
        ("MISSING_STEP", "grasp(knife_1)", "(open cabinet_1)")
    assert result.executable_prefix == first.step == lines.index("grasp(knife_1)")


def test_acting_after_navigating_away_is_wrong_temporal_order(compiled):
    result = verify(compiled(GIFTS), "navigate(candle_1)\nnavigate(basket_1)\ngrasp(candle_1)")
    assert kinds(result) == ["WRONG_TEMPORAL_ORDER"]
    assert result.errors[0].precondition == "(near agent candle_1)"
    assert result.errors[0].hint == "navigate(candle_1) first"


def test_never_near_is_missing_step_not_temporal_order(compiled):
    result = verify(compiled(GIFTS), "navigate(basket_1)\ngrasp(candle_1)")
    assert kinds(result) == ["MISSING_STEP"]


def test_placing_inside_a_fridge_closed_again_is_wrong_temporal_order(compiled):
    result = verify(compiled(FRIDGE), plan_text(
        "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)", "close(electric_refrigerator_1)",
        "navigate(tupperware_1)", "grasp(tupperware_1)", "navigate(electric_refrigerator_1)",
        "place_inside(tupperware_1, electric_refrigerator_1)"))
    assert kinds(result) == ["WRONG_TEMPORAL_ORDER"]
    assert result.errors[0].precondition == "(open electric_refrigerator_1)"


def test_two_grasps_single_arm_miss_a_free_hand(compiled):
    result = verify(compiled(GIFTS, "single"), "navigate(table_1)\ngrasp(candle_1)\ngrasp(candle_2)")
    assert kinds(result) == ["MISSING_STEP"]
    assert result.errors[0].precondition == "(free_hand)"
    assert "candle_1" in result.errors[0].message


def test_two_grasps_dual_arm_are_fine_and_a_third_is_not(compiled):
    task = compiled(GIFTS, "dual")
    assert verify(task, "navigate(table_1)\ngrasp(candle_1)\ngrasp(candle_2)").errors == []
    result = verify(task, "navigate(table_1)\ngrasp(candle_1)\ngrasp(candle_2)\ngrasp(candle_3)")
    assert kinds(result) == ["MISSING_STEP"] and result.errors[0].step == 3


def test_hallucinated_object_is_unknown_and_the_call_is_skipped(compiled):
    result = verify(compiled(GIFTS), "navigate(unicorn_1)\ngrasp(candle_1)", trace=True)
    assert kinds(result) == ["UNKNOWN_OBJECT", "MISSING_STEP"]
    assert "unicorn_1" in result.errors[0].message
    assert result.trace[0]["applied"] is False and result.trace[0]["added"] == []


def test_wrong_number_of_arguments_is_arity_and_skipped(compiled):
    result = verify(compiled(GIFTS), "navigate(candle_1)\ngrasp(candle_1, basket_1)\nplace_inside(candle_1)")
    assert kinds(result) == ["ARITY", "ARITY"]
    assert result.errors[0].hint == "call it as grasp(obj)"
    assert result.executable_prefix == 1


def test_unknown_action_names_the_allowed_ones(compiled):
    result = verify(compiled(GIFTS), "teleport(candle_1)")
    assert kinds(result) == ["UNKNOWN_ACTION"] and "navigate" in result.errors[0].hint


def test_b1k_only_action_is_unknown_in_a_b100_task(compiled):
    assert kinds(verify(compiled(GIFTS), "navigate(candle_1)\nfold(candle_1)")) == ["UNKNOWN_ACTION"]
    # fold exists in B-1K (on cloth: a bag does not fold, see test_physical_actions.py)
    assert kinds(verify(compiled("b1k/fold_towels"), "navigate(hand_towel_1)\nfold(hand_towel_1)")) == []


def test_grasping_fixtures_is_an_affordance_error_and_skipped(compiled):
    for fixture in ("floor_1", "table_1"):
        result = verify(compiled(GIFTS), f"navigate({fixture})\ngrasp({fixture})\nnavigate(candle_1)\ngrasp(candle_1)")
        assert kinds(result) == ["AFFORDANCE"], fixture
    result = verify(compiled("b100/making_tea"), "navigate(cabinet_1)\ngrasp(cabinet_1)")
    assert kinds(result) == ["AFFORDANCE"] and "fixture" in result.errors[0].message


def test_grasping_a_substance_is_an_affordance_error(compiled):
    result = verify(compiled("b100/making_tea"), "navigate(water_1)\ngrasp(water_1)")
    assert kinds(result) == ["AFFORDANCE"] and "substance" in result.errors[0].message


def test_opening_something_not_openable_is_an_affordance_error(compiled):
    assert kinds(verify(compiled(GIFTS), "navigate(candle_1)\nopen(candle_1)")) == ["AFFORDANCE"]


def test_cutting_without_a_slicer_in_hand_is_missing_step(compiled):
    result = verify(compiled("b1k/halve_an_egg"), "navigate(hard-boiled_egg_1)\ncut(hard-boiled_egg_1)")
    assert kinds(result) == ["MISSING_STEP"]
    assert result.errors[0].precondition == "(holding slicer)"
    assert result.errors[0].hint == "grasp(carving_knife_1) first"


def test_using_a_future_object_before_make_is_missing_step(compiled):
    result = verify(compiled("b1k/halve_an_egg"), "navigate(half__hard-boiled_egg_1)")
    assert kinds(result) == ["MISSING_STEP"]
    assert result.errors[0].precondition == "(real half__hard-boiled_egg_1)"


def test_opening_an_open_fridge_is_a_warning_not_an_error(compiled):
    lines = list(FRIDGE_PLAN)
    at = lines.index("open(electric_refrigerator_1)")
    lines.insert(at + 1, "open(electric_refrigerator_1)")
    result = verify(compiled(FRIDGE), plan_text(*lines))
    assert result.strict_pass and result.errors == []
    assert [(w.kind.value, w.step) for w in result.warnings] == [("ADDITIONAL_STEP", at + 1)]
    assert result.warnings[0].precondition == "(open electric_refrigerator_1)"


def test_failed_precondition_still_applies_the_effects(compiled):
    result = verify(compiled(GIFTS), "grasp(candle_1)\nnavigate(basket_1)\nplace_inside(candle_1, basket_1)",
                    trace=True)
    assert kinds(result) == ["MISSING_STEP"]  # only the grasp (not near); the place is then fine
    assert ["holding", "candle.n.01_1"] in result.trace[0]["added"]
    assert ["inside", "candle.n.01_1", "basket.n.01_1"] in result.trace[2]["added"]
    task = compiled(GIFTS)
    state = task.initial_state()
    verify_state = verify(task, "grasp(candle_1)", state=state)
    assert verify_state.errors and state.held == []  # verify works on a copy of the given state


def test_every_error_carries_step_call_kind_message_and_hint(compiled):
    result = verify(compiled(GIFTS), plan_text(
        "grasp(candle_1)", "fly(x)", "grasp(ghost_1)", "grasp(candle_1, candle_2)", "navigate(floor_1)",
        "grasp(floor_1)", "this is not code"))
    assert {e.kind.value for e in result.errors} == {
        "MISSING_STEP", "UNKNOWN_ACTION", "UNKNOWN_OBJECT", "ARITY", "AFFORDANCE", "PARSE"}
    for e in result.errors:
        assert e.call and e.message and e.hint and e.step >= 0


def test_regrasping_the_object_in_hand_is_only_a_warning(compiled):
    """Regression: single-arm, the held object itself used to fail the free-hand check."""
    for robot in ("single", "dual"):
        result = verify(compiled(GIFTS, robot), "navigate(candle_1)\ngrasp(candle_1)\ngrasp(candle_1)")
        assert result.errors == [], robot
        assert [(w.kind.value, w.precondition) for w in result.warnings] == [("ADDITIONAL_STEP", "(held candle_1)")]
