"""Differential test against bddl 3.6.0's own ``bddl.parsing.parse_problem``.

bddl lowercases everything, keeps ``?`` on instance references, returns objects as
type -> instances (duplicates kept), init as nested lists, and the goal as the list of
top-level conjuncts. ``to_bddl_shape`` converts our model to that shape; the only
normalization applied to bddl's side is dropping ``?`` from names no quantifier binds.
Where bddl is wrong (see docs/bddl.md) the case is tested separately below.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from bddl.parsing import parse_problem as bddl_parse_problem

from symplan_core.bddl import And, Atom, Formula, Imply, Not, Or, Problem, Quantifier, parse_problem

pytestmark = pytest.mark.slow

QUANTIFIERS = ("forall", "exists", "forn", "forpairs", "fornpairs")
#: Files where bddl's answer is wrong; each has its own test below.
BDDL_WRONG = {"loading_the_car"}


def bddl_parse(text: str, domain: str) -> tuple[str, dict, list, list]:
    # bddl prints unrecognized sections to stdout (wash_a_baseball_cap's stray '\').
    with contextlib.redirect_stdout(io.StringIO()):
        return bddl_parse_problem(None, None, domain, predefined_problem=text)


def formula_shape(f: Formula) -> list[Any]:
    if isinstance(f, Atom):
        return [f.predicate.lower(), *(a.lower() for a in f.args)]
    if isinstance(f, (And, Or)):
        return ["and" if isinstance(f, And) else "or", *(formula_shape(p) for p in f.parts)]
    if isinstance(f, Not):
        return ["not", formula_shape(f.body)]
    if isinstance(f, Imply):
        return ["imply", formula_shape(f.antecedent), formula_shape(f.consequent)]
    assert isinstance(f, Quantifier)
    head: list[Any] = [f.kind] + ([[str(f.count)]] if f.count is not None else [])
    return head + [[p.var.lower(), "-", p.type.lower()] for p in f.params] + [formula_shape(f.body)]


def to_bddl_shape(p: Problem) -> tuple[str, dict, list, list]:
    """Our model in bddl's (name, objects, init, goal conjuncts) shape, lowercased."""
    objects: dict[str, list[str]] = {}
    for decl in p.decls:  # decls keep duplicates, as bddl does
        objects.setdefault(decl.type.lower(), []).append(decl.instance.lower())
    init = [formula_shape(lit.atom) if not lit.negated else ["not", formula_shape(lit.atom)] for lit in p.init]
    goal = formula_shape(p.goal)
    return p.name.lower(), objects, init, goal[1:] if goal[0] == "and" else [goal]


def drop_unbound_marks(g: list[Any], bound: frozenset[str] = frozenset()) -> list[Any]:
    """bddl keeps ``?inst`` as written; our model stores instance references bare."""
    head = g[0]
    if head in ("and", "or", "not", "imply"):
        return [head, *(drop_unbound_marks(x, bound) for x in g[1:])]
    if head in QUANTIFIERS:
        params = [x for x in g[1:-1] if len(x) == 3 and x[1] == "-"]
        return [*g[:-1], drop_unbound_marks(g[-1], bound | {p[0] for p in params})]
    return [head, *(a if a in bound or not a.startswith("?") else a[1:] for a in g[1:])]


def bddl_shape(text: str, domain: str) -> tuple[str, dict, list, list]:
    name, objects, init, goal = bddl_parse(text, domain)
    return name, objects, init, [drop_unbound_marks(g) for g in goal]


def test_bddl_agrees_on_every_b1k_file(corpus_texts: dict[Path, str], corpus: dict[Path, Problem]) -> None:
    b1k = [p for p in corpus_texts if "/b1k/" in str(p)]
    assert len(b1k) == 1016
    differ = []
    for path in b1k:
        ours = to_bddl_shape(corpus[path])
        theirs = bddl_shape(corpus_texts[path], "omnigibson")
        parts = [k for k, a, b in zip(("name", "objects", "init", "goal"), ours, theirs, strict=True) if a != b]
        if parts:
            differ.append((path.stem, parts))
    assert differ == [(name, ["goal"]) for name in sorted(BDDL_WRONG)]


def test_bddl_agrees_on_every_b100_file(corpus_texts: dict[Path, str], corpus: dict[Path, Problem]) -> None:
    b100 = [p for p in corpus_texts if "/b100/" in str(p)]
    assert len(b100) == 100
    differ = [p.stem for p in b100 if to_bddl_shape(corpus[p]) != bddl_shape(corpus_texts[p], "igibson")]
    assert differ == []


def test_bddl_drops_all_but_the_first_goal_formula(real_file) -> None:
    path = real_file("b1k", "loading_the_car")
    text = path.read_text()
    ours = parse_problem(text)
    _, _, _, theirs = bddl_shape(text, "omnigibson")
    # bddl reads only `group[1]` of (:goal f1 f2): the `(not (open car))` conjunct is lost.
    assert theirs == [["inside", "container.n.01_1", "car.n.01_1"],
                      ["inside", "digital_camera.n.01_1", "container.n.01_1"],
                      ["inside", "tennis_racket.n.01_1", "car.n.01_1"]]
    assert to_bddl_shape(ours)[3] == [*theirs, ["not", ["open", "car.n.01_1"]]]


SAME_TYPE_TWICE = """(define (problem p) (:domain omnigibson)
  (:objects apple.n.01_1 - apple.n.01 table.n.02_1 - table.n.02 apple.n.01_2 - apple.n.01)
  (:init (ontop apple.n.01_1 table.n.02_1) (ontop apple.n.01_2 table.n.02_1))
  (:goal (and (cooked ?apple.n.01_1))))"""


def test_bddl_forgets_instances_when_a_type_is_declared_twice() -> None:
    # bddl assigns objects[type] = instances per line, so the later line wins.
    _, objects, _, _ = bddl_shape(SAME_TYPE_TWICE, "omnigibson")
    assert objects["apple.n.01"] == ["apple.n.01_2"]
    ours = parse_problem(SAME_TYPE_TWICE)
    assert ours.instances_of("apple.n.01") == ["apple.n.01_1", "apple.n.01_2"]


def test_bddl_lowercases_problem_names(real_file) -> None:
    path = real_file("b100", "putting_away_Christmas_decorations")
    name, _, _, _ = bddl_shape(path.read_text(), "igibson")
    assert name == "putting_away_christmas_decorations_0"
    assert parse_problem(path.read_text()).name == "putting_away_Christmas_decorations_0"


def test_bddl_keeps_the_first_of_two_init_sections_we_keep_the_last_and_warn() -> None:
    text = SAME_TYPE_TWICE.replace("(:goal", "(:init (cooked apple.n.01_1)) (:goal")
    _, _, init, _ = bddl_shape(text, "omnigibson")
    assert init == [["ontop", "apple.n.01_1", "table.n.02_1"], ["ontop", "apple.n.01_2", "table.n.02_1"]]
    ours = parse_problem(text)
    assert [lit.to_list() for lit in ours.init] == [["cooked", "apple.n.01_1"]]
    assert [n.code for n in ours.notes] == ["duplicate-section"]
