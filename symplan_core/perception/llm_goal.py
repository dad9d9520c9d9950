"""Goal drafting and judging through an LLM backend spec (``symplan_core.llm.make_backend``).

LLM output is data: the goal is cut out of the reply and read by the BDDL parser (inside a
minimal problem whose other sections we write), never evaluated. A reply with no goal, or one
that does not parse, is a draft with no goal and the parser's reason; the verifier rejects it.

Two drafters:

* :func:`draft_goal`: free decoding, the reply's first goal block is cut out (any backend);
* :func:`draft_goal_constrained`: the reply is constrained by the scene's goal grammar
  (:func:`symplan_core.perception.goal_grammar.goal_grammar`) through the backend's own
  structured-output mechanism (:func:`symplan_core.llm.constrained.generate_constrained`), with
  retrieved activities' goals as examples (:func:`goal_examples`; the caller's ``exclude`` keeps
  held-out activities out of them). Every finished reply is a parseable, fully grounded goal; a
  reply cut by the token budget keeps its complete conjuncts (:func:`complete_conjuncts`), and is
  a draft with no goal where it has none.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from symplan_core.bddl import BDDLSyntaxError, Formula, Literal, parse_problem
from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.bddl.writer import write_literal, write_objects
from symplan_core.llm import (
    BackendSpecError,
    BackendUnavailableError,
    ChatMessage,
    PlannerPrompt,
    Sampling,
    make_backend,
)
from symplan_core.perception.errors import PerceptionError

if TYPE_CHECKING:
    from symplan_core.perception.additions import Addition
    from symplan_core.perception.goal_grammar import StateAnswer
    from symplan_core.perception.placements import RequestedPlacement

GOAL_SYSTEM = ("You write the goal of a BEHAVIOR task in BDDL. Reply with exactly one (:goal ...) block "
               "that uses only the listed objects and predicates. No explanation.")
JUDGE_SYSTEM = ("You check a BEHAVIOR task written in BDDL against the instruction a person gave. Reply "
                "ACCEPT if the task's objects, initial state and goal match the instruction; otherwise "
                "reply REJECT: followed by the reason, on one line.")


@dataclass(frozen=True)
class LLMDraft:
    goal: Formula | None
    reply: str
    reason: str = ""  # why there is no goal
    examples: tuple[str, ...] = ()  # activities whose goals the prompt showed (bench/name)
    grammar_bytes: int = 0  # size of the goal grammar the reply was constrained by (0: free)
    completion_tokens: int | None = None
    latency_s: float = 0.0
    kept: int = 0  # the reply was cut before it closed: its first ``kept`` complete conjuncts are the goal
    continued: int = 0  # decoded again this many times to mention what it left out (``mentions``)


def _backend(spec):
    """A backend for a spec (or the backend given); a spec that cannot be built is a typed error."""
    if not isinstance(spec, str):
        return spec
    try:
        return make_backend(spec)
    except (BackendSpecError, BackendUnavailableError) as exc:
        raise PerceptionError(f"LLM backend {spec!r}: {exc}") from None


def _ask(spec, system: str, user: str, max_tokens: int) -> tuple[str, str]:
    """(reply text, error) from one greedy sample; the backend's own error is data too."""
    backend = _backend(spec)
    try:
        prompt = PlannerPrompt(messages=(ChatMessage("system", system), ChatMessage("user", user)))
        (completion,) = backend.plan(prompt, n=1, sampling=Sampling(temperature=0.0, max_tokens=max_tokens))
    finally:
        if isinstance(spec, str):
            backend.close()
    return completion.text, completion.error or ""


def _additions_lines(extra: Mapping[str, Addition]) -> list[str]:
    """The prompt's list of what the goal may name that the scene does not show."""
    if not extra:
        return []
    by_type: dict[str, list[str]] = {}
    for inst, a in extra.items():
        by_type.setdefault(a.type, []).append("?" + inst)
    return ["Not seen, but the scene can give or make them (name them only if the request needs them):",
            *(f"{' '.join(insts)} - {typ}" for typ, insts in by_type.items())]


def goal_prompt(objects: dict[str, str], init: list[Literal], instruction: str, domain: str,
                extra: Mapping[str, Addition] | None = None) -> str:
    lines = ["Objects:", *write_objects(objects, depth=1), *_additions_lines(extra or {}), "Initial state:",
             *(f"    {write_literal(lit)}" for lit in init),
             f"Predicates: {', '.join(sorted(vocabulary(domain)))}",
             f"Instruction: {instruction}", "Goal:"]
    return "\n".join(lines)


def extract_goal(reply: str) -> tuple[str | None, str]:
    """The balanced ``(:goal ...)`` block of a reply (or its first balanced formula)."""
    start = reply.find("(:goal")
    if start < 0:
        start = reply.find("(")
        if start < 0:
            return None, "the reply contains no formula"
    depth = 0
    for i in range(start, len(reply)):
        if reply[i] == "(":
            depth += 1
        elif reply[i] == ")":
            depth -= 1
            if depth == 0:
                block = reply[start:i + 1]
                return (block if block.startswith("(:goal") else f"(:goal {block})"), ""
    return None, "the reply's goal is not closed (unbalanced parentheses)"


def complete_conjuncts(reply: str) -> tuple[str | None, int]:
    """A ``(:goal (and ...))`` reply cut before it closed while looping, closed after its last
    complete conjunct, and the number of conjuncts kept. Looping: at least half of its complete
    conjuncts repeat earlier ones (Qwen 1.5B wrote the same ``(not (saturated ...))`` over and over
    until the token budget ran out), so what it said before the loop is its goal. A reply cut while
    still saying new things is unfinished: (None, 0), as for a reply that is not such a goal."""
    head = reply.find("(:goal")
    opened = reply.find("(and", head) if head >= 0 else -1
    if opened < 0 or reply[head + len("(:goal"):opened].strip():
        return None, 0
    depth, start, ends = 0, -1, []
    for i in range(opened + len("(and"), len(reply)):
        if reply[i] == "(":
            depth += 1
            if depth == 1:
                start = i
        elif reply[i] == ")":
            depth -= 1
            if depth < 0:
                return None, 0  # it closed after all: not a cut reply
            if depth == 0:
                ends.append((start, i + 1))
    said = [" ".join(reply[a:b].split()) for a, b in ends]
    if not ends or 2 * len(set(said)) > len(said):
        return None, 0
    return f"(:goal (and {' '.join(reply[a:b] for a, b in ends)}))", len(ends)


def parse_goal(block: str, objects: dict[str, str], domain: str) -> Formula:
    """Read a ``(:goal ...)`` block with our parser (raises :class:`BDDLSyntaxError`)."""
    text = (f"(define (problem llm_goal) (:domain {domain})\n(:objects\n" + "\n".join(write_objects(objects))
            + "\n)\n(:init)\n" + block + "\n)")
    return parse_problem(text, "<llm goal>").goal


def draft_goal(spec, objects: dict[str, str], init: list[Literal], instruction: str, domain: str,
               max_tokens: int = 256, extra: Mapping[str, Addition] | None = None) -> LLMDraft:
    """Free decoding. ``extra``: what the goal may also name (``additions.scene_additions``)."""
    writable = {**objects, **{i: a.type for i, a in (extra or {}).items()}}
    reply, error = _ask(spec, GOAL_SYSTEM, goal_prompt(objects, init, instruction, domain, extra), max_tokens)
    if error:
        return LLMDraft(None, reply, f"the LLM backend failed: {error}")
    block, reason = extract_goal(reply)
    kept = 0
    if block is None:
        block, kept = complete_conjuncts(reply)
        if block is None:
            return LLMDraft(None, reply, f"LLM goal rejected: {reason}")
    try:
        return LLMDraft(parse_goal(block, writable, domain), reply, kept=kept)
    except BDDLSyntaxError as exc:
        return LLMDraft(None, reply, f"LLM goal does not parse: {exc.message}")


def judge(spec, bddl: str, instruction: str, max_tokens: int = 64) -> tuple[bool, str, str]:
    """(accepted, reason, reply) of an LLM judge; anything but a leading ACCEPT is a rejection."""
    reply, error = _ask(spec, JUDGE_SYSTEM, f"Instruction: {instruction}\n\nTask:\n{bddl}\nVerdict:", max_tokens)
    if error:
        return False, f"the judge backend failed: {error}", reply
    first = reply.strip().splitlines()[0].strip() if reply.strip() else ""
    if first.upper().startswith("ACCEPT"):
        return True, "", reply
    if first.upper().startswith("REJECT"):
        return False, first[6:].lstrip(" :") or "rejected without a reason", reply
    return False, f"the judge gave no verdict: {first[:120]!r}", reply


DRAFT_SYSTEM = ("You turn a person's request to a household robot into the goal of a BEHAVIOR task, written in "
                "BDDL as one line: (:goal (and ...)). Use only this scene's objects, written with a leading ?, "
                "and the listed predicates. Quantify over a kind of object with (forall (?type - type) ...), "
                "(exists (?type - type) ...) or (forpairs (?a - a) (?b - b) ...). The examples are goals of "
                "similar tasks in other scenes: their object names are not this scene's.")
#: Example goals longer than this (characters, compact form) are skipped: they cost prompt tokens
#: and a small model copies their length.
EXAMPLE_CHARS = 700


@dataclass(frozen=True)
class GoalExample:
    activity: str  # bench/name
    words: str  # the activity name in words
    goal: str  # compact (:goal ...) text, omnigibson vocabulary


def goal_examples(matches: Sequence[Any], k: int, exclude: Sequence[str] = ()) -> list[GoalExample]:
    """The goals of the first ``k`` retrieved activities (``retrieval.Match`` list, best first) that
    are not in ``exclude`` and not too long: the drafter's examples."""
    from symplan_core.bddl.normalize import to_omnigibson
    from symplan_core.perception.goal_grammar import compact_goal
    from symplan_core.tasks import load_problem

    out: list[GoalExample] = []
    for match in matches:
        if len(out) == k:
            break
        if match.task in exclude:
            continue
        text = compact_goal(to_omnigibson(load_problem(match.task)).goal)
        if len(text) <= EXAMPLE_CHARS:
            out.append(GoalExample(match.task, match.task.split("/", 1)[-1].replace("_", " "), text))
    return out


def drafter_prompt(objects: dict[str, str], instruction: str, examples: Sequence[GoalExample],
                   domain: str = "omnigibson", extra: Mapping[str, Addition] | None = None) -> PlannerPrompt:
    """The chat prompt of :func:`draft_goal_constrained`."""
    from symplan_core.perception.goal_grammar import EXCLUDED_PREDICATES
    from symplan_core.perception.language import prompt_hints

    by_type: dict[str, list[str]] = {}
    for inst, typ in objects.items():
        by_type.setdefault(typ, []).append("?" + inst)
    vocab = vocabulary(domain)
    predicates = ", ".join(f"{p}/{n}" for p, n in sorted(vocab.items()) if p not in EXCLUDED_PREDICATES)
    lines = [f"Predicates (name/arity): {predicates}", ""]
    if examples:
        lines.append("Examples (other scenes):")
        for ex in examples:
            lines += [f"Request: {ex.words}", ex.goal]
        lines.append("")
    lines.append("Objects in this scene:")
    lines += [f"{' '.join(insts)} - {typ}" for typ, insts in by_type.items()]
    lines += _additions_lines(extra or {})
    lines += ["", f"Request: {instruction}"]
    hints = prompt_hints(instruction, domain)
    if hints:  # the request's state words and prepositions, with the literal each asks for
        lines.append(f"Words -> goal literals: {'; '.join(hints)}")
    return PlannerPrompt(messages=(ChatMessage("system", DRAFT_SYSTEM), ChatMessage("user", "\n".join(lines))))


@dataclass(frozen=True)
class Rejection:
    """One earlier draft and why the verifier refused it: fed back so the model can redraft."""

    reply: str
    reasons: tuple[str, ...]


def redraft_turns(rejections: Sequence[Rejection]) -> list[ChatMessage]:
    """The conversation after the first prompt: each rejected reply and the verifier's reasons, as in
    the planner's repair rounds (``prompts.builder.repair_message``)."""
    turns: list[ChatMessage] = []
    for rejection in rejections:
        lines = ["A checker read that goal against the request and the scene and refused it:",
                 *(f"- {reason}" for reason in rejection.reasons),
                 "Write the corrected goal for the same request: keep what was right, change what the checker "
                 "refused, and name every object the request names. One line: (:goal (and ...))."]
        turns += [ChatMessage("assistant", rejection.reply), ChatMessage("user", "\n".join(lines))]
    return turns


def draft_goal_constrained(spec, objects: dict[str, str], instruction: str, examples: Sequence[GoalExample],
                           domain: str = "omnigibson", max_tokens: int = 256,
                           extra: Mapping[str, Addition] | None = None,
                           rejections: Sequence[Rejection] = (), init: Sequence[Literal] = (),
                           temperature: float = 0.0, seed: int | None = None,
                           mentions: Sequence[tuple[str, frozenset[str]]] = (),
                           states: Sequence[tuple[str, tuple[tuple[str, bool], ...]]] = (),
                           placements: Sequence[RequestedPlacement] = ()) -> LLMDraft:
    """Draft the goal under the scene's goal grammar (see the module docstring). ``rejections``:
    earlier drafts of this request and the verifier's reasons, appended to the conversation (a
    redraft). ``init``: the scene's observed facts, evidence of what its objects can do (the grammar
    admits only the literals some action can make true, ``goal_grammar.scene_places``).
    ``temperature``/``seed``: greedy by default; a sampled draw of best-of-N (top-p 0.9).

    ``mentions``: (phrase, types) the goal must mention, a type of each
    (``object_words.goal_must_mention``). A finished goal that leaves one out is *continued*: the same
    prompt is decoded again under a grammar that starts with the conjuncts the model wrote and
    goes on with one that mentions a missing object (``goal_grammar``'s ``said``), as often as
    objects are missing (at most once per phrase). A goal that mentions them all is the model's
    first reply, token for token; a continuation that is cut or fails leaves the goal before it
    (the verifier then names what it never mentions). The prompt does not list the phrases: a line
    that did changed drafts that already named everything, mostly for the worse (docs/results.md).
    ``states``: the request's state words with the literals that answer each
    (``verbs.asked_states``). A goal that answers none of a word's literals, read as the
    verifier reads it (``language.state_conflicts``), is continued the same way, with a conjunct
    that has one of them about one of the objects of ``mentions`` ("spray the vacuum with
    disinfectant": ``(covered ?vacuum ?disinfectant)``); at most once per word. ``placements``: the
    request's placements (``placements.requested_placements``). A thing one moves that the goal does
    not put at its target (:func:`_unplaced`: "throw the rod and tackle in it") is continued the
    same way, with that placement's literal about it; it is then asked of no other conjunct in that
    round (Qwen 1.5B, made to mention the rod, wrote it as not on the driveway). A continuation cut while looping after the conjunct it was asked for is decoded
    once more, ending right after that conjunct.

    The typed decoding errors (no structured-output mechanism, a rejected or ignored grammar) are
    raised as :class:`PerceptionError`: a configuration fault, not a draft to judge."""
    from symplan_core.llm.constrained import generate_constrained
    from symplan_core.llm.decoding import DecodingError
    from symplan_core.perception.goal_grammar import GoalGrammarError, StateAnswer, goal_grammar, scene_places

    writable = {**objects, **{i: a.type for i, a in (extra or {}).items()}}
    products = [i for i, a in (extra or {}).items() if a.made]
    places = scene_places(writable, init, domain)
    try:
        grammar = goal_grammar(writable, domain, products=products, places=places)
    except GoalGrammarError as exc:
        return LLMDraft(None, "", f"no goal grammar for this scene: {exc}")
    names = tuple(ex.activity for ex in examples)
    backend = _backend(spec)
    prompt = drafter_prompt(objects, instruction, examples, domain, extra)
    if rejections:
        prompt = PlannerPrompt(messages=(*prompt.messages, *redraft_turns(rejections)))

    def decode(text: str, budget: int):
        try:
            return generate_constrained(backend, prompt, text,
                                        Sampling(temperature=temperature, max_tokens=budget, seed=seed))
        except DecodingError as exc:
            raise PerceptionError(f"the goal drafter cannot decode under the goal grammar: {exc}") from exc

    try:
        completion = decode(grammar.text, max_tokens)
        latency = completion.latency_s

        def drafted(goal: Formula | None, reason: str = "", kept: int = 0, continued: int = 0) -> LLMDraft:
            return LLMDraft(goal, completion.text, reason, names, grammar.size_bytes, completion.completion_tokens,
                            latency, kept, continued)

        if completion.error:
            return drafted(None, f"the LLM backend failed: {completion.error}")
        text, kept = completion.text, 0
        if completion.finish_reason == "length":
            closed, kept = complete_conjuncts(completion.text)
            if closed is None:
                return drafted(None, f"the LLM goal was cut at {max_tokens} tokens before it closed")
            text = closed
        try:
            goal = parse_goal(text, writable, domain)
        except BDDLSyntaxError as exc:  # the grammar admits only parseable goals: a bug if it happens
            return drafted(None, f"LLM goal does not parse: {exc.message}")
        continued = 0
        held = [lit.atom for lit in init if not lit.negated]  # what a negation may undo to mention an object
        named_types = {t for _, types in mentions for t in types}  # what a state word's literal is about
        named = _of(named_types, writable) or None
        while not kept and continued < len(mentions) + len(states) + len(placements):
            missing = _unmentioned(goal, mentions, writable, init, domain)
            words = _unanswered_words(goal, instruction, writable, domain) if states or placements else set()
            unanswered = _unanswered(states, words, writable, domain, named)
            unplaced = _unplaced(goal, placements, words, writable)
            missing = [types for types in missing if not any(thing in types for thing, _ in unplaced)]
            unanswered += [frozenset({StateAnswer(p.relation, True, None, _of({thing}, writable), _of(p.targets, writable))})
                           for thing, p in unplaced]
            said = completion.text.strip()
            if not (missing or unanswered) or not (said.startswith("(:goal (and") and said.endswith("))")):
                break
            continuation = partial(goal_grammar, writable, domain, products=products, places=places, mentions=missing,
                                   held=held, said=said[len("(:goal (and"):-2], states=unanswered)
            try:
                more = continuation()
            except GoalGrammarError:
                break
            if not more.mentions:
                break
            previous = completion
            budget = max_tokens + (completion.completion_tokens or max_tokens)
            completion = decode(more.text, budget)
            latency += completion.latency_s
            if not completion.error and completion.finish_reason == "length":
                completion = decode(continuation(close=True).text, budget)
                latency += completion.latency_s
            going_on: Formula | None = None
            if not completion.error and completion.finish_reason == "stop":
                with suppress(BDDLSyntaxError):  # the grammar admits only parseable goals
                    going_on = parse_goal(completion.text, writable, domain)
            if going_on is None:  # cut or failed: the goal as it was
                completion = previous
                break
            goal, continued = going_on, continued + 1
        return drafted(goal, kept=kept, continued=continued)
    finally:
        if isinstance(spec, str):
            backend.close()


def _unanswered_words(goal: Formula, instruction: str, objects: dict[str, str], domain: str) -> set[str]:
    """The request's words the goal leaves unanswered, read as the verifier reads it
    (``language.state_conflicts``): state words, and placements it puts nothing at, as quoted."""
    from symplan_core.bddl import Problem
    from symplan_core.perception.language import state_conflicts

    return set(state_conflicts(instruction, Problem("drafted", domain, dict(objects), (), goal)).unanswered)


def _of(types: Collection[str], objects: dict[str, str]) -> frozenset[str]:
    """The instances of ``objects`` of one of ``types``."""
    return frozenset(i for i, t in objects.items() if t in types)


def _unplaced(goal: Formula, placements: Sequence[RequestedPlacement], words: set[str],
              objects: dict[str, str]) -> list[tuple[str, RequestedPlacement]]:
    """(thing, placement) for each thing a placement of the request moves that the goal does not put
    at its target: all of a placement's things where the verifier finds nothing put there (its
    quote among ``words``), else each thing the goal puts nowhere at all (the rod in the boat, the
    tackle only "not on the driveway"). A thing the goal puts somewhere is the verifier's to judge."""
    from symplan_core.bddl.checks import argument_type, goal_atoms
    from symplan_core.engine.predicates import OBJECT_RELATIONS

    placed: set[str] = set()  # the types the goal puts anywhere
    at: set[tuple[str, str | None, str | None]] = set()  # (relation, thing type, place type)
    for atom, positive, types in goal_atoms(goal):
        if positive and atom.predicate in OBJECT_RELATIONS and len(atom.args) == 2:
            first, second = (argument_type(a, types, objects) for a in atom.args)
            if first:
                placed.add(first)
            at.add((atom.predicate, first, second))
    out = []
    for p in placements:
        for thing in sorted(p.things):
            there = any((p.relation, thing, target) in at for target in p.targets)
            if not there and (p.said in words or thing not in placed):
                out.append((thing, p))
    return out


def _unanswered(states: Sequence[tuple[str, tuple[tuple[str, bool], ...]]], words: set[str],
                objects: dict[str, str], domain: str, named: frozenset[str] | None = None) -> list[frozenset[StateAnswer]]:
    """The literals that would answer each of ``states`` the goal leaves unanswered (``words``:
    :func:`_unanswered_words`); "covered:applied" is a covering with one of the scene's substances
    that goals apply rather than remove, "covered:dust.n.01" one with dust. ``named``: the
    instances of what the request names, the only ones such a literal may be about (its first place). The verifier
    asks less (any literal of the state), but Qwen 1.5B, free to choose, answered "disinfect both"
    by covering the disinfectant bottle with disinfectant: accepted, and wrong."""
    from symplan_core.perception.goal_grammar import StateAnswer
    from symplan_core.perception.goal_reading import removed_substances
    from symplan_core.perception.synsets import is_substance

    applied = frozenset(i for i, t in objects.items() if is_substance(t, domain) and t not in removed_substances())

    def substances(predicate: str) -> frozenset[str] | None:
        kind = predicate.partition(":")[2]  # "applied", a substance the word names ("dust"), or none
        return applied if kind == "applied" else _of({kind}, objects) if kind else None

    out = []
    for said, answers in states:
        if said in words:
            out.append(frozenset(StateAnswer(predicate.partition(":")[0], polarity, substances(predicate), named)
                                 for predicate, polarity in answers))
    return out


def _unmentioned(goal: Formula, mentions: Sequence[tuple[str, frozenset[str]]], objects: dict[str, str],
                 init: Sequence[Literal], domain: str) -> list[frozenset[str]]:
    """The type sets of ``mentions`` the goal does not mention, read as the verifier reads an LLM
    goal (``goal_reading.goal_types``, idle negations skipped)."""
    from symplan_core.bddl import Problem
    from symplan_core.perception.goal_reading import goal_types

    said = goal_types(Problem("drafted", domain, dict(objects), tuple(init), goal), skip_idle=True)
    return [types for _, types in mentions if not types & said]
