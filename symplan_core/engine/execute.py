"""Interpret action specs: check preconditions, apply effects.

A failed precondition of a well-formed call is an error whose effects still
apply (the paper's "keep going for maximum feedback"); an affordance violation
means the call is malformed for these objects and is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter

from symplan_core.engine.actions import ActionSpec
from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.state import SUPPORT_RELATIONS, State
from symplan_core.engine.world import World

# A failed check: (kind, precondition literal, message, hint)
Failure = tuple[ErrorKind, str, str, str]
Check = Callable[[World, State, list[str], int], Failure | None]


def _temporal(state: State, literal: tuple[str, ...]) -> ErrorKind:
    return ErrorKind.WRONG_TEMPORAL_ORDER if literal in state.ever else ErrorKind.MISSING_STEP


_SECOND = itemgetter(1)


def reach(world: World, state: State, target: str) -> frozenset[str]:
    """What ``navigate(target)`` reaches: target and what is transitively on/in/under it.
    A floor reaches nothing else (everything stands on it)."""
    if target in world.floors:
        return frozenset((target,))
    unders = [fact for fact in state.facts if fact[0] == "under"]
    # Fast path (most navigate targets are small objects): nothing rests on/in/under target.
    if target not in set(map(_SECOND, state.support.values())) and all(f[2] != target for f in unders):
        return frozenset((target,))
    reached = {target}
    frontier = [target]
    children: dict[str, list[str]] = {}
    for obj, (_rel, tgt) in state.support.items():
        children.setdefault(tgt, []).append(obj)
    for fact in unders:
        children.setdefault(fact[2], []).append(fact[1])
    while frontier:
        for child in children.get(frontier.pop(), ()):
            if child not in reached:
                reached.add(child)
                frontier.append(child)
    return frozenset(reached)


def closed_container(world: World, state: State, obj: str) -> str | None:
    """The closed openable container that ``obj`` is (transitively) inside, if any."""
    for rel, tgt in state.container_chain(obj):
        if rel == "inside" and world.affordances[tgt].known and "openable" in world.affordances[tgt].abilities \
                and ("open", tgt) not in state.facts:
            return tgt
    return None


def heat_source_on(world: World, state: State, obj: str) -> tuple[bool, str]:
    """Whether obj sits on/in an active heat source; (ok, name of a source to use)."""
    sources = [o for o, aff in world.affordances.items() if aff.known and "heatSource" in aff.abilities]
    if not sources:
        return True, ""  # no heat source in the task: nothing a plan could do about it
    for _rel, tgt in state.container_chain(obj):
        if tgt in sources:
            if world.allows(tgt, "toggleable") and world.affordances[tgt].known \
                    and ("toggled_on", tgt) not in state.facts:
                return False, tgt
            return True, tgt
    return False, sources[0]


# -- checks -------------------------------------------------------------------
def _exists(w, s, a, _cap):
    if a[0] in s.future:
        return (ErrorKind.MISSING_STEP, f"(real {a[0]})", f"{a[0]} does not exist yet",
                f"make({a[0]}) before using it")
    return None


def _near(w, s, a, _cap):
    if a[0] in s.near or a[0] in s.held:
        return None
    lit = ("near", a[0])
    return (_temporal(s, lit), f"(near agent {a[0]})", f"the agent is not near {a[0]}",
            f"navigate({a[0]}) first")


def _held(w, s, a, _cap):
    if a[0] in s.held:
        return None
    return (_temporal(s, ("held", a[0])), f"(holding {a[0]})", f"{a[0]} is not in hand", f"grasp({a[0]}) first")


def _free_hand(w, s, a, cap):
    if len(s.held) < cap or (a and a[0] in s.held):  # ``free_hand:o``: o already in hand is fine
        return None
    holding = ", ".join(s.held)
    return (ErrorKind.MISSING_STEP, "(free_hand)", f"no free hand (holding {holding})",
            f"place {holding} somewhere first")


def _graspable(w, s, a, _cap):
    obj = a[0]
    if w.is_fixture(obj):
        return (ErrorKind.AFFORDANCE, "", f"{obj} is a fixture and cannot be picked up",
                f"navigate({obj}) and act on it in place")
    if w.is_substance(obj):
        return (ErrorKind.AFFORDANCE, "", f"{obj} is a substance and cannot be grasped",
                f"grasp a container of {obj} instead")
    return None


def _apart(w, s, a, _cap):
    """Placing/attaching obj relative to itself, or to something resting on/in it, is impossible
    (it would make a support cycle); such a call is malformed and skipped."""
    obj, tgt = a
    if tgt != obj and all(t != obj for _r, t in s.container_chain(tgt)):
        return None
    what = "itself" if tgt == obj else f"{tgt}, which rests on or in {obj}"
    return (ErrorKind.AFFORDANCE, "", f"{obj} cannot be put relative to {what}",
            f"choose a target that is not {obj} or on/in it")


def _accessible(w, s, a, _cap):
    box = closed_container(w, s, a[0])
    if box is None:
        return None
    return (_temporal(s, ("open", box)), f"(open {box})", f"{a[0]} is inside the closed {box}",
            f"open({box}) first")


def _open_if_openable(w, s, a, _cap):
    t = a[0]
    if not (w.affordances[t].known and "openable" in w.affordances[t].abilities) or ("open", t) in s.facts:
        return None
    return (_temporal(s, ("open", t)), f"(open {t})", f"{t} is closed", f"open({t}) before placing inside it")


def _ability(flags: str):
    """``FLAG`` or ``FLAG|FLAG``: any of the alternatives suffices (sliceable|diceable)."""
    options = flags.split("|")

    def check(w, s, a, _cap):
        if any(w.allows(a[0], f) for f in options):
            return None
        return (ErrorKind.AFFORDANCE, "", f"{a[0]} is not {' or '.join(options)}",
                f"choose an object that is {options[0]}")
    return check


def _substance(w, s, a, _cap):
    if not w.affordances[a[0]].known or w.is_substance(a[0]):
        return None
    return (ErrorKind.AFFORDANCE, "", f"{a[0]} is not a substance", "name a substance such as water")


def _holding(flag):
    def check(w, s, a, _cap):
        if any(w.allows(h, flag) and w.affordances[h].known for h in s.held):
            return None
        tools = [o for o, aff in w.affordances.items() if aff.known and flag in aff.abilities]
        hint = f"grasp({tools[0]}) first" if tools else f"grasp a {flag} first"
        return (_temporal(s, ("holding_flag", flag)), f"(holding {flag})", f"no {flag} in hand", hint)
    return check


def _has_substance(w, s, a, _cap):
    obj = a[0]
    if any(f[0] in ("filled", "contains", "insource") and f[1] == obj for f in s.facts):
        return None
    return (ErrorKind.MISSING_STEP, f"(filled {obj} ?substance)", f"{obj} holds no substance",
            f"fill({obj}, <substance>) first")


def _heated(w, s, a, _cap):
    ok, source = heat_source_on(w, s, a[0])
    if ok:
        return None
    if source and any(t == source for _r, t in s.container_chain(a[0])):
        return (_temporal(s, ("toggled_on", source)), f"(toggled_on {source})", f"{source} is off",
                f"toggle_on({source}) first")
    return (ErrorKind.MISSING_STEP, f"(ontop {a[0]} {source})", f"{a[0]} is not on or in a heat source",
            f"place {a[0]} on/in {source} and toggle_on({source})")


_CHECKS: dict[str, Callable[..., Check] | Check] = {
    "exists": _exists, "near": _near, "held": _held, "free_hand": _free_hand, "graspable": _graspable,
    "accessible": _accessible, "apart": _apart, "open_if_openable": _open_if_openable, "substance": _substance,
    "has_substance": _has_substance, "heated": _heated,
}


@dataclass(frozen=True)
class CompiledAction:
    spec: ActionSpec
    checks: tuple[tuple[Check, tuple[int, ...]], ...]
    redundant: tuple[tuple[bool, str, tuple[int, ...]], ...]
    effects: tuple[tuple[str, tuple[str, ...], tuple[int, ...]], ...]


def compile_action(spec: ActionSpec) -> CompiledAction:
    index = {p: k for k, p in enumerate(spec.params)}
    checks = []
    for pre in spec.pre:
        name, *rest = pre.split(":")
        if name == "ability":
            checks.append((_ability(rest[1]), (index[rest[0]],)))
        elif name == "holding":
            checks.append((_holding(rest[0]), ()))
        else:
            checks.append((_CHECKS[name], tuple(index[r] for r in rest)))
    redundant = []
    for red in spec.redundant:
        kind, pred, *rest = red.split(":")
        redundant.append((kind == "already", pred, tuple(index[r] for r in rest)))
    effects = []
    for eff in spec.effects:
        name, *rest = eff.split(":")
        literals = tuple(r for r in rest if r not in index)
        effects.append((name, literals, tuple(index[r] for r in rest if r in index)))
    return CompiledAction(spec, tuple(checks), tuple(redundant), tuple(effects))


def check_preconditions(action: CompiledAction, world: World, state: State, args: list[str],
                        capacity: int) -> list[Failure]:
    failures = []
    for check, idx in action.checks:
        failure = check(world, state, [args[i] for i in idx], capacity)
        if failure is not None:
            failures.append(failure)
    return failures


def redundant_effect(action: CompiledAction, state: State, args: list[str]) -> str | None:
    for positive, pred, idx in action.redundant:
        values = tuple(args[i] for i in idx)
        if pred == "held":
            holds = values[0] in state.held
        else:
            holds = state.holds(pred, values)
        if holds == positive:
            return f"({pred} {' '.join(values)})" if positive else f"(not ({pred} {' '.join(values)}))"
    if action.spec.name == "navigate" and state.at == args[0]:
        return f"(at agent {args[0]})"
    return None


def apply_effects(action: CompiledAction, world: World, state: State, args: list[str]) -> None:
    for name, literal, idx in action.effects:
        vals = [args[i] for i in idx]
        if name == "navigate":
            state.near = reach(world, state, vals[0])
            state.at = vals[0]
            state.ever.update(("near", o) for o in state.near)
        elif name == "grasp":
            state.detach(vals[0])
            if vals[0] not in state.held:
                state.held.append(vals[0])
            state.ever.add(("held", vals[0]))
            _note_flags(world, state, vals[0])
        elif name == "place":
            _place(world, state, literal[0], vals[0], vals[1])
        elif name == "release":
            _release(state, vals[0])
            state.detach(vals[0])
        elif name == "add":
            state.facts.add((literal[0], *vals))
            state.ever.add((literal[0], *vals))
        elif name == "del":
            state.facts.discard((literal[0], *vals))
            if literal[0] in ("filled", "contains"):  # filled implies contains: emptying clears both
                state.facts.discard(("contains" if literal[0] == "filled" else "filled", *vals))
        elif name == "pour":
            _pour(world, state, vals[0], vals[1])
        elif name == "clean":
            state.facts.difference_update([f for f in state.facts if f[0] == "covered" and f[1] == vals[0]])
        elif name == "make":
            state.future.discard(vals[0])
        else:  # pragma: no cover - specs are validated by tests
            raise ValueError(f"unknown effect {name!r}")


def _note_flags(world: World, state: State, obj: str) -> None:
    aff = world.affordances[obj]
    if aff.known:
        state.ever.update(("holding_flag", f) for f in aff.abilities)


def _release(state: State, obj: str) -> None:
    if obj in state.held:
        state.held.remove(obj)


def _place(world: World, state: State, rel: str, obj: str, target: str) -> None:
    _release(state, obj)
    state.detach(obj)
    if rel in SUPPORT_RELATIONS:
        state.support[obj] = (rel, target)
    else:  # nextto / under: stand on the target's support, or on the floor of its room
        if rel == "nextto":
            state.nextto.add(frozenset((obj, target)))
        else:
            state.facts.add((rel, obj, target))
        base = state.support.get(target)
        if base is not None and base[1] != obj:
            state.support[obj] = base
        else:
            floor = floor_of(world, target)
            if floor is not None and floor != obj:  # a floor never stands on a floor
                state.support[obj] = ("ontop", floor)
    state.near = state.near | {obj}


def floor_of(world: World, obj: str) -> str | None:
    """The floor of ``obj``'s room (the first floor when its room is unknown)."""
    room = world.room_of.get(obj)
    for floor in sorted(world.floors):  # sorted: frozenset order varies with PYTHONHASHSEED
        if room is None or world.room_of.get(floor) == room:
            return floor
    return None


def _pour(world: World, state: State, source: str, target: str) -> None:
    """The substance covers the target; a fillable target also ends up filled with it."""
    substances = [f[2] for f in state.facts if f[0] in ("filled", "contains", "insource") and f[1] == source]
    fillable = world.affordances[target].known and world.allows(target, "fillable")
    for sub in substances:
        state.facts.add(("covered", target, sub))
        if fillable:
            state.facts.add(("filled", target, sub))
