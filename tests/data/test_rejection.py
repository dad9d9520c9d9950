"""Rejection sampling (``symplan data sft``) on real prompt rows: the shortest strict pass is kept,
teacher failures are counted per reason, runs resume like ``symplan eval``."""

from __future__ import annotations

import json

from factory_helpers import ScriptedTeacher

from symplan_core.bddl import parse_problem
from symplan_core.data.samples import read_rows, write_rows
from symplan_core.engine import check_format, compile_task
from symplan_core.eval.metrics import score
from symplan_core.eval.rejection import RejectionConfig, run_rejection
from symplan_core.llm import make_backend
from symplan_core.planners.reference import plan_task

GARBAGE = "I would love to help! First, find the objects."


def prompts_file(tmp_path, small_dataset, n: int = 4):
    rows = [r for r in small_dataset[2] if r.split == "train"][:n]
    path = tmp_path / "prompts.jsonl"
    write_rows(path, rows)
    return path, rows


def gold(prompt) -> str:
    return plan_task(prompt.task).response


def padded(prompt) -> str:
    """The gold plan with one harmless extra step: still a strict pass, one command longer."""
    response = gold(prompt)
    first = response.split("<code>\n", 1)[1].splitlines()[0]
    return response.replace("<code>\n", f"<code>\n{first}\n", 1)


def test_reference_teacher_gives_gold_rows_that_strict_pass(tmp_path, small_dataset) -> None:
    path, rows = prompts_file(tmp_path, small_dataset)
    outcome = run_rejection(RejectionConfig(prompts=str(path), teacher="reference", k=1, out=str(tmp_path / "run")),
                            progress=False)
    assert outcome.summary["kept"] == len(rows) and outcome.summary["yield"] == 1.0
    kept = read_rows(tmp_path / "run" / "sft.jsonl")
    assert [r.id for r in kept] == [r.id for r in rows]
    for row in kept:
        (answer,) = row.completion
        assert answer.role == "assistant" and not check_format(answer.content)
        task = compile_task(parse_problem(row.bddl), row.robot, row.action_set)
        result, verdict, _ = score(task, answer.content)
        assert verdict["strict_pass"] and row.gold_commands == result.commands


def test_the_shortest_strict_pass_of_k_is_kept_and_each_answer_is_counted(tmp_path, small_dataset) -> None:
    path, rows = prompts_file(tmp_path, small_dataset, 3)
    teacher = ScriptedTeacher(lambda prompt, k: [GARBAGE, padded(prompt), gold(prompt)][k])
    outcome = run_rejection(RejectionConfig(prompts=str(path), teacher="scripted", k=3, out=str(tmp_path / "run")),
                            backend=teacher, progress=False)
    summary = outcome.summary
    assert summary["kept"] == 3 and summary["answers"] == {"format": 3, "strict_pass": 6}
    for row in read_rows(tmp_path / "run" / "sft.jsonl"):
        task = compile_task(parse_problem(row.bddl), row.robot, row.action_set)
        assert row.completion[0].content == plan_task(task).response  # not the padded one


def test_teacher_garbage_or_down_is_counted_never_a_crash(tmp_path, small_dataset, closed_port) -> None:
    path, rows = prompts_file(tmp_path, small_dataset, 2)
    garbage = run_rejection(RejectionConfig(prompts=str(path), teacher="scripted", k=2, out=str(tmp_path / "g")),
                            backend=ScriptedTeacher(lambda _p, _k: GARBAGE), progress=False)
    assert garbage.summary["kept"] == 0 and garbage.summary["excluded"] == {"no_strict_pass": 2}
    spec = f"openai:http://127.0.0.1:{closed_port}/v1?model=m&max_retries=0&timeout=5&connect_timeout=2"
    with make_backend(spec) as backend:
        down = run_rejection(RejectionConfig(prompts=str(path), teacher=spec, k=2, out=str(tmp_path / "d")),
                             backend=backend, progress=False)
    assert down.summary["kept"] == 0 and down.summary["excluded"] == {"all_samples_backend_error": 2}
    assert all(reason.startswith("backend_error:") for reason in down.summary["answers"])
    assert read_rows(tmp_path / "d" / "sft.jsonl") == []


def test_an_interrupted_run_resumes_without_redoing_or_losing_prompts(tmp_path, small_dataset) -> None:
    path, rows = prompts_file(tmp_path, small_dataset, 3)

    def stop_at_second(prompt, k):
        if stop_at_second.calls == 1:
            raise KeyboardInterrupt
        stop_at_second.calls += 1
        return gold(prompt)

    stop_at_second.calls = 0
    config = RejectionConfig(prompts=str(path), teacher="scripted", k=1, out=str(tmp_path / "run"), concurrency=1)
    first = run_rejection(config, backend=ScriptedTeacher(stop_at_second), progress=False)
    assert first.run.interrupted and first.summary["kept"] == 1 and first.summary["sampled"] == 1
    teacher = ScriptedTeacher(lambda p, _k: gold(p))
    second = run_rejection(config, backend=teacher, progress=False)
    assert teacher.calls == 2 and second.summary["kept"] == 3  # only the two missing prompts were asked
    ids = [json.loads(line)["episode"] for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted(r.id for r in rows)
