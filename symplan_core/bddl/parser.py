"""Recursive-descent parser: BDDL problem text -> :class:`Problem`.

Raises only :class:`BDDLSyntaxError` on malformed text. Things that are
well-formed but suspicious (a stray token between sections, a duplicate
instance) become warnings on ``Problem.notes``; semantic checks live in
:mod:`symplan_core.bddl.checks`.
"""

from __future__ import annotations

from pathlib import Path

from symplan_core.bddl.diagnostics import BDDLSyntaxError, Diagnostic
from symplan_core.bddl.model import (
    And,
    Atom,
    Formula,
    Imply,
    Literal,
    Not,
    ObjectDecl,
    Or,
    Param,
    Problem,
    Quantifier,
)
from symplan_core.bddl.tokens import SourceText, tokenize

_PAIR_QUANTIFIERS = ("forpairs", "fornpairs")
_COUNTED = ("forn", "fornpairs")


class _Parser:
    def __init__(self, text: str, source: str):
        self.src = SourceText(text, source)
        self.tokens, self.offsets = tokenize(text)
        self.i = 0
        self.notes: list[Diagnostic] = []

    # -- token helpers -------------------------------------------------
    def pos(self, index: int | None = None):
        index = self.i if index is None else index
        if index >= len(self.offsets):
            return self.src.pos(len(self.src.text))
        return self.src.pos(self.offsets[index])

    def error(self, message: str, index: int | None = None) -> BDDLSyntaxError:
        return BDDLSyntaxError(message, self.pos(index))

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self, what: str) -> str:
        if self.i >= len(self.tokens):
            raise self.error(f"unexpected end of input, expected {what}")
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, want: str) -> None:
        got = self.next(repr(want))
        if got != want:
            raise self.error(f"expected {want!r}, found {got!r}", self.i - 1)

    def name(self, what: str) -> str:
        tok = self.next(what)
        if tok in "()":
            raise self.error(f"expected {what}, found {tok!r}", self.i - 1)
        return tok

    def skip_group(self) -> None:
        """Skip one balanced group starting at '('."""
        depth = 0
        while True:
            tok = self.next("')'")
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth == 0:
                    return

    # -- grammar -------------------------------------------------------
    def problem(self) -> Problem:
        self.expect("(")
        head = self.next("'define'")
        if head.lower() != "define":
            raise self.error(f"expected 'define', found {head!r}", self.i - 1)
        self.expect("(")
        kw = self.next("'problem'")
        if kw.lower() != "problem":
            raise self.error(f"expected 'problem', found {kw!r}", self.i - 1)
        name = self.name("problem name")
        self.expect(")")
        domain = None
        decls: list[ObjectDecl] = []
        init: tuple[Literal, ...] | None = None
        goal: Formula | None = None
        while self.peek() != ")":
            if self.peek() is None:
                raise self.error("unexpected end of input, expected ')' closing 'define'")
            start = self.i
            if self.peek() != "(":
                tok = self.next("section")
                self.notes.append(
                    Diagnostic("warning", "stray-token", f"stray token {tok!r} ignored", self.pos(start))
                )
                continue
            self.i += 1
            section = self.name("section keyword").lower()
            if section == ":domain":
                domain = self.name("domain name")
                self.expect(")")
            elif section == ":objects":
                decls.extend(self.objects())
            elif section == ":init":
                init = self.init()
            elif section == ":goal":
                goal = self.goal(start)
            else:
                self.notes.append(
                    Diagnostic("warning", "unknown-section", f"unknown section {section!r} ignored", self.pos(start))
                )
                self.i = start
                self.skip_group()
        self.expect(")")
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()!r} after the problem definition")
        missing = [n for n, v in ((":domain", domain), (":init", init), (":goal", goal)) if v is None]
        if missing:
            raise self.error(f"missing section(s) {', '.join(missing)}", 0)
        objects: dict[str, str] = {}
        duplicates = []
        for decl in decls:
            if decl.instance in objects:
                duplicates.append(decl)
                self.notes.append(
                    Diagnostic("warning", "duplicate-instance", f"instance {decl.instance} declared again", decl.pos)
                )
            else:
                objects[decl.instance] = decl.type
        return Problem(
            name=name,
            domain=domain,
            objects=objects,
            init=init,
            goal=goal,
            decls=tuple(decls),
            duplicates=tuple(duplicates),
            source=self.src.name,
        )

    def goal(self, start: int) -> Formula:
        formulas = [self.formula(frozenset())]
        while self.peek() == "(":
            formulas.append(self.formula(frozenset()))
        self.expect(")")
        if len(formulas) == 1:
            return formulas[0]
        # Several formulas in :goal are read as one conjunction (bddl keeps only the first).
        self.notes.append(
            Diagnostic("warning", "implicit-goal-conjunction",
                       f"{len(formulas)} formulas in :goal read as one conjunction", self.pos(start))
        )
        parts: list[Formula] = []
        for f in formulas:
            parts.extend(f.parts if isinstance(f, And) else (f,))
        return And(tuple(parts), self.pos(start))

    def objects(self) -> list[ObjectDecl]:
        decls: list[ObjectDecl] = []
        pending: list[int] = []
        while True:
            tok = self.next("object declaration or ')'")
            if tok == ")":
                break
            if tok == "(":
                raise self.error("unexpected '(' in :objects", self.i - 1)
            if tok == "-":
                if not pending:
                    raise self.error("type given with no instances before it", self.i - 1)
                type_name = self.name("object type")
                decls.extend(ObjectDecl(self.tokens[k], type_name, self.pos(k)) for k in pending)
                pending = []
            else:
                pending.append(self.i - 1)
        if pending:
            raise self.error(f"instance {self.tokens[pending[0]]!r} has no type", pending[0])
        return decls

    def init(self) -> tuple[Literal, ...]:
        literals: list[Literal] = []
        while self.peek() == "(":
            start = self.i
            self.i += 1
            head = self.name("predicate")
            if head == "not":
                self.expect("(")
                atom = self.atom(self.name("predicate"), frozenset(), start + 2)
                self.expect(")")
                literals.append(Literal(atom, True))
            else:
                literals.append(Literal(self.atom(head, frozenset(), start)))
        self.expect(")")
        return tuple(literals)

    def atom(self, predicate: str, bound: frozenset[str], start: int) -> Atom:
        """Parse arguments up to ')' (already past the predicate)."""
        args: list[str] = []
        while True:
            tok = self.next("argument or ')'")
            if tok == ")":
                break
            if tok == "(":
                raise self.error(f"unexpected '(' in arguments of {predicate!r}", self.i - 1)
            # Goals prefix instance references with '?' too; only bound names are variables.
            if tok[0] == "?" and tok not in bound:
                tok = tok[1:]
            args.append(tok)
        return Atom(predicate, tuple(args), self.pos(start))

    def param(self) -> Param:
        start = self.i
        self.expect("(")
        var = self.name("variable")
        if not var.startswith("?"):
            raise self.error(f"quantified variable must start with '?', found {var!r}", start + 1)
        self.expect("-")
        type_name = self.name("variable type")
        self.expect(")")
        return Param(var, type_name, self.pos(start))

    def formula(self, bound: frozenset[str]) -> Formula:
        start = self.i
        self.expect("(")
        head = self.name("connective or predicate")
        if head == "and" or head == "or":
            parts = []
            while self.peek() == "(":
                parts.append(self.formula(bound))
            self.expect(")")
            return (And if head == "and" else Or)(tuple(parts), self.pos(start))
        if head == "not":
            body = self.formula(bound)
            self.expect(")")
            return Not(body, self.pos(start))
        if head == "imply":
            antecedent = self.formula(bound)
            consequent = self.formula(bound)
            self.expect(")")
            return Imply(antecedent, consequent, self.pos(start))
        if head in ("forall", "exists", "forn", "forpairs", "fornpairs"):
            count = None
            if head in _COUNTED:
                self.expect("(")
                raw = self.name("count")
                if not raw.isdigit():
                    raise self.error(f"{head} count must be a non-negative integer, found {raw!r}", self.i - 1)
                count = int(raw)
                self.expect(")")
            params = [self.param()]
            if head in _PAIR_QUANTIFIERS:
                params.append(self.param())
            body = self.formula(bound | {p.var for p in params})
            self.expect(")")
            return Quantifier(head, tuple(params), body, count, self.pos(start))
        return self.atom(head, bound, start)


def parse_problem(text: str, filename: str = "<string>") -> Problem:
    """Parse BDDL problem text. Raises :class:`BDDLSyntaxError` on malformed input."""
    parser = _Parser(text, filename)
    problem = parser.problem()
    object.__setattr__(problem, "notes", tuple(parser.notes))
    return problem


def parse_file(path: str | Path) -> Problem:
    path = Path(path)
    return parse_problem(path.read_text(encoding="utf-8"), str(path))
