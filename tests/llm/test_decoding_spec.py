"""The decoding mode travels in the backend spec: parsing, with_decoding, and the CLI flags."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from symplan_core.cli.main import app
from symplan_core.llm import BackendSpecError, parse_backend_spec, with_decoding
from symplan_core.llm.spec import unused_budgets


def test_decoding_keys_parse_on_every_llm_backend_and_default_to_free() -> None:
    assert parse_backend_spec("openai:http://h:1/v1").decoding == "free"
    config = parse_backend_spec("transformers:smollm2?decoding=guided&think=300&max_calls=7")
    assert (config.decoding, config.think, config.max_calls) == ("guided", "300", 7)
    assert parse_backend_spec("vllm:/m?decoding=grammar&think=skip").think == "skip"
    for bad in ("openai:http://h:1/v1?decoding=beam", "openai:http://h:1/v1?think=lots",
                "openai:http://h:1/v1?grammar_field=xml", "openai:http://h:1/v1?think=0"):
        with pytest.raises(BackendSpecError):
            parse_backend_spec(bad)


def test_with_decoding_sets_replaces_and_clears_the_keys_and_keeps_the_rest() -> None:
    spec = "openai:http://h:1/v1?model=m&concurrency=1"
    guided = with_decoding(spec, "guided", "200")
    assert guided == "openai:http://h:1/v1?model=m&concurrency=1&decoding=guided&think=200"
    assert with_decoding(guided, "grammar") == "openai:http://h:1/v1?model=m&concurrency=1&think=200&decoding=grammar"
    assert with_decoding(guided, "free") == "openai:http://h:1/v1?model=m&concurrency=1&think=200"
    assert with_decoding(spec, None, None) == spec
    with pytest.raises(BackendSpecError, match="does not decode"):
        with_decoding("reference?time_budget=2", "grammar")


def test_eval_refuses_a_decoding_mode_for_the_reference_planner(tmp_path) -> None:
    result = CliRunner().invoke(app, ["eval", "run", "--planner", "reference", "--decoding", "guided",
                                      "--limit", "1", "--out", str(tmp_path / "run"), "--no-progress"])
    assert result.exit_code != 0
    assert "does not decode" in result.output
    assert not (tmp_path / "run" / "samples.jsonl").exists()


def test_budgets_given_for_free_decoding_stay_out_of_the_spec_with_a_note() -> None:
    spec = "openai:http://h:1/v1?model=m"
    free = with_decoding(spec, "free", "skip", "skip")
    assert free == spec  # what ran is what the run records: free decoding reads no budget
    assert unused_budgets(free, "skip", "skip") == (
        "note: --think skip and --steps skip apply under grammar/guided decoding; free decoding ignores them")
    guided = with_decoding(spec, "guided", "skip", "skip")
    assert guided == "openai:http://h:1/v1?model=m&decoding=guided&think=skip&steps=skip"
    assert unused_budgets(guided, "skip", "skip") is None
    assert unused_budgets(free, None, None) is None
