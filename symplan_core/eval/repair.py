"""Verifier-in-the-loop repair and the reference planner as a backend.

``repair_sample`` sends the engine's errors and hints back to the planner for up to ``rounds``
rounds (stopping at the first strict pass), optionally falls back to the reference planner,
and records every attempt. Round 0 is the original response, so
``strict_pass_at_round[r]`` says whether attempt r passed and "SP after r rounds" is the share
of samples with a pass among attempts 0..r.

The reference planner reads the structured task, not the prompt text: the harness passes the
:class:`CompiledTask` in :attr:`PlannerPrompt.task`, which LLM backends ignore. When
``symplan_core.planners.reference`` exposes no ``make_planner_backend`` factory (the
``llm.reference_backend`` contract), :func:`load_planner` wraps :func:`plan_task` itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from symplan_core.engine.verify import CompiledTask, VerifyResult
from symplan_core.eval.metrics import score
from symplan_core.llm import (
    BackendUnavailableError,
    ChatMessage,
    Completion,
    FunctionBackend,
    PlannerBackend,
    PlannerPrompt,
    ReferenceBackendConfig,
    Sampling,
    make_backend,
    parse_backend_spec,
)
from symplan_core.prompts import repair_conversation


def reference_response(task: CompiledTask, time_budget: float = 5.0) -> str:
    """The reference planner's response; an empty plan (with the reason) when it fails."""
    from symplan_core.planners.reference import plan_task

    result = plan_task(task, time_budget=time_budget)
    if result.response:
        return result.response
    reason = result.reason or "no plan found"
    return f"<think>no plan: {reason}</think><answer><steps>\n</steps><code>\n</code></answer>"


def reference_backend(options: Mapping[str, str] | None = None) -> PlannerBackend:
    """``FunctionBackend`` over the reference planner; the prompt must carry the task."""
    budget = float((options or {}).get("time_budget", 5.0))

    def respond(prompt: PlannerPrompt) -> str:
        if not isinstance(prompt.task, CompiledTask):
            raise ValueError("the reference planner needs the task: pass PlannerPrompt(task=CompiledTask)")
        return reference_response(prompt.task, budget)

    return FunctionBackend(respond, name="reference")


def load_planner(spec: str) -> PlannerBackend:
    config = parse_backend_spec(spec)
    if isinstance(config, ReferenceBackendConfig):
        try:
            return make_backend(config)
        except BackendUnavailableError:
            return reference_backend(config.options)
    return make_backend(config)


def as_prompt(messages: Sequence[Mapping[str, str]], task: CompiledTask, prompt_id: str) -> PlannerPrompt:
    chat = tuple(ChatMessage(m["role"], m["content"]) for m in messages)  # type: ignore[arg-type]
    return PlannerPrompt(messages=chat, task=task, prompt_id=prompt_id)


def completion_fields(completion: Completion) -> dict[str, Any]:
    return {
        "response": completion.text, "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens, "finish_reason": completion.finish_reason,
        "backend_error": completion.error, "latency_s": round(completion.latency_s, 4),
    }


@dataclass
class RepairTrace:
    strict_pass_at_round: list[bool]
    attempts: list[dict[str, Any]] = field(default_factory=list)
    fallback_strict_pass: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rounds": len(self.strict_pass_at_round) - 1, "strict_pass_at_round": self.strict_pass_at_round,
                "fallback_strict_pass": self.fallback_strict_pass, "attempts": self.attempts}


def repair_sample(
    backend: PlannerBackend,
    task: CompiledTask,
    messages: Sequence[Mapping[str, str]],
    first: Completion,
    first_result: VerifyResult | None,
    rounds: int,
    sampling: Sampling,
    prompt_id: str,
    fallback: bool = False,
) -> RepairTrace:
    """Repair one sample; ``first_result`` is None when the first call failed (no response)."""
    trace = RepairTrace(strict_pass_at_round=[bool(first_result and first_result.strict_pass)])
    history = list(messages)
    response, result = first.text, first_result
    for round_index in range(1, rounds + 1):
        if trace.strict_pass_at_round[-1]:
            break
        if result is None:  # nothing to repair: ask again with the original prompt
            conversation = list(messages)
        else:
            conversation = repair_conversation(history, response, result)
        completion = backend.plan(as_prompt(conversation, task, prompt_id), 1, sampling)[0]
        attempt: dict[str, Any] = {"round": round_index, "source": "model", **completion_fields(completion)}
        if completion.ok:
            result, attempt["verdict"], attempt["errors"] = score(task, completion.text)
            history, response = conversation, completion.text
        else:
            result = None
        trace.attempts.append(attempt)
        trace.strict_pass_at_round.append(bool(result and result.strict_pass))
    if fallback and not any(trace.strict_pass_at_round):
        text = reference_response(task)
        _, verdict, errors = score(task, text)
        trace.attempts.append({"round": None, "source": "reference", "response": text,
                               "verdict": verdict, "errors": errors})
        trace.fallback_strict_pass = bool(verdict["strict_pass"])
    return trace
