"""Map B-100 (igibson) predicate vocabulary onto B-1K (omnigibson) and back.

The engine runs one vocabulary (omnigibson). B-100 states and goals are
rewritten with these rules, adding the substance instances they name:

=========================  ===================================
igibson                    omnigibson
=========================  ===================================
``(onfloor x f)``          ``(ontop x f)``
``(stained x)``            ``(covered x stain.n.01_1)``
``(dusty x)``              ``(covered x dust.n.01_1)``
``(soaked x)``             ``(saturated x water.n.06_1)``
=========================  ===================================

``to_igibson`` inverts them (``ontop`` onto a ``floor.n.01`` becomes ``onfloor``).
Predicates without a counterpart (``sliced``, ``burnt``, ``timeset`` ...) pass through.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import replace

from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.model import And, Atom, Formula, Imply, Literal, Not, Or, Param, Problem

#: igibson unary predicate -> (omnigibson binary predicate, substance synset)
SUBSTANCE_RULES: dict[str, tuple[str, str]] = {
    "stained": ("covered", "stain.n.01"),
    "dusty": ("covered", "dust.n.01"),
    "soaked": ("saturated", "water.n.06"),
}
FLOOR_TYPES = frozenset({"floor.n.01", "lawn.n.01"})


def substance_instance(synset: str, taken: Container[str]) -> str:
    """First ``synset_k`` not already declared (B-100 has rigid ``water.n.06_1`` bottles)."""
    k = 1
    while f"{synset}_{k}" in taken:
        k += 1
    return f"{synset}_{k}"


def map_formula(f: Formula, atom_fn: Callable[[Atom], Atom],
                param_fn: Callable[[Param], Param] | None = None) -> Formula:
    """``f`` with every atom replaced by ``atom_fn(atom)`` (and, with ``param_fn``, every
    quantified parameter by ``param_fn(param)``); the structure is kept."""
    if isinstance(f, Atom):
        return atom_fn(f)
    if isinstance(f, And):
        return And(tuple(map_formula(p, atom_fn, param_fn) for p in f.parts), f.pos)
    if isinstance(f, Or):
        return Or(tuple(map_formula(p, atom_fn, param_fn) for p in f.parts), f.pos)
    if isinstance(f, Not):
        return Not(map_formula(f.body, atom_fn, param_fn), f.pos)
    if isinstance(f, Imply):
        return Imply(map_formula(f.antecedent, atom_fn, param_fn), map_formula(f.consequent, atom_fn, param_fn),
                     f.pos)
    params = f.params if param_fn is None else tuple(param_fn(p) for p in f.params)
    return replace(f, params=params, body=map_formula(f.body, atom_fn, param_fn))


def _map_problem(problem: Problem, atom_fn: Callable[[Atom], Atom], domain: str,
                 extra_objects: dict[str, str]) -> Problem:
    init = tuple(Literal(atom_fn(lit.atom), lit.negated) for lit in problem.init)
    objects = dict(problem.objects)
    objects.update(extra_objects)
    return replace(problem, domain=domain, objects=objects, init=init, goal=map_formula(problem.goal, atom_fn))


def to_omnigibson(problem: Problem) -> Problem:
    """Rewrite an igibson problem in the omnigibson vocabulary (identity otherwise)."""
    if problem.domain != "igibson":
        return problem
    chosen = {synset: substance_instance(synset, problem.objects) for _, synset in SUBSTANCE_RULES.values()}
    used: dict[str, str] = {}

    def atom_fn(a: Atom) -> Atom:
        if a.predicate == "onfloor":
            return Atom("ontop", a.args, a.pos)
        rule = SUBSTANCE_RULES.get(a.predicate)
        if rule and len(a.args) == 1:
            pred, synset = rule
            inst = chosen[synset]
            used[inst] = synset
            return Atom(pred, (a.args[0], inst), a.pos)
        return a

    mapped = _map_problem(problem, atom_fn, "omnigibson", {})
    return replace(mapped, objects={**mapped.objects, **{k: v for k, v in used.items() if k not in mapped.objects}})


def to_igibson(problem: Problem) -> Problem:
    """Inverse of :func:`to_omnigibson` for the rules above."""
    if problem.domain == "igibson":
        return problem
    inverse = {(pred, synset): name for name, (pred, synset) in SUBSTANCE_RULES.items()}
    objects = problem.objects

    def atom_fn(a: Atom) -> Atom:
        if len(a.args) == 2 and a.args[1] in objects:  # an undeclared target is left as it is
            target_type = objects[a.args[1]]
            if a.predicate == "ontop" and target_type in FLOOR_TYPES:
                return Atom("onfloor", a.args, a.pos)
            name = inverse.get((a.predicate, target_type))
            if name:
                return Atom(name, (a.args[0],), a.pos)
        return a

    mapped = _map_problem(problem, atom_fn, "igibson", {})
    # Drop only the substance instances the rewrite made unused (the ones to_omnigibson
    # added); a declared but unused instance (B-100's rigid water bottles) stays.
    substance_types = {synset for _, synset in SUBSTANCE_RULES.values()}
    before, after = _referenced(problem), _referenced(mapped)
    kept = {i: t for i, t in mapped.objects.items()
            if t not in substance_types or i in after or i not in before}
    return replace(mapped, objects=kept)


def _referenced(problem: Problem) -> set[str]:
    return {a for lit in problem.init for a in lit.args} | {a for at in iter_atoms(problem.goal) for a in at.args}
