"""``symplan data`` and ``symplan tasks`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from symplan_core.cli.main import app

runner = CliRunner()


def test_tasks_list_counts(behavior_dir: Path) -> None:
    for bench, count in (("b100", 100), ("b1k", 1016)):
        result = runner.invoke(app, ["tasks", "list", "--benchmark", bench])
        assert result.exit_code == 0
        lines = result.stdout.splitlines()
        assert len(lines) == count and all(line.startswith(f"{bench}\t") for line in lines)
    both = json.loads(runner.invoke(app, ["tasks", "list", "--json"]).stdout)
    assert (len(both["b100"]), len(both["b1k"])) == (100, 1016)


def test_tasks_synset_shows_abilities(behavior_dir: Path) -> None:
    result = runner.invoke(app, ["tasks", "synset", "cabinet.n.01"])
    assert result.exit_code == 0 and "openable" in result.output
    unknown = runner.invoke(app, ["tasks", "synset", "no_such_thing.n.01"])
    assert unknown.exit_code == 2 and unknown.output.startswith("error: synset 'no_such_thing.n.01' is unknown")


def test_data_path_follows_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SYMPLAN_DATA_DIR", str(tmp_path))
    result = runner.invoke(app, ["data", "path"])
    assert result.exit_code == 0 and result.stdout.strip() == str(tmp_path)


def test_missing_data_is_a_one_line_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SYMPLAN_DATA_DIR", str(tmp_path))
    for args in (["tasks", "list"], ["bddl", "check"], ["data", "verify"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and "symplan data fetch" in lines[0]
