"""Interpret action specs: check preconditions, apply effects.

A failed precondition of a well-formed call is an error whose effects still
apply (the paper's "keep going for maximum feedback"); an affordance violation
means the call is malformed for these objects and is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple, cast

from symplan_core.engine.actions import ActionSpec
from symplan_core.engine.checks import (
    AFFORDANCE_CHECKS,
    CHECK_FACTORIES,
    CHECKS,
    CUT_PRODUCTS,
    STATIC_CHECKS,
    Check,
    Failure,
    ingredient_at_hand,
    processes_between,
    substance_sources,
)
from symplan_core.engine.predicates import (
    ATTACHMENT_RELATIONS,
    FILL_FAMILY,
    SUBSTANCE_HOLDING,
    SUPPORT_RELATIONS,
)
from symplan_core.engine.state import State
from symplan_core.engine.world import World
from symplan_core.errors import EngineConfigError

_SECOND = itemgetter(1)


def reach(world: World, state: State, target: str) -> frozenset[str]:
    """What ``navigate(target)`` reaches: target and what is transitively on/in/under it or
    hangs on it (attached, draped, overlaid). A floor reaches nothing else (everything stands on it)."""
    if target in world.floors:
        return frozenset((target,))
    unders = [fact for fact in state.facts if fact[0] in ATTACHMENT_RELATIONS]
    # Fast path (most navigate targets are small objects): nothing rests on/in/under target.
    # (``in`` on the map scans in C without building a set.)
    if target not in map(_SECOND, state.support.values()) and (not unders or all(f[2] != target for f in unders)):
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


@dataclass(frozen=True)
class CompiledAction:
    spec: ActionSpec
    checks: tuple[tuple[Check, tuple[int, ...]], ...]  # (check, the argument positions it reads)
    redundant: tuple[tuple[bool, str, tuple[int, ...]], ...]
    effects: tuple[tuple[str, tuple[str, ...], tuple[int, ...]], ...]
    affordance_args: tuple[int, ...] = ()  # argument positions whose affordances a check reads
    #: the same checks as (check, slot): ``slots[slot]`` are its argument positions; the few
    #: distinct argument lists of an action are built once per call and shared by its checks
    slotted: tuple[tuple[Check, int], ...] = ()
    slots: tuple[tuple[int, ...], ...] = ()
    #: a check reads whether something is open (reaching into a container, opening, closing)
    reads_open: bool = False
    #: per ``slotted`` check: it reads only the static world (an affordance), so for given
    #: arguments it passes on every state or on none (``bind`` runs it once)
    static: tuple[bool, ...] = ()


def compile_action(spec: ActionSpec, extra_checks: Mapping[str, Check] | None = None) -> CompiledAction:
    """``extra_checks``: checks outside the engine's own (``CHECKS``) that ``spec`` may name, such
    as an emulation profile's (``symplan_core.eai.rules``); they never change the default physics."""
    index = {p: k for k, p in enumerate(spec.params)}
    checks: list[tuple[Check, tuple[int, ...]]] = []
    slots: list[tuple[int, ...]] = []
    affordance_args: set[int] = set()
    static: list[bool] = []
    for pre in spec.pre:
        name, *rest = pre.split(":")
        if name in AFFORDANCE_CHECKS:
            affordance_args.add(index[rest[0]])
        if name in CHECK_FACTORIES:  # ``ability:o:FLAG`` / ``holding:FLAG``: the last part configures
            check, rest = CHECK_FACTORIES[name](rest[-1]), rest[:-1]
            static.append(name in STATIC_CHECKS)
        elif extra_checks and name in extra_checks:
            check = extra_checks[name]
            static.append(False)  # not the engine's own: never assumed static
        else:
            check = CHECKS[name]
            static.append(name in STATIC_CHECKS)
        idx = tuple(index[r] for r in rest)
        if idx not in slots:
            slots.append(idx)
        checks.append((check, idx))
    redundant = []
    for red in spec.redundant:
        kind, pred, *rest = red.split(":")
        redundant.append((kind == "already", pred, tuple(index[r] for r in rest)))
    effects = []
    for eff in spec.effects:
        name, *rest = eff.split(":")
        literals = tuple(r for r in rest if r not in index)
        effects.append((name, literals, tuple(index[r] for r in rest if r in index)))
    reads_open = any(p.split(":")[0] in ("accessible", "open_if_openable") for p in spec.pre) or \
        any(r.split(":")[1] == "open" for r in spec.redundant)
    slotted = tuple((check, slots.index(idx)) for check, idx in checks)
    return CompiledAction(spec, tuple(checks), tuple(redundant), tuple(effects), tuple(sorted(affordance_args)),
                          slotted, tuple(slots), reads_open, tuple(static))


class BoundCall(NamedTuple):
    """A well-formed call: its compiled action applied to concrete (full) object names, with all
    that does not depend on the state worked out once. A task keeps one per distinct call
    (``CompiledTask.bind``): RL batches, planners and repair loops verify the same calls again
    and again, and per step only the state-dependent work is left."""

    action: CompiledAction
    args: list[str]
    #: each precondition check with the argument values it reads (tuples: shared, never copied)
    checks: tuple[tuple[Check, tuple[str, ...]], ...]
    #: (positive, predicate, values): the effect is redundant when the literal's truth equals
    #: ``positive``; predicate ``held`` reads the hands, ``at`` the last navigate
    redundant: tuple[tuple[bool, str, tuple[str, ...]], ...]
    #: (effect name, literal parts, argument values)
    effects: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]


def _bound_checks(action: CompiledAction, args: list[str]) -> tuple[tuple[Check, tuple[str, ...]], ...]:
    values = [tuple([args[i] for i in idx]) for idx in action.slots]
    return tuple([(check, values[slot]) for check, slot in action.slotted])


def _bound_redundant(action: CompiledAction, args: list[str]) -> tuple[tuple[bool, str, tuple[str, ...]], ...]:
    out = [(positive, pred, tuple([args[i] for i in idx])) for positive, pred, idx in action.redundant]
    if action.spec.name == "navigate":  # going where the agent already is
        out.append((True, "at", (args[0],)))
    return tuple(out)


def bind(action: CompiledAction, args: list[str], world: World | None = None) -> BoundCall:
    """``action`` applied to ``args`` (full names, already checked to exist and fit its arity).

    With the task's ``world``, the static checks (affordances) are run once here: when all of
    them pass they would pass on every state, so the bound call leaves them out. When one
    fails, the call keeps every check, so each step reports exactly what it reported before."""
    checks = _bound_checks(action, args)
    if world is not None and True in action.static:
        kept = []
        for (check, values), is_static in zip(checks, action.static, strict=True):
            if not is_static:
                kept.append((check, values))
            # a static check never reads the state (STATIC_CHECKS): it gets none, so one that did
            # would fail loudly rather than read an empty state
            elif check(world, cast(State, None), values, 0) is not None:
                break  # a static check fails: keep them all
        else:
            checks = tuple(kept)
    effects = tuple([(name, literal, tuple([args[i] for i in idx])) for name, literal, idx in action.effects])
    return BoundCall(action, list(args), checks, _bound_redundant(action, args), effects)


def failed_checks(checks: tuple[tuple[Check, tuple[str, ...]], ...], world: World, state: State,
                  capacity: int) -> list[Failure]:
    failures = []
    for check, values in checks:
        failure = check(world, state, values, capacity)
        if failure is not None:
            failures.append(failure)
    return failures


def check_preconditions(action: CompiledAction, world: World, state: State, args: list[str],
                        capacity: int) -> list[Failure]:
    return failed_checks(_bound_checks(action, args), world, state, capacity)


def already_holds(redundant: tuple[tuple[bool, str, tuple[str, ...]], ...], state: State) -> str | None:
    """The literal of the first redundant effect that already holds, as text (None: none does)."""
    for positive, pred, values in redundant:
        if pred == "held":
            holds = values[0] in state.held
        elif pred == "at":
            holds = state.at == values[0]
        else:
            holds = state.holds(pred, values)
        if holds == positive:
            if pred == "at":
                return f"(at agent {values[0]})"
            atom = f"({pred} {' '.join(values)})"
            return atom if positive else f"(not {atom})"
    return None


def redundant_effect(action: CompiledAction, state: State, args: list[str]) -> str | None:
    return already_holds(_bound_redundant(action, args), state)


def apply_effects(action: CompiledAction, world: World, state: State, args: list[str]) -> None:
    run_effects(bind(action, args).effects, world, state)


def run_effects(effects: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...], world: World,
                state: State) -> None:
    for name, literal, vals in effects:
        if name == "navigate":
            state.near = near = reach(world, state, vals[0])
            state.at = vals[0]
            if len(near) == 1:
                state.ever.add(("near", vals[0]))
            else:
                state.ever.update([("near", o) for o in near])
        elif name == "grasp":
            state.detach(vals[0])
            if vals[0] not in state.held:
                state.held.append(vals[0])
            state.ever.add(("held", vals[0]))
            _note_flags(world, state, vals[0])
        elif name == "place":
            _place(world, state, literal[0], vals[0], vals[1])
        elif name == "release":  # attached/draped/... in front of the agent: still within reach
            _release(state, vals[0])
            state.detach(vals[0])
            state.near = state.near | {vals[0]}
        elif name == "add":
            state.facts.add((literal[0], *vals))
            state.ever.add((literal[0], *vals))
        elif name == "del":
            state.facts.discard((literal[0], *vals))
            if literal[0] in FILL_FAMILY:  # filled implies contains: emptying clears both
                state.facts.difference_update((p, *vals) for p in FILL_FAMILY)
        elif name == "overlay":
            _overlay(world, state, vals[0], vals[1])
        elif name == "pour":
            _pour(world, state, vals[0], vals[1])
        elif name == "clean":
            state.facts.difference_update([f for f in state.facts if f[0] == "covered" and f[1] == vals[0]])
        elif name == "make":
            _make(world, state, vals[0])
        else:  # pragma: no cover - specs are validated by tests
            raise EngineConfigError(f"unknown effect {name!r}")


def _make(world: World, state: State, product: str) -> None:
    """The product becomes real. A made substance is where its ingredient was: cooked water
    fills the kettle the water filled, diced onion lies where the onion lay. A whole that is cut
    up is used up once the last piece cut from it is made (the egg when its second half is)."""
    used = ingredient_at_hand(world, state, product)
    state.future.discard(product)
    if used is None:
        return
    if product in state.substances:
        if used in state.substances:
            holders = substance_sources(world, state, used)
        else:
            holders = [state.support[used][1]] if used in state.support else [state.at or used]
        holder = next((h for h in holders if not world.is_fixture(h)), holders[0] if holders else None)
        if holder is not None:
            filled = ("filled", holder, used) in state.facts
            state.facts.add(("filled" if filled else "contains", holder, product))
    cut = CUT_PRODUCTS.intersection(processes_between(world.objects[used], world.objects[product]))
    pieces_left = any(o in state.future for o in world.by_type[world.objects[product]])
    if cut and used not in state.substances and not pieces_left:
        _release(state, used)
        state.detach(used)
        state.future.add(used)  # used up: no longer real


def _note_flags(world: World, state: State, obj: str) -> None:
    state.ever.update(world.flag_facts(obj))


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
        if rel == "nextto":  # it joins the group standing around the target on the same surface
            where = state.support.get(obj)
            if where is not None:
                state.nextto.update(frozenset((obj, o)) for o in _neighbours_on(world, state, target, where, obj))
    state.near = state.near | {obj}


def _overlay(world: World, state: State, cloth: str, target: str) -> None:
    """A cloth laid over a movable object also covers the movable objects next to it on the
    same surface (a napkin over a knife and the spoon beside it)."""
    covered = [target]
    where = state.support.get(target)
    if not world.is_fixture(target) and where is not None:
        covered += _neighbours_on(world, state, target, where, cloth)
    for obj in covered:
        state.facts.add(("overlaid", cloth, obj))
        state.ever.add(("overlaid", cloth, obj))


def _neighbours_on(world: World, state: State, target: str, where: tuple[str, str], other: str) -> list[str]:
    """The movable objects next to ``target`` that rest on ``where`` (``other`` and target left out)."""
    return [o for pair in state.nextto if target in pair for o in pair
            if o not in (target, other) and state.support.get(o) == where and not world.is_fixture(o)]


def floor_of(world: World, obj: str) -> str | None:
    """The floor of ``obj``'s room (the first floor when its room is unknown)."""
    room = world.room_of.get(obj)
    for floor in sorted(world.floors):  # sorted: frozenset order varies with PYTHONHASHSEED
        if room is None or world.room_of.get(floor) == room:
            return floor
    return None


def _pour(world: World, state: State, source: str, target: str) -> None:
    """The substance covers the target; a fillable target also ends up filled with it."""
    substances = [f[2] for f in state.facts if f[0] in SUBSTANCE_HOLDING and f[1] == source]
    fillable = world.has(target, "fillable")
    for sub in substances:
        state.facts.add(("covered", target, sub))
        if fillable:
            state.facts.add(("filled", target, sub))
