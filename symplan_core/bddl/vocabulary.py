"""Predicate vocabularies of the two BEHAVIOR dialects (name -> arity)."""

from __future__ import annotations

#: B-1K (domain ``omnigibson``), from bddl 3.6.0's domain file.
OMNIGIBSON: dict[str, int] = {
    "cooked": 1, "frozen": 1, "open": 1, "folded": 1, "unfolded": 1, "toggled_on": 1, "hot": 1,
    "on_fire": 1, "future": 1, "real": 1, "broken": 1,
    "saturated": 2, "covered": 2, "filled": 2, "contains": 2, "ontop": 2, "nextto": 2, "under": 2,
    "touching": 2, "inside": 2, "overlaid": 2, "attached": 2, "draped": 2, "insource": 2,
    "inroom": 2, "grasped": 2,
}

#: B-100 (domain ``igibson``): its domain file plus what the 100 problems use
#: (onfloor, soaked, touching, inroom appear in problems but not the domain file).
IGIBSON: dict[str, int] = {
    "inside": 2, "nextto": 2, "ontop": 2, "under": 2, "onfloor": 2, "touching": 2, "inroom": 2,
    "broken": 1, "burnt": 1, "cooked": 1, "dusty": 1, "frozen": 1, "open": 1, "perished": 1,
    "screwed": 1, "stained": 1, "sliced": 1, "soaked": 1, "timeset": 1, "toggled_on": 1,
    "saturated": 2,
}

DIALECTS: dict[str, dict[str, int]] = {"omnigibson": OMNIGIBSON, "igibson": IGIBSON}

#: Predicates whose second argument is a room name, not an object.
ROOM_PREDICATES = frozenset({"inroom"})


def vocabulary(domain: str) -> dict[str, int]:
    """Known predicates of a domain; unknown domains get the union of both."""
    return DIALECTS.get(domain, {**IGIBSON, **OMNIGIBSON})
