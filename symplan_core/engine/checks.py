"""Precondition checks: each returns None or a structured :class:`Failure`.

A check reads the world (static affordances) and the state; it never mutates either. The
failure names the literal the plan must make true (``predicate`` + ``args``), so planners
repair it from data, and a message and hint for people and LLMs. Why each check exists is
in ``docs/engine.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.predicates import SUBSTANCE_HOLDING
from symplan_core.engine.state import State
from symplan_core.engine.world import World


class Failure(NamedTuple):
    """One failed check. ``check`` is the spec's check name (``near``, ``held``, ...);
    ``predicate``/``args`` the literal that would satisfy it (empty for AFFORDANCE)."""

    kind: ErrorKind
    check: str
    predicate: str = ""
    args: tuple[str, ...] = ()
    message: str = ""
    hint: str = ""

    @property
    def literal(self) -> str:
        return f"({' '.join((self.predicate, *self.args))})" if self.predicate else ""


Check = Callable[[World, State, list[str], int], Failure | None]


def _temporal(state: State, literal: tuple[str, ...]) -> ErrorKind:
    return ErrorKind.WRONG_TEMPORAL_ORDER if literal in state.ever else ErrorKind.MISSING_STEP


def _affordance(check: str, message: str, hint: str) -> Failure:
    return Failure(ErrorKind.AFFORDANCE, check, message=message, hint=hint)


# -- queries shared by checks, effects and planners ------------------------------------
def closed_container(world: World, state: State, obj: str) -> str | None:
    """The closed openable container that ``obj`` is (transitively) inside, if any."""
    for rel, tgt in state.container_chain(obj):
        if rel == "inside" and world.has(tgt, "openable") and ("open", tgt) not in state.facts:
            return tgt
    return None


def heat_source_on(world: World, state: State, obj: str) -> tuple[bool, str]:
    """Whether obj sits on/in an active heat source; (ok, name of a source to use)."""
    sources = [o for o in world.affordances if world.has(o, "heatSource")]
    if not sources:
        return True, ""  # no heat source in the task: nothing a plan could do about it
    for _rel, tgt in state.container_chain(obj):
        if tgt in sources:
            if world.has(tgt, "toggleable") and ("toggled_on", tgt) not in state.facts:
                return False, tgt
            return True, tgt
    return False, sources[0]


def holds_substance(state: State, obj: str) -> bool:
    return any(f[0] in SUBSTANCE_HOLDING and f[1] == obj for f in state.facts)


# -- checks ---------------------------------------------------------------------------
def _exists(w, s, a, _cap):
    if a[0] in s.future:
        return Failure(ErrorKind.MISSING_STEP, "exists", "real", (a[0],), f"{a[0]} does not exist yet",
                       f"make({a[0]}) before using it")
    return None


def _near(w, s, a, _cap):
    if a[0] in s.near or a[0] in s.held:
        return None
    return Failure(_temporal(s, ("near", a[0])), "near", "near", ("agent", a[0]), f"the agent is not near {a[0]}",
                   f"navigate({a[0]}) first")


def _held(w, s, a, _cap):
    if a[0] in s.held:
        return None
    return Failure(_temporal(s, ("held", a[0])), "held", "holding", (a[0],), f"{a[0]} is not in hand",
                   f"grasp({a[0]}) first")


def _free_hand(w, s, a, cap):
    if len(s.held) < cap or (a and a[0] in s.held):  # ``free_hand:o``: o already in hand is fine
        return None
    holding = ", ".join(s.held)
    return Failure(ErrorKind.MISSING_STEP, "free_hand", "free_hand", (), f"no free hand (holding {holding})",
                   f"place {holding} somewhere first")


def _graspable(w, s, a, _cap):
    obj = a[0]
    if w.is_fixture(obj):
        return _affordance("graspable", f"{obj} is a fixture and cannot be picked up",
                           f"navigate({obj}) and act on it in place")
    if w.is_substance(obj):
        return _affordance("graspable", f"{obj} is a substance and cannot be grasped",
                           f"grasp a container of {obj} instead")
    return None


def _apart(w, s, a, _cap):
    """Placing/attaching obj relative to itself, or to something resting on/in it, is impossible
    (it would make a support cycle); such a call is malformed and skipped."""
    obj, tgt = a
    if tgt != obj and all(t != obj for _r, t in s.container_chain(tgt)):
        return None
    what = "itself" if tgt == obj else f"{tgt}, which rests on or in {obj}"
    return _affordance("apart", f"{obj} cannot be put relative to {what}", f"choose a target that is not {obj} or on/in it")


def _accessible(w, s, a, _cap):
    box = closed_container(w, s, a[0])
    if box is None:
        return None
    return Failure(_temporal(s, ("open", box)), "accessible", "open", (box,), f"{a[0]} is inside the closed {box}",
                   f"open({box}) first")


def _open_if_openable(w, s, a, _cap):
    t = a[0]
    if not w.has(t, "openable") or ("open", t) in s.facts:
        return None
    return Failure(_temporal(s, ("open", t)), "open_if_openable", "open", (t,), f"{t} is closed",
                   f"open({t}) before placing inside it")


def _ability(flags: str) -> Check:
    """``FLAG`` or ``FLAG|FLAG``: any of the alternatives suffices (sliceable|diceable)."""
    options = flags.split("|")

    def check(w, s, a, _cap):
        if any(w.allows(a[0], f) for f in options):
            return None
        return _affordance("ability", f"{a[0]} is not {' or '.join(options)}", f"choose an object that is {options[0]}")
    return check


def _substance(w, s, a, _cap):
    if not w.affordances[a[0]].known or w.is_substance(a[0]):
        return None
    return _affordance("substance", f"{a[0]} is not a substance", "name a substance such as water")


def _holding(flag: str) -> Check:
    def check(w, s, a, _cap):
        if any(w.has(h, flag) for h in s.held):
            return None
        tools = [o for o in w.affordances if w.has(o, flag)]
        hint = f"grasp({tools[0]}) first" if tools else f"grasp a {flag} first"
        return Failure(_temporal(s, ("holding_flag", flag)), "holding", "holding", (flag,), f"no {flag} in hand", hint)
    return check


def _has_substance(w, s, a, _cap):
    obj = a[0]
    if holds_substance(s, obj):
        return None
    return Failure(ErrorKind.MISSING_STEP, "has_substance", "filled", (obj, "?substance"), f"{obj} holds no substance",
                   f"fill({obj}, <substance>) first")


def _heated(w, s, a, _cap):
    ok, source = heat_source_on(w, s, a[0])
    if ok:
        return None
    if source and any(t == source for _r, t in s.container_chain(a[0])):
        return Failure(_temporal(s, ("toggled_on", source)), "heated", "toggled_on", (source,), f"{source} is off",
                       f"toggle_on({source}) first")
    return Failure(ErrorKind.MISSING_STEP, "heated", "ontop", (a[0], source), f"{a[0]} is not on or in a heat source",
                   f"place {a[0]} on/in {source} and toggle_on({source})")


#: check name -> check (or, for parameterised checks, a factory taking the ``:EXTRA`` part)
CHECKS: dict[str, Check] = {
    "exists": _exists, "near": _near, "held": _held, "free_hand": _free_hand, "graspable": _graspable,
    "accessible": _accessible, "apart": _apart, "open_if_openable": _open_if_openable, "substance": _substance,
    "has_substance": _has_substance, "heated": _heated,
}
CHECK_FACTORIES: dict[str, Callable[[str], Check]] = {"ability": _ability, "holding": _holding}
#: Checks that read an argument's affordances (and permit when they are unknown).
AFFORDANCE_CHECKS = frozenset({"graspable", "ability", "substance", "open_if_openable"})
