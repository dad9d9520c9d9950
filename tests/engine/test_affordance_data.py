"""Affordance data is part of the engine's input: the packaged synset table, never "allow all".

A verdict must not depend on what was fetched into the data directory; a broken install is a
one-line error; an object of a synset in no table is reported (UNKNOWN_AFFORDANCE), not waved
through silently.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from symplan_core import tasks
from symplan_core.cli.main import app
from symplan_core.engine import ErrorKind, compile_task, verify
from symplan_core.tasks import SynsetTableError, derive_synset_table, load_problem

SYMPLAN = Path(sys.executable).parent / "symplan"
# A fixture (countertop) grasped and a tomato opened: AFFORDANCE errors when affordances are known.
LENIENCY_PROBE = "navigate(countertop_1)\ngrasp(countertop_1)\nopen(tomato_1)\nnavigate(tomato_1)\ncut(tomato_1)\n"


def _verify_json(bddl: Path, plan: Path, data_dir: Path | None) -> dict:
    env = dict(os.environ)
    if data_dir is not None:
        env["SYMPLAN_DATA_DIR"] = str(data_dir)
    proc = subprocess.run([str(SYMPLAN), "verify", str(bddl), str(plan), "--json"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_verify_with_an_empty_data_directory_gives_the_same_verdict_as_with_data(behavior_dir, tmp_path):
    bddl = tmp_path / "chopping_vegetables.bddl"  # a file path: the task itself needs no data directory
    shutil.copy(behavior_dir / "b100" / "problems" / "chopping_vegetables.bddl", bddl)
    plan = tmp_path / "plan.txt"
    plan.write_text(LENIENCY_PROBE)
    empty = tmp_path / "empty_data"
    empty.mkdir()
    with_data, without = _verify_json(bddl, plan, None), _verify_json(bddl, plan, empty)
    assert without == with_data
    kinds = [(e["call"], e["kind"]) for e in without["errors"]]
    assert ("grasp(countertop_1)", "AFFORDANCE") in kinds and ("open(tomato_1)", "AFFORDANCE") in kinds
    assert not without["strict_pass"]


@pytest.fixture()
def no_packaged_table(monkeypatch):
    """The package's synset table is gone (a broken install); caches are reset around the test."""
    def reset() -> None:
        for cached in (tasks._packaged_table, tasks.synset_table, tasks.synset_parents, tasks._known_children,
                       tasks.synset_info):
            cached.cache_clear()

    reset()
    monkeypatch.setattr(tasks, "SYNSET_TABLE", "behavior_data/no_such_table.json")
    yield
    monkeypatch.undo()
    reset()


def test_a_missing_synset_table_refuses_to_compile_instead_of_allowing_everything(behavior_dir, no_packaged_table):
    with pytest.raises(SynsetTableError, match="reinstall symplan-core"):
        compile_task(load_problem("b100/chopping_vegetables"))


def test_the_cli_reports_a_missing_synset_table_in_one_line(behavior_dir, no_packaged_table, tmp_path):
    plan = tmp_path / "plan.txt"
    plan.write_text(LENIENCY_PROBE)
    result = CliRunner().invoke(app, ["verify", "b100/chopping_vegetables", str(plan)])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1
    assert "synset table" in lines[0] and "reinstall" in lines[0]


def test_the_packaged_table_is_what_the_bddl_sdist_files_give(behavior_dir):
    # scripts/build_synset_table.py writes it; a stale or hand-edited table fails here.
    b1k = behavior_dir / "b1k"
    derived = derive_synset_table(b1k / "synsets.csv", b1k / "output_hierarchy.json", b1k / "properties_to_synsets.json")
    assert tasks._packaged_table() == json.loads(json.dumps(derived))
    assert len(derived["synsets"]) == 3000 and "MIT" in derived["license"]


def test_an_object_in_no_table_yields_unknown_affordance_diagnostics_not_errors(compiled):
    task = compiled("b1k/buying_office_supplies")  # tape.n.01 is in no BEHAVIOR table
    assert task.world.unknown == {"tape.n.01_1": "tape.n.01"}
    result = verify(task, "navigate(tape_1)\ngrasp(tape_1)\nnavigate(tape_1)")
    assert result.errors == []
    assert [(d.kind, d.step, d.call) for d in result.diagnostics] == [
        (ErrorKind.UNKNOWN_AFFORDANCE, 1, "grasp(tape_1)")]  # navigate relies on no ability
    assert result.assumes_affordances and "tape.n.01" in result.diagnostics[0].message
    assert result.to_json()["diagnostics"][0]["kind"] == "UNKNOWN_AFFORDANCE"


def test_known_objects_give_no_diagnostics(compiled):
    result = verify(compiled("b1k/clean_a_suitcase"), "navigate(bag_1)\ngrasp(rag_1)\nclean(bag_1)")
    assert result.strict_pass and result.diagnostics == [] and not result.assumes_affordances
