"""Ordered dependent placements: targets the goal implies but does not state.

An object related to two things can only be placed in one move, so the second relation has to
be prepared first: ``a`` on ``b`` and inside ``c`` means ``b`` goes inside ``c`` before ``a``
goes on ``b``; one cloth over two objects means they are put side by side before it is laid.
The ordering layer (:mod:`symplan_core.planners.ordering`) then keeps both true.
"""

from __future__ import annotations

from symplan_core.engine.predicates import PLACE_ACTIONS
from symplan_core.engine.world import World
from symplan_core.planners.grounding import Target


def dependent_targets(targets: list[Target], world: World) -> list[Target]:
    """The extra targets that make ``targets`` achievable one placement at a time."""
    return stacked_into(targets, world) + covered_together(targets, world)


def stacked_into(targets: list[Target], world: World) -> list[Target]:
    """Ordered dependent placements: ``a`` wanted on ``b`` and inside ``c`` (firewood on the
    newspaper, in the fireplace; pizza on a plate, in the fridge) puts ``b`` inside ``c`` first,
    when ``b`` can move and no goal says where ``b`` goes."""
    wanted = {(t.predicate, t.args[0]): t.args[1] for t in targets if t.positive and len(t.args) == 2}
    placed = {t.args[0] for t in targets if t.positive and t.predicate in PLACE_ACTIONS and len(t.args) == 2}
    extra = []
    for t in targets:
        if t.positive and t.predicate == "ontop" and ("inside", t.args[0]) in wanted:
            base, box = t.args[1], wanted[("inside", t.args[0])]
            if base != box and base not in placed and not world.is_fixture(base) and not world.is_substance(base):
                extra.append(Target("inside", (base, box)))
                placed.add(base)
    return extra


def covered_together(targets: list[Target], world: World) -> list[Target]:
    """One cloth wanted over two movable objects (a napkin around a knife and a spoon): put the
    second next to the first, so that laying the cloth over one covers both."""
    over: dict[str, list[str]] = {}
    for t in targets:
        if t.positive and t.predicate == "overlaid" and len(t.args) == 2 and not world.is_fixture(t.args[1]):
            over.setdefault(t.args[0], []).append(t.args[1])
    return [Target("nextto", (other, objs[0])) for objs in over.values() for other in objs[1:]]
