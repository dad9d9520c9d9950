"""igibson (B-100) <-> omnigibson (B-1K) predicate normalization."""

from __future__ import annotations

from pathlib import Path

import pytest

from symplan_core.bddl import Atom, Problem, parse_problem
from symplan_core.bddl.checks import check_problem, iter_atoms
from symplan_core.bddl.normalize import to_igibson, to_omnigibson
from symplan_core.bddl.vocabulary import IGIBSON, OMNIGIBSON

IGIBSON_ONLY = {"onfloor", "stained", "dusty", "soaked"}
#: igibson predicates with no omnigibson counterpart: documented as passing through unchanged.
PASS_THROUGH = set(IGIBSON) - set(OMNIGIBSON) - IGIBSON_ONLY


def b100(corpus: dict[Path, Problem]) -> list[Problem]:
    problems = [p for path, p in corpus.items() if "/b100/" in str(path)]
    assert len(problems) == 100
    return problems


def literals(p: Problem) -> list[list]:
    return [lit.to_list() for lit in p.init]


def igibson(init: str, goal: str, objects: str = "shelf.n.01_1 - shelf.n.01 floor.n.01_1 - floor.n.01") -> Problem:
    return parse_problem(f"(define (problem t) (:domain igibson) (:objects {objects}) (:init {init}) (:goal {goal}))")


@pytest.mark.slow
def test_every_b100_problem_round_trips_igibson_omnigibson_igibson(corpus) -> None:
    for problem in b100(corpus):
        back = to_igibson(to_omnigibson(problem))
        assert back == problem, problem.name


@pytest.mark.slow
def test_normalized_b100_uses_only_the_omnigibson_vocabulary(corpus) -> None:
    for problem in b100(corpus):
        omni = to_omnigibson(problem)
        assert omni.domain == "omnigibson"
        used = {lit.predicate for lit in omni.init} | {a.predicate for a in iter_atoms(omni.goal)}
        assert not used & IGIBSON_ONLY, problem.name
        for diag in check_problem(omni):
            if diag.code == "unknown-predicate":
                assert diag.message.split("'")[1] in PASS_THROUGH, diag
            else:
                assert diag.severity != "error", diag


def test_onfloor_becomes_ontop_and_back() -> None:
    p = igibson("(onfloor shelf.n.01_1 floor.n.01_1)", "(onfloor ?shelf.n.01_1 ?floor.n.01_1)")
    omni = to_omnigibson(p)
    assert literals(omni) == [["ontop", "shelf.n.01_1", "floor.n.01_1"]]
    assert omni.goal == Atom("ontop", ("shelf.n.01_1", "floor.n.01_1"))
    assert to_igibson(omni) == p


@pytest.mark.parametrize(("igibson_pred", "omni_pred", "substance"), [
    ("stained", "covered", "stain.n.01"),
    ("dusty", "covered", "dust.n.01"),
    ("soaked", "saturated", "water.n.06"),
])
def test_substance_rules_add_one_substance_instance(igibson_pred: str, omni_pred: str, substance: str) -> None:
    p = igibson(f"({igibson_pred} shelf.n.01_1)", f"(not ({igibson_pred} ?shelf.n.01_1))")
    omni = to_omnigibson(p)
    inst = f"{substance}_1"
    assert literals(omni) == [[omni_pred, "shelf.n.01_1", inst]]
    assert omni.goal.to_list() == ["not", [omni_pred, "shelf.n.01_1", inst]]
    assert omni.objects[inst] == substance and len(omni.objects) == len(p.objects) + 1
    assert check_problem(omni) == []
    assert to_igibson(omni) == p


def test_substance_instance_skips_a_taken_name() -> None:
    # B-100 declares rigid water.n.06_1 bottles; soaking must not reuse that name.
    p = igibson("(soaked shelf.n.01_1)", "(soaked ?shelf.n.01_1)",
                "shelf.n.01_1 - shelf.n.01 water.n.06_1 - water.n.06")
    omni = to_omnigibson(p)
    assert literals(omni) == [["saturated", "shelf.n.01_1", "water.n.06_2"]]
    assert to_igibson(omni) == p


def test_quantified_variables_are_rewritten_too() -> None:
    p = igibson("(dusty shelf.n.01_1)", "(forall (?shelf.n.01 - shelf.n.01) (not (dusty ?shelf.n.01)))")
    omni = to_omnigibson(p)
    assert omni.goal.to_list() == ["forall", ["?shelf.n.01", "shelf.n.01"],
                                   ["not", ["covered", "?shelf.n.01", "dust.n.01_1"]]]
    assert to_igibson(omni) == p


def test_pass_through_predicates_are_unchanged() -> None:
    p = igibson("(sliced shelf.n.01_1) (not (burnt shelf.n.01_1))", "(perished ?shelf.n.01_1)")
    omni = to_omnigibson(p)
    assert literals(omni) == literals(p) and omni.goal == p.goal and omni.objects == p.objects


def test_each_direction_is_identity_on_its_own_dialect(corpus) -> None:
    omni = next(p for p in corpus.values() if p.domain == "omnigibson")
    ig = next(p for p in corpus.values() if p.domain == "igibson")
    assert to_omnigibson(omni) is omni and to_igibson(ig) is ig
