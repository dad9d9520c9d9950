"""Property/fuzz tests: malformed input raises only BDDLSyntaxError, never another exception.

Whatever parses must also check without raising, round-trip through the writer, and carry
positions that point at the right text.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from symplan_core.bddl import (
    And,
    Atom,
    BDDLSyntaxError,
    Formula,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    Problem,
    Quantifier,
    parse_problem,
)
from symplan_core.bddl.checks import check_problem, iter_atoms
from symplan_core.bddl.writer import write_problem
from symplan_core.fetch import data_dir

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SAMPLE_FILES = [
    "b1k/loading_the_car", "b1k/wash_a_baseball_cap", "b1k/passing_out_drinks", "b1k/cleaning_sneakers",
    "b100/assembling_gift_baskets", "b1k/carrying_in_groceries", "b100/cleaning_sneakers",
]


@lru_cache(maxsize=1)
def samples() -> tuple[str, ...]:
    root = data_dir()
    return tuple((root / name.replace("/", "/problems/")).with_suffix(".bddl").read_text() for name in SAMPLE_FILES)


TOKENS = ["(", ")", "(", ")", "define", "problem", ":domain", ":objects", ":init", ":goal", ":other", "-",
          "and", "or", "not", "imply", "forall", "exists", "forn", "forpairs", "fornpairs", "?x", "?y",
          "a.n.01_1", "a.n.01", "ontop", "2", "²", "٣", "x", ";", "\n", "\\", "", "DEFINE", "?", "??x"]


def parse_or_syntax_error(text: str) -> Problem | None:
    """The contract: a Problem, or BDDLSyntaxError (anything else propagates and fails)."""
    try:
        problem = parse_problem(text, "fuzz.bddl")
    except BDDLSyntaxError as err:
        assert err.pos.file == "fuzz.bddl" and err.pos.line >= 1 and err.pos.col >= 1
        assert err.pos.line <= text.count("\n") + 1
        return None
    for diag in check_problem(problem):  # never raises on anything that parses
        assert diag.severity in ("error", "warning")
    assert parse_problem(write_problem(problem)) == problem
    assert_positions_match_text(problem, text)
    return problem


def assert_positions_match_text(problem: Problem, text: str) -> None:
    lines = text.split("\n")
    for decl in problem.decls:
        assert lines[decl.pos.line - 1][decl.pos.col - 1:].startswith(decl.instance)
    for lit in problem.init:
        assert lines[lit.atom.pos.line - 1][lit.atom.pos.col - 1] == "("
    for atom in iter_atoms(problem.goal):
        assert lines[atom.pos.line - 1][atom.pos.col - 1] == "("


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    parse_or_syntax_error(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=120), st.sampled_from([" ", "\n", "\t", "\x0b", "\u2028"]))
def test_random_token_soup(tokens: list[str], sep: str) -> None:
    parse_or_syntax_error(sep.join(tokens))


@FUZZ
@given(st.integers(0, len(SAMPLE_FILES) - 1), st.floats(0, 1))
def test_truncated_real_files(which: int, fraction: float) -> None:
    text = samples()[which]
    cut = int(len(text) * fraction)
    assume(cut < len(text.rstrip()))
    assert parse_or_syntax_error(text[:cut]) is None  # a real file cut short never parses


@FUZZ
@given(st.integers(0, len(SAMPLE_FILES) - 1), st.lists(st.tuples(st.floats(0, 1), st.sampled_from("()")),
                                                       min_size=1, max_size=4), st.booleans())
def test_unbalanced_parens(which: int, edits: list[tuple[float, str]], delete: bool) -> None:
    text = samples()[which]
    for fraction, paren in edits:
        at = int(len(text) * fraction)
        if delete:
            found = text.find(paren, at)
            if found >= 0:
                text = text[:found] + text[found + 1:]
        else:
            text = text[:at] + paren + text[at:]
    problem = parse_or_syntax_error(text)
    if problem is not None:
        assert_positions_match_text(problem, text)


@FUZZ
@given(st.integers(0, len(SAMPLE_FILES) - 1), st.sampled_from([":requirements", ":constraints", ":foo", "x"]),
       st.lists(st.sampled_from(TOKENS[4:]), max_size=8), st.floats(0, 1))
def test_unknown_sections_are_skipped(which: int, keyword: str, body: list[str], fraction: float) -> None:
    original = samples()[which]
    # Insert a well-formed unknown section right before some top-level section.
    starts = [i for i in range(len(original)) if original.startswith("(:", i)]
    at = starts[int(fraction * (len(starts) - 1))]
    balanced = " ".join(t for t in body if t not in ("(", ")", ";", "\n", ""))
    text = f"{original[:at]}({keyword} {balanced} (nested {balanced}))\n{original[at:]}"
    problem = parse_or_syntax_error(text)
    if keyword in (":domain", ":objects", ":init", ":goal"):
        return
    assert problem is not None
    assert problem == parse_problem(original)
    assert "unknown-section" in {n.code for n in problem.notes}
    assert_positions_match_text(problem, text)


@FUZZ
@given(st.integers(0, len(SAMPLE_FILES) - 1), st.text(" \t\n\r\x0c", min_size=1, max_size=3), st.floats(0, 1))
def test_positions_survive_extra_whitespace(which: int, space: str, fraction: float) -> None:
    original = samples()[which]
    spaces = [i for i, c in enumerate(original) if c == " "]
    at = spaces[int(fraction * (len(spaces) - 1))]
    text = original[:at] + space + original[at:]
    problem = parse_or_syntax_error(text)
    assert problem is not None and problem == parse_problem(original)
    assert_positions_match_text(problem, text)


# -- writer round trip on generated models ------------------------------------------------
NAMES = ["x", "?x", "??x", "a.n.01_1", "a.n.01_*", "-", "?", "hard-boiled_egg.n.01_1"]
VARS = ["?x", "?y", "??x"]
PREDICATES = ["ontop", "cooked", "p", "?p", "Inside"]

atoms = st.builds(lambda p, args: Atom(p, tuple(args)), st.sampled_from(PREDICATES),
                  st.lists(st.sampled_from(NAMES), max_size=3))
params = st.builds(Param, st.sampled_from(VARS), st.sampled_from(["t", "a.n.01", "-"]))


def compound(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.builds(lambda ps: And(tuple(ps)), st.lists(inner, max_size=3)),
        st.builds(lambda ps: Or(tuple(ps)), st.lists(inner, max_size=3)),
        st.builds(Not, inner),
        st.builds(Imply, inner, inner),
        st.builds(lambda k, p, b: Quantifier(k, (p,), b), st.sampled_from(["forall", "exists"]), params, inner),
        st.builds(lambda n, p, b: Quantifier("forn", (p,), b, n), st.integers(0, 12), params, inner),
        st.builds(lambda k, p, q, b, n: Quantifier(k, (p, q), b, n if k == "fornpairs" else None),
                  st.sampled_from(["forpairs", "fornpairs"]), params, params, inner, st.integers(0, 3)),
    )


formulas = st.recursive(atoms, compound, max_leaves=12)


def canonical(f: Formula, bound: frozenset[str] = frozenset()) -> Formula:
    """What the parser would make of ``f``: unbound '?' names lose one '?'."""
    if isinstance(f, Atom):
        return Atom(f.predicate, tuple(a[1:] if a[:1] == "?" and a not in bound else a for a in f.args))
    if isinstance(f, (And, Or)):
        return type(f)(tuple(canonical(p, bound) for p in f.parts))
    if isinstance(f, Not):
        return Not(canonical(f.body, bound))
    if isinstance(f, Imply):
        return Imply(canonical(f.antecedent, bound), canonical(f.consequent, bound))
    assert isinstance(f, Quantifier)
    return Quantifier(f.kind, f.params, canonical(f.body, bound | {p.var for p in f.params}), f.count)


@FUZZ
@given(formulas, st.lists(st.tuples(st.sampled_from(PREDICATES), st.lists(st.sampled_from(NAMES), max_size=3),
                                    st.booleans()), max_size=4))
def test_writer_round_trips_generated_problems(goal: Formula, init: list) -> None:
    goal = canonical(goal)  # a model the parser can produce
    problem = Problem("p", "omnigibson", {"x": "t", "a.n.01_1": "a.n.01"},
                      tuple(Literal(Atom(p, tuple(args)), neg) for p, args, neg in init), goal)
    text = write_problem(problem)
    assert parse_problem(text) == problem
    check_problem(parse_problem(text))
