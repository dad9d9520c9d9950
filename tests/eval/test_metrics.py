"""Metrics on fixed, hand-written responses for a real task (exact expected values)."""

from __future__ import annotations

import pytest
from responses import ENGINE_ONLY, GARBAGE, STRICT

from symplan_core.engine import compile_task
from symplan_core.eval.metrics import failed_verdict, percentile, score, summarize
from symplan_core.tasks import load_problem


@pytest.fixture(scope="module")
def gift(behavior_dir):
    return compile_task(load_problem("b100/assembling_gift_baskets"), "single")


def record(task, response: str | None, robot: str = "single", episode: str = "e", sample: int = 0,
           tokens: int | None = None) -> dict:
    if response is None:
        verdict, errors, error = failed_verdict(), [], "ConnectError: server down"
    else:
        _, verdict, errors = score(task, response)
        error = None
    return {"episode": episode, "robot": robot, "sample": sample, "verdict": verdict, "errors": errors,
            "backend_error": error, "completion_tokens": tokens}


def test_fixed_responses_score_as_written(gift) -> None:
    _, strict, _ = score(gift, STRICT)
    _, engine_only, errors = score(gift, ENGINE_ONLY)
    _, garbage, garbage_errors = score(gift, GARBAGE)
    assert strict["strict_pass"] and strict["engine_pass"] and strict["gcr"] == 1.0
    assert engine_only["engine_pass"] and not engine_only["strict_pass"]
    assert [e["kind"] for e in errors] == ["UNKNOWN_ACTION"]
    assert not garbage["engine_pass"] and garbage["gcr"] == 0.0 and not garbage["format_ok"]
    assert garbage_errors and garbage_errors[0]["kind"] == "PARSE"


def test_summary_metrics_over_mixed_samples(gift) -> None:
    records = [record(gift, STRICT, episode="a", tokens=100), record(gift, ENGINE_ONLY, episode="b", tokens=50),
               record(gift, GARBAGE, episode="c"), record(gift, None, episode="d")]
    summary = summarize(records)
    assert summary["samples"] == 4 and summary["valid_samples"] == 3 and summary["backend_errors"] == 1
    assert summary["SP"] == 25.0  # 1 of 4 (a failed backend call counts as a failure)
    assert summary["EP"] == 50.0
    assert summary["GCR"] == 50.0
    assert summary["Err"] == pytest.approx(66.67)  # 2 of the 3 valid samples have engine errors
    assert summary["mean_response_tokens"] == 75.0
    assert summary["mean_commands"] == pytest.approx((64 + 65 + 1) / 3, abs=0.01)
    assert "pass_at_k" not in summary


def test_per_embodiment_breakdown_splits_by_robot(gift) -> None:
    records = [record(gift, STRICT, robot="single", episode="a"), record(gift, GARBAGE, robot="dual", episode="b")]
    summary = summarize(records)
    assert summary["by_robot"]["single"]["SP"] == 100.0
    assert summary["by_robot"]["dual"]["SP"] == 0.0
    assert summary["SP"] == 50.0


def test_pass_at_k_and_buckets_with_several_samples(gift) -> None:
    responses = {"always": [STRICT] * 3, "sometimes": [STRICT, GARBAGE, GARBAGE], "never": [GARBAGE] * 3}
    records = [record(gift, text, episode=ep, sample=i)
               for ep, texts in responses.items() for i, text in enumerate(texts)]
    summary = summarize(records)
    # pass@1 = mean(1, 1/3, 0); pass@2 = mean(1, 1 - C(2,2)/C(3,2) = 2/3, 0); pass@3 = mean(1, 1, 0)
    assert summary["pass_at_k"] == {"1": pytest.approx(44.44), "2": pytest.approx(55.56), "3": pytest.approx(66.67)}
    assert summary["consistency"] == {"always": 1, "sometimes": 1, "never": 1}


def test_percentile_is_nearest_rank() -> None:
    values = list(range(1, 11))
    assert percentile(values, 50) == 5.0
    assert percentile(values, 90) == 9.0
    assert percentile([], 50) is None
