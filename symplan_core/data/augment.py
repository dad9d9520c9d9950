"""Seeded augmentation drafts of a task definition, without an LLM (the paper's two strategies).

* **init aug** (:func:`init_aug`): one or two movable objects that rest on a fixture move to
  another fixture of the task, with a relation seen for that pair (or that support) in the room
  co-occurrence model; the goal does not change.
* **object aug** (:func:`object_aug`): object types and instances change and the goal is
  rewritten with them: either a type is swapped for a sibling synset in BEHAVIOR's hierarchy with
  the same abilities and object type (``swap``: every instance, variable and quantifier renamed),
  or a type gains or loses one instance (``count``: the new instance copies an existing one's
  initial facts; goal conjuncts naming the copied or removed instance are duplicated or dropped).

A draft is only a proposal: the factory validates every draft with
:func:`symplan_core.data.validate.validate_definition` and counts the invalid ones per reason.
The same ``random.Random`` state always gives the same draft.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.model import And, Atom, Formula, Literal, Param, Problem
from symplan_core.bddl.normalize import map_formula
from symplan_core.bddl.normalize import substance_instance as free_instance  # first synset_k not taken
from symplan_core.data.placements import (
    PlacementModel,
    is_fixture,
    is_movable,
    placement_literal,
    rooms_of,
    support_of,
)
from symplan_core.tasks import synset_info, synset_parents

MAX_INSTANCES = 8


@dataclass(frozen=True)
class Draft:
    """A proposed definition (``problem``), or ``problem=None`` with why none could be made."""

    kind: str  # init_aug | object_aug
    problem: Problem | None
    details: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    renames: Mapping[str, str] = field(default_factory=dict)  # old synset -> new (object aug swap)


def placed_fixtures(problem: Problem) -> list[str]:
    """Fixtures standing in a room of the task (they have an ``inroom`` fact), in declaration order."""
    rooms = rooms_of(problem)
    return [inst for inst, typ in problem.objects.items() if inst in rooms and is_fixture(typ)]


def _new_places(problem: Problem, placements: PlacementModel, inst: str, support: str,
                fixtures: list[str]) -> list[tuple[int, str, str]]:
    """``(weight, relation, fixture)`` for every other fixture ``inst`` plausibly rests on; pairs
    seen in the co-occurrence model weigh more."""
    typ = problem.objects[inst]
    options = []
    for fixture in fixtures:
        fixture_type = problem.objects[fixture]
        relation = placements.relation_for(typ, fixture_type)
        if fixture == support or relation is None:
            continue
        seen = sum(n for p, n in placements.placements.items() if p.synset == typ and p.support == fixture_type)
        options.append((1 + 4 * seen, relation, fixture))
    return options


def init_aug(problem: Problem, rng: random.Random, placements: PlacementModel) -> Draft:
    """Move one or two movable objects that rest on a fixture to another plausible fixture."""
    fixtures = placed_fixtures(problem)
    movable = []
    for inst, typ in problem.objects.items():
        found = support_of(problem, inst) if is_movable(typ) else None
        if found and found[2] in fixtures:
            options = _new_places(problem, placements, inst, found[2], fixtures)
            if options:
                movable.append((inst, *found, options))
    if not movable:
        return Draft("init_aug", None, reason="no_movable_object_with_another_place")
    init = list(problem.init)
    moves = []
    for inst, index, relation, support, options in rng.sample(movable, min(len(movable), rng.choice((1, 2)))):
        _, new_relation, new_support = rng.choices(options, weights=[w for w, _, _ in options])[0]
        init[index] = placement_literal(problem, new_relation, inst, new_support)
        moves.append({"object": inst, "from": [relation, support], "to": [new_relation, new_support]})
    return Draft("init_aug", replace(problem, init=tuple(init)), {"method": "move", "moves": moves})


# -- object aug ------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _children() -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for child, parent in synset_parents().items():
        children.setdefault(parent, []).append(child)
    return {parent: sorted(kids) for parent, kids in children.items()}


def siblings(synset: str) -> list[str]:
    """Synsets with the same parent, the same abilities and object type, and movable."""
    info, parent = synset_info(synset), synset_parents().get(synset)
    if info is None or parent is None:
        return []
    out = []
    for other in _children().get(parent, []):
        other_info = synset_info(other)
        if (other != synset and other_info is not None and is_movable(other)
                and other_info.abilities == info.abilities and other_info.object_type == info.object_type):
            out.append(other)
    return out


def _conjuncts(goal: Formula) -> tuple[Formula, ...]:
    return goal.parts if isinstance(goal, And) else (goal,)


def _mentions(f: Formula) -> set[str]:
    return {arg for atom in iter_atoms(f) for arg in atom.args}


def _rename_problem(problem: Problem, names: Mapping[str, str], types: Mapping[str, str]) -> Problem:
    def atom_fn(atom: Atom) -> Atom:
        return Atom(atom.predicate, tuple(names.get(a, a) for a in atom.args))

    def param_fn(param: Param) -> Param:
        return Param(names.get(param.var, param.var), types.get(param.type, param.type))

    objects = {names.get(i, i): types.get(t, t) for i, t in problem.objects.items()}
    init = tuple(Literal(atom_fn(lit.atom), lit.negated) for lit in problem.init)
    return replace(problem, objects=objects, init=init, goal=map_formula(problem.goal, atom_fn, param_fn))


def _swap(problem: Problem, rng: random.Random) -> Draft:
    types = set(problem.objects.values())
    options = [(typ, sib) for typ in sorted(types) if is_movable(typ)
               for sib in siblings(typ) if sib not in types]
    if not options:
        return Draft("object_aug", None, reason="no_sibling_synset")
    old, new = rng.choice(options)
    pattern = re.compile(rf"^{re.escape(old)}_(\d+)$")
    names: dict[str, str] = {f"?{old}": f"?{new}"}
    for inst in problem.instances_of(old):
        match = pattern.match(inst)
        if not match:
            return Draft("object_aug", None, reason="irregular_instance_name")
        names[inst] = f"{new}_{match.group(1)}"
    drafted = _rename_problem(problem, names, {old: new})
    return Draft("object_aug", drafted, {"method": "swap", "from": old, "to": new}, renames={old: new})


def _count(problem: Problem, rng: random.Random) -> Draft:
    future = {lit.args[0] for lit in problem.init if lit.predicate in ("future", "real") and lit.args}
    types = [t for t in dict.fromkeys(problem.objects.values())
             if is_movable(t) and not future & set(problem.instances_of(t))]
    if not types:
        return Draft("object_aug", None, reason="no_countable_type")
    typ = rng.choice(types)
    instances = problem.instances_of(typ)
    grow = len(instances) < 2 or (len(instances) < MAX_INSTANCES and rng.random() < 0.5)
    pick = rng.choice(instances)
    conjuncts = _conjuncts(problem.goal)
    if any(pick in _mentions(c) and len(_mentions(c) & set(instances)) > 1 for c in conjuncts):
        return Draft("object_aug", None, reason="goal_not_rewritable")
    if grow:
        new = free_instance(typ, problem.objects)

        def swap_in(atom: Atom) -> Atom:
            return Atom(atom.predicate, tuple(new if a == pick else a for a in atom.args))

        init = problem.init + tuple(Literal(swap_in(lit.atom), lit.negated) for lit in problem.init
                                    if lit.args and lit.args[0] == pick)
        extra = tuple(map_formula(c, swap_in) for c in conjuncts if pick in _mentions(c))
        goal = And(conjuncts + extra) if extra else problem.goal
        objects = _insert_after(problem.objects, instances[-1], new, typ)
        details = {"method": "count", "type": typ, "from": len(instances), "to": len(instances) + 1,
                   "added": new, "copied_from": pick}
    else:
        if any(pick in lit.args[1:] for lit in problem.init):
            return Draft("object_aug", None, reason="instance_holds_others")
        kept = tuple(c for c in conjuncts if pick not in _mentions(c))
        if not kept:
            return Draft("object_aug", None, reason="goal_empty")
        goal = problem.goal if len(kept) == len(conjuncts) else And(kept)
        init = tuple(lit for lit in problem.init if pick not in lit.args)
        objects = {i: t for i, t in problem.objects.items() if i != pick}
        details = {"method": "count", "type": typ, "from": len(instances), "to": len(instances) - 1, "removed": pick}
    return Draft("object_aug", replace(problem, objects=objects, init=init, goal=goal), details)


def _insert_after(objects: Mapping[str, str], anchor: str, name: str, typ: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for inst, t in objects.items():
        out[inst] = t
        if inst == anchor:
            out[name] = typ
    return out


def object_aug(problem: Problem, rng: random.Random) -> Draft:
    """Swap a type for a sibling synset, or change a type's instance count (order drawn by ``rng``)."""
    makers = [_swap, _count]
    rng.shuffle(makers)
    drafts = [makers[0](problem, rng)]
    if drafts[0].problem is None:
        drafts.append(makers[1](problem, rng))
    made = [d for d in drafts if d.problem is not None]
    if made:
        return made[0]
    retryable = [d for d in drafts if not is_structural(d.reason)]
    return retryable[0] if retryable else Draft("object_aug", None, reason="no_swap_or_count_candidate")


def is_structural(reason: str | None) -> bool:
    """A reason that no other random draw can change (the task has no candidate at all)."""
    return reason is not None and reason.startswith("no_")
