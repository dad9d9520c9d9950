"""Static, compiled view of one task: objects, types, affordances, rooms.

Built once per task (see :func:`symplan_core.engine.compile_task`) and shared
by every plan verified against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symplan_core.bddl.model import Problem

AGENT_TYPE = "agent.n.01"
FLOOR_TYPES = frozenset({"floor.n.01", "lawn.n.01"})


@dataclass(frozen=True)
class Affordances:
    """Per-object ability flags; ``None`` for an ability means "unknown: permit"."""

    known: bool
    abilities: frozenset[str] = frozenset()
    substance: bool = False

    def allows(self, ability: str) -> bool:
        return not self.known or ability in self.abilities


@dataclass
class World:
    """Objects of a task (agent excluded) and what each can do."""

    objects: dict[str, str]  # instance -> type (agent excluded)
    agent: str | None
    affordances: dict[str, Affordances]
    room_of: dict[str, str]
    floors: frozenset[str]
    by_type: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for inst, typ in self.objects.items():
            self.by_type.setdefault(typ, []).append(inst)

    def is_fixture(self, obj: str) -> bool:
        aff = self.affordances[obj]
        return obj in self.floors or (aff.known and "sceneObject" in aff.abilities)

    def is_substance(self, obj: str) -> bool:
        return self.affordances[obj].substance

    def allows(self, obj: str, ability: str) -> bool:
        return self.affordances[obj].allows(ability)


def _lookup_affordances(synset: str) -> Affordances:
    # The synset table is optional at run time (a bare BDDL file with no fetched data).
    try:
        from symplan_core.tasks import synset_info

        info = synset_info(synset)
    except Exception:  # noqa: BLE001 - missing data means "unknown", never a crash
        info = None
    if info is None:
        return Affordances(known=False)
    return Affordances(True, info.abilities, info.is_substance)


def build_world(problem: Problem) -> World:
    """``problem`` must already be in the omnigibson vocabulary."""
    agent = next((i for i, t in problem.objects.items() if t == AGENT_TYPE), None)
    objects = {i: t for i, t in problem.objects.items() if i != agent}
    cache: dict[str, Affordances] = {}
    affordances = {}
    for inst, typ in objects.items():
        if typ not in cache:
            cache[typ] = _lookup_affordances(typ)
        affordances[inst] = cache[typ]
    room_of = {lit.args[0]: lit.args[1] for lit in problem.init
               if lit.predicate == "inroom" and not lit.negated and len(lit.args) == 2}
    floors = frozenset(i for i, t in objects.items() if t in FLOOR_TYPES)
    return World(objects, agent, affordances, room_of, floors)
