"""The shared backend interface: sampling defaults, prompt forms, failure capture, make_backend."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time

import pytest
from pydantic import ValidationError

from symplan_core.llm import (
    BackendUnavailableError,
    ChatMessage,
    Completion,
    FunctionBackend,
    PlannerPrompt,
    Sampling,
    as_planner_prompt,
    make_backend,
)


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_sampling_defaults_follow_the_paper_protocol() -> None:
    sampling = Sampling()
    assert (sampling.temperature, sampling.top_p, sampling.seed) == (0.6, 0.9, None)
    assert sampling.max_tokens >= 1


@pytest.mark.parametrize("bad", [{"top_p": 0.0}, {"temperature": -1}, {"max_tokens": 0}, {"topp": 0.5}])
def test_sampling_rejects_invalid_settings(bad: dict) -> None:
    with pytest.raises(ValidationError):
        Sampling(**bad)


def test_prompt_forms_normalise_to_chat_messages() -> None:
    assert as_planner_prompt("hi").messages == (ChatMessage("user", "hi"),)
    from_dicts = as_planner_prompt([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])
    assert [m.role for m in from_dicts.messages] == ["system", "user"]
    with pytest.raises(ValueError):
        as_planner_prompt([{"role": "tool", "content": "x"}])
    with pytest.raises(ValueError):
        as_planner_prompt([])


def test_function_backend_returns_n_identical_responses_with_task_access() -> None:
    backend = FunctionBackend(lambda prompt: f"plan for {prompt.task}", name="fixed")
    prompt = PlannerPrompt(messages=(ChatMessage("user", "go"),), task="task-7")
    completions = backend.plan(prompt, n=3)
    assert [c.text for c in completions] == ["plan for task-7"] * 3
    assert all(c.ok and c.finish_reason == "stop" for c in completions)


def test_local_backend_turns_exceptions_into_recorded_errors() -> None:
    def explode(prompt: PlannerPrompt) -> str:
        raise RuntimeError("planner crashed")

    completions = FunctionBackend(explode).plan("go", n=2)
    assert len(completions) == 2
    assert all(not c.ok and "planner crashed" in (c.error or "") for c in completions)
    assert all(c.finish_reason == "error" for c in completions)


def test_async_and_batched_entry_points_agree_with_plan() -> None:
    backend = FunctionBackend(lambda prompt: prompt.messages[-1].content.upper())
    assert [c.text for c in asyncio.run(backend.aplan("a", n=1))] == ["A"]
    batched = backend.plan_many(["a", "b"], n=2)
    assert [[c.text for c in row] for row in batched] == [["A", "A"], ["B", "B"]]


def test_sync_plan_works_inside_a_running_event_loop() -> None:
    async def caller() -> list[Completion]:
        return FunctionBackend(lambda _prompt: "x").plan("go")

    assert asyncio.run(caller())[0].text == "x"


def test_the_llm_layer_points_reference_specs_to_the_planners_factory() -> None:
    # The reference planner lives above this layer; its factory builds every spec.
    with pytest.raises(BackendUnavailableError, match="planners.reference_backend.make_planner_backend"):
        make_backend("reference")


def test_vllm_backend_without_vllm_fails_with_an_explanation() -> None:
    if _module_exists("vllm"):
        pytest.skip("vllm is installed here; the error path cannot be observed")
    with pytest.raises(BackendUnavailableError, match="vllm"):
        make_backend("vllm:/models/qwen3-8b")


def test_importing_the_llm_package_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, symplan_core, symplan_core.llm, symplan_core.llm.spec, symplan_core.eval.passk;"
        "heavy = [m for m in ('torch', 'transformers', 'httpx', 'vllm') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    import subprocess

    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"heavy modules imported: {result.stdout}"
    assert time.perf_counter() - started < 30
