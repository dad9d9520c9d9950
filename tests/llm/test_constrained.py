"""generate_constrained: generation under an arbitrary GBNF grammar (here the perception goal
grammar) through each backend's own mechanism: llama.cpp's OpenAI-compatible server (a real
process, the ``grammar`` field) and transformers in-process (llguidance's logits processor); the
typed errors for a backend without the mechanism, a grammar llguidance rejects, and a server that
rejects or ignores the grammar (a real HTTP server speaking OpenAI without grammar support)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_decoding_live import plain_openai_server  # noqa: F401 - the fixture, shared with the decoding tests

from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.llm import FunctionBackend, Sampling, make_backend
from symplan_core.llm.constrained import generate_constrained, grammar_accepts
from symplan_core.llm.decoding import (
    GrammarNotEnforcedError,
    GrammarRejectedError,
    StructuredOutputUnsupportedError,
)
from symplan_core.perception.goal_grammar import goal_grammar
from symplan_core.perception.llm_goal import drafter_prompt, goal_examples, parse_goal
from symplan_core.perception.retrieval import activity_index
from symplan_core.tasks import load_problem

pytestmark = pytest.mark.slow

TASK = "b1k/clean_a_book"
INSTRUCTION = "the book is dusty, could you clean it?"


def _scene() -> dict[str, str]:
    problem = to_omnigibson(load_problem(TASK))
    return {i: t for i, t in problem.objects.items() if t != "agent.n.01"}


def _prompt(objects: dict[str, str]):
    matches = activity_index(("b1k",)).search(INSTRUCTION, set(objects.values()), k=5, exclude=(TASK,))
    return drafter_prompt(objects, INSTRUCTION, goal_examples(matches, 2, exclude=(TASK,)))


def _assert_grounded_goal(text: str, finish: str | None, objects: dict[str, str], grammar: str) -> None:
    if finish == "length":  # cut by the budget: still a prefix of a sentence
        assert grammar_accepts(grammar, text, complete=False), text
        return
    goal = parse_goal(text, objects, "omnigibson")
    assert all(a in objects or a.startswith("?") for atom in iter_atoms(goal) for a in atom.args), text


def test_goals_drafted_through_the_llama_cpp_server_parse_and_are_grounded(llama_cpp_server) -> None:
    objects = _scene()
    grammar = goal_grammar(objects).text
    with make_backend(f"openai:{llama_cpp_server.base_url}?timeout=300&concurrency=1") as backend:
        for seed in (1, 2, 3):  # sampled: different goals, every one a sentence
            completion = generate_constrained(backend, _prompt(objects), grammar,
                                              Sampling(temperature=1.0, max_tokens=64, seed=seed))
            assert completion.ok, completion.error
            assert completion.text.startswith("(:goal (and ("), completion.text
            _assert_grounded_goal(completion.text, completion.finish_reason, objects, grammar)


def test_a_bad_grammar_is_rejected_before_it_reaches_the_server(llama_cpp_server) -> None:
    with make_backend(f"openai:{llama_cpp_server.base_url}?timeout=60") as backend:
        with pytest.raises(GrammarRejectedError):
            generate_constrained(backend, "hi", 'root ::= "(" missing-rule ")"\n', Sampling(max_tokens=4))
        # the server is still up (llama-cpp-python's server dies on a grammar it cannot parse)
        completion = generate_constrained(backend, "Say yes.", 'root ::= "yes" | "no"\n',
                                          Sampling(temperature=0.0, max_tokens=4))
        assert completion.ok and completion.text in ("yes", "no"), completion


def test_transformers_drafts_under_the_goal_grammar_with_llguidance(smollm2_gguf: Path) -> None:
    objects = _scene()
    grammar = goal_grammar(objects).text
    with make_backend(f"transformers:{smollm2_gguf}?device=cpu") as backend:  # free decoding spec: no matter
        completion = generate_constrained(backend, _prompt(objects), grammar, Sampling(temperature=0.0, max_tokens=64))
    assert completion.ok, completion.error
    _assert_grounded_goal(completion.text, completion.finish_reason, objects, grammar)


def test_a_backend_without_structured_output_is_a_typed_error() -> None:
    backend = FunctionBackend(lambda _prompt: "(:goal (and (cooked ?x)))", name="scripted")
    with pytest.raises(StructuredOutputUnsupportedError, match="scripted"):
        generate_constrained(backend, "hi", 'root ::= "a"\n')
    with pytest.raises(TypeError):
        generate_constrained(backend, "hi", "   ")


def test_a_server_that_ignores_or_rejects_the_grammar_is_a_typed_error(plain_openai_server) -> None:  # noqa: F811
    url, mode = plain_openai_server
    expected = GrammarNotEnforcedError if mode == "ignore" else GrammarRejectedError
    with make_backend(f"openai:{url}?max_retries=0") as backend, pytest.raises(expected):
        generate_constrained(backend, "hi", 'root ::= "(:goal (and (open ?car.n.01_1)))"\n', Sampling(max_tokens=16))
