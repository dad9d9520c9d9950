"""Every real BEHAVIOR problem (B-100 + B-1K) through the parser, checks and writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from symplan_core.bddl import (
    And,
    Atom,
    BDDLSyntaxError,
    Not,
    ObjectDecl,
    Param,
    Problem,
    Quantifier,
    SourcePos,
    parse_file,
    parse_problem,
)
from symplan_core.bddl.checks import check_problem, iter_atoms, iter_quantifiers
from symplan_core.bddl.writer import write_problem

pytestmark = pytest.mark.slow


def test_corpus_has_all_1116_problems(behavior_files: dict[str, list[Path]]) -> None:
    assert {b: len(f) for b, f in behavior_files.items()} == {"b100": 100, "b1k": 1016}


def test_every_file_parses_without_syntax_error(corpus_texts: dict[Path, str]) -> None:
    failures = []
    for path, text in corpus_texts.items():
        try:
            parse_problem(text, str(path))
        except BDDLSyntaxError as exc:
            failures.append(str(exc))
    assert failures == []


def test_every_file_has_no_error_diagnostic(corpus: dict[Path, Problem]) -> None:
    errors = [str(d) for p in corpus.values() for d in check_problem(p) if d.severity == "error"]
    assert errors == []


def test_every_file_round_trips_through_the_writer(corpus: dict[Path, Problem]) -> None:
    broken = [str(path) for path, p in corpus.items() if parse_problem(write_problem(p)) != p]
    assert broken == []


def test_writer_output_is_a_fixed_point(corpus: dict[Path, Problem]) -> None:
    for problem in list(corpus.values())[::37]:
        text = write_problem(problem)
        assert write_problem(parse_problem(text)) == text


def test_dialects_are_kept_as_written(corpus: dict[Path, Problem]) -> None:
    domains = {("b100" if "/b100/" in str(path) else "b1k", p.domain) for path, p in corpus.items()}
    assert domains == {("b100", "igibson"), ("b1k", "omnigibson")}


def test_parse_file_records_the_path_in_positions(real_file) -> None:
    path = real_file("b100", "assembling_gift_baskets")
    problem = parse_file(path)
    assert problem.source == str(path)
    assert problem.decls[0].pos.file == str(path)


# -- hand-checked positions (line/col counted in an editor; tabs are one column) -----------
def test_object_positions_count_tabs_as_one_column(real_file) -> None:
    problem = parse_file(real_file("b100", "assembling_gift_baskets"))
    first, floor = problem.decls[0], problem.decls[4]
    assert (first.instance, first.pos.line, first.pos.col) == ("basket.n.01_1", 5, 7)
    assert (floor.instance, floor.pos.line, floor.pos.col) == ("floor.n.01_1", 6, 6)


def test_goal_node_positions_point_at_their_open_paren(real_file) -> None:
    problem = parse_file(real_file("b100", "assembling_gift_baskets"))
    assert isinstance(problem.goal, And)
    assert (problem.goal.pos.line, problem.goal.pos.col) == (43, 9)
    forpairs = problem.goal.parts[0]
    assert isinstance(forpairs, Quantifier) and forpairs.kind == "forpairs"
    assert (forpairs.pos.line, forpairs.pos.col) == (44, 13)
    assert [(p.pos.line, p.pos.col) for p in forpairs.params] == [(45, 17), (46, 17)]
    assert isinstance(forpairs.body, Atom)
    assert (forpairs.body.pos.line, forpairs.body.pos.col) == (47, 17)


def test_duplicate_instance_is_reported_at_the_second_declaration(real_file) -> None:
    path = real_file("b1k", "passing_out_drinks")
    problem = parse_file(path)
    assert [(d.instance, d.pos.line, d.pos.col) for d in problem.duplicates] == [
        ("beer_bottle.n.01_1", 6, 28), ("wineglass.n.01_1", 11, 26)]
    notes = [n for n in problem.notes if n.code == "duplicate-instance"]
    assert [str(n.pos) for n in notes] == [f"{path}:6:28", f"{path}:11:26"]
    # The model keeps one entry per instance, in first-declaration order.
    assert list(problem.objects).count("beer_bottle.n.01_1") == 1
    assert len(problem.decls) == len(problem.objects) + 2


def test_stray_backslash_is_a_warning_not_an_error(real_file) -> None:
    path = real_file("b1k", "wash_a_baseball_cap")
    problem = parse_file(path)
    stray = [n for n in problem.notes if n.code == "stray-token"]
    assert [(n.severity, n.pos.line, n.pos.col) for n in stray] == [("warning", 22, 6)]
    assert "'\\\\'" in stray[0].message
    assert problem.init and isinstance(problem.goal, And)


def test_two_formula_goal_is_read_as_one_conjunction(real_file) -> None:
    path = real_file("b1k", "loading_the_car")
    problem = parse_file(path)
    assert isinstance(problem.goal, And)
    assert [p.to_list() for p in problem.goal.parts] == [
        ["inside", "container.n.01_1", "car.n.01_1"],
        ["inside", "digital_camera.n.01_1", "container.n.01_1"],
        ["inside", "tennis_racket.n.01_1", "car.n.01_1"],
        ["not", ["open", "car.n.01_1"]],
    ]
    assert isinstance(problem.goal.parts[3], Not)
    assert (problem.goal.parts[3].pos.line, problem.goal.parts[3].pos.col) == (31, 9)
    note = [n for n in problem.notes if n.code == "implicit-goal-conjunction"]
    assert [(n.pos.line, n.pos.col) for n in note] == [(25, 5)]


# -- corpus features --------------------------------------------------------------------
def test_wildcard_instances_are_declared_and_referenced(corpus: dict[Path, Problem]) -> None:
    wild = {p.name: [i for i in p.objects if i.endswith("_*")] for p in corpus.values()}
    wild = {k: v for k, v in wild.items() if v}
    assert len(wild) >= 10
    for problem in corpus.values():
        for inst in (i for i in problem.objects if i.endswith("_*")):
            assert problem.objects[inst] == inst[: -len("_*")]
            assert any(inst in lit.args for lit in problem.init)


def test_hyphen_and_double_underscore_synsets_survive(corpus: dict[Path, Problem]) -> None:
    types = {t for p in corpus.values() for t in p.objects.values()}
    assert {"hard-boiled_egg.n.01", "lemon-pepper_seasoning.n.01", "bottle__of__champagne.n.01",
            "cooked__lemon-pepper_seasoning.n.01"} <= types
    # A hyphen inside a name is never confused with the ' - ' type separator.
    for problem in corpus.values():
        assert all(d.type != "-" and d.instance != "-" for d in problem.decls)


def test_question_mark_instance_refs_lose_the_mark_but_variables_keep_it(real_file) -> None:
    problem = parse_file(real_file("b100", "assembling_gift_baskets"))
    variables = {p.var for q in iter_quantifiers(problem.goal) for p in q.params}
    for atom in iter_atoms(problem.goal):
        for arg in atom.args:
            assert arg in variables or (not arg.startswith("?") and arg in problem.objects)
    assert "?basket.n.01" in variables


def test_every_goal_argument_is_bound_or_declared(corpus: dict[Path, Problem]) -> None:
    for problem in corpus.values():
        for atom in iter_atoms(problem.goal):
            assert all(a.startswith("?") or a in problem.objects for a in atom.args), problem.name


def test_forn_counts_and_quantifier_shapes(corpus: dict[Path, Problem]) -> None:
    kinds: dict[str, int] = {}
    for problem in corpus.values():
        for q in iter_quantifiers(problem.goal):
            kinds[q.kind] = kinds.get(q.kind, 0) + 1
            assert (q.count is not None) == (q.kind in ("forn", "fornpairs"))
            assert len(q.params) == (2 if q.kind in ("forpairs", "fornpairs") else 1)
            assert all(isinstance(p, Param) and p.var.startswith("?") for p in q.params)
    assert set(kinds) == {"forall", "exists", "forn", "forpairs"}
    assert kinds["forn"] >= 10


def test_forn_count_is_read_from_the_file(real_file) -> None:
    problem = parse_file(real_file("b1k", "cleaning_sneakers"))
    forns = [q for q in iter_quantifiers(problem.goal) if q.kind == "forn"]
    assert forns and all(isinstance(q.count, int) and q.count >= 1 for q in forns)
    text = real_file("b1k", "cleaning_sneakers").read_text()
    for q in forns:
        assert f"({q.count})" in text.replace(" ", "")


def test_inroom_keeps_room_names(corpus: dict[Path, Problem]) -> None:
    rooms = {lit.args[1] for p in corpus.values() for lit in p.init if lit.predicate == "inroom"}
    assert {"kitchen", "garage", "dining_room", "utility_room"} <= rooms
    assert not any(r in p.objects for p in corpus.values() for r in rooms)


def test_negated_init_literals_exist_and_keep_their_atom(corpus: dict[Path, Problem]) -> None:
    negated = [lit for p in corpus.values() for lit in p.init if lit.negated]
    assert negated
    assert all(lit.to_list()[0] == "not" and lit.to_list()[1] == lit.atom.to_list() for lit in negated)


def test_positions_are_never_missing_on_real_files(corpus: dict[Path, Problem]) -> None:
    for problem in list(corpus.values())[::50]:
        positions: list[SourcePos] = [d.pos for d in problem.decls]
        positions += [lit.atom.pos for lit in problem.init]
        positions += [a.pos for a in iter_atoms(problem.goal)]
        assert all(p.file == problem.source and p.line >= 1 and p.col >= 1 for p in positions)


def test_objectdecl_and_atom_positions_match_the_text(corpus_texts: dict[Path, str], corpus) -> None:
    # Independent of the parser: the token at (line, col) is what the node says it is.
    for path, text in list(corpus_texts.items())[::40]:
        lines = text.split("\n")
        problem = corpus[path]
        for decl in problem.decls:
            assert lines[decl.pos.line - 1][decl.pos.col - 1:].startswith(decl.instance)
        for lit in problem.init:
            line = lines[lit.atom.pos.line - 1][lit.atom.pos.col - 1:]
            assert line.startswith(f"({lit.predicate}")
        for atom in iter_atoms(problem.goal):
            assert lines[atom.pos.line - 1][atom.pos.col - 1:].startswith(f"({atom.predicate}")


def test_objects_keep_first_declaration_order(corpus: dict[Path, Problem]) -> None:
    for problem in corpus.values():
        assert all(isinstance(d, ObjectDecl) for d in problem.decls)
        expected: dict[str, str] = {}
        for decl in problem.decls:
            expected.setdefault(decl.instance, decl.type)
        assert list(problem.objects.items()) == list(expected.items())
