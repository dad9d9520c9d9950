"""Guided decoding with the transformers backend's prefix KV cache, on the real SmolLM2 (GGUF, CPU)
and real B-1K tasks: the cache changes how many prompt tokens are evaluated, never the answer.

Each guided line is one request continuing the same text; with ``prefix_cache=true`` (the default)
the backend keeps the KV cache of the last sequence and feeds only the tokens after the longest
common token prefix. The same backends answer two different prompts in a row (A, B, then A again),
so a cache carried from one prompt to the next would show up as a different answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from symplan_core.engine.verify import compile_task, verify
from symplan_core.llm import Completion, Sampling, make_backend
from symplan_core.prompts import build_prompt
from symplan_core.runtime.repair import as_prompt
from symplan_core.tasks import load_problem

pytest.importorskip("transformers", reason="the 'llm' extra (transformers, torch, gguf) is not installed")
pytest.importorskip("llguidance", reason="the 'llm' extra (llguidance) is not installed")

pytestmark = pytest.mark.slow

# Two small B-1K test scenes (their prompts are ~1,300 SmolLM2 tokens).
TASKS = ("b1k/buy_dog_food", "b1k/buy_eggs")
GREEDY = Sampling(temperature=0.0, max_tokens=96)


def _prompt(name: str):
    task = compile_task(load_problem(name), "single")
    return task, as_prompt(build_prompt(task), task, name)


def _answers(spec: str, order: tuple[str, ...]) -> list[Completion]:
    with make_backend(spec) as backend:
        answers = []
        for name in order:
            [completion] = backend.plan(_prompt(name)[1], n=1, sampling=GREEDY)
            assert completion.ok, completion.error
            answers.append(completion)
        return answers


@pytest.fixture(scope="module")
def runs(smollm2_gguf: Path) -> Iterator[tuple[list[Completion], list[Completion]]]:
    spec = f"transformers:{smollm2_gguf}?device=cpu&decoding=guided&think=skip&max_calls=2"
    reused = _answers(f"{spec}&prefix_cache=true", (TASKS[0], TASKS[1], TASKS[0]))
    fresh = _answers(f"{spec}&prefix_cache=false", TASKS)
    yield reused, fresh


def test_guided_answers_with_the_prefix_cache_equal_the_fresh_ones_token_for_token(runs) -> None:
    reused, fresh = runs
    for name, cached, plain in zip(TASKS, reused, fresh, strict=False):
        assert cached.text == plain.text, (name, cached.text, plain.text)
        assert cached.completion_tokens == plain.completion_tokens, name
        assert cached.metadata["requests"] == plain.metadata["requests"] >= 2, name
        assert cached.metadata["options_per_line"] == plain.metadata["options_per_line"], name
        result = verify(_prompt(name)[0], cached.text)
        assert result.format_ok and result.calls and result.errors == [], cached.text


def test_the_prefix_cache_evaluates_fewer_prompt_tokens(runs) -> None:
    reused, fresh = runs
    for name, cached, plain in zip(TASKS, reused, fresh, strict=False):
        assert plain.metadata["prefix_cache"] is False and cached.metadata["prefix_cache"] is True
        assert plain.metadata["prompt_tokens_reused"] == 0
        # the same requests, so the same prompt tokens in all: split into evaluated and reused
        total = plain.metadata["prompt_tokens_evaluated"]
        assert cached.metadata["prompt_tokens_evaluated"] + cached.metadata["prompt_tokens_reused"] == total, name
        # every line after the header re-reads at most its own new tokens, not the prompt
        assert cached.metadata["prompt_tokens_evaluated"] < total // 2, (name, cached.metadata)
        assert cached.metadata["prompt_tokens_evaluated"] >= 1


def test_the_prefix_cache_does_not_leak_between_prompts(runs) -> None:
    reused, fresh = runs
    # B after A and A after B: the kept cache is cut back to the prompts' common prefix
    assert reused[1].text == fresh[1].text
    assert reused[2].text == fresh[0].text and reused[2].completion_tokens == fresh[0].completion_tokens
    assert reused[1].text != reused[0].text  # the two tasks do get different answers
    # each prompt shares only the system text with the one before: its own part is evaluated again
    assert reused[1].metadata["prompt_tokens_evaluated"] > 50
    assert reused[2].metadata["prompt_tokens_evaluated"] > 50


def test_common_prefix_length_compares_token_ids() -> None:
    from symplan_core.llm.transformers_backend import common_prefix_length

    assert common_prefix_length([1, 2, 3], [1, 2, 3, 4]) == 3
    assert common_prefix_length([1, 2, 3], [1, 5, 3]) == 1
    assert common_prefix_length([], [1]) == 0
    assert common_prefix_length([7, 8], [7, 8]) == 2
