"""Which objects can fill each place of a goal predicate: :func:`goal_places`.

A goal literal ``(open x)`` can only be made true by an action whose effect adds it, and every
such action checks what ``x`` must be (``open`` needs ``ability:obj:openable``). Read from the
action table itself, that gives, per predicate and argument place, the objects of a world that
some producing action accepts there. The goal drafter's grammar uses it so that a model cannot
ask for what no action can do (a battery on fire, a book inside a printer).

Only the static checks count, the ones that read an argument's affordances (``ability:``,
``type:``, ``graspable``: a fixture is never put anywhere, ``solid``, ``substance``): they hold or
fail for an object whatever the plan does. ``nextto`` is symmetric in the engine's state (placing
the cup next to the sink makes ``(nextto sink cup)`` true), so each of its places takes what
either place accepts. A producing action whose scene-wide need no object of the world can ever
meet is no way to make its predicate (:data:`SCENE_NEEDS`: nothing cooks without a heat source,
nothing burns without a flame, nothing freezes without a cold source, nothing is cut without a
blade to hold); a predicate left with no way has no object in any place. A predicate the state
derives from another (``contains`` from ``filled``, ``predicates.DERIVED_FROM``) takes its source's
holder place: Qwen 1.5B wrote ``(contains apple water)`` and ``(contains chocolate_milk
chocolate_milk)``, and every one of the 303 ``contains``/``filled`` literals in the released B-1K
goals holds its substance in a fillable object. (A made substance also lies ``contains`` wherever
its ingredient lay, a chopping board say: no released goal asks for it, and the grammar leaves it
out.) Any other predicate that no action adds (``covered``, made by pouring or overlaying, removed
by cleaning) or a place that a producer leaves unchecked is unrestricted (``None``): the grammar
stays a superset of the goals the engine can reach. ``bears`` (nothing is set on top of a wall nail
or a hanger) is left out on purpose: a model that writes ``(ontop ?wreath ?wall_nail_1)`` means
hanging it, and mending reads it so (``goal_mending.hang_on_hanging_places``); closed off, the
model wrote the wreath on the floor instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from symplan_core.engine.actions import ActionSpec, action_set
from symplan_core.engine.checks import CHECK_FACTORIES, CHECKS, CUT_PRODUCTS, HEATED_PRODUCTS, Check
from symplan_core.engine.predicates import DERIVED_FROM, SYMMETRIC_RELATIONS
from symplan_core.engine.world import World

#: The precondition checks that decide, from the world alone, whether an object fits a place.
_PLACE_CHECKS = ("ability", "type", "graspable", "solid", "substance")
#: Precondition check -> the ability some object of the scene must have for it ever to pass
#: (``holding:FLAG`` needs an object with FLAG): ``checks._heated``, ``_flame``, ``_cooled``. A flame
#: can also come from something already burning; the world does not say what burns at the start,
#: so a scene whose only flame is a fire with no heatSource ability loses ``on_fire`` here.
SCENE_NEEDS = {"heated": "heatSource", "flame": "heatSource", "cooled": "coldSource"}
#: Effects that add a literal over their arguments: ``add:PRED:args...`` and ``place:REL:obj:tgt``.
_ADDING = ("add", "place")


def scene_has(world: World, ability: str) -> bool:
    """Some object of ``world`` may have ``ability`` (one of unknown affordances may)."""
    return any(world.allows(o, ability) for o in world.objects)


def scene_needs(spec: ActionSpec) -> tuple[str, ...]:
    """The abilities ``spec``'s preconditions need somewhere in the scene (:data:`SCENE_NEEDS`)."""
    needs = []
    for pre in spec.pre:
        kind, *rest = pre.split(":")
        if kind in SCENE_NEEDS:
            needs.append(SCENE_NEEDS[kind])
        elif kind == "holding" and rest:
            needs.append(rest[0])
    return tuple(needs)


def can_make(world: World, processes: Iterable[str]) -> bool:
    """The scene can do each process a product's name says (``checks.processes_between``): a cut
    needs a slicer to hold, cooking or melting a heat source (the ``make`` action's checks)."""
    done = set(processes)
    return ((not done & CUT_PRODUCTS or scene_has(world, "slicer"))
            and (not done & HEATED_PRODUCTS or scene_has(world, "heatSource")))


def producers(specs: Iterable[ActionSpec], world: World | None = None) -> dict[str, list[tuple[tuple[str, ...], ...]]]:
    """Predicate -> for each action effect that adds it, the place checks of each argument place
    (``("ability:openable",)``; ``()`` for a place the action does not check). With ``world``, an
    action whose scene-wide needs the world cannot meet adds nothing."""
    found: dict[str, list[tuple[tuple[str, ...], ...]]] = {}
    for spec in specs:
        if world is not None and not all(scene_has(world, need) for need in scene_needs(spec)):
            continue
        checks: dict[str, list[str]] = {}
        for pre in spec.pre:
            kind, *rest = pre.split(":")
            if kind in _PLACE_CHECKS and len(rest) in (1, 2):
                checks.setdefault(rest[0], []).append(":".join([kind, *rest[1:]]))
        for effect in spec.effects:
            kind, *rest = effect.split(":")
            if kind in _ADDING and len(rest) >= 2:
                found.setdefault(rest[0], []).append(tuple(tuple(checks.get(arg, ())) for arg in rest[1:]))
    return found


def _place_test(check: str) -> Check:
    kind, _, extra = check.partition(":")
    return CHECK_FACTORIES[kind](extra) if kind in CHECK_FACTORIES else CHECKS[kind]


def goal_places(world: World, predicates: Iterable[str], actions: str = "full") -> dict[str, tuple[frozenset[str] | None, ...]]:
    """For each predicate some action of ``actions`` adds: per argument place, the objects of
    ``world`` that at least one producing action accepts there, or ``None`` when some producer
    does not check that place. Predicates no action adds and none derives from
    (``DERIVED_FROM``) are left out (unrestricted)."""
    every = producers(action_set(actions).values())
    made = producers(action_set(actions).values(), world)
    out: dict[str, tuple[frozenset[str] | None, ...]] = {}
    for predicate in predicates:
        source = predicate if predicate in every else DERIVED_FROM.get(predicate)
        if source not in every:
            continue
        ways = made.get(source)
        if not ways:  # every action that adds it needs what this scene lacks
            out[predicate] = tuple(frozenset() for _ in every[source][0])
            continue
        places: list[frozenset[str] | None] = []
        for place in range(min(len(w) for w in ways)):
            if any(not w[place] for w in ways):
                places.append(None)
                continue
            fits: set[str] = set()
            for way in ways:
                tests = [_place_test(c) for c in way[place]]
                # Static checks never read the state or the hand capacity (checks.STATIC_CHECKS).
                fits |= {o for o in world.objects if all(t(world, None, (o,), 0) is None for t in tests)}  # type: ignore[arg-type]
            places.append(frozenset(fits))
        if predicate in SYMMETRIC_RELATIONS and len(places) == 2:
            either = None if None in places else frozenset(o for p in places if p is not None for o in p)
            places = [either, either]
        if source != predicate:  # only the holder: a made substance is contained without being bulk
            places[1:] = [None] * (len(places) - 1)
        out[predicate] = tuple(places)
    return out
