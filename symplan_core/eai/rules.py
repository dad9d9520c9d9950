"""EAI's own rules (``symplan eai verify --rules eai``), kept apart from the engine's physics.

The default profile, ``physics``, scores EAI plans with the engine's physical rules. The
``eai`` profile replaces five actions with specs that emulate EAI's evaluator
(``behavior_eval/evolving_graph/evolving_graph.py`` in ``eai-eval`` 1.0.5) where it differs,
and lets the robot lift what EAI's robot lifts, so that EAI users get EAI's verdicts without
iGibson. Every difference is listed, with the evaluator's code it follows, in docs/eai.md
("The eai rules profile"). EAI matches some objects by their scene *name* (``"sink" in
parent_obj.name``); so does this profile, through the demo's scene-name mapping.
"""

from __future__ import annotations

from dataclasses import replace

from symplan_core.engine.actions import ActionSpec
from symplan_core.engine.checks import Failure, soaked
from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.predicates import SUPPORT_RELATIONS

RULES = ("physics", "eai")

#: Words EAI's evaluator looks for in scene names (its ``allowed_cleaners``, ``allowed_soakers``,
#: ``allowered_cookers`` lists and the detergent rule).
NAME_WORDS = ("sink", "dishwasher", "teapot", "saucepan", "detergent")

#: The replaced actions (same names and parameters as the engine's; docs/eai.md).
EAI_RULE_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("clean", ("obj",), ("exists:obj", "ability:obj:stainable|dustyable", "near:obj", "eai_cleaner:obj"),
               ("clean:obj",), "EAI's CLEAN: dust needs a cleaning tool in hand or a running sink or dishwasher; "
               "a stain a soaked cleaning tool or detergent in hand, or a running sink.", "eai"),
    ActionSpec("soak", ("obj", "tgt"), ("exists:obj", "ability:obj:soakable", "near:obj", "eai_soaker:obj"),
               ("add:saturated:obj:tgt",), "EAI's SOAK: in (or on) a sink that is on, or a teapot.", "eai",
               ("already:saturated:obj:tgt",)),
    ActionSpec("wait_for_cooked", ("obj",), ("exists:obj", "ability:obj:cookable", "eai_cooker:obj"),
               ("add:cooked:obj",), "EAI's COOK: in (or on) a saucepan.", "eai", ("already:cooked:obj",)),
    ActionSpec("freeze", ("obj",), ("exists:obj", "ability:obj:freezable", "near:obj"), ("add:frozen:obj",),
               "EAI's FREEZE: no cold source needed.", "eai", ("already:frozen:obj",)),
    ActionSpec("thaw", ("obj",), ("exists:obj", "ability:obj:freezable", "near:obj"), ("del:frozen:obj",),
               "EAI's UNFREEZE: no condition beyond the ability.", "eai", ("already_not:frozen:obj",)),
)


def named(to_scene: dict[str, str]) -> dict[str, frozenset[str]]:
    """Per word of :data:`NAME_WORDS`, the instances whose scene name contains it."""
    return {w: frozenset(i for i, scene in to_scene.items() if w in scene) for w in NAME_WORDS}


def rule_checks(names: dict[str, frozenset[str]]) -> dict:
    """The profile's checks for one demo (``names``: :func:`named`)."""

    def container_in(w, s, obj, words, need_on):
        for _rel, tgt in s.container_chain(obj):
            if any(tgt in names[word] for word in words) and \
                    (not need_on or ("toggled_on", tgt) in s.facts or not w.has(tgt, "toggleable")):
                return tgt
        return None

    def eai_cleaner(w, s, a, _cap):
        obj = a[0]
        dirt = [w.objects.get(f[2], "").split(".n.")[0] for f in s.facts if f[0] == "covered" and f[1] == obj]
        tools = [h for h in s.held if w.has(h, "particleRemover")]
        # evolving_graph.clean_dust: a cleaning tool in hand, or the object in a sink or dishwasher that is on
        if any(d != "stain" for d in dirt) and not tools and not container_in(w, s, obj, ("dishwasher", "sink"),
                                                                                True):
            return Failure(ErrorKind.MISSING_STEP, "eai_cleaner", "holding", ("?cleaning_tool",),
                           "No cleaner in inventory or object not in toggled on cleaner (CLEAN_DUST)",
                           "hold a cleaning tool, or put it in a sink or dishwasher that is on")
        # clean_stain: a soaked cleaning tool or detergent (by name) in hand, or the object in a sink that is on
        if "stain" in dirt and not any(soaked(s, t) for t in tools) \
                and not any(h in names["detergent"] for h in s.held) and not container_in(w, s, obj, ("sink",), True):
            return Failure(ErrorKind.MISSING_STEP, "eai_cleaner", "holding", ("?soaked_cleaning_tool",),
                           "No soaked cleaner in inventory or object not in toggled on cleaner (CLEAN_STAIN)",
                           "hold a soaked cleaning tool or detergent, or put it in a sink that is on")
        return None

    def eai_soaker(w, s, a, _cap):
        # soak_dry_precond: in a sink that is on (or has no switch), or in a teapot
        if container_in(w, s, a[0], ("sink",), True) or container_in(w, s, a[0], ("teapot",), False):
            return None
        return Failure(ErrorKind.MISSING_STEP, "eai_soaker", "inside", (a[0], "?sink"),
                       f"Object {a[0]} not in toggled on sink or in a teapot (SOAK)",
                       "put it in a sink that is on, or in a teapot")

    def eai_cooker(w, s, a, _cap):
        # cook_precond: in a saucepan
        if container_in(w, s, a[0], ("saucepan",), False):
            return None
        return Failure(ErrorKind.MISSING_STEP, "eai_cooker", "inside", (a[0], "?saucepan"),
                       f"Object {a[0]} not in a cooker (COOK)", "put it in a saucepan")

    return {"eai_cleaner": eai_cleaner, "eai_soaker": eai_soaker, "eai_cooker": eai_cooker}


def apply_eai_rules(task, to_scene: dict[str, str]) -> None:
    """Turn a compiled EAI task into the ``eai`` profile: the five specs above, and EAI's
    grasping (its GRASP refuses floors and objects over 1.5 m3 only, so a grill, a high chair or
    a pot plant that the task places on the floor can be lifted; what the task places only with
    ``inroom``, a door or a cabinet, stays a fixture)."""
    task.add_actions(EAI_RULE_SPECS, rule_checks(named(to_scene)))
    world = task.world
    placed = {lit.args[0] for lit in task.problem.init if not lit.negated and lit.predicate in SUPPORT_RELATIONS}
    for obj in placed & set(world.objects):
        aff = world.affordances[obj]
        if aff.known and "sceneObject" in aff.abilities and obj not in world.floors:
            world.affordances[obj] = replace(aff, abilities=aff.abilities - {"sceneObject"})
    task.world_changed()  # bound calls ran the affordance checks on the world as it was
