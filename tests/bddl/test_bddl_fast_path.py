"""The parser's canonical fast path builds exactly what the general parser builds.

``parse_problem`` reads the one layout every BEHAVIOR file has with ``_canonical`` and hands
anything else (other layouts, warnings, every error) to ``_Parser``. These tests compare
the two on every real file and on fuzzed text: same model, same positions, declarations,
duplicates and notes, or the same error at the same place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symplan_core.bddl import BDDLSyntaxError, Formula, Problem, Quantifier, parse_problem
from symplan_core.bddl.model import And, Imply, Not, Or
from symplan_core.bddl.parser import _canonical, _NotCanonical, _Parser
from symplan_core.bddl.tokens import PAD, SourceText, split_tokens
from symplan_core.fetch import data_dir

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def node_positions(f: Formula) -> list[str]:
    out = [f"{type(f).__name__}@{f.pos}"]
    if isinstance(f, (And, Or)):
        for part in f.parts:
            out += node_positions(part)
    elif isinstance(f, Not):
        out += node_positions(f.body)
    elif isinstance(f, Imply):
        out += node_positions(f.antecedent) + node_positions(f.consequent)
    elif isinstance(f, Quantifier):
        out += [f"Param@{p.pos}" for p in f.params] + node_positions(f.body)
    return out


def everything(problem: Problem) -> tuple:
    """The model with every field equality leaves out: positions, declarations, notes, source."""
    return (problem, problem.to_json(), node_positions(problem.goal), [str(lit.atom.pos) for lit in problem.init],
            [(d, str(d.pos)) for d in problem.decls], [(d, str(d.pos)) for d in problem.duplicates],
            [str(n) for n in problem.notes], problem.source)


def outcome(parse, text: str) -> tuple:
    try:
        return ("ok", everything(parse(text)))
    except BDDLSyntaxError as err:
        return ("error", str(err))


def general(text: str) -> Problem:
    return _Parser(text, "f.bddl").problem()


def fast_path_or_none(text: str) -> Problem | None:
    try:
        return _canonical(tuple(split_tokens(text)) + PAD, SourceText(text, "f.bddl"))
    except (_NotCanonical, ValueError, IndexError):
        return None


def test_every_behavior_file_takes_the_fast_path_to_the_general_parsers_model(
        corpus_texts: dict[Path, str]) -> None:
    slow = []
    for path, text in corpus_texts.items():
        fast = fast_path_or_none(text)
        if fast is None:
            slow.append(path.stem)
            continue
        assert everything(fast) == everything(general(text)), path
    # Two declare an instance twice, one has a stray token: the general parser warns on each.
    assert sorted(slow) == ["loading_the_car", "passing_out_drinks", "wash_a_baseball_cap"]
    for path, text in corpus_texts.items():
        if path.stem in slow:
            assert general(text).notes and parse_problem(text, "f.bddl").notes


HEAD = "(define (problem p) (:domain omnigibson) (:objects a.n.01_1 a.n.01_2 - a.n.01 b.n.01_1 - b.n.01)"
CANONICAL = f"{HEAD} (:init (ontop a.n.01_1 b.n.01_1) (not (open b.n.01_1))) (:goal (and (open ?b.n.01_1))))"


@pytest.mark.parametrize("text", [
    CANONICAL.replace("define", "DEFINE"),                                # keywords in upper case
    CANONICAL.replace(":init", ":INIT"),
    CANONICAL.replace("b.n.01_1 - b.n.01", "b.n.01_1 - b.n.01 a.n.01_1 - b.n.01"),  # declared twice
    CANONICAL.replace("(:init", "stray (:init"),                          # a stray token
    CANONICAL.replace("(:goal (and (open ?b.n.01_1)))", "(:goal (open ?b.n.01_1) (open ?a.n.01_1))"),
    CANONICAL.replace("(:init", "(:requirements :strips) (:init"),       # an unknown section
    f"{HEAD} (:goal (open ?b.n.01_1)) (:init (ontop a.n.01_1 b.n.01_1)))",  # sections in another order
    CANONICAL.replace("(:domain omnigibson)", "(:domain omnigibson) (:domain igibson)"),
])
def test_other_layouts_are_read_by_the_general_parser(text: str) -> None:
    assert fast_path_or_none(text) is None
    assert outcome(lambda t: parse_problem(t, "f.bddl"), text) == outcome(general, text)
    assert outcome(general, text)[0] == "ok"


def test_the_canonical_example_takes_the_fast_path() -> None:
    fast = fast_path_or_none(CANONICAL)
    assert fast is not None and everything(fast) == everything(general(CANONICAL))


PIECES = ["(", ")", "(", ")", " ", "\n", "not", "and", "or", "imply", "forall", "forn", "forpairs", "fornpairs",
          "exists", "(2)", "(?x - a.n.01)", "?x", "?a.n.01_1", "a.n.01_1", "-", "ontop", "(open ?x)", "² ", ";c\n"]


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_fuzzed_goals_parse_or_fail_alike(pieces: list[str]) -> None:
    text = CANONICAL.replace("(and (open ?b.n.01_1))", " ".join(pieces))
    assert outcome(lambda t: parse_problem(t, "f.bddl"), text) == outcome(general, text)


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=30), st.sampled_from(["objects", "init"]))
def test_fuzzed_objects_and_init_parse_or_fail_alike(pieces: list[str], section: str) -> None:
    if section == "objects":
        text = CANONICAL.replace("a.n.01_1 a.n.01_2 - a.n.01", " ".join(pieces))
    else:
        text = CANONICAL.replace("(ontop a.n.01_1 b.n.01_1)", " ".join(pieces))
    assert outcome(lambda t: parse_problem(t, "f.bddl"), text) == outcome(general, text)


@FUZZ
@given(st.sampled_from(["b1k/cook_peppers", "b1k/cleaning_sneakers", "b100/assembling_gift_baskets"]),
       st.floats(0, 1), st.sampled_from(PIECES))
def test_an_insertion_into_a_real_file_parses_or_fails_alike(name: str, fraction: float, piece: str) -> None:
    original = (data_dir() / name.replace("/", "/problems/")).with_suffix(".bddl").read_text(encoding="utf-8")
    at = int(len(original) * fraction)
    text = original[:at] + piece + original[at:]
    assert outcome(lambda t: parse_problem(t, "f.bddl"), text) == outcome(general, text)
