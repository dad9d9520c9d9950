"""The openai backend against real loopback servers: llama.cpp's OpenAI-compatible server serving
SmolLM2, Python's static file server (not OpenAI), and a closed port. No mocks.

Every failure must come back as `Completion.error` and the next request must still work.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Iterator

import pytest

from symplan_core.llm import Sampling, make_backend
from symplan_core.llm.openai_backend import OpenAIBackend, parse_chat_completion

pytest.importorskip("httpx", reason="the 'llm' extra (httpx) is not installed")

pytestmark = pytest.mark.slow

SHORT = Sampling(max_tokens=12, seed=7)
PROMPT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Name one fruit."},
]


@pytest.fixture(scope="module")
def served_backend(llama_cpp_server) -> Iterator[OpenAIBackend]:
    backend = make_backend(f"openai:{llama_cpp_server.base_url}?timeout=120&concurrency=2")
    yield backend
    backend.close()


def test_server_completion_carries_text_and_usage_counts(served_backend) -> None:
    [completion] = served_backend.plan(PROMPT, n=1, sampling=SHORT)
    assert completion.ok, completion.error
    assert completion.text.strip()
    assert completion.prompt_tokens is not None and completion.prompt_tokens > 10
    assert completion.completion_tokens is not None and 1 <= completion.completion_tokens <= 12
    assert completion.finish_reason in ("stop", "length")
    assert completion.latency_s > 0
    assert completion.metadata["attempts"] == 1
    assert completion.metadata["model"], "the model name should come from the server's /models list"


def test_n_samples_each_get_their_own_usage(served_backend) -> None:
    completions = served_backend.plan(PROMPT, n=3, sampling=SHORT)
    assert len(completions) == 3
    for completion in completions:
        assert completion.ok, completion.error
        assert completion.completion_tokens is not None and completion.completion_tokens >= 1
        assert completion.prompt_tokens == completions[0].prompt_tokens


def test_many_prompts_and_async_callers_share_the_bounded_client(served_backend) -> None:
    batched = served_backend.plan_many([PROMPT, "Say hi."], n=2, sampling=Sampling(max_tokens=4))
    assert [len(row) for row in batched] == [2, 2]
    assert all(c.ok for row in batched for c in row)
    [from_loop] = asyncio.run(served_backend.aplan("Say yes.", sampling=Sampling(max_tokens=4)))
    assert from_loop.ok, from_loop.error


def test_chat_template_kwargs_are_accepted_by_the_server(llama_cpp_server) -> None:
    spec = f"openai:{llama_cpp_server.base_url}?chat_template_kwargs.enable_thinking=false"
    with make_backend(spec) as backend:
        [completion] = backend.plan(PROMPT, sampling=Sampling(max_tokens=4))
    assert completion.ok, completion.error


def test_timeout_is_recorded_and_the_next_request_succeeds(llama_cpp_server, served_backend) -> None:
    impatient = make_backend(f"openai:{llama_cpp_server.base_url}?model=smollm2&timeout=0.05&max_retries=2")
    started = time.perf_counter()
    with impatient:
        [timed_out] = impatient.plan(
            "Count from 1 to 300, one number per line.", sampling=Sampling(max_tokens=400)
        )
    assert not timed_out.ok
    assert "timeout" in (timed_out.error or "")
    assert timed_out.finish_reason == "error"
    assert timed_out.metadata["attempts"] == 1, "a timed-out generation is not retried by default"
    assert time.perf_counter() - started < 5
    [after] = served_backend.plan(PROMPT, sampling=Sampling(max_tokens=4))
    assert after.ok, after.error


def test_server_down_gives_an_error_after_bounded_retries(closed_port: int) -> None:
    spec = f"openai:http://127.0.0.1:{closed_port}/v1?model=m&max_retries=2&backoff=0.05"
    started = time.perf_counter()
    with make_backend(spec) as backend:
        completions = backend.plan(PROMPT, n=2, sampling=SHORT)
    elapsed = time.perf_counter() - started
    assert len(completions) == 2
    for completion in completions:
        assert not completion.ok
        assert "connection failed" in (completion.error or "")
        assert "after 3 attempts" in (completion.error or "")
        assert completion.metadata["attempts"] == 3
    assert elapsed < 5, "retries must be bounded"


def test_model_discovery_against_a_down_server_is_an_error_not_an_exception(closed_port: int) -> None:
    with make_backend(f"openai:http://127.0.0.1:{closed_port}/v1?max_retries=0") as backend:
        [completion] = backend.plan(PROMPT)
    assert "could not list models" in (completion.error or "")


def test_non_openai_server_answer_is_recorded_without_retrying(plain_http_server) -> None:
    with make_backend(f"openai:{plain_http_server.base_url}/v1?model=m&backoff=0.05") as backend:
        [completion] = backend.plan(PROMPT, sampling=SHORT)
    assert not completion.ok
    assert "HTTP 501" in (completion.error or "")
    assert completion.metadata["attempts"] == 1, "501 is permanent, so it is not retried"


def test_non_json_model_list_is_recorded_as_an_error(plain_http_server) -> None:
    with make_backend(f"openai:{plain_http_server.base_url}/v1") as backend:
        [completion] = backend.plan(PROMPT, sampling=SHORT)
    assert "could not read the model list" in (completion.error or "")


def test_missing_endpoint_404_is_recorded(plain_http_server) -> None:
    with make_backend(f"openai:{plain_http_server.base_url}/nothing-here?model=m") as backend:
        [completion] = backend.plan(PROMPT)
    # http.server answers POST with 501 wherever it points; GET of a missing path is a 404.
    assert "HTTP 501" in (completion.error or "")
    with make_backend(f"openai:{plain_http_server.base_url}/nothing-here") as backend:
        [listing] = backend.plan(PROMPT)
    assert "HTTP 404" in (listing.error or "")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html>502 Bad Gateway</html>", "not JSON"),
        (b"[1, 2, 3]", "not a JSON object"),
        (b'{"choices": []}', "no choices"),
        (b'{"choices": [{"text": "legacy"}]}', "no message"),
        (b'{"choices": [{"message": {"content": 42}}]}', "not text"),
        (b"\xff\xfe\x00garbage", "not JSON"),
    ],
)
def test_garbage_response_bodies_become_errors(body: bytes, reason: str) -> None:
    completion = parse_chat_completion(body, latency_s=0.1)
    assert not completion.ok and reason in (completion.error or "")
    assert completion.finish_reason == "error"


def test_server_side_reasoning_is_put_back_inline_as_think_block() -> None:
    body = (
        b'{"choices": [{"message": {"content": "<answer>ok</answer>", "reasoning_content": "plan it"},'
        b' "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 9}}'
    )
    completion = parse_chat_completion(body)
    assert completion.text == "<think>plan it</think><answer>ok</answer>"
    assert (completion.prompt_tokens, completion.completion_tokens, completion.finish_reason) == (
        5,
        9,
        "stop",
    )


def test_a_closed_backend_refuses_new_work(closed_port: int) -> None:
    backend = make_backend(f"openai:http://127.0.0.1:{closed_port}/v1?model=m")
    backend.close()
    backend.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        backend.plan(PROMPT)


def test_close_cancels_a_request_in_flight_promptly(llama_cpp_server) -> None:
    backend = make_backend(f"openai:{llama_cpp_server.base_url}?model=smollm2")
    outcome: dict[str, BaseException | list] = {}

    def run() -> None:
        try:
            # Greedy, and a prompt SmolLM2 answers up to the token cap (about 4 s here): a sampled
            # answer to "count from 1 to 100" once ended in 0.27 s, before close() was called.
            outcome["result"] = backend.plan("Write the numbers from 1 to 100, one per line.",
                                             sampling=Sampling(temperature=0.0, seed=0, max_tokens=400))
        except BaseException as exc:  # noqa: BLE001 - the test inspects what the caller sees
            outcome["raised"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.3)
    started = time.perf_counter()
    backend.close()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert time.perf_counter() - started < 5
    assert isinstance(outcome.get("raised"), concurrent.futures.CancelledError)
