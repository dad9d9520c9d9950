"""Semantic checks: diagnostics (never exceptions) with file:line:col.

Codes: ``undeclared-instance``, ``undeclared-type``, ``unbound-variable``, ``arity``,
``unknown-predicate``, ``unreachable-future``, ``future-in-init``; the warning ``unused-variable``
(a quantified variable its body never uses: 13 released BEHAVIOR goals have one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from symplan_core.bddl.diagnostics import Diagnostic
from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Problem, Quantifier
from symplan_core.bddl.vocabulary import ROOM_PREDICATES, vocabulary


def iter_nodes(f: Formula) -> Iterator[Formula]:
    """Every node of a formula, depth first, the formula itself first."""
    yield f
    for child in _children(f):
        yield from iter_nodes(child)


def _children(f: Formula) -> tuple[Formula, ...]:
    if isinstance(f, (And, Or)):
        return f.parts
    if isinstance(f, Not | Quantifier):
        return (f.body,)
    if isinstance(f, Imply):
        return (f.antecedent, f.consequent)
    return ()


def iter_atoms(f: Formula) -> Iterator[Atom]:
    return (n for n in iter_nodes(f) if isinstance(n, Atom))


def iter_quantifiers(f: Formula) -> Iterator[Quantifier]:
    return (n for n in iter_nodes(f) if isinstance(n, Quantifier))


def goal_atoms(goal: Formula) -> Iterator[tuple[Atom, bool, dict[str, str]]]:
    """Each atom the goal asks for, with its polarity (through ``not``) and the types of the
    quantified variables around it; ``imply``'s antecedent is a condition, not a goal, and is
    left out."""
    for atom, positive, types, _ in bound_goal_atoms(goal):
        yield atom, positive, types


def bound_goal_atoms(goal: Formula) -> Iterator[tuple[Atom, bool, dict[str, str], frozenset[str]]]:
    """:func:`goal_atoms` with, for each atom, the variables around it that ``exists`` binds (the
    goal asks its body of one of their instances, not of every one)."""
    stack: list[tuple[Formula, bool, dict[str, str], frozenset[str]]] = [(goal, True, {}, frozenset())]
    while stack:
        f, positive, types, existential = stack.pop()
        if isinstance(f, Atom):
            yield f, positive, types, existential
        elif isinstance(f, Not):
            stack.append((f.body, not positive, types, existential))
        elif isinstance(f, And | Or):
            stack += [(part, positive, types, existential) for part in f.parts]
        elif isinstance(f, Imply):
            stack.append((f.consequent, positive, types, existential))
        elif isinstance(f, Quantifier):
            bound = {p.var for p in f.params}
            stack.append((f.body, positive, {**types, **{p.var: p.type for p in f.params}},
                          existential | bound if f.kind == "exists" else existential - bound))


def argument_type(arg: str, types: Mapping[str, str], objects: Mapping[str, str]) -> str | None:
    """The type a goal atom's argument stands for: a quantified variable's (``types``, as
    ``goal_atoms`` gives them) or the named instance's. An instance written as a variable,
    ``?mustard.n.03_1``, as LLM drafts sometimes do, counts as that instance."""
    if arg in types:
        return types[arg]
    return objects.get(arg) or objects.get(arg.lstrip("?"))


def argument_instances(arg: str, types: Mapping[str, str], objects: Mapping[str, str]) -> list[str]:
    """The instances a goal atom's argument speaks for: every instance of a quantified variable's
    type, or the one instance it names (``?inst`` read as ``inst``, as in ``argument_type``)."""
    if arg in types:
        return [i for i, t in objects.items() if t == types[arg]]
    if arg not in objects and arg.lstrip("?") in objects:
        return [arg.lstrip("?")]
    return [arg]


def undeclared_arguments(atom: Atom, objects: Mapping[str, str]) -> list[str]:
    """The arguments of ``atom`` that name an instance ``objects`` does not declare (a bound
    ``?variable`` and the room of ``inroom`` name none; the parser reads an unbound ``?name`` as
    ``name``, an instance)."""
    return [arg for k, arg in enumerate(atom.args)
            if not arg.startswith("?") and not (k == 1 and atom.predicate in ROOM_PREDICATES) and arg not in objects]


def unbound_variables(goal: Formula, objects: Mapping[str, str]) -> list[tuple[str, Atom]]:
    """(``?name``, its atom) for each argument written as a variable that no enclosing quantifier
    binds and that names no instance (``?apple.n.01_1`` is the instance ``apple.n.01_1``)."""
    found: list[tuple[str, Atom]] = []

    def visit(f: Formula, bound: frozenset[str]) -> None:
        if isinstance(f, Atom):
            found.extend((a, f) for a in f.args if a.startswith("?") and a not in bound and a[1:] not in objects)
        elif isinstance(f, Quantifier):
            visit(f.body, bound | {p.var for p in f.params})
        else:
            for child in _children(f):
                visit(child, bound)

    visit(goal, frozenset())
    return found


def unused_variables(goal: Formula) -> list[tuple[str, Quantifier]]:
    """(``?name``, its quantifier) for each quantified variable the quantifier's body never uses:
    ``(forall (?log - log) (ontop ?log_1 ?floor_1))`` asks nothing of the other logs."""
    found: list[tuple[str, Quantifier]] = []
    for q in iter_quantifiers(goal):
        used = {a for atom in iter_atoms(q.body) for a in atom.args}
        found.extend((p.var, q) for p in q.params if p.var not in used)
    return found


def _check_atom(atom: Atom, problem: Problem, vocab: dict[str, int], where: str) -> Iterator[Diagnostic]:
    arity = vocab.get(atom.predicate)
    if arity is None:
        yield Diagnostic("error", "unknown-predicate",
                         f"unknown predicate {atom.predicate!r} in {where} (domain {problem.domain})", atom.pos)
    elif arity != len(atom.args):
        yield Diagnostic("error", "arity",
                         f"{atom.predicate} takes {arity} argument(s), got {len(atom.args)} in {where}", atom.pos)
    for arg in undeclared_arguments(atom, problem.objects):
        yield Diagnostic("error", "undeclared-instance", f"instance {arg!r} in {where} is not declared", atom.pos)


def check_problem(problem: Problem) -> list[Diagnostic]:
    """All semantic findings for a parsed problem, parser warnings first."""
    vocab = vocabulary(problem.domain)
    found: list[Diagnostic] = list(getattr(problem, "notes", ()))
    for lit in problem.init:
        found.extend(_check_atom(lit.atom, problem, vocab, ":init"))
    for atom in iter_atoms(problem.goal):
        found.extend(_check_atom(atom, problem, vocab, ":goal"))
    for var, atom in unbound_variables(problem.goal, problem.objects):
        found.append(Diagnostic("error", "unbound-variable",
                                f"variable {var!r} in ({atom.predicate} {' '.join(atom.args)}) of :goal is bound by "
                                "no quantifier around it", atom.pos))
    for var, q in unused_variables(problem.goal):
        found.append(Diagnostic("warning", "unused-variable",
                                f"{q.kind} over {var!r} in :goal, whose body never uses it", q.pos))
    declared_types = set(problem.objects.values())
    for q in iter_quantifiers(problem.goal):
        for param in q.params:
            if param.type not in declared_types:
                found.append(Diagnostic("error", "undeclared-type",
                                        f"{q.kind} over type {param.type!r} with no declared instances", param.pos))
    found.extend(_future_checks(problem))
    return found


def _future_checks(problem: Problem) -> Iterator[Diagnostic]:
    future = {lit.args[0]: lit for lit in problem.init if lit.predicate == "future" and not lit.negated and lit.args}
    if not future:
        return
    for lit in problem.init:
        if lit.predicate != "future" and any(a in future for a in lit.args):
            yield Diagnostic("error", "future-in-init",
                             f"{lit.predicate} over future object(s) in :init: they do not exist yet", lit.atom.pos)
    # A future object is reachable when the goal asks for it (or its type) to become real.
    wanted = set()
    for atom in iter_atoms(problem.goal):
        if atom.predicate == "real" and atom.args:
            wanted.add(atom.args[0])
    quantified_types = {p.var: p.type for q in iter_quantifiers(problem.goal) for p in q.params}
    wanted_types = {quantified_types[v] for v in wanted if v in quantified_types}
    for inst, lit in future.items():
        if inst not in wanted and problem.objects.get(inst) not in wanted_types:
            yield Diagnostic("warning", "unreachable-future",
                             f"future object {inst} is never required to become real by the goal", lit.atom.pos)
