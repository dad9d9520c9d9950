"""Goal drafting and judging through an LLM backend spec (``symplan_core.llm.make_backend``).

LLM output is data: the goal is cut out of the reply and read by the BDDL parser (inside a
minimal problem whose other sections we write), never evaluated. A reply with no goal, or one
that does not parse, is a draft with no goal and the parser's reason; the verifier rejects it.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def goal_prompt(objects: dict[str, str], init: list[Literal], instruction: str, domain: str) -> str:
    lines = ["Objects:", *write_objects(objects, depth=1), "Initial state:",
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


def parse_goal(block: str, objects: dict[str, str], domain: str) -> Formula:
    """Read a ``(:goal ...)`` block with our parser (raises :class:`BDDLSyntaxError`)."""
    text = (f"(define (problem llm_goal) (:domain {domain})\n(:objects\n" + "\n".join(write_objects(objects))
            + "\n)\n(:init)\n" + block + "\n)")
    return parse_problem(text, "<llm goal>").goal


def draft_goal(spec, objects: dict[str, str], init: list[Literal], instruction: str, domain: str,
               max_tokens: int = 256) -> LLMDraft:
    reply, error = _ask(spec, GOAL_SYSTEM, goal_prompt(objects, init, instruction, domain), max_tokens)
    if error:
        return LLMDraft(None, reply, f"the LLM backend failed: {error}")
    block, reason = extract_goal(reply)
    if block is None:
        return LLMDraft(None, reply, f"LLM goal rejected: {reason}")
    try:
        return LLMDraft(parse_goal(block, objects, domain), reply)
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
