"""The ``symplan`` command line: JSON shapes, one-line input errors, complete --help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from symplan_core.bddl import parse_file, parse_problem
from symplan_core.cli.main import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_parse_json_has_the_documented_keys_and_shapes(behavior_dir: Path) -> None:
    result = run("bddl", "parse", "b1k/loading_the_car", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"name", "domain", "objects", "init", "goal"} <= set(data)
    assert (data["name"], data["domain"]) == ("loading_the_car-0", "omnigibson")
    assert data["objects"]["car.n.01_1"] == "car.n.01"
    assert ["inroom", "car.n.01_1", "garage"] in data["init"]
    assert data["goal"][0] == "and" and ["not", ["open", "car.n.01_1"]] in data["goal"]
    problem = parse_file(behavior_dir / "b1k" / "problems" / "loading_the_car.bddl")
    assert data["init"] == [lit.to_list() for lit in problem.init] and data["goal"] == problem.goal.to_list()
    assert [d["code"] for d in data["diagnostics"]] == ["implicit-goal-conjunction"]


def test_parse_json_writes_negated_init_as_not_lists(behavior_dir: Path) -> None:
    path = next(p for p in sorted((behavior_dir / "b1k" / "problems").glob("*.bddl"))
                if "(not " in p.read_text().split("(:goal")[0])
    data = json.loads(run("bddl", "parse", str(path), "--json").stdout)
    negated = [lit for lit in data["init"] if lit[0] == "not"]
    assert negated and all(len(lit) == 2 and isinstance(lit[1], list) and lit[1][0] != "not" for lit in negated)


def test_parse_with_benchmark_option_and_canonical_text(behavior_dir: Path) -> None:
    result = run("bddl", "parse", "assembling_gift_baskets", "--benchmark", "b100", "--canonical")
    assert result.exit_code == 0
    assert result.stdout.startswith("(define (problem assembling_gift_baskets_0)\n    (:domain igibson)")
    original = parse_file(behavior_dir / "b100" / "problems" / "assembling_gift_baskets.bddl")
    assert parse_problem(result.stdout) == original


def test_parse_plain_prints_a_summary(behavior_dir: Path) -> None:
    result = run("bddl", "parse", "b1k/passing_out_drinks")
    assert result.exit_code == 0
    assert "passing_out_drinks-0 (omnigibson): 11 objects" in result.output
    assert "[duplicate-instance]" in result.output


def test_check_json_counts_every_file(behavior_dir: Path) -> None:
    result = run("bddl", "check", "--benchmark", "all", "--json")
    assert result.exit_code == 0, result.output[-500:]
    report = json.loads(result.stdout)
    assert {"total", "parsed", "failures", "diagnostics"} <= set(report)
    assert (report["total"], report["parsed"], report["failures"]) == (1116, 1116, [])
    assert not any(key.startswith("error:") for key in report["diagnostics"])
    assert report["diagnostics"]["warning:duplicate-instance"] == 2


def test_check_reports_syntax_failures_with_positions(tmp_path: Path, behavior_dir: Path) -> None:
    bad = tmp_path / "bad.bddl"
    bad.write_text("(define (problem p)\n  (:domain d)\n  (:objects x y))\n")
    good = behavior_dir / "b100" / "problems" / "assembling_gift_baskets.bddl"
    result = run("bddl", "check", str(bad), str(good), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["total"], report["parsed"]) == (2, 1)
    assert report["failures"] == [{"file": str(bad), "line": 3, "col": 13, "message": "instance 'x' has no type"}]


def one_line_error(result) -> str:
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize(("args", "fragment"), [
    (("bddl", "parse", "no_such_activity"), "no task 'no_such_activity'"),
    (("bddl", "parse", "assembling_gift_baskets"), "exists in both b100 and b1k"),
    (("bddl", "parse", "missing.bddl"), "no such BDDL file"),
    (("bddl", "parse", "b1k/loading_the_car", "--json", "--canonical"), "exclude each other"),
    (("bddl", "check", "missing.bddl"), "no such BDDL file: missing.bddl"),
])
def test_input_errors_exit_non_zero_with_one_line(behavior_dir: Path, args: tuple[str, ...], fragment: str) -> None:
    line = one_line_error(run(*args))
    assert line.startswith("error: ") and fragment in line


def test_syntax_error_in_a_parsed_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bddl"
    bad.write_text("(define (problem p) (:domain d)")
    assert one_line_error(run("bddl", "parse", str(bad))).startswith(f"error: {bad}:1:")


@pytest.mark.parametrize(("args", "fragment"), [
    (("bddl", "check", "--benchmark", "b2k"), "Invalid value for '--benchmark'"),
    (("bddl", "parse"), "Missing argument 'task'"),
    (("bddl", "nope"), "No such command 'nope'"),
    (("tasks", "list", "--benchmark", "x"), "Invalid value for '--benchmark'"),
    (("data", "fetch", "--bogus"), "No such option: --bogus"),
])
def test_usage_errors_exit_2_with_one_line(args: tuple[str, ...], fragment: str) -> None:
    result = run(*args)
    line = one_line_error(result)
    assert result.exit_code == 2 and line.startswith("error: ") and fragment in line
    assert line.endswith(" --help')")  # points at the help of the command that failed


def test_group_without_a_command_shows_help() -> None:
    result = run("bddl")
    assert result.exit_code == 2 and "parse" in result.output and "check" in result.output


COMMANDS = [(), ("data",), ("data", "fetch"), ("data", "verify"), ("data", "path"), ("tasks",),
            ("tasks", "list"), ("tasks", "synset"), ("bddl",), ("bddl", "parse"), ("bddl", "check")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "symplan")
def test_help_works_for_every_command(command: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0
    assert "Usage:" in result.output and "--help" in result.output


def test_installed_entry_point_runs() -> None:
    exe = Path(sys.executable).with_name("symplan")
    result = subprocess.run([str(exe), "bddl", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "parse" in result.stdout and "check" in result.stdout
