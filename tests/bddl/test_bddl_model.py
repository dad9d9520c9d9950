"""The typed model: immutability, equality without positions, lazily resolved fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from symplan_core.bddl import And, Atom, ObjectDecl, Param, Problem, Quantifier, SourcePos, parse_problem
from symplan_core.bddl.checks import iter_atoms, iter_quantifiers
from symplan_core.bddl.model import NO_POS

TEXT = """(define (problem p) (:domain omnigibson)
  (:objects a.n.01_1 a.n.01_2 - a.n.01
            b.n.01_1 - b.n.01)
  (:init (ontop a.n.01_1 b.n.01_1) (not (open b.n.01_1)))
  (:goal (and (forall (?a.n.01 - a.n.01) (ontop ?a.n.01 ?b.n.01_1)) (not (open ?b.n.01_1)))))"""


@pytest.fixture
def problem() -> Problem:
    return parse_problem(TEXT, "m.bddl")


def all_positions(p: Problem) -> list[object]:
    nodes = [p.goal, *p.goal.parts, p.goal.parts[1].body]
    return ([d.pos for d in p.decls] + [lit.atom.pos for lit in p.init] + [n.pos for n in nodes]
            + [a.pos for a in iter_atoms(p.goal)] + [prm.pos for q in iter_quantifiers(p.goal) for prm in q.params])


def test_every_position_reads_as_a_sourcepos(problem: Problem) -> None:
    positions = all_positions(problem)
    assert positions and all(type(pos) is SourcePos and pos.file == "m.bddl" for pos in positions)
    assert [(d.instance, d.pos.line, d.pos.col) for d in problem.decls] == [
        ("a.n.01_1", 2, 13), ("a.n.01_2", 2, 22), ("b.n.01_1", 3, 13)]
    # Reading twice gives the same (cached) object.
    assert problem.decls[0].pos is problem.decls[0].pos


def test_decls_are_objectdecls_in_declaration_order(problem: Problem) -> None:
    assert problem.decls == (ObjectDecl("a.n.01_1", "a.n.01"), ObjectDecl("a.n.01_2", "a.n.01"),
                             ObjectDecl("b.n.01_1", "b.n.01"))
    assert problem.duplicates == ()


def test_nodes_are_frozen(problem: Problem) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.goal.pos = NO_POS  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.name = "q"  # type: ignore[misc]


def test_equality_and_hash_ignore_positions(problem: Problem) -> None:
    parsed = problem.init[0].atom
    by_hand = Atom("ontop", ("a.n.01_1", "b.n.01_1"))
    assert by_hand.pos is NO_POS
    assert parsed == by_hand and hash(parsed) == hash(by_hand) and parsed.pos != by_hand.pos
    assert repr(by_hand) == "Atom(predicate='ontop', args=('a.n.01_1', 'b.n.01_1'))"
    assert "pos" not in repr(problem.goal)


def test_pickle_copy_and_replace_keep_resolved_positions(problem: Problem) -> None:
    expected = [str(pos) for pos in all_positions(problem)]
    for clone in (pickle.loads(pickle.dumps(problem)), copy.deepcopy(problem), copy.copy(problem)):
        assert clone == problem
        assert [str(pos) for pos in all_positions(clone)] == expected
    forall = problem.goal.parts[0]
    assert isinstance(forall, Quantifier)
    moved = dataclasses.replace(forall, body=Atom("cooked", ("?a.n.01",)))
    assert moved.pos == forall.pos and moved.params == forall.params


def test_hand_built_nodes_accept_positions() -> None:
    pos = SourcePos("x.bddl", 3, 4)
    q = Quantifier("exists", (Param("?x", "t", pos),), And((), pos), None, pos)
    assert q.pos is pos and q.params[0].pos is pos and q.body.pos is pos
