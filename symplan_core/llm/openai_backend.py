"""Planner backend for any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, hosted APIs).

Design notes:

* One request per sample (``n=1``) instead of the API's ``n``: servers report ``usage`` per
  request, so this is the only way to get each sample's own completion-token count (the paper
  reports response lengths), and llama.cpp's server ignores ``n`` anyway. vLLM's prefix cache
  makes the repeated prompt nearly free. With a seed, sample ``i`` uses ``seed + i`` so the
  samples differ but stay reproducible.
* The HTTP client lives on a private event loop in a daemon thread, so the synchronous
  :meth:`plan` and the asynchronous :meth:`aplan` (called from any loop) share one connection
  pool and one concurrency bound.
* Nothing a server does makes :meth:`plan` raise: refused connections, timeouts, HTTP errors
  and unparseable bodies become :attr:`Completion.error` after bounded retries. The exceptions
  are the typed decoding errors (``symplan_core.llm.decoding``): a grammar the server rejects or
  ignores is a configuration fault that would repeat on every request.
* ``decoding=grammar`` sends the task's GBNF grammar with the chat request (llama.cpp's
  ``grammar`` field, or vLLM's ``structured_outputs``), validated locally first (llama-cpp-python's
  server dies on a grammar it cannot parse). ``decoding=guided`` renders the chat prompt with
  the model's own template and continues it line by line through ``/completions``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from symplan_core.errors import BackendError
from symplan_core.llm.base import (
    Completion,
    FinishReason,
    PlannerBackend,
    PlannerPrompt,
    PromptInput,
    Sampling,
    _check_sample_count,
    as_planner_prompt,
)
from symplan_core.llm.chat_template import ChatTemplate, ChatTemplateError, load_chat_template
from symplan_core.llm.decoding import (
    DecodingError,
    GrammarRejectedError,
    Step,
    check_grammar_output,
    guided_decode,
    require_task,
    validate_gbnf,
)
from symplan_core.llm.grammar import TextBudget, response_grammar
from symplan_core.llm.spec import OpenAIBackendConfig

_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
_ERROR_BODY_PREVIEW_CHARS = 200

_Result = TypeVar("_Result")


class BackendConfigurationError(BackendError, ValueError):
    """The backend cannot be constructed from its config (e.g. a named API key is unset)."""


@dataclass(frozen=True)
class _HttpOutcome:
    """Result of one request after retries: a response or the reason there is none."""

    response: httpx.Response | None
    error: str | None
    attempts: int
    latency_s: float


class OpenAIBackend(PlannerBackend):
    name = "openai"

    def __init__(self, config: OpenAIBackendConfig) -> None:
        self.config = config
        self._headers = {"Content-Type": "application/json"}
        if config.api_key_env is not None:
            api_key = os.environ.get(config.api_key_env)
            if not api_key:
                raise BackendConfigurationError(
                    f"environment variable {config.api_key_env} (api_key_env) is not set"
                )
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._model_name = config.model
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="symplan-openai-client", daemon=True
        )
        self._thread.start()
        # Created on the private loop on first use: asyncio primitives bind to their loop.
        self._client: httpx.AsyncClient | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._model_lookup_lock: asyncio.Lock | None = None
        self._closed = False
        self._think = TextBudget.parse(config.think)
        self._steps = TextBudget.parse(config.steps)
        self._grammar_field: str | None = None if config.grammar_field == "auto" else config.grammar_field
        self._template: ChatTemplate | None = None  # the model's chat template, loaded for guided decoding
        self._validated: set[str] = set()

    # -- public API -------------------------------------------------------------------------

    def plan(self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None) -> list[Completion]:
        return _wait(self._submit(self._plan(as_planner_prompt(prompt), n, sampling)))

    async def aplan(
        self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None
    ) -> list[Completion]:
        coroutine = self._plan(as_planner_prompt(prompt), n, sampling)
        return await asyncio.wrap_future(self._submit(coroutine))

    def plan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        return _wait(self._submit(self._plan_many(prompts, n, sampling)))

    async def aplan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        return await asyncio.wrap_future(self._submit(self._plan_many(prompts, n, sampling)))

    def generate_under_grammar(self, prompt: PlannerPrompt, grammar: str, sampling: Sampling) -> Completion:
        """One chat completion constrained by a GBNF grammar (``symplan_core.llm.constrained``): the
        grammar rides on the request as for ``decoding=grammar``, validated first; a server that
        rejects it raises :class:`GrammarRejectedError`."""
        return _wait(self._submit(self._under_grammar(prompt, grammar, sampling)))

    async def _under_grammar(self, prompt: PlannerPrompt, grammar: str, sampling: Sampling) -> Completion:
        model_name, model_error = await self._resolve_model_name()
        if model_error is not None:
            return Completion.failed(model_error)
        self._validate(grammar)
        await self._detect_grammar_field()
        messages = [message.as_dict() for message in prompt.messages]
        return await self._sample(messages, model_name, sampling, 0, grammar)

    def close(self) -> None:
        """Cancel requests still in flight, close the connection pool and stop the loop thread."""
        if self._closed:
            return
        self._closed = True
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    # -- internals --------------------------------------------------------------------------

    def _submit(self, coroutine: Coroutine[Any, Any, _Result]) -> concurrent.futures.Future[_Result]:
        if self._closed:
            coroutine.close()
            raise RuntimeError("the OpenAI backend is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        pending = [task for task in asyncio.all_tasks() if task is not current]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()

    def _ensure_client(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        if self._client is None or self._semaphore is None:
            limits = httpx.Limits(
                max_connections=self.config.concurrency,
                max_keepalive_connections=self.config.concurrency,
            )
            timeout = httpx.Timeout(self.config.timeout, connect=self.config.connect_timeout)
            self._client = httpx.AsyncClient(timeout=timeout, limits=limits, headers=self._headers)
            self._semaphore = asyncio.Semaphore(self.config.concurrency)
        return self._client, self._semaphore

    async def _plan_many(
        self, prompts: Sequence[PromptInput], n: int, sampling: Sampling | None
    ) -> list[list[Completion]]:
        normalised = [as_planner_prompt(prompt) for prompt in prompts]
        return list(await asyncio.gather(*(self._plan(p, n, sampling) for p in normalised)))

    async def _plan(self, prompt: PlannerPrompt, n: int, sampling: Sampling | None) -> list[Completion]:
        _check_sample_count(n)
        sampling = sampling or Sampling()
        model_name, model_error = await self._resolve_model_name()
        if model_error is not None:
            return [Completion.failed(model_error)] * n
        messages = [message.as_dict() for message in prompt.messages]
        if self.config.decoding == "guided":
            task = require_task(prompt, "guided")
            rendered = await asyncio.to_thread(self._render, messages, model_name)
            guided = (asyncio.to_thread(self._guided, task, rendered, model_name, sampling, index)
                      for index in range(n))
            return list(await asyncio.gather(*guided))
        grammar = None
        if self.config.decoding == "grammar":
            task = require_task(prompt, "grammar")
            grammar = response_grammar(task, self._think, steps=self._steps)
            self._validate(grammar)
            await self._detect_grammar_field()
        samples = (self._sample(messages, model_name, sampling, sample_index, grammar)
                   for sample_index in range(n))
        completions = list(await asyncio.gather(*samples))
        if grammar is not None:
            completions = [check_grammar_output(prompt.task, c) for c in completions]
        return completions

    # -- constrained decoding -----------------------------------------------------------------

    def _validate(self, grammar: str) -> None:
        if grammar not in self._validated:
            validate_gbnf(grammar)
            self._validated.add(grammar)

    async def _detect_grammar_field(self) -> None:
        """vLLM says ``owned_by: vllm`` in /models and takes ``structured_outputs``; llama.cpp's
        servers take ``grammar``."""
        if self._grammar_field is not None:
            return
        outcome = await self._send("GET", "/models", None)
        owner = ""
        if outcome.response is not None:
            try:
                owner = str(outcome.response.json()["data"][0].get("owned_by", ""))
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                owner = ""
        self._grammar_field = "structured_outputs" if owner == "vllm" else "grammar"

    def _grammar_payload(self, grammar: str) -> dict[str, Any]:
        if self._grammar_field == "structured_outputs":
            return {"structured_outputs": {"grammar": grammar}}
        return {"grammar": grammar}

    def _render(self, messages: list[dict[str, str]], model_name: str) -> str:
        if self._template is None:
            source = self.config.template or model_name
            try:
                self._template = load_chat_template(source)
            except ChatTemplateError as exc:
                raise DecodingError(
                    f"guided decoding renders the chat prompt itself and needs the model's chat template: {exc}; "
                    "pass template=PATH_TO_GGUF_OR_MODEL_DIR (or an installed model's name) in the spec"
                ) from None
        return self._template.render(messages, **dict(self.config.chat_template_kwargs))

    def _guided(self, task: Any, rendered: str, model_name: str, sampling: Sampling, index: int) -> Completion:
        """Runs in a worker thread; each line is a request on the private loop."""
        seed = None if sampling.seed is None else sampling.seed + index

        def continue_text(prefix: str, grammar: str, max_tokens: int) -> Step:
            self._validate(grammar)
            payload: dict[str, Any] = {
                "model": model_name, "prompt": rendered + prefix, "max_tokens": max_tokens,
                "temperature": sampling.temperature, "top_p": sampling.top_p, "n": 1, "grammar": grammar,
            }
            if self._grammar_field == "structured_outputs":
                payload.update(self._grammar_payload(payload.pop("grammar")))
            if seed is not None:
                payload["seed"] = seed
            outcome = self._submit(self._send("POST", "/completions", payload)).result()
            if outcome.response is None:
                _raise_if_grammar_rejected(outcome.error)
                raise _RequestFailed(outcome.error or "no response")
            return _parse_text_completion(outcome.response, outcome.latency_s)

        started = time.perf_counter()
        try:
            if self.config.grammar_field == "auto" and self._grammar_field is None:
                self._submit(self._detect_grammar_field()).result()
            return guided_decode(task, continue_text, sampling.max_tokens, self._think, self.config.max_calls,
                                 steps=self._steps)
        except _RequestFailed as exc:
            return Completion.failed(str(exc), time.perf_counter() - started)

    async def _resolve_model_name(self) -> tuple[str, str | None]:
        """The configured model, else the first one the server lists (llama.cpp, single vLLM)."""
        if self._model_name is not None:
            return self._model_name, None
        if self._model_lookup_lock is None:
            self._model_lookup_lock = asyncio.Lock()
        # Concurrent first requests would all ask /models; one asks, the others wait for it.
        async with self._model_lookup_lock:
            if self._model_name is not None:
                return self._model_name, None
            return await self._look_up_model_name()

    async def _look_up_model_name(self) -> tuple[str, str | None]:
        outcome = await self._send("GET", "/models", None)
        if outcome.response is None:
            return "", f"could not list models: {outcome.error}"
        try:
            listed = outcome.response.json()["data"]
            model_name = str(listed[0]["id"])
        except (ValueError, KeyError, IndexError, TypeError):
            preview = outcome.response.text[:_ERROR_BODY_PREVIEW_CHARS]
            return "", f"could not read the model list from /models: {preview!r}"
        self._model_name = model_name
        return model_name, None

    async def _sample(
        self,
        messages: list[dict[str, str]],
        model_name: str,
        sampling: Sampling,
        sample_index: int,
        grammar: str | None = None,
    ) -> Completion:
        payload: dict[str, Any] = {
            "model": model_name,
            "messages": messages,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            "n": 1,
        }
        if sampling.seed is not None:
            payload["seed"] = sampling.seed + sample_index
        if sampling.stop:
            payload["stop"] = list(sampling.stop)
        if self.config.chat_template_kwargs:
            payload["chat_template_kwargs"] = dict(self.config.chat_template_kwargs)
        if grammar is not None:
            payload.update(self._grammar_payload(grammar))
        outcome = await self._send("POST", "/chat/completions", payload)
        metadata = {"attempts": outcome.attempts, "model": model_name}
        if grammar is not None:
            metadata["decoding"] = "grammar"
        if outcome.response is None:
            if grammar is not None:
                _raise_if_grammar_rejected(outcome.error)
            return Completion(
                text="",
                finish_reason="error",
                error=outcome.error,
                latency_s=outcome.latency_s,
                metadata=metadata,
            )
        return parse_chat_completion(outcome.response.content, outcome.latency_s, metadata)

    async def _send(self, method: str, path: str, payload: dict[str, Any] | None) -> _HttpOutcome:
        """One request with retries on refused connections, 429 and 5xx (exponential backoff)."""
        client, semaphore = self._ensure_client()
        url = f"{self.config.base_url}{path}"
        error = "no attempt made"
        latency_s = 0.0
        attempts = 0
        for attempt in range(self.config.max_retries + 1):
            attempts = attempt + 1
            retry_after_s: float | None = None
            async with semaphore:
                started = time.perf_counter()
                try:
                    response = await client.request(method, url, json=payload)
                except httpx.TimeoutException as exc:
                    latency_s = time.perf_counter() - started
                    error = f"timeout ({type(exc).__name__}) after {latency_s:.2f}s on {url}"
                    retryable = isinstance(exc, httpx.ConnectTimeout) or (self.config.retry_on_timeout)
                except httpx.TransportError as exc:
                    latency_s = time.perf_counter() - started
                    error = f"connection failed ({type(exc).__name__}: {exc}) on {url}"
                    retryable = True
                else:
                    latency_s = time.perf_counter() - started
                    if response.is_success:
                        return _HttpOutcome(response, None, attempts, latency_s)
                    preview = response.text[:_ERROR_BODY_PREVIEW_CHARS]
                    error = f"HTTP {response.status_code} from {url}: {preview!r}"
                    retryable = response.status_code in _RETRYABLE_STATUS
                    retry_after_s = _retry_after_seconds(response)
            if not retryable or attempt == self.config.max_retries:
                break
            await asyncio.sleep(self._backoff_delay(attempt, retry_after_s))
        if attempts > 1:
            error = f"{error} (gave up after {attempts} attempts)"
        return _HttpOutcome(None, error, attempts, latency_s)

    def _backoff_delay(self, attempt: int, retry_after_s: float | None) -> float:
        exponential = self.config.backoff * (2**attempt)
        # Jitter spreads out the retries of many concurrent samples hitting the same outage.
        delay = exponential * random.uniform(0.5, 1.0)
        if retry_after_s is not None:
            delay = max(delay, retry_after_s)
        return min(delay, self.config.max_backoff)


class _RequestFailed(Exception):
    """A guided line request got no answer (recorded on the sample, like any failed request)."""


def _raise_if_grammar_rejected(error: str | None) -> None:
    """A server's refusal of a grammar (an HTTP error whose body names it) is typed."""
    if error and error.startswith("HTTP 4") and "grammar" in error.lower():
        raise GrammarRejectedError(f"the server rejected the grammar: {error}")


def _parse_text_completion(response: httpx.Response, latency_s: float) -> Step:
    try:
        data = response.json()
        choice = data["choices"][0]
        text = choice["text"]
        usage = data.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError):
        raise _RequestFailed(f"unreadable /completions body: {response.text[:_ERROR_BODY_PREVIEW_CHARS]!r}") from None
    if not isinstance(text, str):
        raise _RequestFailed("the /completions text is not a string")
    return Step(text=text, completion_tokens=_optional_int(usage.get("completion_tokens")),
                finish_reason=_normalise_finish_reason(choice.get("finish_reason")),
                prompt_tokens=_optional_int(usage.get("prompt_tokens")), latency_s=latency_s)


def _wait(future: concurrent.futures.Future[_Result]) -> _Result:
    """Block on the private loop's result; on Ctrl-C (or any interruption) cancel the request."""
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date; the exponential schedule is good enough


def parse_chat_completion(
    body: bytes | str, latency_s: float = 0.0, metadata: dict[str, Any] | None = None
) -> Completion:
    """Read an OpenAI chat-completion body; anything unexpected becomes ``Completion.error``.

    A server-side reasoning field (vLLM's ``reasoning_content`` with a reasoning parser) is put
    back as ``<think>...</think>`` in front of the answer, because the planner output format
    expects the thinking inline.
    """
    metadata = dict(metadata or {})

    def failed(reason: str) -> Completion:
        preview = body[:_ERROR_BODY_PREVIEW_CHARS]
        return Completion(
            text="",
            finish_reason="error",
            error=f"{reason}: {preview!r}",
            latency_s=latency_s,
            metadata=metadata,
        )

    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return failed("response is not JSON")
    if not isinstance(data, dict):
        return failed("response is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return failed("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return failed("response choice has no message")
    content = message.get("content") or ""
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not isinstance(content, str) or (reasoning is not None and not isinstance(reasoning, str)):
        return failed("response message content is not text")
    text = f"<think>{reasoning}</think>{content}" if reasoning and "<think>" not in content else content
    raw_finish_reason = choices[0].get("finish_reason")
    metadata["raw_finish_reason"] = raw_finish_reason
    usage = data.get("usage")
    if not isinstance(usage, dict):  # absent, null or malformed: no token counts
        usage = {}
    return Completion(
        text=text,
        prompt_tokens=_optional_int(usage.get("prompt_tokens")),
        completion_tokens=_optional_int(usage.get("completion_tokens")),
        finish_reason=_normalise_finish_reason(raw_finish_reason),
        latency_s=latency_s,
        metadata=metadata,
    )


def _normalise_finish_reason(raw: object) -> FinishReason | None:
    if raw is None:
        return None
    return "length" if raw == "length" else "stop"


def _optional_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
