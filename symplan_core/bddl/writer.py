"""Model -> canonical BDDL text. ``parse(write(p)) == p`` for every problem."""

from __future__ import annotations

from symplan_core.bddl.model import And, Atom, Formula, Imply, Literal, Not, Or, Problem, Quantifier

_INDENT = "    "


def _term(arg: str, bound: frozenset[str]) -> str:
    """A goal argument as text that parses back to ``arg``.

    Bound variables are written as they are. Instance references get a ``?`` (the BEHAVIOR
    style), except when ``?arg`` is a variable bound here: then the bare name, which the
    parser can only read as the instance.
    """
    if arg in bound:
        return arg
    return arg if f"?{arg}" in bound else f"?{arg}"


def write_atom(atom: Atom, in_goal: bool = False, bound: frozenset[str] = frozenset()) -> str:
    args = [_term(a, bound) for a in atom.args] if in_goal else list(atom.args)
    return "(" + " ".join([atom.predicate, *args]) + ")"


def write_literal(lit: Literal) -> str:
    text = write_atom(lit.atom)
    return f"(not {text})" if lit.negated else text


def write_formula(formula: Formula, depth: int = 0) -> str:
    """A goal formula as indented BDDL, one node per line."""
    return _write(formula, depth, frozenset())


def _write(formula: Formula, depth: int, bound: frozenset[str]) -> str:
    pad = _INDENT * depth
    if isinstance(formula, Atom):
        return pad + write_atom(formula, in_goal=True, bound=bound)
    if isinstance(formula, (And, Or)):
        head = "and" if isinstance(formula, And) else "or"
        inner = [_write(p, depth + 1, bound) for p in formula.parts]
    elif isinstance(formula, Not):
        head, inner = "not", [_write(formula.body, depth + 1, bound)]
    elif isinstance(formula, Imply):
        head = "imply"
        inner = [_write(formula.antecedent, depth + 1, bound), _write(formula.consequent, depth + 1, bound)]
    elif isinstance(formula, Quantifier):
        head = formula.kind
        inner = []
        if formula.count is not None:
            inner.append(f"{pad}{_INDENT}({formula.count})")
        inner += [f"{pad}{_INDENT}({p.var} - {p.type})" for p in formula.params]
        inner.append(_write(formula.body, depth + 1, bound | {p.var for p in formula.params}))
    else:  # pragma: no cover - the model has no other node types
        raise TypeError(f"not a formula: {formula!r}")
    return "\n".join([f"{pad}({head}", *inner, f"{pad})"])


def write_objects(objects: dict[str, str], depth: int = 2) -> list[str]:
    by_type: dict[str, list[str]] = {}
    for inst, typ in objects.items():
        by_type.setdefault(typ, []).append(inst)
    return [f"{_INDENT * depth}{' '.join(insts)} - {typ}" for typ, insts in by_type.items()]


def write_problem(problem: Problem) -> str:
    """Canonical text: one section per block, declaration order kept."""
    lines = [f"(define (problem {problem.name})", f"{_INDENT}(:domain {problem.domain})", "",
             f"{_INDENT}(:objects"]
    lines += write_objects(problem.objects)
    lines += [f"{_INDENT})", "", f"{_INDENT}(:init"]
    lines += [f"{_INDENT * 2}{write_literal(lit)}" for lit in problem.init]
    lines += [f"{_INDENT})", "", f"{_INDENT}(:goal", write_formula(problem.goal, 2), f"{_INDENT})", ")"]
    return "\n".join(lines) + "\n"
