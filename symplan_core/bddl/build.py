"""Fast construction of model nodes for the parser: one call per node.

The model classes are frozen slotted dataclasses; their generated ``__init__`` sets each
field through ``object.__setattr__`` (and, for ``pos``, through the lazy-field descriptor),
which costs more than the rest of parsing a node. The parser instead calls a *maker* per
node class: ``make_atom(predicate, args, pos)`` allocates the instance as ``object.__new__``
does and stores the values straight into the slots. The objects are indistinguishable from
ones built by ``__init__`` (same class, same field values), so equality, hashing, pickling
and ``dataclasses.replace`` behave the same.

Makers come from the C extension ``_speedups`` (``_speedups.c``, built at install when a C compiler
is present: about half of the parse time of a BEHAVIOR file is node construction, and C does
it in one call instead of one per field). Without it, :func:`python_maker` builds the same
objects with ``object.__new__`` and the raw slot setters. ``COMPILED`` says which is in use;
``tests/bddl/test_speedups.py`` checks that both give equal objects.
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


def python_maker(cls: type, names: tuple[str, ...]) -> Callable[..., Any]:
    """A pure-Python maker: ``maker(*values)`` is an instance of ``cls`` with ``values`` in the
    slots ``names``. The common arities are unrolled (a loop over setters costs twice as much)."""
    setters = tuple(slot_setter(cls, n) for n in names)
    if len(setters) == 2:
        set0, set1 = setters

        def make2(v0: object, v1: object) -> Any:
            node: Any = new(cls)
            set0(node, v0)
            set1(node, v1)
            return node
        return make2
    if len(setters) == 3:
        set0, set1, set2 = setters

        def make3(v0: object, v1: object, v2: object) -> Any:
            node: Any = new(cls)
            set0(node, v0)
            set1(node, v1)
            set2(node, v2)
            return node
        return make3

    def make(*values: object) -> Any:
        if len(values) != len(setters):
            raise TypeError(f"maker for {cls.__name__} takes {len(setters)} values ({len(values)} given)")
        node: Any = new(cls)
        for setter, value in zip(setters, values, strict=True):
            setter(node, value)
        return node
    return make


_c_maker: Callable[[type, tuple[str, ...]], Callable[..., Any]] | None
try:
    from symplan_core.bddl._speedups import Maker as _c_maker
except ImportError:  # not compiled (no C compiler at install): same objects, slower
    _c_maker = None

#: True when the makers (and the tokenizer and init reader) are the compiled ones.
COMPILED = _c_maker is not None


def maker(cls: type[_Node], names: tuple[str, ...]) -> Callable[..., _Node]:
    """The fastest available maker for ``cls`` filling slots ``names`` in order."""
    if _c_maker is not None:
        return cast(Callable[..., _Node], _c_maker(cls, names))
    return python_maker(cls, names)


#: Each maker's class and the slots it fills, in order (``new_problem``: every Problem field).
MAKERS: dict[str, tuple[type, tuple[str, ...]]] = {
    "make_atom": (Atom, ("predicate", "args", "pos")),
    "make_literal": (Literal, ("atom", "negated")),
    "make_and": (And, ("parts", "pos")),
    "make_or": (Or, ("parts", "pos")),
    "make_not": (Not, ("body", "pos")),
    "make_imply": (Imply, ("antecedent", "consequent", "pos")),
    "make_param": (Param, ("var", "type", "pos")),
    "make_quantifier": (Quantifier, ("kind", "params", "body", "count", "pos")),
    "make_decl": (ObjectDecl, ("instance", "type", "pos")),
    "new_problem": (Problem, tuple(f.name for f in fields(Problem))),
}
make_atom: Callable[[str, tuple[str, ...], object], Atom] = maker(*MAKERS["make_atom"])
make_literal: Callable[[Atom, bool], Literal] = maker(*MAKERS["make_literal"])
make_and: Callable[[tuple, object], And] = maker(*MAKERS["make_and"])
make_or: Callable[[tuple, object], Or] = maker(*MAKERS["make_or"])
make_not: Callable[[object, object], Not] = maker(*MAKERS["make_not"])
make_imply: Callable[[object, object, object], Imply] = maker(*MAKERS["make_imply"])
make_param: Callable[[str, str, object], Param] = maker(*MAKERS["make_param"])
make_quantifier: Callable[[str, tuple, object, int | None, object], Quantifier] = maker(*MAKERS["make_quantifier"])
make_decl: Callable[[str, str, object], ObjectDecl] = maker(*MAKERS["make_decl"])
#: ``new_problem(name, domain, objects, init, goal, decls, duplicates, source, notes)``.
new_problem: Callable[..., Problem] = maker(*MAKERS["new_problem"])


def make_decls(src: object, groups: list[tuple[tuple[str, ...], str, int]]) -> tuple[ObjectDecl, ...]:
    """``Problem.decls`` built on first read from ``(instances, type, first token index)`` groups.

    Positions stay ``(source, token index)`` pairs, resolved only if someone reads them.
    """
    return tuple([make_decl(inst, type_name, (src, k))
                  for names, type_name, first in groups for k, inst in enumerate(names, first)])
