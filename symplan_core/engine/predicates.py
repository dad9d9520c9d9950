"""Predicate families: which BDDL predicates behave alike, defined once for the engine,
the planners and action discovery."""

from __future__ import annotations

#: An object rests on or in exactly one thing (``State.support``).
SUPPORT_RELATIONS = ("ontop", "inside")
#: What each placement action makes true (``place_*`` effects).
PLACE_ACTIONS = {"ontop": "place_on_top", "inside": "place_inside", "nextto": "place_next_to",
                 "under": "place_under"}
PLACEMENT_RELATIONS = tuple(PLACE_ACTIONS)
#: Relations the state stores as unordered pairs (``State.nextto``): ``(nextto a b)`` is ``(nextto b a)``.
SYMMETRIC_RELATIONS = ("nextto",)
#: Relations an object drops when it is picked up besides its support. ``under`` is one of
#: them: an object under a table stands on the floor (its support) beneath it.
ATTACHMENT_RELATIONS = ("overlaid", "draped", "attached", "under")
#: Places that hold things only hung on them, with the relation they hold by. In the released
#: B-100 and B-1K goals a wall nail is the place of 23 ``attached`` literals and a hanger of 17
#: ``draped`` ones, and neither is ever what another object rests on, in or under.
HANGING_PLACES = {"wall_nail.n.01": "attached", "hanger.n.02": "draped"}
#: Binary relations between two objects that moving the first one changes.
OBJECT_RELATIONS = frozenset(PLACEMENT_RELATIONS + ATTACHMENT_RELATIONS + ("touching",))
#: ``(P container substance)``: the container holds or supplies the substance.
SUBSTANCE_HOLDING = ("filled", "contains", "insource")
#: Predicate -> the position of its substance argument (``(covered x dust)``, ``(filled cup water)``):
#: every one of the 3,106 uses in the released B-1K and B-100 files puts a substance there.
SUBSTANCE_ARGUMENT = {"covered": 1, "saturated": 1, "filled": 1, "contains": 1, "insource": 1}
#: One fact family in the engine: ``contains`` is derived from ``filled``; emptying clears both.
FILL_FAMILY = ("filled", "contains")
#: A predicate no action adds but the state derives from another (``State.holds``): a goal can ask
#: for it wherever it can ask for its source.
DERIVED_FROM = {"contains": "filled"}
#: Effects that make a predicate true other than ``add:PRED``.
MADE_BY_EFFECT = {"overlay": "overlaid"}
#: ``(P a b)`` implies ``(Q a b)`` for each Q: wanting P true and Q false is a contradiction.
IMPLIES = {"filled": ("contains",), "ontop": ("touching",), "nextto": ("touching",)}
#: A predicate over an object in a task file proves the ability it needs.
ABILITY_EVIDENCE = {"open": "openable", "toggled_on": "toggleable", "sliced": "sliceable",
                    "cooked": "cookable", "filled": "fillable", "contains": "fillable", "saturated": "soakable",
                    "frozen": "freezable"}
#: ``(covered x s)``: x can be covered by s; a stain proves ``stainable``, anything else ``dustyable``
#: (iGibson's two dirt abilities; ``clean`` needs one of them).
COVER_EVIDENCE = {"stain": "stainable"}
#: ``(inside x t)`` in a task file proves that t can contain things (``container``).
CONTAINER_EVIDENCE = "inside"
#: ``(filled x s)`` (``contains``, ``insource``) in a task file proves that s fills containers (``bulk``).
BULK_EVIDENCE = ("filled", "contains", "insource")
#: BEHAVIOR objectTypes of what fills a container (``bulk``): every ``filled`` literal of both
#: benchmarks (55 in goals, 638 in :init) names one; a coating (``visualSubstance``: dust, a stain,
#: mud, paint) never does.
BULK_TYPES = frozenset({"liquid", "microPhysicalSubstance", "macroPhysicalSubstance"})
