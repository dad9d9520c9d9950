"""Action discovery phases on small synthetic inputs, and one run on B-1K."""

from __future__ import annotations

from collections import Counter

from symplan_core.bddl import parse_problem
from symplan_core.discovery import (
    Requirement,
    classify,
    discover,
    infer,
    propose,
    scan,
    specs_from_json,
    verb_of,
)
from symplan_core.engine.actions import BASE_ACTIONS, action_set, discovered_actions
from symplan_core.planners.discovery_solver import solve_with
from symplan_core.tasks import list_tasks, load_problem


def _problem(goal: str, name: str = "t") -> object:
    return parse_problem(f"""(define (problem {name}-0) (:domain omnigibson)
      (:objects shirt.n.01_1 - shirt.n.01 radio.n.01_1 - radio.n.01 floor.n.01_1 - floor.n.01
                agent.n.01_1 - agent.n.01)
      (:init (ontop shirt.n.01_1 floor.n.01_1) (ontop radio.n.01_1 floor.n.01_1) (toggled_on radio.n.01_1)
             (inroom floor.n.01_1 kitchen) (ontop agent.n.01_1 floor.n.01_1))
      (:goal {goal}))""")


def test_scan_collects_predicates_with_polarity():
    reqs = scan([_problem("(and (folded ?shirt.n.01_1) (not (toggled_on ?radio.n.01_1)))")])
    assert reqs == Counter({Requirement("folded", True, 1): 1, Requirement("toggled_on", False, 1): 1})


def test_classify_separates_direct_inverse_missing_and_handled():
    reqs = Counter({Requirement("ontop", True, 2): 3, Requirement("toggled_on", False, 1): 1,
                    Requirement("folded", True, 1): 2, Requirement("touching", True, 2): 1})
    rules = {c.requirement.predicate: c.rule for c in classify(reqs, BASE_ACTIONS)}
    assert rules == {"ontop": "direct", "toggled_on": "inverse", "folded": "missing", "touching": "handled"}


def test_infer_names_actions_from_predicate_morphology():
    assert verb_of("folded") == "fold"
    assert verb_of("draped") == "drape"
    assert verb_of("attached") == "attach"
    assert verb_of("frozen") == "freeze"
    reqs = classify(Counter({Requirement("toggled_on", False, 1): 1}), BASE_ACTIONS)
    assert infer(reqs[0]) == ("toggle_off", ("obj",))


def test_proposed_spec_has_the_achieving_effect():
    item = classify(Counter({Requirement("folded", True, 1): 1}), BASE_ACTIONS)[0]
    spec = propose(item)
    assert spec.name == "fold" and "add:folded:obj" in spec.effects and "near:obj" in spec.pre


def test_validate_accepts_only_actions_that_solve_something():
    problems = {"fold": _problem("(folded ?shirt.n.01_1)", "fold"),
                "off": _problem("(not (toggled_on ?radio.n.01_1))", "off")}
    report = discover(problems, list(BASE_ACTIONS), "b100", solve_with)
    accepted = {p.spec.name for p in report.proposals if p.accepted}
    assert accepted == {"fold", "toggle_off"}
    assert report.table()["resolved_coverage"] == 1.0
    emitted = specs_from_json(report.emitted)
    assert {s.name for s in emitted} == accepted


def test_discovery_on_b1k_grows_the_b100_library():
    problems = {n: load_problem(n, "b1k") for n in list_tasks("b1k")}
    report = discover(problems, list(action_set("b100").values()), "b100", solve_with)
    table = report.table()
    assert table["base_actions"] == 14
    assert table["uncovered_goal_predicates"] >= 15
    assert table["accepted_additions"] >= 10
    names = {p.spec.name for p in report.proposals if p.accepted}
    assert {"fold", "attach", "toggle_off", "make", "fill"} <= names


def test_committed_discovered_actions_match_a_fresh_run():
    """discovered_actions.json is the emit phase's output, not hand-written."""
    problems = {n: load_problem(n, "b1k") for n in list_tasks("b1k")}
    report = discover(problems, list(action_set("b100").values()), "b100", solve_with)
    fresh = {s.name for s in specs_from_json(report.emitted)}
    paper = set(action_set("b1k"))
    assert {a.name for a in discovered_actions()} == fresh - paper
