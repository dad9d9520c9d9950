"""Recursive-descent parser: BDDL problem text -> :class:`Problem`.

Raises only :class:`BDDLSyntaxError` on malformed text. Things that are
well-formed but suspicious (a stray token between sections, a duplicate
instance or section) become warnings on ``Problem.notes``; semantic checks
live in :mod:`symplan_core.bddl.checks`.

Speed matters (planners and reward functions parse constantly), so the hot
paths work on a plain token list with slices and ``list.index`` instead of
per-token method calls, build nodes without going through the frozen
dataclass ``__init__``, and store positions as ``(source, token index)`` pairs
that the model resolves only when read (see ``model._Lazy`` and ``build``).
"""

from __future__ import annotations

from pathlib import Path

from symplan_core.bddl.build import (
    COMPILED,
    make_and,
    make_atom,
    make_decls,
    make_imply,
    make_literal,
    make_not,
    make_or,
    make_param,
    make_quantifier,
    new_problem,
)
from symplan_core.bddl.diagnostics import Diagnostic
from symplan_core.bddl.model import (
    And,
    Deferred,
    Formula,
    Literal,
    ObjectDecl,
    Param,
    Problem,
)
from symplan_core.bddl.tokens import END as _END
from symplan_core.bddl.tokens import NOT_A_NAME as _NOT_A_NAME
from symplan_core.bddl.tokens import PAD as _PAD
from symplan_core.bddl.tokens import SourceText, TokenStream, split_tokens

_QUANTIFIERS = frozenset({"forall", "exists", "forn", "forpairs", "fornpairs"})
_PAIR_QUANTIFIERS = frozenset({"forpairs", "fornpairs"})
_COUNTED = frozenset({"forn", "fornpairs"})
_CONNECTIVES = frozenset({"and", "or", "not", "imply"})
_KEYWORDS = _CONNECTIVES | _QUANTIFIERS  # goal heads that are not predicates
#: Deepest nesting of connectives/quantifiers in a goal. BEHAVIOR goals nest a handful deep; the
#: limit turns a pathological input into a BDDLSyntaxError long before Python's recursion limit.
MAX_GOAL_DEPTH = 100


class _Parser(TokenStream):
    __slots__ = ()

    # -- problem ---------------------------------------------------------
    def problem(self) -> Problem:
        toks = self.toks
        name = self.header()
        i = 6
        domain: str | None = None
        objects: dict[str, str] = {}
        groups: list[tuple[tuple[str, ...], str, int]] = []
        duplicates: list[ObjectDecl] = []
        init: tuple[Literal, ...] | None = None
        goal: Formula | None = None
        seen: set[str] = set()
        while (tok := toks[i]) != ")":
            if tok == _END:
                raise self.error("unexpected end of input, expected ')' closing 'define'", i)
            if tok != "(":
                self.warn("stray-token", f"stray token {tok!r} ignored", i)
                i += 1
                continue
            start = i
            section = toks[i + 1]
            if section in _NOT_A_NAME:
                raise self.unexpected(i + 1, "section keyword")
            section = section.lower()
            if section in seen and section in (":domain", ":objects", ":init", ":goal"):
                self.warn("duplicate-section", f"section {section} given again (the last one counts"
                          + (", objects are merged)" if section == ":objects" else ")"), start)
            seen.add(section)
            if section == ":domain":
                domain = self.name(i + 2, "domain name")
                i = self.expect(i + 3, ")")
            elif section == ":objects":
                i = self.objects(i + 2, objects, groups, duplicates)
            elif section == ":init":
                init, i = self.init(i + 2)
            elif section == ":goal":
                goal, i = self.goal(i + 2, start)
            else:
                self.warn("unknown-section", f"unknown section {section!r} ignored", start)
                i = self.skip_group(start)
        i += 1
        if i < self.n:
            raise self.error(f"unexpected {toks[i]!r} after the problem definition", i)
        if domain is None or init is None or goal is None:
            missing = [n for n, v in ((":domain", domain), (":init", init), (":goal", goal)) if v is None]
            raise self.error(f"missing section(s) {', '.join(missing)}", 0)
        return new_problem(name, domain, objects, init, goal, Deferred(make_decls, self.src, groups),
                           tuple(duplicates), self.src.name, tuple(self.notes))

    def header(self) -> str:
        """``( define ( problem NAME )``: the first six tokens; returns NAME."""
        toks = self.toks
        if (toks[0] == "(" and toks[2] == "(" and toks[5] == ")" and toks[4] not in _NOT_A_NAME
                and toks[1].lower() == "define" and toks[3].lower() == "problem"):
            return toks[4]
        self.expect(0, "(")
        if self.name(1, "'define'").lower() != "define":
            raise self.error(f"expected 'define', found {toks[1]!r}", 1)
        self.expect(2, "(")
        if self.name(3, "'problem'").lower() != "problem":
            raise self.error(f"expected 'problem', found {toks[3]!r}", 3)
        name = self.name(4, "problem name")
        self.expect(5, ")")
        return name

    def skip_group(self, start: int) -> int:
        """Index just past the balanced group opening at ``start``."""
        toks, depth, i = self.toks, 0, start
        while True:
            tok = toks[i]
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth == 0:
                    return i + 1
            elif tok == _END:
                raise self.error("unexpected end of input, expected ')'", i)
            i += 1

    # -- sections --------------------------------------------------------
    def objects(self, i: int, objects: dict[str, str], groups: list, duplicates: list[ObjectDecl]) -> int:
        toks = self.toks
        end = self.close(i)
        if "(" in toks[i:end]:
            raise self.error("unexpected '(' in :objects", toks.index("(", i, end))
        index = toks.index
        before = objects.copy() if objects else {}
        added = len(groups)
        total = len(objects)
        while i < end:
            if toks[i + 1] == "-" and i + 2 < end and toks[i] != "-":
                # One instance of its type (most groups): no search, no slice.
                groups.append(((toks[i],), toks[i + 2], i))
                objects[toks[i]] = toks[i + 2]
                total += 1
                i += 3
                continue
            # Jump to the next ' - ' separator in C instead of looping over names.
            try:
                dash = index("-", i, end)
            except ValueError:
                raise self.error(f"instance {toks[i]!r} has no type", i) from None
            if dash == i:
                raise self.error("type given with no instances before it", i)
            if dash + 1 == end:
                raise self.unexpected(end, "object type")
            type_name = toks[dash + 1]
            group = toks[i:dash]
            groups.append((group, type_name, i))
            for inst in group:
                objects[inst] = type_name
            total += dash - i
            i = dash + 2
        if len(objects) == total:
            return end + 1
        # Some instance is declared twice (the dict kept the last type): rebuild so that the
        # first declaration wins, and report the others.
        objects.clear()
        objects.update(before)
        for group, type_name, first in groups[added:]:
            for k, inst in enumerate(group, first):
                if inst in objects:
                    decl = ObjectDecl(inst, type_name, self.src.token_pos(k))
                    duplicates.append(decl)
                    self.notes.append(Diagnostic("warning", "duplicate-instance",
                                                 f"instance {inst} declared again", decl.pos))
                else:
                    objects[inst] = type_name
        return end + 1

    def init(self, i: int) -> tuple[tuple[Literal, ...], int]:
        toks, src, index = self.toks, self.src, self.toks.index
        literals: list[Literal] = []
        append = literals.append
        try:
            while toks[i] == "(":
                head = toks[i + 1]
                if head == "not":  # (not (pred args)): the atom starts two tokens in
                    at, negated = i + 2, True
                    if toks[at] != "(":
                        raise self.unexpected(at, "'('")
                    head = toks[at + 1]
                else:
                    at, negated = i, False
                if head in _NOT_A_NAME:
                    raise self.unexpected(at + 1, "predicate")
                j = index(")", at + 2)  # ValueError: no ')' left (the padding has none)
                args = toks[at + 2:j]
                if "(" in args:
                    raise self.error(f"unexpected '(' in arguments of {head!r}", index("(", at + 2, j))
                append(make_literal(make_atom(head, args, (src, at)), negated))
                i = j + 1
                if negated:
                    if toks[i] != ")":
                        raise self.unexpected(i, "')'")
                    i += 1
        except ValueError:
            raise self.error("unexpected end of input, expected ')'", self.n) from None
        if toks[i] != ")":
            raise self.unexpected(i, "')'")
        return tuple(literals), i + 1

    def goal(self, i: int, start: int) -> tuple[Formula, int]:
        formulas = []
        while True:
            formula, i = self.formula(i, frozenset())
            formulas.append(formula)
            if self.toks[i] != "(":
                break
        i = self.expect(i, ")")
        if len(formulas) == 1:
            return formulas[0], i
        # Several formulas in :goal are read as one conjunction (bddl keeps only the first).
        self.warn("implicit-goal-conjunction", f"{len(formulas)} formulas in :goal read as one conjunction", start)
        parts: list[Formula] = []
        for f in formulas:
            parts.extend(f.parts if isinstance(f, And) else (f,))
        return make_and(tuple(parts), (self.src, start)), i

    # -- goal formulas ---------------------------------------------------
    def formula(self, i: int, bound: frozenset[str], depth: int = 0) -> tuple[Formula, int]:
        toks = self.toks
        if toks[i] != "(":
            raise self.unexpected(i, "'('")
        head = toks[i + 1]
        if head in _NOT_A_NAME:
            raise self.unexpected(i + 1, "connective or predicate")
        pos = (self.src, i)
        i += 2
        if head in _KEYWORDS:
            if depth >= MAX_GOAL_DEPTH:
                raise self.error(f"goal nested deeper than {MAX_GOAL_DEPTH} connectives/quantifiers", i - 1)
            if head in _QUANTIFIERS:
                return self.quantifier(head, i, bound, pos, depth + 1)
            return self.connective(head, i, bound, pos, depth + 1)
        # An atom (the common case, so it is handled inline).
        try:
            j = toks.index(")", i)
        except ValueError:
            raise self.error("unexpected end of input, expected ')'", self.n) from None
        # Goals prefix instance references with '?' too; only bound names are variables.
        # One and two arguments are unrolled: a comprehension is a function call here.
        if j - i == 2:
            a, b = toks[i], toks[i + 1]
            if a[0] == "?" and a not in bound:
                a = a[1:]
            if b[0] == "?" and b not in bound:
                b = b[1:]
            if a == "(" or b == "(":
                raise self.error(f"unexpected '(' in arguments of {head!r}", i if a == "(" else i + 1)
            args: tuple[str, ...] = (a, b)
        elif j - i == 1:
            a = toks[i]
            if a[0] == "?" and a not in bound:
                a = a[1:]
            elif a == "(":
                raise self.error(f"unexpected '(' in arguments of {head!r}", i)
            args = (a,)
        else:
            raw = toks[i:j]
            if "(" in raw:
                raise self.error(f"unexpected '(' in arguments of {head!r}", toks.index("(", i, j))
            args = tuple([a[1:] if a[0] == "?" and a not in bound else a for a in raw])
        return make_atom(head, args, pos), j + 1

    def connective(self, head: str, i: int, bound: frozenset[str], pos: tuple[SourceText, int],
                   depth: int) -> tuple[Formula, int]:
        """``and``/``or``/``not``/``imply`` with ``i`` just past the head; ``depth``: its nesting level."""
        toks = self.toks
        node: Formula
        if head == "not":
            body, i = self.formula(i, bound, depth)
            node = make_not(body, pos)
        elif head == "imply":
            antecedent, i = self.formula(i, bound, depth)
            consequent, i = self.formula(i, bound, depth)
            node = make_imply(antecedent, consequent, pos)
        else:
            parts = []
            while toks[i] == "(":
                part, i = self.formula(i, bound, depth)
                parts.append(part)
            node = (make_and if head == "and" else make_or)(tuple(parts), pos)
        if toks[i] != ")":
            raise self.unexpected(i, "')'")
        return node, i + 1

    def quantifier(self, kind: str, i: int, bound: frozenset[str], pos: tuple[SourceText, int],
                   depth: int) -> tuple[Formula, int]:
        toks = self.toks
        count = None
        if kind in _COUNTED:
            i = self.expect(i, "(")
            raw = self.name(i, "count")
            # ASCII only: str.isdigit() also accepts '²', which int() rejects.
            if not (raw.isascii() and raw.isdigit()):
                raise self.error(f"{kind} count must be a non-negative integer, found {raw!r}", i)
            count = int(raw)
            i = self.expect(i + 1, ")")
        first = self.param(i)
        if kind in _PAIR_QUANTIFIERS:
            second = self.param(i + 5)
            params: tuple[Param, ...] = (first, second)
            inner = bound | {first.var, second.var}
            i += 10
        else:
            params = (first,)
            inner = bound | {first.var}
            i += 5
        body, i = self.formula(i, inner, depth)
        if toks[i] != ")":
            raise self.unexpected(i, "')'")
        return make_quantifier(kind, params, body, count, pos), i + 1

    def param(self, i: int) -> Param:
        """``(?var - type)`` starting at ``i`` (always five tokens)."""
        toks = self.toks
        var, type_name = toks[i + 1], toks[i + 3]
        if toks[i] != "(" or toks[i + 2] != "-" or toks[i + 4] != ")" or var[:1] != "?" or type_name in _NOT_A_NAME:
            self.expect(i, "(")
            var = self.name(i + 1, "variable")
            if var[0] != "?":
                raise self.error(f"quantified variable must start with '?', found {var!r}", i + 1)
            self.expect(i + 2, "-")
            self.name(i + 3, "variable type")
            self.expect(i + 4, ")")
        return make_param(var, type_name, (self.src, i))


# -- the canonical fast path ------------------------------------------------
#
# Every BEHAVIOR file has one layout: ``(define (problem N) (:domain D) (:objects ...)
# (:init ...) (:goal F))`` with lower-case keywords, no stray token, no duplicate and one
# goal formula. ``_canonical`` reads exactly that layout with plain functions over the token
# tuple (no parser object, no section loop, no warning bookkeeping) and gives up with
# ``_NotCanonical`` at the first token that differs. :func:`parse_problem` then parses the
# text with ``_Parser``, which reads every other layout and raises or warns with positions:
# every error and warning still comes from ``_Parser``. For the texts it accepts,
# ``_canonical`` builds the same model (nodes, positions, declarations), which
# ``tests/bddl/test_bddl_fast_path.py`` checks on every BEHAVIOR file and on fuzzed texts.


class _NotCanonical(Exception):
    """Not the canonical layout (or malformed): the general parser reads the text."""



def _canonical(toks: tuple[str, ...], src: SourceText) -> Problem:
    if not (toks[0] == "(" and toks[1] == "define" and toks[2] == "(" and toks[3] == "problem"
            and toks[5] == ")" and toks[6] == "(" and toks[7] == ":domain" and toks[9] == ")"
            and toks[10] == "(" and toks[11] == ":objects"
            and toks[4] not in _NOT_A_NAME and toks[8] not in _NOT_A_NAME):
        raise _NotCanonical
    end = toks.index(")", 12)
    declared = toks[12:end]
    objects = _canonical_objects(declared)
    i = end + 1
    if toks[i] != "(" or toks[i + 1] != ":init":
        raise _NotCanonical
    init, i = _canonical_init(toks, src, i + 2)
    if toks[i] != "(" or toks[i + 1] != ":goal":
        raise _NotCanonical
    goal, i = _canonical_formula(toks, src, i + 2, frozenset(), 0)
    if toks[i] != ")" or toks[i + 1] != ")" or toks[i + 2] != _END:
        raise _NotCanonical
    return new_problem(toks[4], toks[8], objects, init, goal, Deferred(_canonical_decls, src, declared, 12),
                       (), src.name, ())


def _canonical_objects(body: tuple[str, ...]) -> dict[str, str]:
    """The ``inst ... - type`` groups of ``:objects`` (its tokens), no instance twice."""
    if "(" in body:
        raise _NotCanonical
    groups = body.count("-")
    if len(body) == 3 * groups and body[1::3].count("-") == groups:
        # Every group is one ``inst - type`` (so in half the files): the dict is built in C.
        objects = dict(zip(body[::3], body[2::3], strict=True))
        total = groups
    else:
        objects = {}
        total = i = 0
        while i < len(body):
            dash = body.index("-", i)  # ValueError: instances with no type
            if dash == i or dash + 1 == len(body):
                raise _NotCanonical
            type_name = body[dash + 1]
            for inst in body[i:dash]:
                objects[inst] = type_name
            total += dash - i
            i = dash + 2
    if len(objects) != total:  # an instance declared twice
        raise _NotCanonical
    return objects


def _canonical_decls(src: SourceText, body: tuple[str, ...], first: int) -> tuple[ObjectDecl, ...]:
    """``Problem.decls`` of a canonical parse, built on first read; ``first``: the token index of
    ``body[0]`` in the file."""
    groups = []
    i = 0
    while i < len(body):
        dash = body.index("-", i)
        groups.append((body[i:dash], body[dash + 1], first + i))
        i = dash + 2
    return make_decls(src, groups)


def _python_canonical_init(toks: tuple[str, ...], src: SourceText, i: int) -> tuple[tuple[Literal, ...], int]:
    index = toks.index
    literals: list[Literal] = []
    append = literals.append
    while toks[i] == "(":
        head = toks[i + 1]
        if head == "not":  # (not (pred args)): the atom starts two tokens in
            at = i + 2
            head = toks[at + 1]
            j = index(")", at + 2)
            if toks[at] != "(" or toks[j + 1] != ")":
                raise _NotCanonical
            negated = True
            i = j + 2
        else:
            at = i
            j = index(")", at + 2)
            negated = False
            i = j + 1
        args = toks[at + 2:j]
        if head in _NOT_A_NAME or "(" in args:
            raise _NotCanonical
        append(make_literal(make_atom(head, args, (src, at)), negated))
    if toks[i] != ")":
        raise _NotCanonical
    return tuple(literals), i + 1


if COMPILED:
    # The init section is most of a BEHAVIOR file; _speedups.c reads it in C, step for step as
    # _python_canonical_init does (tests/bddl/test_speedups.py compares the two).
    from symplan_core.bddl._speedups import canonical_init as _c_canonical_init

    def _canonical_init(toks: tuple[str, ...], src: SourceText, i: int) -> tuple[tuple[Literal, ...], int]:
        read = _c_canonical_init(toks, src, i, make_atom, make_literal)
        if read is None:
            raise _NotCanonical
        return read
else:
    _canonical_init = _python_canonical_init


def _canonical_formula(toks: tuple[str, ...], src: SourceText, i: int, bound: frozenset[str],
                       depth: int) -> tuple[Formula, int]:
    """The formula opening at ``i``; ``bound``: the variables of the enclosing quantifiers."""
    head = toks[i + 1]
    if toks[i] != "(" or head in _NOT_A_NAME:
        raise _NotCanonical
    pos = (src, i)
    i += 2
    if head not in _KEYWORDS:  # an atom: goals prefix instances with '?' too, bound names are variables
        j = toks.index(")", i)
        raw = toks[i:j]
        if "(" in raw:
            raise _NotCanonical
        if j - i == 2:  # one and two arguments unrolled: a comprehension is a function call
            a, b = raw
            args: tuple[str, ...] = (a[1:] if a[0] == "?" and a not in bound else a, b[1:] if b[0] == "?" and b not in bound else b)
        elif j - i == 1:
            a = raw[0]
            args = (a[1:] if a[0] == "?" and a not in bound else a,)
        else:
            args = tuple([a[1:] if a[0] == "?" and a not in bound else a for a in raw])
        return make_atom(head, args, pos), j + 1
    if depth >= MAX_GOAL_DEPTH:
        raise _NotCanonical
    depth += 1
    node: Formula
    if head == "and" or head == "or":
        parts = []
        while toks[i] == "(":
            part, i = _canonical_formula(toks, src, i, bound, depth)
            parts.append(part)
        node = (make_and if head == "and" else make_or)(tuple(parts), pos)
    elif head == "not":
        body, i = _canonical_formula(toks, src, i, bound, depth)
        node = make_not(body, pos)
    elif head == "imply":
        antecedent, i = _canonical_formula(toks, src, i, bound, depth)
        consequent, i = _canonical_formula(toks, src, i, bound, depth)
        node = make_imply(antecedent, consequent, pos)
    else:  # a quantifier
        count = None
        if head in _COUNTED:
            raw_count = toks[i + 1]
            if toks[i] != "(" or toks[i + 2] != ")" or not (raw_count.isascii() and raw_count.isdigit()):
                raise _NotCanonical
            count = int(raw_count)
            i += 3
        params: tuple[Param, ...] = (_canonical_param(toks, src, i),)
        if head in _PAIR_QUANTIFIERS:
            params += (_canonical_param(toks, src, i + 5),)
        bound = bound.union([p.var for p in params])
        body, i = _canonical_formula(toks, src, i + 5 * len(params), bound, depth)
        node = make_quantifier(head, params, body, count, pos)
    if toks[i] != ")":
        raise _NotCanonical
    return node, i + 1


def _canonical_param(toks: tuple[str, ...], src: SourceText, i: int) -> Param:
    """``(?var - type)`` at ``i``."""
    var, type_name = toks[i + 1], toks[i + 3]
    if toks[i] != "(" or toks[i + 2] != "-" or toks[i + 4] != ")" or var[:1] != "?" or type_name in _NOT_A_NAME:
        raise _NotCanonical
    return make_param(var, type_name, (src, i))


def parse_problem(text: str, filename: str = "<string>") -> Problem:
    """Parse BDDL problem text. Raises :class:`BDDLSyntaxError` on malformed input."""
    toks = split_tokens(text)
    toks.extend(_PAD)
    try:
        return _canonical(tuple(toks), SourceText(text, filename))
    except (_NotCanonical, ValueError, IndexError):
        return _Parser(text, filename).problem()


def parse_file(path: str | Path) -> Problem:
    path = Path(path)
    return parse_problem(path.read_text(encoding="utf-8"), str(path))
