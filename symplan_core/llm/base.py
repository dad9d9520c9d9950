"""The planner-backend interface: one prompt in, n sampled responses with token counts out.

Every backend (OpenAI-compatible server, in-process transformers or vLLM, the symbolic
reference planner) implements :class:`PlannerBackend`. Backends never raise for a failed
generation: the failure is recorded in :attr:`Completion.error` so an evaluation run over
hundreds of episodes keeps going and the failure shows up in its error statistics.
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import override

from symplan_core.errors import BackendError

ChatRole = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "error"]
_CHAT_ROLES: dict[str, ChatRole] = {"system": "system", "user": "user", "assistant": "assistant"}

_Result = TypeVar("_Result")


class BackendUnavailableError(BackendError, RuntimeError):
    """The chosen backend cannot run here: a missing optional package or planner module."""


class Sampling(BaseModel):
    """Sampling settings; the defaults are the paper's protocol (temperature 0.6, top-p 0.9)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = Field(default=0.6, ge=0.0, le=5.0)
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    max_tokens: int = Field(default=2048, ge=1)
    seed: int | None = None
    stop: tuple[str, ...] = ()

    @property
    def is_greedy(self) -> bool:
        return self.temperature == 0.0


@dataclass(frozen=True)
class ChatMessage:
    role: ChatRole
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class PlannerPrompt:
    """A chat prompt plus, optionally, the structured task it was rendered from.

    ``task`` is opaque to the LLM backends; it exists for planners that read the task itself
    rather than its text (the symbolic reference planner).
    """

    messages: tuple[ChatMessage, ...]
    task: Any = None
    prompt_id: str | None = None


PromptInput = str | Sequence[ChatMessage | Mapping[str, str]] | PlannerPrompt


def as_planner_prompt(prompt: PromptInput) -> PlannerPrompt:
    """Normalise the accepted prompt forms; a bare string is one user message."""
    if isinstance(prompt, PlannerPrompt):
        return prompt
    if isinstance(prompt, str):
        return PlannerPrompt(messages=(ChatMessage("user", prompt),))
    messages: list[ChatMessage] = []
    for message in prompt:
        if isinstance(message, ChatMessage):
            messages.append(message)
        else:
            role = _CHAT_ROLES.get(message["role"])
            if role is None:
                raise ValueError(f"unsupported chat role {message['role']!r}")
            messages.append(ChatMessage(role, message["content"]))
    if not messages:
        raise ValueError("a prompt needs at least one message")
    return PlannerPrompt(messages=tuple(messages))


@dataclass(frozen=True)
class Completion:
    """One sampled response. Token counts are None where the backend cannot know them."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: FinishReason | None = None
    error: str | None = None
    latency_s: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def failed(cls, error: str, latency_s: float = 0.0) -> Completion:
        return cls(text="", finish_reason="error", error=error, latency_s=latency_s)


class PlannerBackend(ABC):
    """Turns a prompt into ``n`` sampled completions.

    Subclasses implement :meth:`aplan`; the synchronous :meth:`plan` and the batched
    :meth:`plan_many` / :meth:`aplan_many` come for free. Implementations must return exactly
    ``n`` completions and report failures through :attr:`Completion.error`.
    """

    name: str = "backend"

    @abstractmethod
    async def aplan(
        self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None
    ) -> list[Completion]: ...

    async def aplan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        return list(await asyncio.gather(*(self.aplan(p, n, sampling) for p in prompts)))

    def plan(self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None) -> list[Completion]:
        return run_coroutine_sync(self.aplan(prompt, n, sampling))

    def plan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        return run_coroutine_sync(self.aplan_many(prompts, n, sampling))

    def close(self) -> None:  # noqa: B027 - an optional hook, not an abstract method
        """Release connections, threads or model memory; the default holds nothing."""

    def __enter__(self) -> PlannerBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class LocalPlannerBackend(PlannerBackend):
    """Base for in-process models whose generation call is blocking.

    One model instance cannot run two generations at once, so calls are serialised; the
    asynchronous entry points run the blocking call in a worker thread so that an event
    loop driving the harness stays responsive.
    """

    def __init__(self) -> None:
        self._generation_lock = threading.Lock()

    @abstractmethod
    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        """Blocking generation; may raise, :meth:`plan` turns exceptions into errors."""

    def plan(self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None) -> list[Completion]:
        _check_sample_count(n)
        sampling = sampling or Sampling()
        started = time.perf_counter()
        try:
            normalised = as_planner_prompt(prompt)
            with self._generation_lock:
                return self.generate(normalised, n, sampling)
        except Exception as exc:  # noqa: BLE001 - a failed generation is data for the harness
            elapsed = time.perf_counter() - started
            return [Completion.failed(f"{type(exc).__name__}: {exc}", elapsed)] * n

    async def aplan(
        self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None
    ) -> list[Completion]:
        return await asyncio.to_thread(self.plan, prompt, n, sampling)

    def plan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        return [self.plan(prompt, n, sampling) for prompt in prompts]


class FunctionBackend(LocalPlannerBackend):
    """Wraps a deterministic ``PlannerPrompt -> response text`` function (e.g. a symbolic planner).

    Every one of the ``n`` samples is the same response; token counts are unknown (None).
    """

    def __init__(self, respond: Callable[[PlannerPrompt], str], name: str = "function") -> None:
        super().__init__()
        self._respond = respond
        self.name = name

    @override  # a deterministic function: no sampling settings to apply
    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        started = time.perf_counter()
        text = self._respond(prompt)
        elapsed = time.perf_counter() - started
        return [Completion(text=text, finish_reason="stop", latency_s=elapsed)] * n


def _check_sample_count(n: int) -> None:
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")


def run_coroutine_sync(coroutine: Coroutine[Any, Any, _Result]) -> _Result:
    """Run a coroutine from synchronous code, even when the caller is inside an event loop.

    ``asyncio.run`` refuses to nest (e.g. in Jupyter), so in that case the coroutine runs on a
    fresh loop in a helper thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    outcome: dict[str, Any] = {}

    def runner() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=runner, name="symplan-sync-bridge")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
