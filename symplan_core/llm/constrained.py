"""Generation under an arbitrary GBNF grammar: :func:`generate_constrained`.

The planner's ``grammar``/``guided`` decoding (:mod:`symplan_core.llm.decoding`) constrains one
answer format. Other callers (the perception goal drafter) need the same backends to write
something else under a grammar of their own. Each backend does it with its own structured-output
mechanism, the same one its ``grammar`` decoding uses (never a hand-written token mask):

* ``openai:`` — the grammar rides on the chat request: llama.cpp's ``grammar`` field, or vLLM's
  ``structured_outputs`` (told apart by ``/models`` as for ``decoding=grammar``);
* ``transformers:`` — llguidance's logits processor;
* ``vllm:`` (in-process) — ``StructuredOutputsParams(grammar=...)``.

A backend offers it through ``generate_under_grammar(prompt, grammar, sampling) -> Completion``
(:class:`GrammarBackend`). Errors are the decoding module's typed errors, raised, never a silent
free decode:

* :class:`StructuredOutputUnsupportedError` — the backend has no such mechanism (the reference
  planner, a plain function backend) or lacks its package;
* :class:`GrammarRejectedError` — llguidance (checked before anything is sent: llama-cpp-python's
  server aborts on a grammar it cannot parse) or the server refuses the grammar;
* :class:`GrammarNotEnforcedError` — the answer is outside the grammar: a finished answer the
  grammar does not accept, or a cut-off answer that is not a prefix of one. The check runs the
  grammar over the answer's bytes with llguidance (:func:`grammar_accepts`).

A request that fails for another reason (a refused connection, a timeout) is returned as a
failed :class:`Completion`, as every backend reports sampling failures.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from symplan_core.llm.base import Completion, PlannerPrompt, PromptInput, Sampling, as_planner_prompt
from symplan_core.llm.decoding import (
    GrammarNotEnforcedError,
    StructuredOutputUnsupportedError,
    validate_gbnf,
)

__all__ = [
    "GrammarBackend",
    "generate_constrained",
    "grammar_accepts",
]


@runtime_checkable
class GrammarBackend(Protocol):
    """A backend that can generate under a GBNF grammar with its own structured-output mechanism."""

    name: str

    def generate_under_grammar(self, prompt: PlannerPrompt, grammar: str, sampling: Sampling) -> Completion:
        """One greedy or sampled completion of the chat prompt, constrained by ``grammar``; raises the
        typed decoding errors, returns other failures as ``Completion.error``."""
        ...


def grammar_accepts(grammar: str, text: str, *, complete: bool = True) -> bool:
    """Whether ``text`` is a sentence of the GBNF ``grammar`` (``complete=False``: a prefix of one).

    Runs llguidance's matcher over the text's bytes (a byte-level tokenizer), independent of any
    model's vocabulary. Raises :class:`GrammarRejectedError` for a grammar llguidance cannot read.
    """
    validate_gbnf(grammar)
    return _accepts(grammar, text, complete)


def _accepts(grammar: str, text: str, complete: bool) -> bool:
    """:func:`grammar_accepts` for a grammar already validated."""
    import llguidance

    tokenizer = llguidance.LLTokenizer("byte")
    matcher = llguidance.LLMatcher(tokenizer, llguidance.grammar_from("gbnf", grammar), log_level=0)
    tokens = tokenizer.tokenize_str(text)
    consumed = matcher.try_consume_tokens(tokens)
    if consumed != len(tokens) or matcher.is_error():
        return False
    return matcher.is_accepting() if complete else True


def generate_constrained(backend: object, prompt: PromptInput, grammar: str,
                        sampling: Sampling | None = None) -> Completion:
    """Generate one completion of ``prompt`` whose text the GBNF ``grammar`` admits (see the module
    docstring for the mechanisms and the errors)."""
    if not isinstance(grammar, str) or not grammar.strip():
        raise TypeError("the grammar must be a non-empty GBNF text")
    validate_gbnf(grammar)
    if not isinstance(backend, GrammarBackend):
        name = getattr(backend, "name", type(backend).__name__)
        raise StructuredOutputUnsupportedError(
            f"the {name!r} backend has no structured-output mechanism (use an openai:, transformers: or vllm: spec)")
    completion = backend.generate_under_grammar(as_planner_prompt(prompt), grammar, sampling or Sampling())
    if completion.ok and completion.finish_reason in ("stop", "length"):
        complete = completion.finish_reason == "stop"
        if not _accepts(grammar, completion.text, complete):  # validated above
            what = "a sentence" if complete else "a prefix of a sentence"
            raise GrammarNotEnforcedError(
                f"the {backend.name!r} backend answered outside the grammar (not {what} of it): "
                f"{completion.text[:200]!r}")
    return completion
