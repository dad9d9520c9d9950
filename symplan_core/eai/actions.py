"""EAI's BEHAVIOR action vocabulary and how each action maps onto ours.

EAI's robot has two hands and names the hand in the action (``LEFT_GRASP``,
``RIGHT_PLACE_INSIDE``); a PLACE or RELEASE acts on whatever that hand holds and names
only the target. The engine's dual-arm embodiment has two anonymous hands, so the
translation (``symplan_core.eai.translate``) keeps the per-hand bookkeeping and fills in
the held object. Three EAI actions have no counterpart among the engine's actions; they
are added to the task as specs in the engine's own declarative language (so the engine
still checks and applies them), listed in :data:`EAI_SPECS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from symplan_core.engine.actions import ActionSpec

#: EAI error categories (``evaluate_results.py``): grammar errors stop a plan before it runs.
GRAMMAR = {"PARSE": "parsing", "UNKNOWN_ACTION": "hallucination", "UNKNOWN_OBJECT": "hallucination",
           "ARITY": "arguments"}
#: Runtime errors, in EAI's order of precedence when one step has several.
RUNTIME = ("AFFORDANCE", "WRONG_TEMPORAL_ORDER", "MISSING_STEP")


@dataclass(frozen=True)
class EaiAction:
    name: str            # e.g. RIGHT_PLACE_INSIDE
    kind: str            # grasp | place | nextto_ontop | release | transfer | state
    hand: str | None     # "left" / "right" for hand actions
    ours: str            # engine action (for transfer: the relation, inside / ontop)
    arity: int = 1       # objects named by the EAI action


def _vocabulary() -> dict[str, EaiAction]:
    table: dict[str, EaiAction] = {}
    for side in ("LEFT", "RIGHT"):
        hand = side.lower()
        table[f"{side}_GRASP"] = EaiAction(f"{side}_GRASP", "grasp", hand, "grasp")
        table[f"{side}_RELEASE"] = EaiAction(f"{side}_RELEASE", "release", hand, "release")
        for rel, ours in (("ONTOP", "place_on_top"), ("INSIDE", "place_inside"), ("NEXTTO", "place_next_to"),
                          ("UNDER", "place_under")):
            table[f"{side}_PLACE_{rel}"] = EaiAction(f"{side}_PLACE_{rel}", "place", hand, ours)
        table[f"{side}_PLACE_NEXTTO_ONTOP"] = EaiAction(f"{side}_PLACE_NEXTTO_ONTOP", "nextto_ontop", hand,
                                                        "place_next_to", arity=2)
        for rel in ("INSIDE", "ONTOP"):
            table[f"{side}_TRANSFER_CONTENTS_{rel}"] = EaiAction(f"{side}_TRANSFER_CONTENTS_{rel}", "transfer",
                                                                 hand, rel.lower())
    for name, ours in (("OPEN", "open"), ("CLOSE", "close"), ("TOGGLE_ON", "toggle_on"),
                       ("TOGGLE_OFF", "toggle_off"), ("SLICE", "cut"), ("COOK", "wait_for_cooked"),
                       ("CLEAN", "clean"), ("FREEZE", "freeze"), ("UNFREEZE", "thaw"), ("SOAK", "soak"),
                       ("DRY", "dry"), ("BURN", "burn"), ("NAVIGATE_TO", "navigate")):
        table[name] = EaiAction(name, "state", None, ours)
    return table


#: Every action name EAI's evaluator accepts (its ``EvalActions``), by name.
VOCABULARY: dict[str, EaiAction] = _vocabulary()

#: Actions that take the task's water as a second argument (B-100 ``soaked`` is our
#: ``saturated x water``).
WATER_ACTIONS = frozenset({"soak", "dry"})

#: Switching one of these on cleans what is inside it (EAI's ``toggle_on_off``).
WASHERS = frozenset({"dishwasher.n.01"})

#: EAI actions without an engine counterpart, as engine specs (added_in ``eai``).
EAI_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("release", ("obj",), ("held:obj",), ("release:obj",),
               "Let go of the held obj where it is (EAI's RELEASE; it rests on nothing).", "eai"),
    ActionSpec("dry", ("obj", "tgt"), ("exists:obj", "near:obj", "free_hand", "substance:tgt", "exists:tgt"),
               ("del:saturated:obj:tgt",), "Dry obj soaked with the substance tgt (EAI's DRY).", "eai",
               ("already_not:saturated:obj:tgt",)),
    ActionSpec("wash", ("obj", "tgt"), ("exists:obj",), ("clean:obj",),
               "obj, inside the dishwasher tgt that was just switched on, comes out clean (EAI's TOGGLE_ON "
               "of a dishwasher).", "eai"),
    ActionSpec("transfer_inside", ("obj", "tgt"),
               ("exists:tgt", "near:tgt", "apart:obj:tgt", "accessible:tgt", "open_if_openable:tgt"),
               ("place:inside:obj:tgt",),
               "Move obj, which rests in or on a held container, into tgt (EAI's TRANSFER_CONTENTS_INSIDE).",
               "eai"),
    ActionSpec("transfer_on_top", ("obj", "tgt"), ("exists:tgt", "near:tgt", "apart:obj:tgt"),
               ("place:ontop:obj:tgt",),
               "Move obj, which rests in or on a held container, onto tgt (EAI's TRANSFER_CONTENTS_ONTOP).",
               "eai"),
)
