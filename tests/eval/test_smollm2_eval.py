"""One real episode with the SmolLM2 transformers backend (tiny max_tokens, CPU)."""

from __future__ import annotations

import os

import pytest

from symplan_core.eval.harness import EvalConfig, read_records, run_eval
from symplan_core.llm.models import locate_model

os.environ.setdefault("HF_HUB_OFFLINE", "1")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    pytest.importorskip("transformers")
    if locate_model("smollm2") is None:
        pytest.skip("SmolLM2 is not installed (python -m symplan_core.llm.models install smollm2)")
    return "transformers:smollm2?device=cpu&dtype=float32"


def test_smollm2_episode_is_generated_verified_and_recorded(tmp_path, behavior_dir, smollm2) -> None:
    config = EvalConfig(benchmark="b100", robots=("single",), planner=smollm2, limit=1, max_tokens=8,
                        temperature=0.0, out=str(tmp_path / "run"))
    outcome = run_eval(config, progress=False, report=False)
    (record,) = read_records(tmp_path / "run" / "samples.jsonl")
    assert record["backend_error"] is None, record["backend_error"]
    assert record["episode"] == "b100/assembling_gift_baskets/single"
    assert 0 < record["completion_tokens"] <= 8
    assert record["prompt_tokens"] > 500  # the whole guided prompt reached the model
    assert record["response"]
    assert not record["verdict"]["strict_pass"]  # eight tokens cannot finish this task
    assert outcome.summary["valid_samples"] == 1 and outcome.summary["mean_response_tokens"] is not None
