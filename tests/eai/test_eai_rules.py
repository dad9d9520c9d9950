"""The ``eai`` rules profile (``--rules eai``) against the default physics, point by point
(docs/eai.md, "The eai rules profile"), on EAI's real demos and gold plans."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from symplan_core.cli.main import app
from symplan_core.eai.benchmark import gold_verdicts
from symplan_core.eai.data import gold_plan, resolve_demo
from symplan_core.eai.verify import verify_entries

#: Not a strict pass under --rules eai (both goal definitions unless noted), by docs/eai.md's reason.
REJECTED_EAI_RULES = {
    "cleaning_oven", "cleaning_stove", "making_tea", "preserving_food", "packing_child_s_bag", "serving_a_meal",
    "sorting_groceries", "storing_the_groceries",   # annotation flaws EAI's evaluator rejects too
    "locking_every_door",                           # the door is a fixture (placed with inroom)
    "cleaning_bedroom",                             # a scene fact the task file does not state
}


def _demo(activity: str) -> str:
    return resolve_demo(activity).demo_id


def _plan(*steps: str) -> list[dict]:
    return [dict(zip(("action", "object"), s.split(" ", 1), strict=True)) for s in steps]


def _first(v) -> tuple[str, str]:
    return (v.errors[0]["kind"], v.errors[0]["message"]) if v.errors else ("", "")


def _activity(demo_id: str) -> str:
    return re.sub(r"_\d+_[A-Z][A-Za-z]*(_\d+)?_int_\d+_[\d_-]+$", "", demo_id)


def test_gold_plans_under_eai_rules_as_documented(eai_dir) -> None:
    verdicts = gold_verdicts(False, "eai")
    assert all(v.rules == "eai" for v in verdicts)
    assert sum(v.ours["strict_pass"] for v in verdicts) == 89
    assert sum(v.ours_eai_goal["strict_pass"] for v in verdicts) == 90
    assert {_activity(v.demo_id) for v in verdicts if not v.ours_eai_goal["strict_pass"]} == REJECTED_EAI_RULES
    assert {_activity(v.demo_id) for v in verdicts if not v.ours["strict_pass"]} == \
        REJECTED_EAI_RULES | {"rearranging_furniture"}


def test_the_default_profile_stays_physics(eai_dir) -> None:
    demo = _demo("cleaning_up_after_a_meal")
    default = verify_entries(demo, gold_plan(demo))
    assert default.rules == "physics" and not default.ours["strict_pass"]


def test_detergent_in_hand_cleans_a_stain_by_name_only_under_eai_rules(eai_dir) -> None:
    demo = _demo("cleaning_up_after_a_meal")  # step 21 LEFT_GRASP detergent_154, step 22 CLEAN straight_chair_3
    assert verify_entries(demo, gold_plan(demo), rules="eai").ours["strict_pass"]
    physics = verify_entries(demo, gold_plan(demo))
    assert physics.errors[0]["step"] == 22 and "no cleaning tool" in physics.errors[0]["message"]


def test_a_teapot_soaks_under_eai_rules_and_water_is_needed_under_physics(eai_dir) -> None:
    demo = _demo("making_tea")
    plan = _plan("OPEN bottom_cabinet_no_top_80", "RIGHT_GRASP teapot_0", "RIGHT_PLACE_ONTOP stove_88",
                 "RIGHT_GRASP tea_bag_0", "RIGHT_PLACE_INSIDE teapot_0", "SOAK tea_bag_0")
    assert _first(verify_entries(demo, plan, rules="eai")) == ("", "")
    assert _first(verify_entries(demo, plan)) == ("MISSING_STEP", "nothing in this scene holds or supplies water_1")
    dry = _plan("OPEN bottom_cabinet_no_top_80", "RIGHT_GRASP tea_bag_0", "SOAK tea_bag_0")
    assert _first(verify_entries(demo, dry, rules="eai"))[1] == \
        "Object tea_bag_0 not in toggled on sink or in a teapot (SOAK)"


def test_a_saucepan_cooks_under_eai_rules_without_a_heat_source(eai_dir) -> None:
    demo = _demo("preserving_food")
    plan = _plan("OPEN fridge_40", "RIGHT_GRASP strawberry_61", "RIGHT_PLACE_INSIDE saucepan_65", "COOK strawberry_61")
    assert _first(verify_entries(demo, plan, rules="eai")) == ("", "")
    assert _first(verify_entries(demo, plan))[1] == "nothing in this scene can heat strawberry_61"
    raw = _plan("OPEN fridge_40", "COOK strawberry_61")
    assert _first(verify_entries(demo, raw, rules="eai"))[1] == "Object strawberry_61 not in a cooker (COOK)"


def test_eai_grasps_what_the_task_places_on_the_floor_but_not_a_door(eai_dir) -> None:
    plants = _demo("watering_houseplants")
    assert verify_entries(plants, gold_plan(plants), rules="eai").ours["strict_pass"]
    assert _first(verify_entries(plants, gold_plan(plants)))[0] == "AFFORDANCE"
    doors = _demo("locking_every_door")
    assert _first(verify_entries(doors, gold_plan(doors), rules="eai")) == \
        ("AFFORDANCE", "door_89 is a fixture and cannot be picked up")


def test_rules_option_on_the_cli(eai_dir) -> None:
    runner = CliRunner()
    demo = _demo("cleaning_up_after_a_meal")
    out = runner.invoke(app, ["eai", "verify", demo, "-", "--rules", "eai", "--json"],
                        input=json.dumps(gold_plan(demo)))
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rules"] == "eai" and data["verdict"]["strict_pass"]
    bad = runner.invoke(app, ["eai", "gold", "--rules", "igibson"])
    assert bad.exit_code == 2 and "--rules must be one of physics, eai" in bad.output


@pytest.mark.parametrize("rules", ["physics", "eai"])
def test_profiles_share_the_engine_for_everything_else(eai_dir, rules) -> None:
    demo = _demo("assembling_gift_baskets")
    assert verify_entries(demo, gold_plan(demo), rules=rules).ours["strict_pass"]
