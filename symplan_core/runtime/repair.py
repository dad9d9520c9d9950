"""Verifier-in-the-loop repair: the one loop evaluation and the robot runtime share.

:func:`repair_sample` asks the planner, verifies the answer with the engine, feeds the
engine's errors and hints back for up to ``rounds`` more rounds (stopping at the first
accepted answer), optionally asks a fallback planner once, and records every attempt.
Round 0 is the original response, so ``strict_pass_at_round[r]`` says whether attempt r
was accepted and "SP after r rounds" is the share of samples with a pass among attempts 0..r.

The reference planner reads the structured task, not the prompt text: prompts carry the
:class:`CompiledTask` in :attr:`PlannerPrompt.task`, which LLM backends ignore.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from symplan_core.engine.verify import CompiledTask, VerifyResult, verify
from symplan_core.llm import Completion, PlannerBackend, PlannerPrompt, Sampling, as_planner_prompt
from symplan_core.planners.reference_backend import reference_backend
from symplan_core.prompts import repair_conversation

__all__ = ["Attempt", "RepairTrace", "as_prompt", "completion_fields", "repair_sample", "verdict_of"]


def verdict_of(result: VerifyResult) -> dict[str, Any]:
    """The engine's verdict as a record's ``verdict`` object (``docs/eval.md``)."""
    return {
        "strict_pass": result.strict_pass, "engine_pass": result.engine_pass,
        "gcr": round(result.gcr, 6), "format_ok": result.format_ok, "commands": result.commands,
        "error_count": len(result.errors), "warning_count": len(result.warnings),
    }


def as_prompt(messages: Sequence[Mapping[str, str]], task: CompiledTask, prompt_id: str) -> PlannerPrompt:
    """A record's chat messages as the prompt for ``task`` (an unknown role is a ValueError)."""
    return PlannerPrompt(messages=as_planner_prompt(messages).messages, task=task, prompt_id=prompt_id)


def completion_fields(completion: Completion) -> dict[str, Any]:
    """A record's answer fields; ``metadata`` is what the backend said about how it decoded (for
    guided decoding: requests, goal_reached, forced_end, pruned_cycles, options_per_line)."""
    fields: dict[str, Any] = {
        "response": completion.text, "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens, "finish_reason": completion.finish_reason,
        "backend_error": completion.error, "latency_s": round(completion.latency_s, 4),
    }
    if completion.metadata:
        fields["metadata"] = dict(completion.metadata)
    return fields


def strict_pass(result: VerifyResult) -> bool:
    return result.strict_pass


@dataclass
class Attempt:
    """One answer: which round (None for the fallback), who gave it, and the engine's verdict
    (None when the backend failed)."""

    round: int | None
    source: str  # "model" or "reference"
    completion: Completion
    result: VerifyResult | None
    accepted: bool

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"round": self.round, "source": self.source}
        if self.source == "reference":
            data["response"] = self.completion.text
        else:
            data.update(completion_fields(self.completion))
        if self.result is not None:
            data["verdict"], data["errors"] = verdict_of(self.result), [e.to_json() for e in self.result.errors]
        return data


@dataclass
class RepairTrace:
    strict_pass_at_round: list[bool]
    attempts: list[Attempt] = field(default_factory=list)  # every attempt, round 0 included
    fallback_strict_pass: bool | None = None

    @property
    def accepted(self) -> Attempt | None:
        """The accepted attempt (the loop stops at the first), if any."""
        return next((a for a in self.attempts if a.accepted), None)

    def to_json(self) -> dict[str, Any]:
        """Round 0 lives in the sample record itself, so ``attempts`` lists the later ones."""
        return {"rounds": len(self.strict_pass_at_round) - 1, "strict_pass_at_round": self.strict_pass_at_round,
                "fallback_strict_pass": self.fallback_strict_pass,
                "attempts": [a.to_json() for a in self.attempts if a.round != 0]}


#: on_event(event, round): "ask" before a model call, "verify" before the engine checks an
#: answer, "fallback" before the fallback planner is asked (round None).
OnEvent = Callable[[str, int | None], None]


def repair_sample(
    backend: PlannerBackend,
    task: CompiledTask,
    messages: Sequence[Mapping[str, str]],
    first: Completion | None,
    first_result: VerifyResult | None,
    rounds: int,
    sampling: Sampling | None = None,
    prompt_id: str = "",
    fallback: bool | PlannerBackend = False,
    *,
    accept: Callable[[VerifyResult], bool] = strict_pass,
    stop_on_backend_error: bool = False,
    on_event: OnEvent | None = None,
) -> RepairTrace:
    """Repair one sample. ``first`` is the round-0 answer when the caller already has it
    (``first_result`` its verdict, None when the backend failed); with ``first=None`` round 0
    asks ``backend`` here. ``accept`` decides what counts as a pass (default: strict pass).
    A failed backend call is retried with the original prompt, or ends the model rounds when
    ``stop_on_backend_error``. ``fallback`` (True: the reference planner) is asked once when no
    model attempt was accepted; its answer is verified like any other."""
    notify = on_event or (lambda _event, _round: None)

    def ask(planner: PlannerBackend, round_index: int | None, source: str) -> Attempt:
        """One answer from ``planner`` to the current conversation, verified by the engine."""
        notify("ask" if source == "model" else "fallback", round_index)
        completion = planner.plan(as_prompt(conversation, task, prompt_id), 1, sampling)[0]
        result = None
        if completion.ok:
            notify("verify", round_index)
            result = verify(task, completion.text)
        return Attempt(round_index, source, completion, result, result is not None and accept(result))

    trace = RepairTrace(strict_pass_at_round=[])
    history: Sequence[Mapping[str, str]] = list(messages)
    conversation: list[dict[str, str]] = list(map(dict, messages))
    response, result = "", None
    for round_index in range(rounds + 1):
        if round_index == 0 and first is not None:
            ok_result = first_result if first.ok else None
            attempt = Attempt(0, "model", first, ok_result, ok_result is not None and accept(ok_result))
        else:
            if round_index > 0:  # repair: the failed answer and the engine's verdict go back
                conversation = (repair_conversation(history, response, result) if result is not None
                                else list(map(dict, messages)))
            attempt = ask(backend, round_index, "model")
        result = attempt.result
        if attempt.completion.ok:
            history, response = conversation, attempt.completion.text
        trace.attempts.append(attempt)
        trace.strict_pass_at_round.append(attempt.accepted)
        if attempt.accepted or (not attempt.completion.ok and stop_on_backend_error):
            break
    if fallback and trace.accepted is None:
        attempt = ask(reference_backend() if fallback is True else fallback, None, "reference")
        trace.attempts.append(attempt)
        trace.fallback_strict_pass = attempt.accepted
    return trace
