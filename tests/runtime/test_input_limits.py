"""Input limits found by fuzzing the node: request sizes, which files a request may name, goal
nesting depth. Plain Python (no DDS): the checks run where a request enters the node."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from symplan_core.bddl import BDDLError, parse_problem
from symplan_core.bddl.parser import MAX_GOAL_DEPTH
from symplan_core.runtime.config import LimitsSection, SceneSection
from symplan_core.runtime.limits import InputLimits, RequestRejected, read_bddl_file
from symplan_core.runtime.sources import BddlSceneSource, SceneError, TaskRequest
from symplan_core.tasks import problem_path

WOOD = problem_path("bringing_in_wood", "b100")[1]


def _nested(depth: int) -> str:
    text = WOOD.read_text()
    atom = "(onfloor plywood.n.01_1 floor.n.01_1)"
    return text[:text.index("(:goal")] + "(:goal " + "(not " * depth + atom + ")" * depth + "))"


def test_goal_nesting_deeper_than_the_limit_is_a_bddl_error_not_a_recursion_error() -> None:
    assert parse_problem(_nested(MAX_GOAL_DEPTH)).goal is not None
    for depth in (MAX_GOAL_DEPTH + 1, 5000, 100_000):  # 5000 raised RecursionError before the limit
        with pytest.raises(BDDLError, match=f"nested deeper than {MAX_GOAL_DEPTH}"):
            parse_problem(_nested(depth))


def test_every_field_over_its_byte_limit_is_named_and_nothing_is_read() -> None:
    limits = InputLimits(max_bddl_bytes=2048, max_plan_bytes=1024, max_text_bytes=64)
    with pytest.raises(RequestRejected) as caught:
        limits.check(bddl="(" * 2049, plan_text="x" * 1025, instruction="é" * 33, task_id="t" * 65, robot="r" * 65)
    reasons = caught.value.reasons
    assert [r.split(" ")[0] for r in reasons] == ["bddl", "plan_text", "instruction", "task_id", "robot"]
    assert "limits.max_bddl_bytes (2048 bytes)" in reasons[0]
    limits.check(bddl="(" * 2048, plan_text="x" * 1024, instruction="é" * 32)  # at the limits: accepted


def test_a_huge_field_is_refused_quickly() -> None:
    huge = "x" * (256 * 2**20)
    started = time.perf_counter()
    with pytest.raises(RequestRejected):
        InputLimits().check(bddl=huge)
    assert time.perf_counter() - started < 1.0  # a length check, no encoding or parsing


@pytest.mark.parametrize("task_id", ["bringing_in_wood", "b100/bringing_in_wood", "b1k/clean_a_LED_screen",
                                     "filling_a_Christmas_stocking", "no_such_task_but_a_name"])
def test_activity_names_pass_the_input_check(task_id: str) -> None:
    InputLimits().check(task_id=task_id, benchmark="b100")


@pytest.mark.parametrize("task_id", ["../../etc/passwd", "/etc/passwd", "/etc/hostname.bddl", "b100/../../x",
                                     "b999/bringing_in_wood", "bringing in wood", "$(id)", "~/.bashrc.bddl",
                                     "x\x00.bddl"])
def test_paths_and_malformed_task_ids_are_refused_without_a_goal_file_dir(task_id: str) -> None:
    with pytest.raises(RequestRejected):
        InputLimits().check(task_id=task_id)


def test_unknown_benchmark_is_refused() -> None:
    with pytest.raises(RequestRejected, match="benchmark 'b999' is not one of b100, b1k"):
        InputLimits().check(task_id="bringing_in_wood", benchmark="b999")


def test_goal_file_dirs_admit_files_inside_only_after_resolving_links(tmp_path: Path) -> None:
    allowed = tmp_path / "tasks"
    allowed.mkdir()
    (allowed / "mine.bddl").write_text(WOOD.read_text())
    (allowed / "escape.bddl").symlink_to("/etc/hostname")
    (tmp_path / "outside.bddl").write_text(WOOD.read_text())
    limits = InputLimits.from_config(LimitsSection(), SceneSection(goal_file_dirs=f"{allowed}{os.pathsep}"))
    limits.check(task_id=str(allowed / "mine.bddl"))
    for path in (allowed / "escape.bddl", tmp_path / "outside.bddl", allowed / ".." / "outside.bddl"):
        with pytest.raises(RequestRejected, match="outside scene.goal_file_dirs"):
            limits.check(task_id=str(path))


def test_a_fifo_or_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.bddl"
    os.mkfifo(fifo)  # open() for reading would block until a writer comes
    with pytest.raises(RequestRejected, match="not a regular file"):
        read_bddl_file(str(fifo), 65536)
    big = tmp_path / "big.bddl"
    big.write_text(WOOD.read_text() + " " * 70000)
    with pytest.raises(RequestRejected, match="over limits.max_bddl_bytes"):
        read_bddl_file(str(big), 65536)
    source = BddlSceneSource(max_bytes=65536)
    with pytest.raises(SceneError, match="not a regular file"):
        source.resolve(TaskRequest(task_id=str(fifo)))


def test_a_task_name_that_is_also_a_file_in_the_working_directory_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "secret_notes").write_text("not a task")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SceneError, match="also a path in the working directory"):
        BddlSceneSource().resolve(TaskRequest(task_id="secret_notes"))
    assert BddlSceneSource().resolve(TaskRequest(task_id="bringing_in_wood", benchmark="b100")).problem
