"""Room co-occurrence from BEHAVIOR task files: which objects rest on which fixtures, in which room.

The model behind scene distractors and init augmentation. From every given problem it reads
the fixtures' ``(inroom fixture room)`` facts and each movable object's ``ontop`` / ``inside``
fact on such a fixture, and counts ``(room, object synset, relation, fixture synset)``
placements. "Movable" and "fixture" come from BEHAVIOR's synset table
(:func:`symplan_core.tasks.synset_info`): fixtures are scene objects; substances, the agent,
derived-state synsets (``cooked__diced__broccoli``) and unknown synsets are never distractors.

The factory builds the model from the training activities only, so nothing read from a held-out
file ever reaches a training sample.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from symplan_core.bddl.model import Atom, Literal, Problem
from symplan_core.engine.world import AGENT_TYPE, FLOOR_TYPES
from symplan_core.tasks import synset_info

PLACEMENT_RELATIONS = ("ontop", "inside")
#: Abilities that make an object a tool some plan might pick up (knives, cleaners, heat
#: sources, ...): a distractor must stay irrelevant, so such objects are never added.
TOOL_ABILITIES = frozenset({"slicer", "particleRemover", "particleApplier", "particleSource", "heatSource",
                            "coldSource", "mixingTool", "particleSink"})


@dataclass(frozen=True, order=True)
class Placement:
    """``(relation synset support)`` seen in ``room``: e.g. kitchen, apple, inside, refrigerator."""

    room: str
    synset: str
    relation: str
    support: str


def is_movable(synset: str) -> bool:
    """A known, graspable-kind object: not a fixture, substance, agent or derived-state synset."""
    if synset == AGENT_TYPE or synset in FLOOR_TYPES or "__" in synset:
        return False
    info = synset_info(synset)
    return info is not None and not info.is_substance and "sceneObject" not in info.abilities


def is_fixture(synset: str) -> bool:
    if synset in FLOOR_TYPES:
        return True
    info = synset_info(synset)
    return info is not None and "sceneObject" in info.abilities


def rooms_of(problem: Problem) -> dict[str, str]:
    """Instance -> room name, from the problem's positive ``inroom`` facts."""
    return {lit.args[0]: lit.args[1] for lit in problem.init
            if lit.predicate == "inroom" and not lit.negated and len(lit.args) == 2}


def support_of(problem: Problem, instance: str) -> tuple[int, str, str] | None:
    """``(index in init, relation, support)`` of the first placement fact of ``instance``.

    ``onfloor`` (B-100) counts as ``ontop``."""
    for k, lit in enumerate(problem.init):
        if lit.negated or len(lit.args) != 2 or lit.args[0] != instance:
            continue
        relation = "ontop" if lit.predicate == "onfloor" else lit.predicate
        if relation in PLACEMENT_RELATIONS:
            return k, relation, lit.args[1]
    return None


def placement_literal(problem: Problem, relation: str, obj: str, support: str) -> Literal:
    """``(relation obj support)``; B-100 writes "on the floor" as ``onfloor``."""
    floor = problem.objects.get(support) in FLOOR_TYPES
    predicate = "onfloor" if relation == "ontop" and floor and problem.domain == "igibson" else relation
    return Literal(Atom(predicate, (obj, support)))


@dataclass
class PlacementModel:
    """Placement counts per room, and which fixture synsets serve as ``ontop``/``inside`` supports."""

    placements: Counter[Placement] = field(default_factory=Counter)
    supports: Counter[tuple[str, str]] = field(default_factory=Counter)  # (relation, fixture synset)
    problems: int = 0

    @classmethod
    def from_problems(cls, problems: Iterable[Problem]) -> PlacementModel:
        model = cls()
        for problem in problems:
            model.add(problem)
        return model

    def add(self, problem: Problem) -> None:
        self.problems += 1
        room = rooms_of(problem)
        for inst, typ in problem.objects.items():
            if not is_movable(typ):
                continue
            found = support_of(problem, inst)
            if found is None:
                continue
            _, relation, support = found
            support_type = problem.objects.get(support)
            if support in room and support_type is not None and is_fixture(support_type):
                self.placements[Placement(room[support], typ, relation, support_type)] += 1
                self.supports[relation, support_type] += 1

    def in_rooms(self, rooms: Iterable[str]) -> list[tuple[Placement, int]]:
        """Placements seen in any of ``rooms``, most frequent first (ties by name: deterministic)."""
        wanted = set(rooms)
        found = [(p, n) for p, n in self.placements.items() if p.room in wanted]
        return sorted(found, key=lambda item: (-item[1], item[0]))

    def relation_for(self, synset: str, support: str) -> str | None:
        """How ``synset`` plausibly rests on ``support``: a relation seen for the pair, else the
        relation the support is most often seen with (ties: ``ontop``), else None."""
        seen = [(n, p.relation) for p, n in self.placements.items() if p.synset == synset and p.support == support]
        if seen:
            return max(seen, key=lambda item: (item[0], item[1] == "ontop"))[1]
        counts = [(self.supports.get((rel, support), 0), rel == "ontop", rel) for rel in PLACEMENT_RELATIONS]
        best = max(counts)
        return best[2] if best[0] else None
