"""Report files, `symplan eval run` / `symplan eval compare` through the real CLI app."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from symplan_core.cli import eval_cmd
from symplan_core.eval.report import compare_rows, markdown

runner = CliRunner()


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """symplan"""

    eval_cmd.register(app)
    return app


def test_eval_run_with_the_reference_planner_and_resume(tmp_path, behavior_dir) -> None:
    out = tmp_path / "ref"
    args = ["eval", "run", "--benchmark", "b100", "--planner", "reference", "--limit", "4",
            "--out", str(out), "--no-progress"]
    first = runner.invoke(cli(), args)
    assert first.exit_code == 0, first.output
    assert "| SP |" in first.output
    for name in ("samples.jsonl", "summary.json", "report.md", "commands_hist.png", "sp_vs_length.png", "run.json"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["samples"] == 4 and set(summary["by_robot"]) == {"single", "dual"}
    again = runner.invoke(cli(), args)
    assert again.exit_code == 0 and "0 episodes run, 4 already done" in again.output


def test_eval_run_rejects_a_bad_spec_and_a_bad_robot(tmp_path, behavior_dir) -> None:
    bad_spec = runner.invoke(cli(), ["eval", "run", "--planner", "telepathy:x", "--out", str(tmp_path / "a")])
    assert bad_spec.exit_code == 2 and "telepathy" in bad_spec.output
    bad_robot = runner.invoke(cli(), ["eval", "run", "--robot", "tripod", "--out", str(tmp_path / "b")])
    assert bad_robot.exit_code == 2 and "robots" in bad_robot.output


def test_compare_prints_both_runs_side_by_side(tmp_path, behavior_dir) -> None:
    for name, limit in (("a", "2"), ("b", "4")):
        result = runner.invoke(cli(), ["eval", "run", "--planner", "reference", "--limit", limit,
                                       "--out", str(tmp_path / name), "--no-progress"])
        assert result.exit_code == 0, result.output
    shown = runner.invoke(cli(), ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert shown.exit_code == 0, shown.output
    samples_row = next(line for line in shown.output.splitlines() if line.strip("│ ").startswith("samples"))
    assert "2" in samples_row and "4" in samples_row
    missing = runner.invoke(cli(), ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "nope")])
    assert missing.exit_code == 2


def test_markdown_and_compare_rows_include_pass_at_k_and_repair() -> None:
    summary = {"config": {"planner": "p"}, "SP": 50.0, "pass_at_k": {"1": 50.0, "2": 75.0},
               "consistency": {"always": 1, "sometimes": 1, "never": 0}, "SP_after_round": {"0": 50.0, "1": 80.0},
               "by_robot": {"single": {"SP": 40.0}}}
    text = markdown(summary)
    assert "| pass@2 | 75.00 |" in text and "| SP after 1 repair rounds | 80.00 |" in text
    assert "| SP | 50.00 | 40.00 |" in text
    rows = {name: (a, b) for name, a, b in compare_rows(summary, {"SP": 10.0, "by_robot": {}})}
    assert rows["SP"] == ("50.00", "10.00") and rows["pass@2"] == ("75.00", "–")
