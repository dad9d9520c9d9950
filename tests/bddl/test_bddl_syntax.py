"""Parser behaviour on synthetic text: grammar corners and syntax errors with positions."""

from __future__ import annotations

import pytest

from symplan_core.bddl import (
    And,
    Atom,
    BDDLError,
    BDDLSyntaxError,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    Quantifier,
    parse_problem,
)
from symplan_core.bddl.writer import write_formula, write_problem

HEAD = "(define (problem p) (:domain omnigibson) (:objects a.n.01_1 a.n.01_2 - a.n.01 b.n.01_1 - b.n.01)"


def with_goal(goal: str, init: str = "(ontop a.n.01_1 b.n.01_1)") -> str:
    return f"{HEAD} (:init {init}) (:goal {goal}))"


def test_minimal_problem_model() -> None:
    p = parse_problem(with_goal("(and (ontop ?a.n.01_1 ?b.n.01_1))"))
    assert (p.name, p.domain) == ("p", "omnigibson")
    assert p.objects == {"a.n.01_1": "a.n.01", "a.n.01_2": "a.n.01", "b.n.01_1": "b.n.01"}
    assert p.init == (Literal(Atom("ontop", ("a.n.01_1", "b.n.01_1"))),)
    assert p.goal == And((Atom("ontop", ("a.n.01_1", "b.n.01_1")),))
    assert p.instances_of("a.n.01") == ["a.n.01_1", "a.n.01_2"] and p.types == ["a.n.01", "b.n.01"]


def test_fornpairs_has_a_count_and_two_params() -> None:
    goal = "(fornpairs (2) (?x - a.n.01) (?y - b.n.01) (ontop ?x ?y))"
    q = parse_problem(with_goal(goal)).goal
    assert q == Quantifier("fornpairs", (Param("?x", "a.n.01"), Param("?y", "b.n.01")),
                           Atom("ontop", ("?x", "?y")), 2)
    assert q.to_list() == ["fornpairs", 2, ["?x", "a.n.01"], ["?y", "b.n.01"], ["ontop", "?x", "?y"]]


def test_forn_forpairs_forall_exists_shapes() -> None:
    goal = ("(and (forn (3) (?x - a.n.01) (cooked ?x)) (forpairs (?x - a.n.01) (?y - b.n.01) (nextto ?x ?y))"
            " (forall (?x - a.n.01) (exists (?y - b.n.01) (under ?x ?y))))")
    forn, forpairs, forall = parse_problem(with_goal(goal)).goal.parts
    assert (forn.kind, forn.count, len(forn.params)) == ("forn", 3, 1)
    assert (forpairs.kind, forpairs.count, len(forpairs.params)) == ("forpairs", None, 2)
    assert forall.kind == "forall" and forall.body.kind == "exists"


def test_connectives() -> None:
    goal = "(or (not (open ?a.n.01_1)) (imply (cooked ?a.n.01_1) (hot ?a.n.01_2)))"
    g = parse_problem(with_goal(goal)).goal
    assert isinstance(g, Or) and isinstance(g.parts[0], Not) and isinstance(g.parts[1], Imply)
    assert g.to_list() == ["or", ["not", ["open", "a.n.01_1"]],
                           ["imply", ["cooked", "a.n.01_1"], ["hot", "a.n.01_2"]]]


def test_question_mark_means_variable_only_when_bound() -> None:
    # '?a.n.01_1' is an instance reference; '?a.n.01' is bound by the quantifier.
    goal = "(forall (?a.n.01 - a.n.01) (ontop ?a.n.01 ?b.n.01_1))"
    body = parse_problem(with_goal(goal)).goal.body
    assert body.args == ("?a.n.01", "b.n.01_1")
    # Outside the quantifier's scope the same token is an instance name again.
    goal2 = f"(and {goal} (cooked ?a.n.01))"
    assert parse_problem(with_goal(goal2)).goal.parts[1].args == ("a.n.01",)


def test_bare_instance_names_in_goal_equal_question_mark_refs() -> None:
    assert parse_problem(with_goal("(cooked a.n.01_1)")) == parse_problem(with_goal("(cooked ?a.n.01_1)"))


def test_negated_init_literal() -> None:
    p = parse_problem(with_goal("(cooked ?a.n.01_1)", init="(not (cooked a.n.01_1)) (open b.n.01_1)"))
    assert [lit.to_list() for lit in p.init] == [["not", ["cooked", "a.n.01_1"]], ["open", "b.n.01_1"]]
    assert p.init[0].negated and p.init[0].predicate == "cooked" and p.init[0].args == ("a.n.01_1",)


def test_comments_are_ignored() -> None:
    text = with_goal("(cooked ?a.n.01_1) ; the goal\n").replace("(:init", "; a comment (with parens\n(:init")
    assert parse_problem(text) == parse_problem(with_goal("(cooked ?a.n.01_1)"))


def test_unknown_section_is_skipped_with_a_warning() -> None:
    text = with_goal("(cooked ?a.n.01_1)").replace("(:init", "(:requirements :strips (nested x)) (:init")
    p = parse_problem(text, "u.bddl")
    assert [(n.code, n.severity, str(n.pos)) for n in p.notes] == [("unknown-section", "warning", "u.bddl:1:98")]
    assert p == parse_problem(with_goal("(cooked ?a.n.01_1)"))


def test_objects_sections_merge_and_the_first_declaration_wins() -> None:
    text = (HEAD + " (:objects c.n.01_1 - c.n.01 a.n.01_1 - other.n.01) (:init) (:goal (and)))")
    p = parse_problem(text, "d.bddl")
    assert p.objects == {"a.n.01_1": "a.n.01", "a.n.01_2": "a.n.01", "b.n.01_1": "b.n.01", "c.n.01_1": "c.n.01"}
    assert [(d.instance, d.type) for d in p.duplicates] == [("a.n.01_1", "other.n.01")]
    assert [n.code for n in p.notes] == ["duplicate-section", "duplicate-instance"]
    assert [d.instance for d in p.decls] == ["a.n.01_1", "a.n.01_2", "b.n.01_1", "c.n.01_1", "a.n.01_1"]


def test_duplicate_within_one_line_keeps_the_first_type() -> None:
    text = "(define (problem p) (:domain d) (:objects x y - t1 z y - t2) (:init) (:goal (and)))"
    p = parse_problem(text)
    assert p.objects == {"x": "t1", "y": "t1", "z": "t2"}
    assert [(d.instance, d.type, d.pos.col) for d in p.duplicates] == [("y", "t2", text.index("y - t2") + 1)]


def test_empty_init_and_empty_and_goal() -> None:
    p = parse_problem(with_goal("(and)", init=""))
    assert p.init == () and p.goal == And(())
    assert parse_problem(write_problem(p)) == p


def test_writer_keeps_an_instance_apart_from_a_same_named_variable() -> None:
    # Instance 'x' inside the scope of variable '?x' must not come back as the variable.
    text = "(define (problem p) (:domain d) (:objects x - t) (:init) (:goal (forall (?x - t) (p ?x x))))"
    p = parse_problem(text)
    assert p.goal.body.args == ("?x", "x")
    assert "(p ?x x)" in write_problem(p) and parse_problem(write_problem(p)) == p


def test_writer_prefixes_goal_instances_and_keeps_variables() -> None:
    g = parse_problem(with_goal("(forall (?x - a.n.01) (ontop ?x b.n.01_1))")).goal
    assert write_formula(g).split() == ["(forall", "(?x", "-", "a.n.01)", "(ontop", "?x", "?b.n.01_1)", ")"]


def at(text: str, marker: str) -> tuple[int, int]:
    """1-based (line, col) of the first ``marker`` in ``text``; an empty marker means end of text."""
    offset = text.index(marker) if marker else len(text)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


# (text, message fragment, where the error points: the first occurrence of this marker)
SYNTAX_ERRORS = [
    ("", "unexpected end of input", ""),
    ("(define (problem p)", "unexpected end of input", ""),
    ("(define (problem p) (:domain d) (:objects x - t) (:init))", "missing section(s) :goal", "(define"),
    ("(defin (problem p))", "expected 'define'", "defin"),
    ("(define\n  (problem p)\n  (:objects x y))", "instance 'x' has no type", "x y"),
    ("(define (problem p) (:domain d) (:objects - t))", "type given with no instances", "- t"),
    (HEAD + " (:init (ontop (a) b)) (:goal (and)))", "unexpected '(' in arguments of 'ontop'", "(a)"),
    (HEAD + " (:init) (:goal (forn (x) (?v - a.n.01) (cooked ?v))))", "forn count must be", "x)"),
    (HEAD + " (:init) (:goal (forn (²) (?v - a.n.01) (cooked ?v))))", "forn count must be", "²"),
    (HEAD + " (:init) (:goal (fornpairs (٣) (?v - a.n.01) (?w - b.n.01) (ontop ?v ?w))))", "count must be", "٣"),
    (HEAD + " (:init) (:goal (forall (v - a.n.01) (cooked v))))", "must start with '?'", "v -"),
    (HEAD + " (:init) (:goal (forall (?v a.n.01) (cooked ?v))))", "expected '-', found 'a.n.01'", "a.n.01) (c"),
    (HEAD + " (:init) (:goal (forall (?v - ) (cooked ?v))))", "expected variable type, found ')'", ") (c"),
    (HEAD + " (:init (not open a.n.01_1)) (:goal (and)))", "expected '(', found 'open'", "open"),
    (HEAD + " (:init (not (open a.n.01_1) x) (:goal (and)))", "expected ')', found 'x'", "x)"),
    (HEAD + " (:init ()) (:goal (and)))", "expected predicate, found ')'", ")) (:goal"),
    (HEAD + " (:init) (:goal ()))", "expected connective or predicate", ")))"),
    (HEAD + " (:init) (:goal (and (cooked ?a.n.01_1 (x)))))", "unexpected '(' in arguments of 'cooked'", "(x)"),
    (HEAD + " (:init) (:goal (cooked (x))))", "unexpected '(' in arguments of 'cooked'", "(x)"),
    (HEAD + " (:init) (:goal (and (cooked", "unexpected end of input", ""),
    (HEAD + " (:init) (:goal (and (imply (cooked ?a.n.01_1) x))))", "expected '(', found 'x'", "x)"),
    (HEAD + " (:init (open a.n.01_1", "unexpected end of input", ""),
    (HEAD + " (:unknown (x (y)) (:init) (:goal (and)))", "unexpected end of input", ""),
    (HEAD + " (:init) (:goal (and))) extra", "unexpected 'extra' after", "extra"),
    (HEAD + " (:init) (:goal (and)))\n)", "unexpected ')' after", "\n)"),
    # :init never closed: the goal section is read as a literal and fails inside it.
    (HEAD + " (:init (ontop a.n.01_1 b.n.01_1) (:goal (and)))", "unexpected '(' in arguments of ':goal'", "(and)"),
]


@pytest.mark.parametrize(("text", "message", "marker"), SYNTAX_ERRORS)
def test_syntax_errors_carry_message_and_position(text: str, message: str, marker: str) -> None:
    with pytest.raises(BDDLSyntaxError) as info:
        parse_problem(text, "bad.bddl")
    err = info.value
    line, col = at(text, marker)
    if marker == "\n)":
        line, col = line + 1, 1
    assert message in err.message
    assert (err.pos.file, err.pos.line, err.pos.col) == ("bad.bddl", line, col)
    assert str(err).startswith(f"bad.bddl:{line}:{col}: ")
    assert isinstance(err, BDDLError) and "\n" not in str(err)


def test_missing_objects_section_means_no_objects() -> None:
    p = parse_problem("(define (problem p) (:domain d) (:init) (:goal (and)))")
    assert p.objects == {} and p.init == ()
