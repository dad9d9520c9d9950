"""Decoding modes ``free | grammar | guided`` and the engine-guided decoding loop.

* ``free``: the model writes what it likes (the parser and the engine judge it afterwards).
* ``grammar``: one request whose output the backend's own structured-output mechanism keeps in
  :func:`symplan_core.llm.grammar.response_grammar` (the answer format, the task's actions, objects
  of fitting type). Checked on return: an answer outside the format means the backend ignored the
  grammar, which raises :class:`GrammarNotEnforcedError` (never a silent free decode).
* ``guided``: :func:`guided_decode`. The header (``<think>``, ``<steps>``) is one constrained
  request; then each code line is one request whose grammar admits exactly the calls the engine
  finds executable in the state the plan has reached so far (``engine.successors``). The state
  advances with the engine's own ``apply``. Each request continues the same text, so a server
  with a prefix cache (llama.cpp, vLLM) evaluates only the new tokens. Choices that are
  certainly wasted are not offered (``GuidePolicy``): ending the plan before the goal holds (the
  plan ends by itself the moment it does), a call that returns the world to a state the plan was
  already in (a cycle; no deterministic plan needs one), and, while anything else is left, a
  detour (a state that was one call away before the last step) or a call that undoes a met goal
  literal. The model still chooses every call: the engine removes wasted moves, it does not plan.

A backend provides ``continue_text(prefix, grammar, max_tokens)``: generate after the rendered
prompt plus the answer prefix, constrained by a GBNF grammar.

Errors are typed and raised (they are configuration faults, not sampling noise):
:class:`StructuredOutputUnsupportedError`, :class:`GrammarRejectedError`,
:class:`GrammarNotEnforcedError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.plan_text import Call, parse_line, parse_plan
from symplan_core.engine.state import State
from symplan_core.engine.successors import executable_calls
from symplan_core.engine.verify import CompiledTask, verify
from symplan_core.errors import BackendError
from symplan_core.llm.base import BackendUnavailableError, Completion, FinishReason, PlannerPrompt
from symplan_core.llm.grammar import (
    CODE_OPEN,
    END,
    HEAD,
    TextBudget,
    call_texts,
    header_grammar,
    line_grammar,
)

DecodingMode = Literal["free", "grammar", "guided"]
DECODING_MODES: tuple[str, ...] = ("free", "grammar", "guided")
#: Tokens one guided line may take (the longest call of the biggest B-1K scene is < 30 tokens).
LINE_TOKENS = 48
_STATIC_KINDS = frozenset({ErrorKind.PARSE, ErrorKind.UNKNOWN_ACTION, ErrorKind.UNKNOWN_OBJECT, ErrorKind.ARITY})


class DecodingError(BackendError, RuntimeError):
    """Constrained decoding cannot be done as asked."""


class StructuredOutputUnsupportedError(DecodingError, BackendUnavailableError):
    """The backend (or its missing package) has no structured-output mechanism for this mode."""


class GrammarRejectedError(DecodingError):
    """The grammar library or the server refused the grammar."""


class GrammarNotEnforcedError(DecodingError):
    """The backend answered outside the grammar it was given (it ignored the constraint)."""


@dataclass(frozen=True)
class Step:
    """One constrained continuation."""

    text: str
    completion_tokens: int | None
    finish_reason: FinishReason | None
    prompt_tokens: int | None = None
    latency_s: float = 0.0


ContinueText = Callable[[str, str, int], Step]


def require_task(prompt: PlannerPrompt, mode: str) -> CompiledTask:
    if not isinstance(prompt.task, CompiledTask):
        raise DecodingError(f"{mode} decoding needs the task: pass PlannerPrompt(task=CompiledTask)")
    return prompt.task


def validate_gbnf(grammar: str) -> None:
    """Parse a GBNF grammar with llguidance before it is sent anywhere. llama-cpp-python's server
    (0.3.36) aborts its whole process on a grammar it cannot parse, so a bad grammar must never
    reach it; raises :class:`GrammarRejectedError`."""
    try:
        import llguidance
    except ImportError:
        raise StructuredOutputUnsupportedError(
            "grammar checks need the 'llguidance' package: pip install 'symplan[llm]'") from None
    try:
        converted = llguidance.grammar_from("gbnf", grammar)
    except (ValueError, RuntimeError) as exc:
        raise GrammarRejectedError(f"llguidance cannot read the grammar: {exc}") from None
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(converted)
    if is_error:
        raise GrammarRejectedError(f"llguidance rejects the grammar: {'; '.join(messages)}")


def check_grammar_output(task: CompiledTask, completion: Completion) -> Completion:
    """A ``grammar`` answer must be in the format with only well-formed calls; a finished answer
    that is not shows the backend ignored the grammar. A cut-off answer (``length``) is returned
    as it is: its format is incomplete, which the metrics count."""
    if not completion.ok or completion.finish_reason != "stop":
        return completion
    parsed = parse_plan(completion.text)
    static = [e for e in verify(task, parsed).errors if e.kind in _STATIC_KINDS]
    if not parsed.format_ok or static or not parsed.calls:
        problem = "; ".join(parsed.format_issues + [e.line() for e in static[:3]]) or "no calls"
        raise GrammarNotEnforcedError(f"the backend answered outside the grammar ({problem}): "
                                      f"{completion.text[:200]!r}")
    return completion


def close_header(text: str) -> str:
    """Complete a header cut off by its token budget (the think budget's hard stop): the free
    texts hold no ``<``, so the first ``<`` after a section's start begins its closing tags."""
    if not text.startswith(HEAD):
        text = HEAD
    body_start = len(HEAD)
    think_end = text.find("<", body_start)
    if think_end < 0 or not text.startswith("</think><answer><steps>", think_end):
        cut = think_end if think_end >= 0 else len(text)
        return text[:cut] + "</think><answer><steps>" + CODE_OPEN
    steps_start = think_end + len("</think><answer><steps>")
    steps_end = text.find("<", steps_start)
    return text[: steps_end if steps_end >= 0 else len(text)] + CODE_OPEN


@dataclass(frozen=True)
class GuidePolicy:
    """What guided decoding removes beyond non-executable calls.

    ``stop_at_goal``: the plan ends the moment the goal holds, and the end of the plan is not
    offered before (an answer that stops short of the goal is a certain failure; measured on
    Qwen2.5 1.5B, premature ends were one of the three failure kinds). ``prune_cycles``: a call
    whose result is a state the plan has already been in is not offered (``State.signature``).
    ``prune_detours``: nor, unless nothing else is executable, a call whose result was one call
    away from an earlier state (``navigate(a) navigate(b)``: the first navigate was wasted).
    ``keep_progress``: nor, unless nothing else is left, a call after which fewer goal literals
    hold (undoing a met requirement: picking a placed plank up again)."""

    stop_at_goal: bool = True
    prune_cycles: bool = True
    prune_detours: bool = True
    keep_progress: bool = True


#: The guide before cycles and early ends were removed (kept for measurements that compare).
EXECUTABLE_ONLY = GuidePolicy(stop_at_goal=False, prune_cycles=False, prune_detours=False, keep_progress=False)


@dataclass
class GuidedTrace:
    requests: int = 0
    completion_tokens: int = 0
    prompt_tokens: int | None = None
    forced_close: bool = False
    forced_end: bool = False
    goal_reached: bool = False
    pruned_cycles: int = 0
    pruned_detours: int = 0
    pruned_regressions: int = 0
    options_per_line: list[int] = field(default_factory=list)
    engine_s: float = 0.0


def _offered_call(text: str, index: int) -> Call:
    """The call of an offered call text (one the engine wrote, so it always parses)."""
    call = parse_line(text, index)
    if not isinstance(call, Call):  # cannot happen: call_texts writes well-formed calls
        raise DecodingError(f"an offered call does not parse: {text!r} ({call.reason})")
    return call


class _Offers:
    """What the guide offers, line by line, along one plan (``GuidePolicy``).

    ``visited`` holds the signatures of the states the plan has been in; ``shortcuts`` those one
    call away from an earlier state than the current one. A call into ``visited`` closes a cycle;
    a call into ``shortcuts`` makes a detour (the same state was one call away before the last
    step, as after ``navigate(a) navigate(b)``). Detours are offered only when nothing else is."""

    def __init__(self, task: CompiledTask, policy: GuidePolicy, trace: GuidedTrace) -> None:
        self.task, self.policy, self.trace = task, policy, trace
        self.visited: set[tuple[object, ...]] = set()
        self.shortcuts: set[tuple[object, ...]] = set()
        self.successors: set[tuple[object, ...]] = set()
        self.met = 0.0  # share of goal literals that hold in the current state

    def arrive(self, state: State) -> bool:
        """Record ``state`` as the plan's current state; returns whether the goal holds there."""
        self.shortcuts |= self.successors
        self.visited.add(state.signature())
        per_conjunct, self.met = self.task.goal_report(state)
        return all(per_conjunct)

    def offer(self, state: State, index: int) -> list[str]:
        options = call_texts(self.task, executable_calls(self.task, state))
        if not (self.policy.prune_cycles or self.policy.prune_detours or self.policy.keep_progress):
            return options
        after_state = {}
        for option in options:
            after_state[option] = after = state.copy()
            self.task.apply(after, _offered_call(option, index), trace=False)
        after_each = {option: after.signature() for option, after in after_state.items()}
        self.successors = set(after_each.values())
        if self.policy.prune_cycles:
            options = [o for o in options if after_each[o] not in self.visited]
            self.trace.pruned_cycles += len(after_each) - len(options)
        if self.policy.prune_detours:
            direct = [o for o in options if after_each[o] not in self.shortcuts]
            if direct:
                self.trace.pruned_detours += len(options) - len(direct)
                options = direct
        if self.policy.keep_progress and options:
            kept = [o for o in options if self.task.goal_report(after_state[o])[1] >= self.met]
            if kept:
                self.trace.pruned_regressions += len(options) - len(kept)
                options = kept
        return options


def guided_decode(task: CompiledTask, continue_text: ContinueText, max_tokens: int,
                  think: TextBudget = TextBudget(), max_calls: int = 100,
                  policy: GuidePolicy = GuidePolicy(), steps: TextBudget = TextBudget()) -> Completion:
    """Engine-guided decoding of one answer (see the module docstring). The answer always has the
    format; its calls are each executable where they stand, so verifying it finds no error. When
    the token budget or ``max_calls`` runs out, or no call is left to offer, the plan is closed as
    it stands (``forced_end``)."""
    started = time.perf_counter()
    trace = GuidedTrace()
    header_budget = max(1, max_tokens - LINE_TOKENS)
    step = continue_text("", header_grammar(think, steps), header_budget)
    trace.requests += 1
    trace.completion_tokens += step.completion_tokens or 0
    trace.prompt_tokens = step.prompt_tokens
    if step.finish_reason == "length" or not step.text.endswith(CODE_OPEN):
        if step.finish_reason != "length":
            raise GrammarNotEnforcedError(f"the header came back outside its grammar: {step.text[:200]!r}")
        trace.forced_close = True
    text = close_header(step.text) if trace.forced_close else step.text
    state = task.initial_state()
    offers = _Offers(task, policy, trace)
    offers.arrive(state)
    for index in range(max_calls):
        tick = time.perf_counter()
        options = offers.offer(state, index)
        trace.engine_s += time.perf_counter() - tick
        trace.options_per_line.append(len(options))
        budget = max_tokens - trace.completion_tokens
        if not options or budget <= 0:
            trace.forced_end = True
            break
        # The end of the plan is offered from the second line on (a plan without a call is never
        # an answer: the parser reports "no action calls"), and under stop_at_goal never: the
        # plan ends when the goal holds.
        allow_end = index > 0 and not policy.stop_at_goal
        step = continue_text(text, line_grammar(options, allow_end=allow_end), min(budget, LINE_TOKENS))
        trace.requests += 1
        trace.completion_tokens += step.completion_tokens or 0
        if step.text.startswith(END):
            break
        line = step.text.removesuffix("\n")
        if step.finish_reason == "length" and not step.text.endswith("\n"):
            trace.forced_end = True  # a call cut off by the budget is dropped
            break
        if line not in options:
            raise GrammarNotEnforcedError(f"guided line {index + 1} is not one of the executable calls: {line!r}")
        tick = time.perf_counter()
        outcome = task.apply(state, _offered_call(line, index), trace=False)
        reached = offers.arrive(state) and policy.stop_at_goal
        trace.engine_s += time.perf_counter() - tick
        if outcome.errors:  # cannot happen: the options came from the same checks
            raise DecodingError(f"engine rejected a guided call {line!r}: {outcome.errors[0].line()}")
        text += line + "\n"
        if reached:
            trace.goal_reached = True
            break
    else:
        trace.forced_end = True
    text += END
    return Completion(
        text=text, prompt_tokens=trace.prompt_tokens, completion_tokens=trace.completion_tokens,
        finish_reason="stop", latency_s=time.perf_counter() - started,
        metadata={"decoding": "guided", "requests": trace.requests, "forced_close": trace.forced_close,
                  "forced_end": trace.forced_end, "goal_reached": trace.goal_reached,
                  "pruned_cycles": trace.pruned_cycles, "pruned_detours": trace.pruned_detours,
                  "pruned_regressions": trace.pruned_regressions, "engine_s": round(trace.engine_s, 4),
                  "options_per_line": trace.options_per_line},
    )
