"""Which objects can fill each place of a goal predicate: :func:`goal_places`.

A goal literal ``(open x)`` can only be made true by an action whose effect adds it, and every
such action checks what ``x`` must be (``open`` needs ``ability:obj:openable``). Read from the
action table itself, that gives, per predicate and argument place, the objects of a world that
some producing action accepts there. The goal drafter's grammar uses it so that a model cannot
ask for what no action can do (a battery on fire, a book inside a printer).

Only the static checks that read an argument's affordances (``ability:``, ``type:``) count: they
hold or fail for an object whatever the plan does. A predicate that no action adds (``covered``,
made by pouring or overlaying, removed by cleaning) or a place that a producer leaves unchecked
is unrestricted (``None``): the grammar stays a superset of the goals the engine can reach.
"""

from __future__ import annotations

from collections.abc import Iterable

from symplan_core.engine.actions import ActionSpec, action_set
from symplan_core.engine.checks import CHECK_FACTORIES
from symplan_core.engine.world import World

#: The precondition checks that decide, from the world alone, whether an object fits a place.
_PLACE_CHECKS = ("ability", "type")
#: Effects that add a literal over their arguments: ``add:PRED:args...`` and ``place:REL:obj:tgt``.
_ADDING = ("add", "place")


def producers(specs: Iterable[ActionSpec]) -> dict[str, list[tuple[tuple[str, ...], ...]]]:
    """Predicate -> for each action effect that adds it, the place checks of each argument place
    (``("ability:openable",)``; ``()`` for a place the action does not check)."""
    found: dict[str, list[tuple[tuple[str, ...], ...]]] = {}
    for spec in specs:
        checks: dict[str, list[str]] = {}
        for pre in spec.pre:
            kind, *rest = pre.split(":")
            if kind in _PLACE_CHECKS and len(rest) == 2:
                checks.setdefault(rest[0], []).append(f"{kind}:{rest[1]}")
        for effect in spec.effects:
            kind, *rest = effect.split(":")
            if kind in _ADDING and len(rest) >= 2:
                found.setdefault(rest[0], []).append(tuple(tuple(checks.get(arg, ())) for arg in rest[1:]))
    return found


def goal_places(world: World, predicates: Iterable[str], actions: str = "full") -> dict[str, tuple[frozenset[str] | None, ...]]:
    """For each predicate some action of ``actions`` adds: per argument place, the objects of
    ``world`` that at least one producing action accepts there, or ``None`` when some producer
    does not check that place. Predicates no action adds are left out (unrestricted)."""
    made = producers(action_set(actions).values())
    out: dict[str, tuple[frozenset[str] | None, ...]] = {}
    for predicate in predicates:
        ways = made.get(predicate)
        if not ways:
            continue
        places: list[frozenset[str] | None] = []
        for place in range(min(len(w) for w in ways)):
            if any(not w[place] for w in ways):
                places.append(None)
                continue
            fits: set[str] = set()
            for way in ways:
                tests = [CHECK_FACTORIES[c.split(":", 1)[0]](c.split(":", 1)[1]) for c in way[place]]
                # Static checks never read the state or the hand capacity (checks.STATIC_CHECKS).
                fits |= {o for o in world.objects if all(t(world, None, (o,), 0) is None for t in tests)}  # type: ignore[arg-type]
            places.append(frozenset(fits))
        out[predicate] = tuple(places)
    return out
