"""Fast construction of model nodes for the parser.

The model classes are frozen slotted dataclasses; their generated ``__init__`` sets each
field through ``object.__setattr__`` (and, for ``pos``, through the lazy-field descriptor),
which costs more than the rest of parsing a node. The parser instead allocates with
``object.__new__`` and fills the slots through the raw slot setters below. The objects are
indistinguishable from ones built by ``__init__`` (same class, same field values), so
equality, hashing, pickling and ``dataclasses.replace`` behave the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, Protocol, TypeVar, cast

from symplan_core.bddl.model import And, Atom, Imply, Literal, Not, ObjectDecl, Or, Param, Problem, Quantifier

_Node = TypeVar("_Node")


class _New(Protocol):
    def __call__(self, cls: type[_Node], /) -> _Node: ...


#: ``object.__new__``: an instance of ``cls`` with its slots still unset.
new = cast(_New, object.__new__)


def slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The raw slot setter (bypasses the frozen ``__setattr__`` and the lazy-field descriptor)."""
    attr = cls.__dict__[name]
    return getattr(attr, "slot", attr).__set__


atom_predicate, atom_args, atom_pos = (slot_setter(Atom, n) for n in ("predicate", "args", "pos"))
lit_atom, lit_negated = (slot_setter(Literal, n) for n in ("atom", "negated"))
and_parts, and_pos = slot_setter(And, "parts"), slot_setter(And, "pos")
or_parts, or_pos = slot_setter(Or, "parts"), slot_setter(Or, "pos")
not_body, not_pos = slot_setter(Not, "body"), slot_setter(Not, "pos")
param_var, param_type, param_pos = (slot_setter(Param, n) for n in ("var", "type", "pos"))
decl_instance, decl_type, decl_pos = (slot_setter(ObjectDecl, n) for n in ("instance", "type", "pos"))
imply_antecedent, imply_consequent, imply_pos = (slot_setter(Imply, n) for n in ("antecedent", "consequent", "pos"))
quant_kind, quant_params, quant_body, quant_count, quant_pos = (
    slot_setter(Quantifier, n) for n in ("kind", "params", "body", "count", "pos"))
#: One setter per Problem field, in field order.
PROBLEM_SETTERS = tuple(slot_setter(Problem, f.name) for f in fields(Problem))


def new_problem(*values: object) -> Problem:
    """A Problem from its field values in field order (unrolled: a loop over the setters
    costs twice as much as the nine calls)."""
    name, domain, objects, init, goal, decls, duplicates, source, notes = values
    set_name, set_domain, set_objects, set_init, set_goal, set_decls, set_duplicates, set_source, set_notes = \
        PROBLEM_SETTERS
    problem = new(Problem)
    set_name(problem, name)
    set_domain(problem, domain)
    set_objects(problem, objects)
    set_init(problem, init)
    set_goal(problem, goal)
    set_decls(problem, decls)
    set_duplicates(problem, duplicates)
    set_source(problem, source)
    set_notes(problem, notes)
    return problem


def make_decls(src: object, groups: list[tuple[tuple[str, ...], str, int]]) -> tuple[ObjectDecl, ...]:
    """``Problem.decls`` built on first read from ``(instances, type, first token index)`` groups.

    Positions stay ``(source, token index)`` pairs, resolved only if someone reads them.
    """
    decls = []
    for names, type_name, first in groups:
        for k, inst in enumerate(names, first):
            decl = new(ObjectDecl)
            decl_instance(decl, inst)
            decl_type(decl, type_name)
            decl_pos(decl, (src, k))
            decls.append(decl)
    return tuple(decls)
