"""`symplan verify`: JSON verdicts, exit 0 whatever the verdict, one-line input errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from plans import FRIDGE_PLAN, gift_baskets_single, plan_text
from typer.testing import CliRunner

from symplan_core.cli.main import app

KEYS = {"gcr", "engine_pass", "strict_pass", "errors", "warnings", "goal_conjuncts", "format_ok"}


@pytest.fixture()
def run(behavior_dir):
    runner = CliRunner()

    def invoke(*args: str, stdin: str | None = None):
        return runner.invoke(app, ["verify", *args], input=stdin)

    return invoke


def write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "plan.txt"
    path.write_text(plan_text(*lines))
    return str(path)


def test_correct_plan_json_strict_passes(run, tmp_path):
    result = run("b100/assembling_gift_baskets", write(tmp_path, gift_baskets_single()), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert KEYS <= set(data)
    assert data["strict_pass"] and data["gcr"] == 1.0 and data["errors"] == []
    assert data["format_ok"] is False  # bare code


def test_failing_plan_still_exits_zero_with_structured_errors(run, tmp_path):
    lines = [line for line in FRIDGE_PLAN if line != "open(electric_refrigerator_1)"]
    result = run("clearing_food_from_table_into_fridge", write(tmp_path, lines), "--benchmark", "b1k", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["engine_pass"] and not data["strict_pass"]
    assert {"step", "call", "kind", "message", "hint"} <= set(data["errors"][0])
    assert data["errors"][0]["kind"] == "MISSING_STEP"
    assert data["errors"][0]["precondition"] == "(open electric_refrigerator_1)"


def test_plan_from_stdin_and_dual_arm(run):
    stdin = "navigate(table_1)\ngrasp(candle_1)\ngrasp(candle_2)\n"
    single = json.loads(run("b100/assembling_gift_baskets", "-", "--json", stdin=stdin).stdout)
    dual = json.loads(run("b100/assembling_gift_baskets", "-", "--json", "--robot", "dual", stdin=stdin).stdout)
    assert [e["kind"] for e in single["errors"]] == ["MISSING_STEP"] and dual["errors"] == []
    assert dual["robot"] == "dual"


def test_bddl_file_path_as_task_and_trace(run, behavior_dir, tmp_path):
    bddl = behavior_dir / "b1k" / "problems" / "halve_an_egg.bddl"
    result = run(str(bddl), write(tmp_path, ["navigate(carving_knife_1)", "grasp(carving_knife_1)"]),
                 "--json", "--trace")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and len(data["trace"]) == 2
    assert ["holding", "carving_knife.n.01_1"] in data["trace"][1]["added"]


def test_human_summary_names_verdict_and_errors(run, tmp_path):
    result = run("b100/assembling_gift_baskets", write(tmp_path, ["grasp(floor_1)"]))
    assert result.exit_code == 0
    assert "FAIL" in result.stdout and "AFFORDANCE" in result.stdout


@pytest.mark.parametrize(("args", "needle"), [
    (("no_such_task_xyz", "PLAN"), "no task"),
    (("assembling_gift_baskets", "PLAN"), "both"),
    (("b100/assembling_gift_baskets", "/nonexistent/plan.txt"), "no such plan file"),
])
def test_input_errors_exit_nonzero_with_one_line(run, tmp_path, args, needle):
    args = tuple(write(tmp_path, ["navigate(candle_1)"]) if a == "PLAN" else a for a in args)
    result = run(*args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0]


def test_installed_command_reads_stdin(behavior_dir):
    exe = Path(sys.executable).parent / "symplan"
    proc = subprocess.run([str(exe), "verify", "b1k/clean_a_suitcase", "-", "--json"],
                          input="navigate(bag_1)\ngrasp(rag_1)\nclean(bag_1)\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["strict_pass"] is True


def test_malformed_bddl_file_is_an_input_error(run, tmp_path):
    bad = tmp_path / "broken.bddl"
    bad.write_text("(define (problem x) (:domain omnigibson) (:objects a.n.01_1 - a.n.01)")
    result = run(str(bad), write(tmp_path, ["navigate(a_1)"]))
    assert result.exit_code == 2
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
