"""The action library as data: 14 base (B-100) + 20 B-1K actions of the paper.

Each action is a declarative :class:`ActionSpec`. Preconditions and effects are
short strings over the action's parameter names, interpreted by
:mod:`symplan_core.engine.execute` and readable by people and prompt builders:

Preconditions (``check:arg[:extra]``; reasons in ``docs/engine.md``)
    ``exists:o``           o is not a ``future`` object
    ``near:o``             agent is near o (``navigate`` first) or holds it
    ``held:o``             o is in a hand
    ``free_hand``          a hand is free (single-arm: 1, dual-arm: 2 hands)
    ``free_hand:o``        a hand is free or already holds o (re-grasping is redundant, not an error)
    ``graspable:o``        o is neither a fixture (sceneObject/floor) nor a substance (also
                           for place_*: what cannot be held cannot be put anywhere)
    ``apart:o:t``          t is not o and not (transitively) on/in/under o (no self-support or cycles)
    ``accessible:o``       o is not inside a closed openable container
    ``open_if_openable:t`` t is open, when t can open
    ``ability:o:FLAG``     BEHAVIOR ability FLAG of o (openable, toggleable, ...; derived: container,
                           soakable, stainable, dustyable, freezable, bulk: a substance that fills
                           containers, see ``world.py``)
    ``substance:s``        s is a substance (water, stain, ...)
    ``solid:t``            t is not a substance (nothing is put on, attached to, poured onto or painted
                           on a stain or dust)
    ``bears:t``            t is not a place things only hang on (a wall nail, a hanger:
                           ``predicates.HANGING_PLACES``)
    ``holding:FLAG``       some held object has FLAG (``cut`` needs a slicer)
    ``has_substance:o``    o is filled with / contains some substance
    ``heated:o``           o sits (transitively) on/in a heat source that is on
    ``type:o:TYPE``        BEHAVIOR objectType of o (``cloth`` folds, drapes, lies over things)
    ``source:o:s``         a container or tap of substance s (not o itself) is near or in hand
    ``wet:o:s``            o is on/in/under a tap of s that is on, or on/in a container of s, or a held
                           container of s pours over it (soaking needs the substance there)
    ``cleaner:o``          a cleaning tool (particleRemover) in hand, soaked when a stain covers o; or o
                           on/in a sink or washer that is on
    ``held_substance:o``   something in hand holds a substance to apply to o (water, paint)
    ``flame:o``            a flame reaches o: a lit heat source in hand, o on an active heat
                           source, or o touching something on fire
    ``cooled:o``           o sits on/in a cold source that is on (a fridge, a freezer)
    ``away:o:FLAG``        o does not sit on/in an active FLAG source (heatSource, coldSource)
    ``asked:o:PRED``       the goal asks for (PRED o): slicing, breaking, burning and setting on fire
                           cannot be undone, so they are for what the task wants so (UNWANTED_EFFECT)
    ``ingredients:o``      what o's name says it is made from is real, within reach, and
                           processed as the name says (diced/half: slicer in hand; cooked/
                           melted: the ingredient on an active heat source)
Redundancy (ADDITIONAL_STEP warnings, effects still apply)
    ``already:PRED:o``     the effect already holds
Effects
    ``navigate:o``  ``grasp:o``  ``place:REL:o:t``  ``release:o``
    ``add:PRED:args...``  ``del:PRED:args...``  ``pour:o:t``  ``clean:o``  ``make:o``
    ``overlay:o:t`` (o overlaid on t and on t's movable neighbours on the same surface)
"""

from __future__ import annotations

from dataclasses import dataclass

from symplan_core.errors import EngineConfigError


@dataclass(frozen=True)
class ActionSpec:
    name: str
    params: tuple[str, ...]
    pre: tuple[str, ...]
    effects: tuple[str, ...]
    doc: str
    added_in: str = "b100"  # "b100" = base set; "b1k" = B-1K addition
    redundant: tuple[str, ...] = ()

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


def _a(name: str, params: str, pre: str, effects: str, doc: str, added_in: str = "b100",
       redundant: str = "") -> ActionSpec:
    return ActionSpec(name, tuple(params.split()) if params else (), tuple(pre.split()),
                      tuple(effects.split()), doc, added_in, tuple(redundant.split()) if redundant else ())


_HAND = "free_hand"

BASE_ACTIONS: tuple[ActionSpec, ...] = (
    _a("navigate", "obj", "exists:obj", "navigate:obj",
       "Go to obj; reaches obj and what is (transitively) on, in, under or hung on it."),
    _a("grasp", "obj", "exists:obj graspable:obj near:obj accessible:obj free_hand:obj", "grasp:obj",
       "Pick obj up with a free hand; it leaves its support.", redundant="already:held:obj"),
    _a("place_on_top", "obj tgt", "graspable:obj held:obj apart:obj:tgt exists:tgt solid:tgt bears:tgt near:tgt", "place:ontop:obj:tgt",
       "Put the held obj on top of tgt."),
    _a("place_inside", "obj tgt", "graspable:obj held:obj apart:obj:tgt exists:tgt ability:tgt:container near:tgt accessible:tgt "
       "open_if_openable:tgt", "place:inside:obj:tgt", "Put the held obj inside tgt (open it first if it opens)."),
    _a("place_next_to", "obj tgt", "graspable:obj held:obj apart:obj:tgt exists:tgt solid:tgt near:tgt", "place:nextto:obj:tgt",
       "Put the held obj next to tgt, on tgt's support."),
    _a("place_under", "obj tgt", "graspable:obj held:obj apart:obj:tgt exists:tgt solid:tgt near:tgt", "place:under:obj:tgt",
       "Put the held obj under tgt."),
    _a("open", "obj", f"exists:obj ability:obj:openable near:obj accessible:obj {_HAND}", "add:open:obj",
       "Open obj.", redundant="already:open:obj"),
    _a("close", "obj", f"exists:obj ability:obj:openable near:obj {_HAND}", "del:open:obj",
       "Close obj.", redundant="already_not:open:obj"),
    _a("toggle_on", "obj", "exists:obj ability:obj:toggleable near:obj free_hand:obj", "add:toggled_on:obj",
       "Switch obj on.", redundant="already:toggled_on:obj"),
    _a("cut", "obj", "exists:obj ability:obj:sliceable|diceable asked:obj:sliced near:obj accessible:obj holding:slicer",
       "add:sliced:obj", "Slice obj with a held slicer (knife); only what the task wants sliced (it cannot be undone).",
       redundant="already:sliced:obj"),
    _a("pour", "obj tgt", "held:obj has_substance:obj apart:obj:tgt exists:tgt solid:tgt near:tgt", "pour:obj:tgt",
       "Pour the substance in the held obj onto/into tgt."),
    _a("clean", "obj", "exists:obj ability:obj:stainable|dustyable near:obj accessible:obj cleaner:obj", "clean:obj",
       "Remove what covers obj (stains, dust, ...) with a cleaning tool in hand (soaked, for a stain), or "
       "in a sink or dishwasher that is on."),
    _a("wait_for_cooked", "obj", "exists:obj ability:obj:cookable heated:obj", "add:cooked:obj",
       "Wait until obj, on/in a heat source that is on, is cooked.", redundant="already:cooked:obj"),
    _a("soak", "obj tgt", "exists:obj ability:obj:soakable near:obj substance:tgt type:tgt:liquid exists:tgt "
       "wet:obj:tgt",
       "add:saturated:obj:tgt",
       "Soak obj with the substance tgt (e.g. water): obj in or under a tap of it that is on (a running sink), "
       "or in a container of it.",
       redundant="already:saturated:obj:tgt"),
)

B1K_ACTIONS: tuple[ActionSpec, ...] = (
    _a("toggle_off", "obj", "exists:obj ability:obj:toggleable near:obj free_hand:obj", "del:toggled_on:obj",
       "Switch obj off.", "b1k", "already_not:toggled_on:obj"),
    _a("fill", "obj tgt", "exists:obj ability:obj:fillable near:obj substance:tgt ability:tgt:bulk exists:tgt "
       "source:obj:tgt",
       "add:filled:obj:tgt", "Fill container obj with the substance tgt from a source of it within reach "
       "(a tap, a container of it).", "b1k", "already:filled:obj:tgt"),
    _a("fold", "obj", "exists:obj type:obj:cloth near:obj accessible:obj free_hand:obj",
       "add:folded:obj del:unfolded:obj", "Fold the cloth obj (a towel, a shirt) by hand.", "b1k",
       "already:folded:obj"),
    _a("unfold", "obj", "exists:obj type:obj:cloth near:obj accessible:obj free_hand:obj",
       "add:unfolded:obj del:folded:obj", "Unfold the cloth obj by hand.", "b1k", "already:unfolded:obj"),
    _a("attach", "obj tgt", "graspable:obj ability:obj:attachable held:obj apart:obj:tgt exists:tgt solid:tgt "
       "ability:tgt:attachable near:tgt accessible:tgt",
       "release:obj add:attached:obj:tgt", "Attach the held obj to tgt.", "b1k"),
    _a("screw", "obj tgt", "graspable:obj ability:obj:attachable held:obj apart:obj:tgt exists:tgt solid:tgt "
       "ability:tgt:attachable near:tgt accessible:tgt",
       "release:obj add:attached:obj:tgt", "Screw the held obj onto tgt (an attachment).", "b1k"),
    _a("overlay", "obj tgt", "graspable:obj type:obj:cloth held:obj apart:obj:tgt exists:tgt near:tgt accessible:tgt",
       "release:obj overlay:obj:tgt",
       "Lay the held cloth obj (a sheet, foil) flat over tgt and the small things right next to it.", "b1k"),
    _a("drape", "obj tgt", "graspable:obj type:obj:cloth held:obj apart:obj:tgt exists:tgt near:tgt accessible:tgt",
       "release:obj add:draped:obj:tgt", "Drape the held cloth obj over tgt.", "b1k"),
    _a("heat", "obj", "exists:obj heated:obj", "add:hot:obj", "Let obj get hot on/in a heat source that is on.",
       "b1k", "already:hot:obj"),
    _a("water", "obj", "exists:obj solid:obj near:obj held_substance:obj", "add:watered:obj",
       "Water obj (a plant) from a held container of water (a watering can, a filled cup).", "b1k",
       "already:watered:obj"),
    _a("saturate", "obj tgt", "exists:obj ability:obj:soakable near:obj substance:tgt type:tgt:liquid exists:tgt "
       "wet:obj:tgt",
       "add:saturated:obj:tgt",
       "Saturate obj with the substance tgt: obj in or under a tap of it that is on, or in a container of it.", "b1k", "already:saturated:obj:tgt"),
    _a("paint", "obj", "exists:obj solid:obj near:obj accessible:obj held_substance:obj", "add:painted:obj",
       "Paint obj with paint from something in hand (a paint can, a sprayer).", "b1k", "already:painted:obj"),
    _a("set_timer", "obj", "exists:obj ability:obj:toggleable near:obj free_hand:obj", "add:timeset:obj",
       "Set the timer of the switchable appliance obj (an oven, a microwave, a timer).", "b1k",
       "already:timeset:obj"),
    _a("make", "obj", "ingredients:obj", "make:obj",
       "Make the future object obj real (cook, mix, assemble it) from what it is made of, within reach.", "b1k",
       "already:real:obj"),
    _a("repair", "obj", f"exists:obj near:obj accessible:obj {_HAND}", "del:broken:obj",
       "Repair the broken obj by hand.", "b1k", "already_not:broken:obj"),
    _a("break_obj", "obj", "exists:obj ability:obj:breakable asked:obj:broken near:obj accessible:obj free_hand:obj",
       "add:broken:obj", "Break the breakable obj; only what the task wants broken (it cannot be undone).", "b1k",
       "already:broken:obj"),
    _a("burn", "obj", "exists:obj ability:obj:cookable|flammable asked:obj:burnt heated:obj", "add:burnt:obj",
       "Burn obj (food or something flammable) on/in a heat source that is on; only what the task wants burnt.",
       "b1k", "already:burnt:obj"),
    _a("ignite", "obj", "exists:obj ability:obj:flammable asked:obj:on_fire near:obj flame:obj", "add:on_fire:obj",
       "Set the flammable obj on fire with a flame (a lit lighter in hand, a lit fire touching it); only what the "
       "task wants on fire.", "b1k",
       "already:on_fire:obj"),
    _a("patch", "obj", f"exists:obj near:obj accessible:obj {_HAND}", "del:torn:obj add:patched:obj",
       "Patch the torn obj by hand.", "b1k", "already_not:torn:obj"),
    _a("uncrimp", "obj", f"exists:obj near:obj accessible:obj {_HAND}", "del:crumpled:obj",
       "Smooth out the crumpled obj by hand.", "b1k", "already_not:crumpled:obj"),
)

def discovered_actions() -> tuple[ActionSpec, ...]:
    """Actions accepted by ``symplan actions discover`` and emitted to
    ``discovered_actions.json`` that the paper's 34 do not already provide."""
    import json
    from importlib import resources

    data = json.loads(resources.files("symplan_core.engine").joinpath("discovered_actions.json").read_text())
    known = {a.name for a in BASE_ACTIONS + B1K_ACTIONS}
    return tuple(ActionSpec(**{**s, "params": tuple(s["params"]), "pre": tuple(s["pre"]),
                               "effects": tuple(s["effects"]), "redundant": tuple(s["redundant"])})
                 for s in data["actions"] if s["name"] not in known)


ACTION_SETS: dict[str, tuple[ActionSpec, ...]] = {
    "b100": BASE_ACTIONS,
    "b1k": BASE_ACTIONS + B1K_ACTIONS,
}


def action_set(name: str) -> dict[str, ActionSpec]:
    """Actions by name: ``"b100"`` (14), ``"b1k"`` (the paper's 34) or ``"full"``
    (the 34 plus discovered actions)."""
    if name == "full":
        return {a.name: a for a in BASE_ACTIONS + B1K_ACTIONS + discovered_actions()}
    try:
        return {a.name: a for a in ACTION_SETS[name]}
    except KeyError:
        raise EngineConfigError(f"unknown action set {name!r}; choose from b100, b1k, full") from None
