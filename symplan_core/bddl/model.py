"""Typed, plain-data model of a BDDL problem.

The model is consumed by the engine, planners and prompt builders; it never
depends on them. Source positions are carried for diagnostics but excluded
from equality, so ``parse(write(parse(f))) == parse(f)`` holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import MemberDescriptorType
from typing import Any, Union


@dataclass(frozen=True, slots=True)
class SourcePos:
    """A 1-based line/column position in a named source."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_POS = SourcePos("<none>", 0, 0)


def _pos_field() -> SourcePos:
    return field(default=NO_POS, compare=False, repr=False, hash=False)


@dataclass(frozen=True, slots=True)
class Atom:
    """``(predicate arg ...)``. Bound variables keep their ``?``; instances do not."""

    predicate: str
    args: tuple[str, ...]
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return [self.predicate, *self.args]


@dataclass(frozen=True, slots=True)
class Not:
    body: Formula
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return ["not", self.body.to_list()]


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple[Formula, ...]
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return ["and", *(p.to_list() for p in self.parts)]


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple[Formula, ...]
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return ["or", *(p.to_list() for p in self.parts)]


@dataclass(frozen=True, slots=True)
class Imply:
    antecedent: Formula
    consequent: Formula
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return ["imply", self.antecedent.to_list(), self.consequent.to_list()]


@dataclass(frozen=True, slots=True)
class Param:
    """A quantified variable ``?name - type``."""

    var: str
    type: str
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        return [self.var, self.type]


@dataclass(frozen=True, slots=True)
class Quantifier:
    """forall / exists / forn over one variable; forpairs / fornpairs over two.

    ``count`` is the ``n`` of forn/fornpairs and None otherwise.
    """

    kind: str
    params: tuple[Param, ...]
    body: Formula
    count: int | None = None
    pos: SourcePos = _pos_field()

    def to_list(self) -> list:
        head: list = [self.kind]
        if self.count is not None:
            head.append(self.count)
        return [*head, *(p.to_list() for p in self.params), self.body.to_list()]


Formula = Union[Atom, Not, And, Or, Imply, Quantifier]

CONNECTIVES = ("and", "or", "not", "imply")
QUANTIFIERS = ("forall", "exists", "forn", "forpairs", "fornpairs")


class Deferred:
    """A field value computed on first read as ``fn(*args)`` (see :class:`_Lazy`)."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Callable[..., object], *args: object) -> None:
        self.fn = fn
        self.args = args


def _resolve_pos(value: tuple) -> SourcePos:
    source, token_index = value
    return source.token_pos(token_index)


def _resolve_deferred(value: Deferred) -> object:
    return value.fn(*value.args)


class _Lazy:
    """Replaces a slot of a model class so that its value can be computed on first read.

    The parser stores ``(source, token_index)`` in ``pos`` slots instead of SourcePos
    objects, and a :class:`Deferred` in ``Problem.decls``: building those for every node
    costs more than parsing itself, and few callers ever read them. Reading the field
    resolves the stand-in once and caches the result in the slot, so callers only ever
    see SourcePos objects and tuples of ObjectDecl. Equality, hashing and repr never
    read these fields; ``dataclasses.replace``, pickling and copying read them (resolved).
    """

    __slots__ = ("slot", "kind", "resolve")

    def __init__(self, slot: MemberDescriptorType, kind: type, resolve: Callable[[Any], object]) -> None:
        self.slot = slot  # the member descriptor that dataclass(slots=True) created
        self.kind = kind
        self.resolve = resolve

    def __get__(self, obj: object, owner: type | None = None) -> object:
        if obj is None:
            return self.slot
        value = self.slot.__get__(obj, owner)
        if type(value) is self.kind:
            value = self.resolve(value)
            self.slot.__set__(obj, value)
        return value

    def __set__(self, obj: object, value: object) -> None:
        self.slot.__set__(obj, value)

    def __delete__(self, obj: object) -> None:
        self.slot.__delete__(obj)


def _install_lazy(cls: type, name: str, kind: type, resolve: Callable[[Any], object]) -> None:
    """Put a :class:`_Lazy` in place of ``cls``'s slot ``name``. The field keeps its declared type
    (``SourcePos``, ``tuple[ObjectDecl, ...]``), which is what every read returns; replacing a slot's
    descriptor after the class is built is beyond what a type checker models, hence ``setattr``."""
    setattr(cls, name, _Lazy(cls.__dict__[name], kind, resolve))


@dataclass(frozen=True, slots=True)
class Literal:
    """A possibly negated ground atom of ``:init``."""

    atom: Atom
    negated: bool = False

    @property
    def predicate(self) -> str:
        return self.atom.predicate

    @property
    def args(self) -> tuple[str, ...]:
        return self.atom.args

    def to_list(self) -> list:
        return ["not", self.atom.to_list()] if self.negated else self.atom.to_list()


@dataclass(frozen=True, slots=True)
class ObjectDecl:
    instance: str
    type: str
    pos: SourcePos = _pos_field()


for _node in (Atom, Not, And, Or, Imply, Param, Quantifier, ObjectDecl):
    _install_lazy(_node, "pos", tuple, _resolve_pos)


@dataclass(frozen=True, slots=True)
class Problem:
    """One BDDL problem. ``objects`` keeps declaration order (first wins on duplicates)."""

    name: str
    domain: str
    objects: dict[str, str]
    init: tuple[Literal, ...]
    goal: Formula
    decls: tuple[ObjectDecl, ...] = field(default=(), compare=False, repr=False)
    duplicates: tuple[ObjectDecl, ...] = field(default=(), compare=False, repr=False)
    source: str = field(default="<string>", compare=False, repr=False)
    notes: tuple = field(default=(), compare=False, repr=False)

    def instances_of(self, type_name: str) -> list[str]:
        return [inst for inst, typ in self.objects.items() if typ == type_name]

    @property
    def types(self) -> list[str]:
        return list(dict.fromkeys(self.objects.values()))

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "domain": self.domain,
            "objects": dict(self.objects),
            "init": [lit.to_list() for lit in self.init],
            "goal": self.goal.to_list(),
        }


_install_lazy(Problem, "decls", Deferred, _resolve_deferred)
