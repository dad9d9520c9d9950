"""``symplan eai``: verdicts are data (exit 0); bad input is one line on stderr (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from symplan_core.cli.main import app
from symplan_core.eai.data import demo_ids, gold_plan

runner = CliRunner()
GIFTS = "assembling_gift_baskets_0_Beechwood_0_int_0_2021-10-26_12-46-37"


def _one_line_error(result, code: int = 2) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == code and len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_verify_a_plan_file_and_stdin_as_json(eai_dir: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(gold_plan(GIFTS)))
    result = runner.invoke(app, ["eai", "verify", GIFTS, str(plan), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ours"]["strict_pass"] and data["executable"] and data["goal_satisfied"]
    piped = runner.invoke(app, ["eai", "verify", "assembling_gift_baskets", "-", "--auto-navigate", "--json"],
                          input=plan.read_text())
    assert piped.exit_code == 0 and json.loads(piped.stdout)["navigates"]


def test_verify_prints_the_failing_step_in_eai_terms(eai_dir: Path) -> None:
    plan = json.dumps([{"action": "RIGHT_PLACE_INSIDE", "object": "basket_0"}])
    result = runner.invoke(app, ["eai", "verify", GIFTS, "-"], input=plan)
    assert result.exit_code == 0
    assert "FAIL" in result.stdout and "first failure at step 0: MISSING_STEP" in result.stdout


def test_verify_states_the_goal_source_and_judges_on_it(eai_dir: Path) -> None:
    """rearranging_furniture's gold plan misses the touching conjunct that only bddl 1.0.1's goal has."""
    plan = json.dumps(gold_plan(_demo_of("rearranging_furniture")))
    verdicts = {}
    for goals in ("b100", "eai"):
        result = runner.invoke(app, ["eai", "verify", "rearranging_furniture", "-", "--goals", goals, "--json"],
                               input=plan)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["goals"] == goals
        verdicts[goals] = data["verdict"]["strict_pass"]
    assert verdicts == {"b100": False, "eai": True}


def _demo_of(activity: str) -> str:
    return next(d for d in demo_ids() if d.startswith(activity + "_0_"))


@pytest.mark.parametrize(("args", "message"), [
    (["eai", "verify", GIFTS, "-", "--goals", "bddl"], "--goals must be one of b100, eai"),
    (["eai", "verify", "no_such_demo", "-"], "no EAI demo 'no_such_demo'"),
    (["eai", "verify", GIFTS, "/no/such/plan.json"], "no such plan file: /no/such/plan.json"),
    (["eai", "eval", "/no/such/outputs.json"], "no such plan file: /no/such/outputs.json"),
    (["eai", "map", "nothing"], "no EAI demo"),
])
def test_bad_input_is_a_one_line_error(eai_dir: Path, args: list[str], message: str) -> None:
    assert message in _one_line_error(runner.invoke(app, args))


def test_an_outputs_file_that_is_not_a_list_is_a_one_line_error(eai_dir: Path) -> None:
    line = _one_line_error(runner.invoke(app, ["eai", "eval", "-"], input='{"identifier": 1}'))
    assert "JSON list" in line


def test_missing_eai_data_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMPLAN_DATA_DIR", str(tmp_path))
    for args in (["eai", "demos"], ["eai", "gold"], ["eai", "verify", GIFTS, "-"]):
        assert "symplan data fetch --eai" in _one_line_error(runner.invoke(app, args, input="[]"))


def test_eval_scores_an_outputs_file_and_lists_what_it_could_not_score(eai_dir: Path) -> None:
    ids = demo_ids()
    passing = [d for d in ids if d.startswith(("assembling_gift", "bottling_fruit", "chopping_veg"))]
    outputs = [{"identifier": d, "llm_output": "Plan:\n" + json.dumps(gold_plan(d))} for d in passing]
    outputs += [{"identifier": ids[-1], "llm_output": "no idea"}, {"identifier": "mystery_demo", "llm_output": "[]"},
                {"llm_output": "[]"}, {"identifier": ids[-2]}]
    result = runner.invoke(app, ["eai", "eval", "-", "--json"], input=json.dumps(outputs))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["plans"] == 5 and len(data["results"]) == 5 and data["demos_without_output"] == 95
    assert [bad["entry"] for bad in data["invalid_entries"]] == [4, 5]
    traj = data["eai"]["trajectory_evaluation"]
    assert traj["execution_success_rate"] == 0.6 and traj["grammar_error"]["parsing"] == 0.4
    assert data["ours"]["SP"] == 60.0
    text = runner.invoke(app, ["eai", "eval", "-"], input=json.dumps(outputs))
    assert "EAI   task success 0.6000" in text.stdout and "invalid entry 4" in text.stdout


def test_gold_demos_and_map_commands(eai_dir: Path) -> None:
    gold = runner.invoke(app, ["eai", "gold"])
    assert gold.exit_code == 0 and "ours  SP 85.0%" in gold.stdout
    assert "not a strict pass: preserving_food" in gold.stdout
    listing = runner.invoke(app, ["eai", "demos", "--json"])
    assert json.loads(listing.stdout)[GIFTS] == "assembling_gift_baskets"
    mapping = json.loads(runner.invoke(app, ["eai", "map", "assembling_gift_baskets", "--json"]).stdout)
    assert mapping["mapping"]["breakfast_table_13"] == "table.n.02_1"
