"""Formula surgery the goal rewrites share: the conjuncts of a goal, its placement atoms, and a
goal with atoms mapped, renamed or left out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from symplan_core.bddl import And, Atom, Formula, Imply, Not, Or, Quantifier
from symplan_core.bddl.checks import (
    goal_atoms,
    iter_quantifiers,
)
from symplan_core.engine.predicates import (
    ATTACHMENT_RELATIONS,
    SUPPORT_RELATIONS,
)

#: Where an object is: it rests on or in one thing, or hangs, lies or is fixed on one.
WHERE_RELATIONS = SUPPORT_RELATIONS + ATTACHMENT_RELATIONS


def args_of(f: Formula) -> set[str]:
    """Every argument of every atom of ``f`` (instances and variables)."""
    return {a for atom, _, _ in goal_atoms(f) for a in atom.args}


def mapped(f: Formula, change: Callable[[Atom, dict[str, str]], Atom], types: dict[str, str] | None = None,
            choices: bool = False) -> Formula:
    """``f`` with each atom replaced by ``change(atom, the types of the variables in scope)``; inside
    an ``or``/``imply`` only with ``choices`` (a rewrite of what a literal means reads an LLM goal's
    choices as written; a renaming must reach every use of a name)."""
    types = types or {}
    if isinstance(f, Atom):
        return change(f, types)
    if isinstance(f, Not):
        return Not(mapped(f.body, change, types, choices))
    if isinstance(f, And) or (choices and isinstance(f, Or)):
        return type(f)(tuple(mapped(p, change, types, choices) for p in f.parts))
    if isinstance(f, Imply) and choices:
        return Imply(mapped(f.antecedent, change, types, choices), mapped(f.consequent, change, types, choices))
    if isinstance(f, Quantifier):
        return replace(f, body=mapped(f.body, change, {**types, **{p.var: p.type for p in f.params}}, choices))
    return f


def renamed(f: Formula, names: dict[str, str]) -> Formula:
    """``f`` with each argument in ``names`` (compared without a leading ``?``) renamed, wherever it is used."""
    return mapped(f, lambda atom, _types: Atom(atom.predicate, tuple(names.get(a.lstrip("?"), a) for a in atom.args)),
                   choices=True)


def without(goal: Formula, dropped: Callable[[Atom, dict[str, str], bool], bool]) -> Formula | None:
    """``goal`` with each atom for which ``dropped(atom, variable types, polarity)`` holds left out,
    and each ``and``, ``not`` or quantifier left empty by that; None if nothing is left.
    Disjunctions and implications are read as written."""

    def kept(f: Formula, types: dict[str, str], positive: bool) -> Formula | None:
        if isinstance(f, Atom):
            return None if dropped(f, types, positive) else f
        if isinstance(f, Not):
            body = kept(f.body, types, not positive)
            return Not(body) if body is not None else None
        if isinstance(f, And):
            parts = tuple(p for part in f.parts if (p := kept(part, types, positive)) is not None)
            return And(parts) if parts else None
        if isinstance(f, Quantifier):
            body = kept(f.body, {**types, **{p.var: p.type for p in f.params}}, positive)
            return replace(f, body=body) if body is not None else None
        return f

    return kept(goal, {}, True)


def conjuncts(goal: Formula) -> tuple[Formula, ...]:
    return goal.parts if isinstance(goal, And) else (goal,)


def each_quantifier(goal: Formula, rewrite: Callable[[Quantifier, Formula], Formula]) -> Formula:
    """``goal`` with each quantifier reached through ``and``/``not`` (innermost first) replaced by
    ``rewrite(quantifier, its body already rewritten)``; disjunctions and implications as written."""
    if isinstance(goal, And):
        return And(tuple(each_quantifier(p, rewrite) for p in goal.parts))
    if isinstance(goal, Not):
        return Not(each_quantifier(goal.body, rewrite))
    if isinstance(goal, Quantifier):
        return rewrite(goal, each_quantifier(goal.body, rewrite))
    return goal


def where_literals(goal: Formula, relations: tuple[str, ...] = WHERE_RELATIONS) -> list[tuple[Atom, dict[str, str]]]:
    """The goal's positive placement atoms (``relations``, :data:`WHERE_RELATIONS` unless said) with
    the variable types around each."""
    return [(atom, types) for atom, positive, types in goal_atoms(goal)
            if positive and atom.predicate in relations and len(atom.args) == 2]


def exists_vars(goal: Formula) -> set[str]:
    """The variables ``exists`` binds anywhere in ``goal`` (for :func:`subject_of`)."""
    return {p.var for q in iter_quantifiers(goal) if q.kind == "exists" for p in q.params}


def subject_of(arg: str, types: dict[str, str], some: set[str]) -> str | None:
    """What a placement atom places: an instance, or every instance of a variable's type; None for
    a variable that some quantifier binds with ``exists`` (``some``): two such clauses may speak of
    two different things ("some lights on the bushes, some on the nail")."""
    if arg in some:
        return None
    return f"every {types[arg]}" if arg in types else arg.lstrip("?")


def is_literal(f: Formula) -> bool:
    return isinstance(f, Atom) or (isinstance(f, Not) and isinstance(f.body, Atom))
