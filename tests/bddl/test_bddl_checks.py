"""Semantic checks on small synthetic problems: each code fires where it should, only there."""

from __future__ import annotations

from symplan_core.bddl import Diagnostic, parse_problem
from symplan_core.bddl.checks import check_problem


def problem_text(objects: list[str], init: str, goal: str, domain: str = "omnigibson") -> str:
    """Fixed layout: objects from line 4; init and goal each on one line, at column 9."""
    lines = ["(define (problem synthetic)", f"    (:domain {domain})", "    (:objects"]
    lines += [f"        {o}" for o in objects]
    lines += ["    )", "    (:init", f"        {init}", "    )", "    (:goal", f"        {goal}", "    )", ")"]
    return "\n".join(lines) + "\n"


BASE_OBJECTS = ["apple.n.01_1 apple.n.01_2 - apple.n.01", "table.n.02_1 - table.n.02"]
INIT_LINE, GOAL_LINE = 8, 11  # with the two BASE_OBJECTS lines


def diagnose(init: str, goal: str, objects: list[str] = BASE_OBJECTS, domain: str = "omnigibson") -> list[Diagnostic]:
    return check_problem(parse_problem(problem_text(objects, init, goal, domain), "syn.bddl"))


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def test_clean_problem_has_no_diagnostics() -> None:
    diags = diagnose("(ontop apple.n.01_1 table.n.02_1) (not (cooked apple.n.01_2))",
                     "(forall (?apple.n.01 - apple.n.01) (ontop ?apple.n.01 ?table.n.02_1))")
    assert diags == []


def test_undeclared_instance_in_init_and_goal() -> None:
    diags = diagnose("(ontop pear.n.01_1 table.n.02_1)", "(cooked ?banana.n.02_1)")
    assert codes(diags) == ["undeclared-instance", "undeclared-instance"]
    assert all(d.severity == "error" for d in diags)
    assert "pear.n.01_1" in diags[0].message and ":init" in diags[0].message
    assert "banana.n.02_1" in diags[1].message and ":goal" in diags[1].message
    # Positions: the atom's '(' on the init and goal lines.
    assert (str(diags[0].pos), str(diags[1].pos)) == (f"syn.bddl:{INIT_LINE}:9", f"syn.bddl:{GOAL_LINE}:9")


def test_room_argument_of_inroom_is_not_an_instance() -> None:
    assert diagnose("(inroom table.n.02_1 kitchen)", "(cooked ?apple.n.01_1)") == []


def test_unbound_variable_is_not_reported_as_an_instance() -> None:
    # '?x' names no declared instance and no bound variable: read as instance 'x'.
    diags = diagnose("(cooked apple.n.01_1)", "(cooked ?x)")
    assert codes(diags) == ["undeclared-instance"] and "'x'" in diags[0].message


def test_quantifier_over_undeclared_type() -> None:
    diags = diagnose("(cooked apple.n.01_1)", "(exists (?pear.n.01 - pear.n.01) (cooked ?pear.n.01))")
    assert codes(diags) == ["undeclared-type"]
    assert diags[0].severity == "error" and "pear.n.01" in diags[0].message
    assert (diags[0].pos.line, diags[0].pos.col) == (GOAL_LINE, 17)  # the '(' of the parameter


def test_a_quantified_variable_its_body_never_uses_is_a_warning_with_its_position() -> None:
    # 13 released BEHAVIOR goals have one ("(forall (?log - log) (ontop ?log_1 ?floor_2))").
    diags = diagnose("(cooked apple.n.01_1)",
                     "(and (forpairs (?apple.n.01 - apple.n.01) (?table.n.02 - table.n.02) (ontop ?apple.n.01 ?table.n.02_1)))")
    assert [(d.severity, d.code) for d in diags] == [("warning", "unused-variable")]
    assert "'?table.n.02'" in diags[0].message and diags[0].pos.line == GOAL_LINE
    used = diagnose("(cooked apple.n.01_1)",
                    "(and (forpairs (?apple.n.01 - apple.n.01) (?table.n.02 - table.n.02) (ontop ?apple.n.01 ?table.n.02)))")
    assert used == []


def test_wrong_arity_both_ways() -> None:
    diags = diagnose("(ontop apple.n.01_1)", "(cooked ?apple.n.01_1 ?table.n.02_1)")
    assert codes(diags) == ["arity", "arity"]
    assert "ontop takes 2 argument(s), got 1" in diags[0].message
    assert "cooked takes 1 argument(s), got 2" in diags[1].message


def test_unknown_predicate_depends_on_the_dialect() -> None:
    # onfloor is igibson-only; covered is omnigibson-only.
    assert codes(diagnose("(onfloor apple.n.01_1 table.n.02_1)", "(cooked ?apple.n.01_1)")) == [
        "unknown-predicate"]
    assert diagnose("(onfloor apple.n.01_1 table.n.02_1)", "(cooked ?apple.n.01_1)", domain="igibson") == []
    assert codes(diagnose("(covered apple.n.01_1 table.n.02_1)", "(cooked ?apple.n.01_1)",
                          domain="igibson")) == ["unknown-predicate"]


def test_unknown_predicate_is_not_also_an_arity_error() -> None:
    assert codes(diagnose("(glowing apple.n.01_1 table.n.02_1 apple.n.01_2)", "(cooked ?apple.n.01_1)")) == [
        "unknown-predicate"]


OBJECTS_WITH_FUTURE = [*BASE_OBJECTS, "cake.n.03_1 - cake.n.03"]


def test_unreachable_future_object_is_a_warning() -> None:
    diags = diagnose("(future cake.n.03_1)", "(cooked ?apple.n.01_1)", OBJECTS_WITH_FUTURE)
    assert codes(diags) == ["unreachable-future"] and diags[0].severity == "warning"
    assert (diags[0].pos.line, diags[0].pos.col) == (INIT_LINE + 1, 9)  # one more object line


def test_future_object_made_real_by_name_or_by_type_is_reachable() -> None:
    assert diagnose("(future cake.n.03_1)", "(real ?cake.n.03_1)", OBJECTS_WITH_FUTURE) == []
    by_type = "(exists (?cake.n.03 - cake.n.03) (real ?cake.n.03))"
    assert diagnose("(future cake.n.03_1)", by_type, OBJECTS_WITH_FUTURE) == []


def test_future_object_used_in_init_is_an_error() -> None:
    diags = diagnose("(future cake.n.03_1) (ontop cake.n.03_1 table.n.02_1)", "(real ?cake.n.03_1)",
                     OBJECTS_WITH_FUTURE)
    assert codes(diags) == ["future-in-init"] and diags[0].severity == "error"


def test_parser_warnings_come_first() -> None:
    objects = ["apple.n.01_1 apple.n.01_1 - apple.n.01", "table.n.02_1 - table.n.02"]
    diags = diagnose("(ontop apple.n.01_1 table.n.02_1) (cooked pear.n.01_1)", "(cooked ?apple.n.01_1)", objects)
    assert codes(diags) == ["duplicate-instance", "undeclared-instance"]


def test_diagnostic_text_and_json_carry_the_position() -> None:
    diag = diagnose("(cooked pear.n.01_1)", "(cooked ?apple.n.01_1)")[0]
    assert str(diag).startswith("syn.bddl:8:9: error: ") and str(diag).endswith("[undeclared-instance]")
    assert diag.to_json() == {"severity": "error", "code": "undeclared-instance", "message": diag.message,
                              "file": "syn.bddl", "line": INIT_LINE, "col": 9}


def test_goal_arguments_stand_for_their_instances_and_a_question_marked_instance_is_itself() -> None:
    from symplan_core.bddl.checks import argument_instances, argument_type, goal_atoms

    problem = parse_problem(problem_text(BASE_OBJECTS, "(ontop apple.n.01_1 table.n.02_1)",
                                         "(and (forall (?a - apple.n.01) (ontop ?a table.n.02_1)) "
                                         "(cooked ?apple.n.01_2))"), "syn.bddl")
    seen = {atom.predicate: [(argument_type(a, types, problem.objects), argument_instances(a, types, problem.objects))
                             for a in atom.args] for atom, _positive, types in goal_atoms(problem.goal)}
    assert seen["ontop"] == [("apple.n.01", ["apple.n.01_1", "apple.n.01_2"]), ("table.n.02", ["table.n.02_1"])]
    assert seen["cooked"] == [("apple.n.01", ["apple.n.01_2"])]
    assert argument_type("pear.n.01_1", {}, problem.objects) is None
    assert argument_instances("pear.n.01_1", {}, problem.objects) == ["pear.n.01_1"]


def test_a_variable_left_outside_its_quantifier_by_a_rewrite_is_unbound() -> None:
    # The parser reads such a '?name' as an instance; a goal rewritten in memory (perception's
    # goal mending) can still hold one, and the engine would fail on it with a KeyError.
    from dataclasses import replace

    from symplan_core.bddl import And, Atom, Or, Param, Quantifier

    problem = parse_problem(problem_text(BASE_OBJECTS, "(cooked apple.n.01_1)", "(cooked ?apple.n.01_1)"), "syn.bddl")
    left = Atom("ontop", ("?apple.n.01", "?table.n.02"))
    goal = And((Quantifier("forall", (Param("?apple.n.01", "apple.n.01"),), Or((left, Atom("cooked", ("?apple.n.01",))))),))
    diags = check_problem(replace(problem, goal=goal))
    assert codes(diags) == ["unbound-variable"] and "'?table.n.02'" in diags[0].message
    bound = And((Quantifier("forall", (Param("?table.n.02", "table.n.02"),), goal),))
    assert check_problem(replace(problem, goal=bound)) == []
