"""The harness end to end: JSONL records, resumability, Ctrl-C, backend failures, repair."""

from __future__ import annotations

import json
import socket

import pytest
from plans import gift_baskets_single
from responses import ENGINE_ONLY, GARBAGE, STRICT, ScriptedBackend, wrap

from symplan_core.eval.harness import EvalConfig, read_records, run_eval
from symplan_core.llm import Completion, make_backend
from symplan_core.planners.reference import plan_task


def config(tmp_path, **changes) -> EvalConfig:
    # The first two B-100 episodes are b100/assembling_gift_baskets on single and dual.
    base = {"benchmark": "b100", "planner": "scripted", "out": str(tmp_path / "run"), "limit": 2,
            "concurrency": 1}
    return EvalConfig(**{**base, **changes})


def by_robot(single: str, dual: str):
    return lambda prompt, _call: single if prompt.task.robot == "single" else dual


def test_run_writes_one_record_per_sample_with_verdict_and_errors(tmp_path, behavior_dir) -> None:
    backend = ScriptedBackend(by_robot(STRICT, ENGINE_ONLY))
    outcome = run_eval(config(tmp_path), backend=backend, progress=False)
    records = read_records(outcome.out / "samples.jsonl")
    assert [(r["episode"], r["sample"]) for r in records] == [
        ("b100/assembling_gift_baskets/single", 0), ("b100/assembling_gift_baskets/dual", 0)]
    single, dual = records
    assert single["prompt_id"].startswith("b100/assembling_gift_baskets/single/guided#")
    assert single["response"] == STRICT and single["completion_tokens"] == len(STRICT.split())
    assert single["verdict"]["strict_pass"] and single["errors"] == []
    assert dual["verdict"]["engine_pass"] and not dual["verdict"]["strict_pass"]
    assert dual["errors"][0]["kind"] == "UNKNOWN_ACTION"
    summary = json.loads((outcome.out / "summary.json").read_text())
    assert summary["SP"] == 50.0 and summary["EP"] == 100.0 and summary["Err"] == 50.0
    assert summary["by_robot"]["single"]["SP"] == 100.0 and summary["by_robot"]["dual"]["SP"] == 0.0
    assert (outcome.out / "report.md").is_file() and (outcome.out / "commands_hist.png").stat().st_size > 0
    # The prompt the model saw is the builder's, and carries the task for non-LLM planners.
    assert backend.prompts[0].messages[0].role == "system" and backend.prompts[0].task is not None


def test_rerun_skips_finished_episodes_and_ignores_a_torn_line(tmp_path, behavior_dir) -> None:
    first = ScriptedBackend(by_robot(STRICT, STRICT))
    run_eval(config(tmp_path, limit=2), backend=first, progress=False)
    samples = tmp_path / "run" / "samples.jsonl"
    with samples.open("a") as fh:
        fh.write('{"episode": "b100/bottling_fruit/single", "sam')  # a crash mid-write
    second = ScriptedBackend(by_robot(GARBAGE, GARBAGE))
    outcome = run_eval(config(tmp_path, limit=4), backend=second, progress=False)
    assert outcome.episodes_skipped == 2 and outcome.episodes_done == 2
    assert len(second.prompts) == 2  # only the two new episodes were planned
    episodes = [r["episode"] for r in read_records(samples)]
    assert len(episodes) == len(set(episodes)) == 4
    assert outcome.summary["SP"] == 50.0  # the first two kept their strict passes


def test_resuming_with_different_settings_is_refused(tmp_path, behavior_dir) -> None:
    run_eval(config(tmp_path), backend=ScriptedBackend(by_robot(STRICT, STRICT)), progress=False)
    with pytest.raises(ValueError, match="different settings .*samples"):
        run_eval(config(tmp_path, samples=2), backend=ScriptedBackend(by_robot(STRICT, STRICT)), progress=False)


def test_ctrl_c_keeps_finished_episodes_and_a_rerun_completes(tmp_path, behavior_dir) -> None:
    def interrupt_on_second(prompt, call):
        if call == 1:
            raise KeyboardInterrupt
        return STRICT

    outcome = run_eval(config(tmp_path, limit=3), backend=ScriptedBackend(interrupt_on_second), progress=False)
    assert outcome.interrupted and outcome.episodes_done == 1
    assert len(read_records(tmp_path / "run" / "samples.jsonl")) == 1
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["samples"] == 1
    again = run_eval(config(tmp_path, limit=3), backend=ScriptedBackend(by_robot(STRICT, STRICT)), progress=False)
    assert not again.interrupted and again.episodes_skipped == 1 and again.episodes_done == 2


def test_backend_failures_are_recorded_and_the_run_continues(tmp_path, behavior_dir) -> None:
    def flaky(prompt, call):
        if call == 0:
            return Completion.failed("ReadTimeout: no answer in 5s")
        if call == 1:
            raise RuntimeError("model crashed")
        return STRICT

    outcome = run_eval(config(tmp_path, limit=3), backend=ScriptedBackend(flaky), progress=False)
    records = read_records(tmp_path / "run" / "samples.jsonl")
    assert [r["backend_error"] for r in records] == ["ReadTimeout: no answer in 5s",
                                                    "RuntimeError: model crashed", None]
    assert outcome.summary["backend_errors"] == 2 and outcome.summary["valid_samples"] == 1
    # the third episode (b100/bottling_fruit) gets the gift-basket plan: valid, with engine errors
    assert outcome.summary["Err"] == 100.0 and outcome.summary["SP"] == 0.0


def test_a_down_openai_server_is_recorded_per_sample(tmp_path, behavior_dir) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    spec = f"openai:http://127.0.0.1:{port}/v1?model=m&max_retries=0&timeout=5&connect_timeout=2"
    with make_backend(spec) as backend:
        outcome = run_eval(config(tmp_path, planner=spec), backend=backend, progress=False)
    records = read_records(tmp_path / "run" / "samples.jsonl")
    assert len(records) == 2 and all(r["backend_error"] for r in records)
    assert outcome.summary["SP"] == 0.0 and outcome.summary["backend_errors"] == 2


def test_pass_at_k_over_several_samples(tmp_path, behavior_dir) -> None:
    answers = iter([STRICT, GARBAGE, GARBAGE, GARBAGE])  # single: 1 of 2 pass; dual: 0 of 2
    outcome = run_eval(config(tmp_path, samples=2), backend=ScriptedBackend(lambda _p, _c: next(answers)),
                       progress=False)
    assert outcome.summary["pass_at_k"] == {"1": 25.0, "2": 50.0}
    assert outcome.summary["consistency"] == {"always": 0, "sometimes": 1, "never": 1}


def test_repair_feeds_engine_errors_back_and_reports_sp_after_rounds(tmp_path, behavior_dir) -> None:
    broken = wrap(gift_baskets_single()[1:])  # the first navigate is missing

    def script(prompt, call):
        last = prompt.messages[-1].content
        return STRICT if "MISSING_STEP" in last and "navigate(candle_1) first" in last else broken

    outcome = run_eval(config(tmp_path, limit=1, repair=2), backend=ScriptedBackend(script), progress=False)
    record = read_records(tmp_path / "run" / "samples.jsonl")[0]
    assert not record["verdict"]["strict_pass"]
    assert record["repair"]["strict_pass_at_round"] == [False, True]
    assert record["repair"]["attempts"][0]["response"] == STRICT
    assert outcome.summary["SP"] == 0.0
    assert outcome.summary["SP_after_round"] == {"0": 0.0, "1": 100.0, "2": 100.0}


def test_repair_falls_back_to_the_reference_planner(tmp_path, behavior_dir) -> None:
    outcome = run_eval(config(tmp_path, limit=1, repair=1, fallback=True),
                       backend=ScriptedBackend(lambda _p, _c: GARBAGE), progress=False)
    record = read_records(tmp_path / "run" / "samples.jsonl")[0]
    assert record["repair"]["strict_pass_at_round"] == [False, False]
    assert record["repair"]["attempts"][-1]["source"] == "reference"
    assert record["repair"]["fallback_strict_pass"] is True
    assert outcome.summary["SP_after_round"]["1"] == 0.0 and outcome.summary["SP_with_fallback"] == 100.0


def test_reference_planner_end_to_end_on_b100_tasks(tmp_path, behavior_dir) -> None:
    outcome = run_eval(config(tmp_path, planner="reference", limit=6), progress=False)
    records = read_records(tmp_path / "run" / "samples.jsonl")
    assert len(records) == 6
    from symplan_core.engine import compile_task
    from symplan_core.tasks import load_problem

    for record in records:
        expected = plan_task(compile_task(load_problem(f"b100/{record['task']}"), record["robot"]))
        assert record["verdict"]["strict_pass"] == expected.strict_pass
        assert record["response"] == (expected.response or record["response"])
    assert outcome.summary["SP"] == 100.0 * sum(r["verdict"]["strict_pass"] for r in records) / 6
    assert outcome.summary["SP"] > 0


def test_sigterm_stops_the_run_like_ctrl_c(tmp_path, behavior_dir) -> None:
    import os
    import signal

    def terminate_on_second(prompt, call):
        if call == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return STRICT

    before = signal.getsignal(signal.SIGTERM)
    outcome = run_eval(config(tmp_path, limit=3), backend=ScriptedBackend(terminate_on_second), progress=False)
    assert outcome.interrupted and outcome.episodes_done == 1
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is restored after the run
