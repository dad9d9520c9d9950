"""Translating EAI plans onto the dual-arm robot, and the verdict in both vocabularies."""

from __future__ import annotations

from symplan_core.eai.data import gold_plan, resolve_demo
from symplan_core.eai.metrics import eai_summary
from symplan_core.eai.verify import session, verify_entries, verify_text


def _demo(activity: str) -> str:
    return resolve_demo(activity).demo_id


def _plan(*steps: str) -> list[dict]:
    """``"RIGHT_GRASP candle_0"`` -> ``{"action": "RIGHT_GRASP", "object": "candle_0"}``."""
    return [dict(zip(("action", "object"), s.split(" ", 1), strict=True)) for s in steps]


GIFTS = "assembling_gift_baskets"


def test_each_hand_places_what_it_holds(eai_dir) -> None:
    v = verify_entries(_demo(GIFTS), _plan("LEFT_GRASP candle_0", "RIGHT_GRASP cookie_0",
                                           "LEFT_PLACE_INSIDE basket_0", "RIGHT_PLACE_ONTOP coffee_table_12"))
    assert [c["call"] for c in v.calls] == ["grasp(candle_0)", "grasp(cookie_0)", "place_inside(candle_0, basket_0)",
                                            "place_on_top(cookie_0, coffee_table_12)"]
    assert v.errors == [] and v.executable and not v.goal_satisfied


def test_a_full_hand_cannot_grasp_even_when_the_other_is_free(eai_dir) -> None:
    v = verify_entries(_demo(GIFTS), _plan("LEFT_GRASP candle_0", "LEFT_GRASP candle_1", "RIGHT_GRASP candle_1"))
    assert [(e["step"], e["kind"]) for e in v.errors] == [(1, "MISSING_STEP")]
    assert v.errors[0]["message"] == "the left hand already holds candle_0"
    assert v.first_failure["step"] == 1 and not v.executable
    assert [c["call"] for c in v.calls] == ["grasp(candle_0)", "grasp(candle_1)"]


def test_placing_with_an_empty_hand_or_releasing_the_other_hands_object_is_a_missing_step(eai_dir) -> None:
    v = verify_entries(_demo(GIFTS), _plan("RIGHT_PLACE_INSIDE basket_0", "RIGHT_GRASP bow_0",
                                           "RIGHT_RELEASE bow_1", "RIGHT_RELEASE bow_0", "RIGHT_GRASP bow_0",
                                           "LEFT_RELEASE bow_0", "LEFT_RELEASE bow_2"))
    assert [(e["step"], e["kind"]) for e in v.errors] == [(0, "MISSING_STEP"), (2, "MISSING_STEP"),
                                                          (5, "MISSING_STEP")]
    assert v.errors[1]["message"] == "the right hand holds bow_0, not bow_1"
    assert [c["call"] for c in v.calls] == ["grasp(bow_0)", "release(bow_0)", "grasp(bow_0)"]
    # Releasing, with an empty hand, something no hand holds only repeats what is true.
    assert [(w["step"], w["kind"]) for w in v.warnings] == [(6, "ADDITIONAL_STEP")]


def test_grasping_what_is_already_held_is_an_additional_step_that_does_not_stop_the_plan(eai_dir) -> None:
    v = verify_entries(_demo(GIFTS), _plan("RIGHT_GRASP bow_0", "RIGHT_GRASP bow_0", "LEFT_GRASP bow_0"))
    assert v.errors == [] and [w["step"] for w in v.warnings] == [1, 2]
    assert v.executable and v.eai_errors == ["ADDITIONAL_STEP"]


def test_a_hallucinated_object_stops_the_plan_before_it_runs_in_eai_terms(eai_dir) -> None:
    plan = gold_plan(_demo(GIFTS)) + _plan("OPEN unicorn_0")
    v = verify_entries(_demo(GIFTS), plan)
    assert v.ours["engine_pass"] and not v.ours["strict_pass"]    # ours keeps going
    assert v.errors[-1]["kind"] == "UNKNOWN_OBJECT" and v.errors[-1]["eai_kind"] == "hallucination"
    assert not v.executable and not v.goal_satisfied            # EAI: nothing runs
    assert v.eai_errors == ["hallucination"] and not any(line["satisfied"] for line in v.goal_lines)


def test_eai_checks_the_goal_where_execution_stops(eai_dir) -> None:
    demo = _demo(GIFTS)
    late = verify_entries(demo, gold_plan(demo) + _plan("RIGHT_PLACE_ONTOP basket_0"))
    assert not late.executable and late.goal_satisfied and late.first_failure["step"] == len(gold_plan(demo))
    early = verify_entries(demo, _plan("RIGHT_PLACE_ONTOP basket_0") + gold_plan(demo))
    assert not early.executable and not early.goal_satisfied and early.ours["engine_pass"]


def test_auto_navigate_inserts_and_reports_navigation_without_changing_the_verdict(eai_dir) -> None:
    demo = _demo(GIFTS)
    plain, mobile = verify_entries(demo, gold_plan(demo)), verify_entries(demo, gold_plan(demo), auto_navigate=True)
    assert plain.ours["strict_pass"] and mobile.ours["strict_pass"] and plain.navigates == []
    assert mobile.navigates[0] == {"step": 0, "target": "bow_0"}
    assert [c["call"] for c in mobile.calls[:3]] == ["navigate(bow_0)", "grasp(bow_0)", "navigate(bow_1)"]
    assert len(mobile.calls) == len(plain.calls) + len(mobile.navigates)


def test_sliced_parts_map_to_their_object_once_it_is_sliced(eai_dir) -> None:
    demo = _demo("bottling_fruit")
    v = verify_entries(demo, gold_plan(demo))
    assert v.ours["strict_pass"]
    assert "grasp(strawberry_0)" in [c["call"] for c in v.calls if c["step"] == 10]  # strawberry_0_part_0
    early = verify_entries(demo, _plan("OPEN fridge_97", "RIGHT_GRASP strawberry_0_part_0"))
    assert early.errors[0]["precondition"] == "(sliced strawberry_0)" and early.errors[0]["kind"] == "MISSING_STEP"


def test_two_hands_holding_halves_put_the_object_down_once(eai_dir) -> None:
    demo = _demo("chopping_vegetables")
    v = verify_entries(demo, gold_plan(demo))
    assert v.ours["strict_pass"]
    halves = [c["call"] for c in v.calls if c["step"] in (30, 31, 32, 33)]
    assert halves == ["grasp(vidalia_onion_67)", "place_inside(vidalia_onion_67, casserole_71)"]


def test_switching_a_dishwasher_on_washes_what_is_inside(eai_dir) -> None:
    demo = _demo("cleaning_up_after_a_meal")
    plan = gold_plan(demo)
    washed = verify_entries(demo, plan)  # (its chairs, cleaned with no tool in hand, are errors of their own)
    assert washed.ours["engine_pass"] and not any("plate" in e["call"] or "bowl" in e["call"] for e in washed.errors)
    without = [s for s in plan if not (s["action"].startswith("TOGGLE") and s["object"] == "dishwasher_83")]
    assert not verify_entries(demo, without).ours["engine_pass"]


def test_water_is_added_only_where_it_cannot_join_a_water_bottle_quantifier(eai_dir) -> None:
    assert session(_demo("cleaning_oven")).water is not None
    meal = _demo("serving_a_meal")
    assert session(meal).water is None
    v = verify_entries(meal, _plan("SOAK plate_0"))
    assert v.errors[0]["kind"] == "AFFORDANCE" and "nothing in this task can be soaked" in v.errors[0]["message"]


def test_messages_use_scene_names(eai_dir) -> None:
    v = verify_entries(_demo("putting_dishes_away_after_cleaning"), _plan("RIGHT_GRASP plate_0",
                                                                           "RIGHT_PLACE_INSIDE top_cabinet_62"))
    err = v.errors[0]
    assert err["call"] == "place_inside(plate_0, top_cabinet_62)" and err["message"] == "top_cabinet_62 is closed"
    assert ".n.0" not in err["hint"] + err["precondition"]


def test_an_unreadable_response_is_a_parsing_error_not_an_exception(eai_dir) -> None:
    v = verify_text(_demo(GIFTS), "I cannot help with that.")
    assert not v.executable and v.first_failure["eai_kind"] == "parsing"
    assert "no action list could be read" in v.first_failure["message"] and not v.ours["strict_pass"]


def test_partial_goal_weights_split_lines_that_name_both_kinds(eai_dir) -> None:
    """preparing_salad: two relation lines and two lines with both a relation and a state."""
    demo = _demo("preparing_salad")
    done, nothing = verify_entries(demo, gold_plan(demo)), verify_entries(demo, [])
    assert [(line["relation"], line["state"]) for line in done.goal_lines] == \
        [(True, False), (True, True), (True, True), (True, False)]
    summary = eai_summary([done, nothing])
    assert summary["goal_evaluation"]["task_success_rate"] == 0.5
    assert summary["goal_evaluation"]["relation_goal"] == 0.5 and summary["goal_evaluation"]["state_goal"] == 0.5
    assert summary["trajectory_evaluation"]["grammar_error"]["parsing"] == 0.5
