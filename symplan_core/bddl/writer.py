"""Model -> canonical BDDL text. ``parse(write(p)) == p`` for every problem."""

from __future__ import annotations

from symplan_core.bddl.model import And, Atom, Formula, Imply, Literal, Not, Or, Problem, Quantifier

_INDENT = "    "


def _term(arg: str) -> str:
    # Goals reference instances as ``?inst``; bound variables already carry '?'.
    return arg if arg.startswith("?") else f"?{arg}"


def write_atom(atom: Atom, in_goal: bool = False) -> str:
    args = [_term(a) for a in atom.args] if in_goal else list(atom.args)
    return "(" + " ".join([atom.predicate, *args]) + ")"


def write_literal(lit: Literal) -> str:
    text = write_atom(lit.atom)
    return f"(not {text})" if lit.negated else text


def write_formula(formula: Formula, depth: int = 0) -> str:
    pad = _INDENT * depth
    if isinstance(formula, Atom):
        return pad + write_atom(formula, in_goal=True)
    if isinstance(formula, (And, Or)):
        head = "and" if isinstance(formula, And) else "or"
        inner = [write_formula(p, depth + 1) for p in formula.parts]
    elif isinstance(formula, Not):
        head, inner = "not", [write_formula(formula.body, depth + 1)]
    elif isinstance(formula, Imply):
        head = "imply"
        inner = [write_formula(formula.antecedent, depth + 1), write_formula(formula.consequent, depth + 1)]
    elif isinstance(formula, Quantifier):
        head = formula.kind
        inner = []
        if formula.count is not None:
            inner.append(f"{pad}{_INDENT}({formula.count})")
        inner += [f"{pad}{_INDENT}({p.var} - {p.type})" for p in formula.params]
        inner.append(write_formula(formula.body, depth + 1))
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
