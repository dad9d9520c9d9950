"""Room distractors: objects that belong in the task's rooms, placed on a fixture there.

Each distractor is an object synset seen in one of the task's rooms in the co-occurrence model
(:class:`~symplan_core.data.placements.PlacementModel`), resting ``ontop`` / ``inside`` a fixture of the
kind it was seen on: an existing fixture of that room which the goal does not mention, or a new
fixture of a type the task does not have yet (with its ``inroom`` fact). Distractor types are new
to the task, so no goal quantifier ranges over them; tools (knives, cleaners, heat sources ...)
are never added; the goal is untouched. The factory re-validates every extended task (the
reference plan must still strict-pass and must not touch a distractor).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from symplan_core.bddl.checks import iter_atoms, iter_quantifiers
from symplan_core.bddl.model import Atom, Literal, Problem
from symplan_core.bddl.normalize import substance_instance as free_instance  # first synset_k not taken
from symplan_core.data.placements import (
    TOOL_ABILITIES,
    Placement,
    PlacementModel,
    placement_literal,
    rooms_of,
)
from symplan_core.engine.world import FLOOR_TYPES
from symplan_core.tasks import synset_info


@dataclass(frozen=True)
class Extension:
    """The extended problem and what was added (instance -> type)."""

    problem: Problem
    distractors: dict[str, str] = field(default_factory=dict)
    fixtures: dict[str, str] = field(default_factory=dict)

    @property
    def added(self) -> set[str]:
        return set(self.distractors) | set(self.fixtures)


def goal_objects(problem: Problem) -> set[str]:
    """Instances the goal names, and every instance of a type the goal quantifies over."""
    named = {a for atom in iter_atoms(problem.goal) for a in atom.args if not a.startswith("?")}
    types = {p.type for q in iter_quantifiers(problem.goal) for p in q.params}
    return named | {inst for inst, typ in problem.objects.items() if typ in types}


def _is_tool(synset: str) -> bool:
    info = synset_info(synset)
    return info is None or bool(info.abilities & TOOL_ABILITIES)


def add_distractors(problem: Problem, placements: PlacementModel, rng: random.Random, count: int) -> Extension:
    """Up to ``count`` distractors (fewer when the rooms offer fewer); drawn by ``rng``."""
    room_of = rooms_of(problem)
    avoid = goal_objects(problem)
    types = set(problem.objects.values())
    options = [(p, n) for p, n in placements.in_rooms(set(room_of.values()))
               if p.synset not in types and not _is_tool(p.synset)
               and not (p.support in FLOOR_TYPES and problem.domain == "igibson")]
    objects, literals = dict(problem.objects), []
    distractors: dict[str, str] = {}
    fixtures: dict[str, str] = {}
    while options and len(distractors) < count:
        placement: Placement = rng.choices([p for p, _ in options], weights=[n for _, n in options])[0]
        options = [(p, n) for p, n in options if p.synset != placement.synset]
        support = _support(placement, objects, room_of, avoid)
        if support is None:
            continue
        if support not in objects:
            fixtures[support] = placement.support
            objects[support] = placement.support
            room_of[support] = placement.room
            literals.append(Literal(Atom("inroom", (support, placement.room))))
        name = free_instance(placement.synset, objects)
        distractors[name] = placement.synset
        objects[name] = placement.synset
        literals.append(placement_literal(problem, placement.relation, name, support))
    return Extension(_merged(problem, objects, literals, rng), distractors, fixtures)


def _support(placement: Placement, objects: dict[str, str], room_of: dict[str, str], avoid: set[str]) -> str | None:
    """An existing fixture of the placement's kind in its room that the goal leaves alone, else a new
    one (never a tool such as a stove) when the task has no object of that type at all."""
    for inst, typ in objects.items():
        if typ == placement.support and room_of.get(inst) == placement.room and inst not in avoid:
            return inst
    if placement.support in FLOOR_TYPES or placement.support in objects.values() or _is_tool(placement.support):
        return None
    return free_instance(placement.support, objects)


def _merged(problem: Problem, objects: dict[str, str], literals: list[Literal], rng: random.Random) -> Problem:
    """The problem with the new objects and facts spread among the old ones, so that position in
    the environment listing says nothing about relevance."""
    items = list(problem.objects.items())
    for inst in (i for i in objects if i not in problem.objects):
        items.insert(rng.randint(0, len(items)), (inst, objects[inst]))
    init = list(problem.init)
    for lit in literals:
        init.insert(rng.randint(0, len(init)), lit)
    return replace(problem, objects=dict(items), init=tuple(init))
