"""Precondition checks: each returns None or a structured :class:`Failure`.

A check reads the world (static affordances) and the state; it never mutates either. The
failure names the literal the plan must make true (``predicate`` + ``args``), so planners
repair it from data, and a message and hint for people and LLMs. Why each check exists is
in ``docs/engine.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.predicates import HANGING_PLACES, SUBSTANCE_HOLDING
from symplan_core.engine.state import State
from symplan_core.engine.world import WASHERS, WATER_TAPS, World


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


#: Every check takes the same four arguments (world, state, the action's arguments, the hand capacity),
#: passed by position from ``execute``; a check that does not read one names it with a leading ``_``.
Check = Callable[[World, State, Sequence[str], int], Failure | None]


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


def is_on(world: World, state: State, obj: str) -> bool:
    """A device is on when it cannot be switched (a fridge) or is switched on."""
    return not world.has(obj, "toggleable") or ("toggled_on", obj) in state.facts


def resting_on_source(world: World, state: State, obj: str, flag: str) -> str | None:
    """The object with ``flag`` (heatSource, coldSource) that ``obj`` rests on or in, through
    its support chain; a substance rests where a container that holds it does."""
    holders = [f[1] for f in state.facts if f[0] in SUBSTANCE_HOLDING and f[2] == obj] if obj in state.substances \
        else [obj]
    for holder in holders:
        if world.has(holder, flag) and holder != obj:
            return holder
        for _rel, tgt in state.container_chain(holder):
            if world.has(tgt, flag):
                return tgt
    return None


def heat_source_on(world: World, state: State, obj: str) -> tuple[bool, str]:
    """Whether obj sits on/in an active heat source; (ok, name of a source to use; "" when the
    task has none: then nothing heats obj, as nothing freezes it without a cold source)."""
    sources = world.having("heatSource")
    if not sources:
        return False, ""
    source = resting_on_source(world, state, obj, "heatSource")
    if source is None:
        return False, sources[0]
    return is_on(world, state, source), source


def holds_substance(state: State, obj: str, substance: str | None = None) -> bool:
    return any(f[0] in SUBSTANCE_HOLDING and f[1] == obj and (substance is None or f[2] == substance)
               for f in state.facts)


def substance_sources(world: World, state: State, substance: str) -> list[str]:
    """What ``substance`` can be taken from now: containers and sources that hold it, and taps."""
    held = sorted({f[1] for f in state.facts if f[0] in SUBSTANCE_HOLDING and f[2] == substance})
    return held + [t for t in world.taps.get(substance, ()) if t not in held]


def within_reach(world: World, state: State, obj: str) -> bool:
    """The agent is near or holds ``obj``; a substance is within reach when a container or
    tap of it is."""
    if obj in state.near or obj in state.held:
        return True
    return obj in state.substances and any(s in state.near or s in state.held
                                           for s in substance_sources(world, state, obj))


# -- checks ---------------------------------------------------------------------------
def _exists(_w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    if a[0] in s.future:
        return Failure(ErrorKind.MISSING_STEP, "exists", "real", (a[0],), f"{a[0]} does not exist yet",
                       f"make({a[0]}) before using it")
    return None


def _near(_w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    if a[0] in s.near or a[0] in s.held:
        return None
    return Failure(_temporal(s, ("near", a[0])), "near", "near", ("agent", a[0]), f"the agent is not near {a[0]}",
                   f"navigate({a[0]}) first")


def _held(_w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    if a[0] in s.held:
        return None
    return Failure(_temporal(s, ("held", a[0])), "held", "holding", (a[0],), f"{a[0]} is not in hand",
                   f"grasp({a[0]}) first")


def _free_hand(_w: World, s: State, a: Sequence[str], cap: int) -> Failure | None:
    if len(s.held) < cap or (a and a[0] in s.held):  # ``free_hand:o``: o already in hand is fine
        return None
    holding = ", ".join(s.held)
    return Failure(ErrorKind.MISSING_STEP, "free_hand", "free_hand", (), f"no free hand (holding {holding})",
                   f"place {holding} somewhere first")


def can_carry(w: World, obj: str) -> bool:
    """``obj`` can be picked up: a known non-fixture, non-substance, or one the goal moves."""
    aff = w.affordances[obj]
    return ((aff.known and aff.liftable_known) or obj in w.moved) and not w.is_fixture(obj) and not aff.substance


def _graspable(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
    obj = a[0]
    aff = w.affordances[obj]
    if not (aff.known and aff.liftable_known) and obj not in w.moved:
        return _affordance("graspable", f"{obj} ({w.objects[obj]}) is in no BEHAVIOR synset table, so it is not "
                           "graspable by default", f"act on {obj} in place, or grasp an object of a known type")
    if w.is_fixture(obj):
        return _affordance("graspable", f"{obj} is a fixture and cannot be picked up",
                           f"navigate({obj}) and act on it in place")
    if w.is_substance(obj):
        return _affordance("graspable", f"{obj} is a substance and cannot be grasped",
                           f"grasp a container of {obj} instead")
    return None


def _apart(_w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """Placing/attaching obj relative to itself, or to something resting on/in it, is impossible
    (it would make a support cycle); such a call is malformed and skipped."""
    obj, tgt = a
    if tgt != obj and all(t != obj for _r, t in s.container_chain(tgt)):
        return None
    what = "itself" if tgt == obj else f"{tgt}, which rests on or in {obj}"
    return _affordance("apart", f"{obj} cannot be put relative to {what}", f"choose a target that is not {obj} or on/in it")


def _accessible(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    box = closed_container(w, s, a[0])
    if box is None:
        return None
    return Failure(_temporal(s, ("open", box)), "accessible", "open", (box,), f"{a[0]} is inside the closed {box}",
                   f"open({box}) first")


def _open_if_openable(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    t = a[0]
    if not w.has(t, "openable") or ("open", t) in s.facts:
        return None
    return Failure(_temporal(s, ("open", t)), "open_if_openable", "open", (t,), f"{t} is closed",
                   f"open({t}) before placing inside it")


def _ability(flags: str) -> Check:
    """``FLAG`` or ``FLAG|FLAG``: any of the alternatives suffices (sliceable|diceable)."""
    options = flags.split("|")

    def check(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
        if any(w.allows(a[0], f) for f in options):
            return None
        return _affordance("ability", f"{a[0]} is not {' or '.join(options)}", f"choose an object that is {options[0]}")
    return check


def _substance(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
    if not w.affordances[a[0]].known or w.is_substance(a[0]):
        return None
    return _affordance("substance", f"{a[0]} is not a substance", "name a substance such as water")


def _solid(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """A substance (a stain, dust, water) has no surface or side to put something on, under or
    next to, attach or pour something to, or paint or water."""
    if not w.is_substance(a[0]):
        return None
    return _affordance("solid", f"{a[0]} is a substance, not a thing to put, attach or pour something on, "
                                "or to paint or water", "choose an object or fixture as the target")


def _bears(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """A wall nail or a hanger holds what hangs on it: nothing is set on top of it (Qwen 1.5B put
    a wreath on top of a nail and a dress on top of a hanger)."""
    relation = HANGING_PLACES.get(w.objects.get(a[0], ""))
    if relation is None:
        return None
    verb = "attach" if relation == "attached" else "drape"
    return _affordance("bears", f"{a[0]} holds things hung on it ({relation}), not set on top of it",
                       f"{verb}(obj, {a[0]}) instead")


def _holding(flag: str) -> Check:
    def check(w: World, s: State, _a: Sequence[str], _cap: int) -> Failure | None:
        if any(w.has(h, flag) for h in s.held):
            return None
        tools = [o for o in w.affordances if w.has(o, flag)]
        hint = f"grasp({tools[0]}) first" if tools else f"grasp a {flag} first"
        return Failure(_temporal(s, ("holding_flag", flag)), "holding", "holding", (flag,), f"no {flag} in hand", hint)
    return check


def _has_substance(_w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    obj = a[0]
    if holds_substance(s, obj):
        return None
    return Failure(ErrorKind.MISSING_STEP, "has_substance", "filled", (obj, "?substance"), f"{obj} holds no substance",
                   f"fill({obj}, <substance>) first")


def _heated(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    ok, source = heat_source_on(w, s, a[0])
    if ok:
        return None
    if not source:
        return Failure(ErrorKind.MISSING_STEP, "heated", "ontop", (a[0], "?heat_source"),
                       f"nothing in this scene can heat {a[0]}", "this task has no heat source (stove, oven, ...)")
    if resting_on_source(w, s, a[0], "heatSource") == source:
        return Failure(_temporal(s, ("toggled_on", source)), "heated", "toggled_on", (source,), f"{source} is off",
                       f"toggle_on({source}) first")
    return Failure(ErrorKind.MISSING_STEP, "heated", "ontop", (a[0], source), f"{a[0]} is not on or in a heat source",
                   f"place {a[0]} on/in {source} and toggle_on({source})")


def _kind(types: str) -> Check:
    """``TYPE`` or ``TYPE|TYPE``: BEHAVIOR's objectType (cloth folds and drapes; a bowl does not)."""
    options = types.split("|")

    def check(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
        aff = w.affordances[a[0]]
        if not aff.known or aff.object_type in options:
            return None
        return _affordance("type", f"{a[0]} is {aff.object_type or 'not ' + options[0]}, not {' or '.join(options)}",
                           f"choose a {options[0]} object")
    return check


def _source(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """``source:o:s``: a container or tap of substance s (other than o) is within reach."""
    obj, sub = a
    if sub in w.sourceless or holds_substance(s, obj, sub):
        return None  # no container or tap of it declared (nothing to fetch), or o holds it already
    sources = [x for x in substance_sources(w, s, sub) if x != obj]
    if any(x in s.near or x in s.held for x in sources):
        return None
    if not sources:
        return Failure(ErrorKind.MISSING_STEP, "source", "filled", ("?container", sub), f"nothing holds {sub} any more",
                       f"{sub} has run out: no container or tap of it is left")
    src = sources[0]
    return Failure(_temporal(s, ("near", src)), "source", "near", ("agent", src),
                   f"no source of {sub} within reach ({', '.join(sources)} holds it)",
                   f"bring {obj} to {src} (or {src} to {obj})")


def _held_substance(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """Something in hand holds a substance to apply (a filled can, a watering can, a sprayer)."""
    if any(holds_substance(s, h) or w.has(h, "particleSource") or w.has(h, "particleApplier") for h in s.held):
        return None
    vessels = [o for o in w.objects if not w.is_fixture(o) and not w.is_substance(o) and o not in s.future
               and (holds_substance(s, o) or w.has(o, "particleSource") or w.has(o, "particleApplier"))]
    if vessels:
        return Failure(_temporal(s, ("held", vessels[0])), "held_substance", "holding", (vessels[0],),
                       f"nothing in hand holds a substance to apply to {a[0]}", f"grasp({vessels[0]}) first")
    return Failure(ErrorKind.MISSING_STEP, "held_substance", "holding", ("?vessel",),
                   f"nothing in hand holds a substance to apply to {a[0]}, and nothing in the scene does",
                   "this task gives no container of a substance to apply")


def _flame(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """A flame reaches o: a lit heat source in hand (a lighter that is on), o on/in a heat
    source that is on, or o touching something already on fire."""
    obj = a[0]
    if any(w.has(h, "heatSource") and is_on(w, s, h) for h in s.held):
        return None
    source = resting_on_source(w, s, obj, "heatSource")
    if source is not None and is_on(w, s, source):
        return None
    if any(f[0] == "on_fire" and f[1] != obj and s.touching(f[1], obj) for f in s.facts):
        return None
    held = [h for h in s.held if w.has(h, "heatSource")]
    if held:
        return Failure(_temporal(s, ("toggled_on", held[0])), "flame", "toggled_on", (held[0],),
                       f"{held[0]} is not lit", f"toggle_on({held[0]}) first")
    lighters = [o for o in w.having("heatSource") if not w.is_fixture(o) and o not in s.future]
    if lighters:
        return Failure(ErrorKind.MISSING_STEP, "flame", "holding", (lighters[0],), f"no flame reaches {obj}",
                       f"grasp({lighters[0]}) and toggle_on({lighters[0]}) first")
    return Failure(ErrorKind.MISSING_STEP, "flame", "on_fire", ("?flame",), f"no flame reaches {obj}",
                   "nothing in this scene makes fire (no lighter, no lit fire)")


def _cooled(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """o rests on/in a cold source that is on (freezing needs a freezer or fridge)."""
    obj = a[0]
    source = resting_on_source(w, s, obj, "coldSource")
    if source is not None and is_on(w, s, source):
        return None
    if source is not None:
        return Failure(_temporal(s, ("toggled_on", source)), "cooled", "toggled_on", (source,), f"{source} is off",
                       f"toggle_on({source}) first")
    sources = w.having("coldSource")
    if not sources:
        return Failure(ErrorKind.MISSING_STEP, "cooled", "inside", (obj, "?cold_source"),
                       f"nothing in this scene can cool {obj}", "this task has no fridge or freezer")
    return Failure(ErrorKind.MISSING_STEP, "cooled", "inside", (obj, sources[0]), f"{obj} is not in a cold source",
                   f"put {obj} in {sources[0]} first")


def _away_from(flag: str) -> Check:
    """``away:o:FLAG``: o does not rest on/in an active FLAG source (thawing needs o out of
    the freezer; cooling down, off the stove)."""
    def check(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
        source = resting_on_source(w, s, a[0], flag)
        if source is None or not is_on(w, s, source):
            return None
        return Failure(ErrorKind.MISSING_STEP, "away", "away", (a[0], source), f"{a[0]} is still on/in {source}",
                       f"take {a[0]} out of/off {source} first")
    return check


#: How people say each irreversible state an ``asked:`` check guards.
_DAMAGE_WORDS = {"sliced": "sliced", "broken": "broken", "burnt": "burnt", "on_fire": "set on fire"}


def _asked(predicate: str) -> Check:
    """``asked:o:PRED``: the goal asks for ``(PRED o)``. Slicing, breaking, burning and setting on
    fire cannot be undone by any action, so a plan may do them only to what the task wants so."""
    words = _DAMAGE_WORDS.get(predicate, predicate)

    def check(w: World, _s: State, a: Sequence[str], _cap: int) -> Failure | None:
        if (predicate, a[0]) in w.asked:
            return None
        # no literal: nothing a plan can do makes it wanted (like AFFORDANCE)
        return Failure(ErrorKind.UNWANTED_EFFECT, "asked",
                       message=f"the task does not ask for {a[0]} to be {words}, and that cannot be undone",
                       hint=f"leave {a[0]} as it is: only what the goal wants {words} may be {words}")
    return check


def washers(w: World) -> list[str]:
    """Sinks and washing machines: switched on, they wash what is on or in them."""
    return [o for o, t in w.objects.items() if (t in WATER_TAPS or t in WASHERS) and w.has(o, "toggleable")]


def running_washer(w: World, s: State, obj: str) -> str | None:
    """The switched-on sink or washer that ``obj`` rests on or in, if any."""
    for _rel, tgt in s.container_chain(obj):
        if w.objects.get(tgt) in WATER_TAPS | WASHERS and ("toggled_on", tgt) in s.facts:
            return tgt
    return None


def is_stain(w: World, substance: str) -> bool:
    """A stain sticks: a dry tool does not lift it (``stain.n.01``; dust, crumbs, ... do come off dry)."""
    return w.objects.get(substance, "").split(".n.")[0] == "stain"


def soaked(s: State, obj: str) -> bool:
    return any(f[0] == "saturated" and f[1] == obj for f in s.facts)


def wetting_substance(w: World, s: State) -> str | None:
    """The substance to soak a cleaning tool in: the task's water, else any liquid it has."""
    subs = sorted(s.substances)
    return next((x for x in subs if w.objects[x].split(".n.")[0] == "water"),
                next((x for x in subs if w.affordances[x].object_type == "liquid"), None))


def _cleaner(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """``clean:o``: a cleaning tool (``particleRemover``) in hand, soaked (with water or a
    cleaning agent) when a stain covers o; or o on/in a switched-on sink or washer."""
    obj = a[0]
    if running_washer(w, s, obj) is not None:
        return None
    wet = any(f[0] == "covered" and f[1] == obj and is_stain(w, f[2]) for f in s.facts)
    tools = [h for h in s.held if w.has(h, "particleRemover")]
    if tools and (not wet or any(soaked(s, t) for t in tools)):
        return None
    sinks = washers(w) if can_carry(w, obj) else []
    if sinks:  # what a sink or washer can wash goes there
        return Failure(ErrorKind.MISSING_STEP, "cleaner", "inside", (obj, sinks[0]),
                       f"{obj} is in no running sink or washer, and no{' soaked' if wet else ''} cleaning tool "
                       "is in hand", f"put {obj} in {sinks[0]} and toggle_on({sinks[0]})")
    water = wetting_substance(w, s)
    candidates = tools or [o for o in w.having("particleRemover")
                           if not w.is_fixture(o) and o not in s.future and o != obj]
    if not candidates:
        return Failure(ErrorKind.MISSING_STEP, "cleaner", "holding", ("?cleaning_tool",),
                       f"no cleaning tool in hand to clean {obj}, and nothing in this scene is one",
                       "this task has no rag, brush or towel, and no sink or washer to put it in")
    if wet and not any(soaked(s, c) for c in candidates):
        tool = next((c for c in candidates if w.has(c, "soakable")), candidates[0])
        return Failure(_temporal(s, ("saturated", tool, water or "")), "cleaner", "saturated",
                       (tool, water or "?water"), f"a stain covers {obj} and no cleaning tool is soaked",
                       f"soak({tool}, {water}) and hold it" if water else
                       "this task has no water to soak a cleaning tool in")
    tool = next((c for c in candidates if soaked(s, c)), candidates[0]) if wet else candidates[0]
    return Failure(_temporal(s, ("held", tool)), "cleaner", "holding", (tool,),
                   f"no cleaning tool in hand to clean {obj}", f"grasp({tool}) first")


def _taps(w: World, s: State, sub: str) -> list[str]:
    """The fixtures that supply ``sub`` from a tap (a sink, a washer; ``particleSource``), as opposed to
    containers that hold it (a bucket; a watering can, a ``particleSource`` one can carry)."""
    return [x for x in substance_sources(w, s, sub)
            if (w.has(x, "particleSource") or w.objects[x] in WASHERS) and w.is_fixture(x)]


def _wet(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """``wet:o:s``: o rests on/in (or under) a switched-on tap of s, or on/in a container that
    holds s; or a held container of s is poured over it. Soaking needs the substance there."""
    obj, sub = a
    if holds_substance(s, obj, sub):
        return None
    under = [f[2] for f in s.facts if f[0] == "under" and f[1] == obj]
    taps = _taps(w, s, sub)
    for tgt in [t for _r, t in s.container_chain(obj)] + under:
        if tgt in taps:
            if is_on(w, s, tgt):
                return None
            return Failure(_temporal(s, ("toggled_on", tgt)), "wet", "toggled_on", (tgt,), f"{tgt} is off",
                           f"toggle_on({tgt}) first")
        if holds_substance(s, tgt, sub):
            return None
    if any(h != obj and holds_substance(s, h, sub) and h not in taps for h in s.held):
        return None
    sources = [x for x in taps + substance_sources(w, s, sub) if x != obj]
    if not sources:
        return Failure(ErrorKind.MISSING_STEP, "wet", "filled", ("?container", sub),
                       f"nothing in this scene holds or supplies {sub}", f"this task has no source of {sub}")
    if not can_carry(w, obj):  # a plant in its bed: bring the water to it in a container
        vessel = next((x for x in sources if x not in taps and can_carry(w, x)), None)
        if vessel is not None:
            return Failure(_temporal(s, ("held", vessel)), "wet", "holding", (vessel,),
                           f"{obj} cannot be moved to {sub}, and nothing in hand holds {sub}",
                           f"grasp({vessel}) and soak {obj} from it")
    src = sources[0]
    how = f"put {obj} in {src}" + (f" and toggle_on({src})" if src in taps and not is_on(w, s, src) else "")
    return Failure(ErrorKind.MISSING_STEP, "wet", "inside", (obj, src), f"{obj} is not in {sub} ({src} has it)", how)


#: How BEHAVIOR's name prefixes say a thing is made: cut pieces need a blade in hand, cooked or
#: melted things need their ingredient on/in a heat source that is on.
CUT_PRODUCTS = frozenset({"diced", "half", "sliced"})
HEATED_PRODUCTS = frozenset({"cooked", "melted"})


def processes_between(ingredient_type: str, product_type: str) -> list[str]:
    """The name prefixes that turn the ingredient into the product: ``chili`` ->
    ``cooked__diced__chili`` is [cooked, diced]."""
    product = product_type.split(".n.")[0].split("__")
    return product[:len(product) - len(ingredient_type.split(".n.")[0].split("__"))]


def ingredient_at_hand(w: World, s: State, product: str) -> str | None:
    """The first declared ingredient of ``product`` that exists, is within reach and is not shut
    in a closed container."""
    return next((i for i in w.ingredients.get(product, ())
                 if i not in s.future and within_reach(w, s, i) and closed_container(w, s, i) is None), None)


def _ingredients(w: World, s: State, a: Sequence[str], _cap: int) -> Failure | None:
    """``make:o``: what o's name says it is made from (``diced__carrot`` <- ``carrot``) exists,
    is within reach, and is processed the way the name says (cut: a slicer in hand; cooked or
    melted: the ingredient on/in a heat source that is on)."""
    product = a[0]
    sources = w.ingredients.get(product)
    if not sources:
        return None
    used = ingredient_at_hand(w, s, product)
    if used is None:
        real = [i for i in sources if i not in s.future]
        if not real:
            return Failure(ErrorKind.MISSING_STEP, "ingredients", "real", (sources[0],),
                           f"{product} is made from {sources[0]}, which does not exist yet", f"make({sources[0]}) first")
        box = next((b for b in map(lambda i: closed_container(w, s, i), real) if b is not None), None)
        if box is not None and any(within_reach(w, s, i) for i in real):
            return Failure(_temporal(s, ("open", box)), "ingredients", "open", (box,),
                           f"{product} is made from {real[0]}, which is shut in {box}", f"open({box}) first")
        near = _carrier(w, s, real[0]) or next(iter(substance_sources(w, s, real[0])), real[0])
        return Failure(_temporal(s, ("near", near)), "ingredients", "near", ("agent", near),
                       f"{product} is made from {real[0]}, which is not within reach", f"navigate({near}) first")
    processes = set(processes_between(w.objects[used], w.objects[product]))
    if processes & CUT_PRODUCTS:
        cut = _holding("slicer")(w, s, a, _cap)
        if cut is not None:
            return cut._replace(check="ingredients", message=f"{product} is cut from {used}: {cut.message}")
    if processes & HEATED_PRODUCTS:
        heat = _heated(w, s, [used], _cap)
        if heat is None:
            return None
        if heat.predicate == "toggled_on":
            return heat._replace(check="ingredients")
        carrier = _carrier(w, s, used) or used
        return heat._replace(check="ingredients", args=(carrier, heat.args[-1]),
                             message=f"{product} is made by heating {used}: {heat.message}",
                             hint=f"put {carrier} on/in {heat.args[-1]} and switch it on")
    return None


def _carrier(w: World, s: State, obj: str) -> str | None:
    """What to move to move ``obj``: itself, or for a substance a movable container of it."""
    if obj not in s.substances:
        return obj
    return next((x for x in substance_sources(w, s, obj) if not w.is_fixture(x)), None)


#: check name -> check (or, for parameterised checks, a factory taking the ``:EXTRA`` part)
CHECKS: dict[str, Check] = {
    "exists": _exists, "near": _near, "held": _held, "free_hand": _free_hand, "graspable": _graspable,
    "accessible": _accessible, "apart": _apart, "open_if_openable": _open_if_openable, "substance": _substance,
    "has_substance": _has_substance, "heated": _heated, "source": _source, "held_substance": _held_substance,
    "flame": _flame, "cooled": _cooled, "ingredients": _ingredients, "cleaner": _cleaner, "wet": _wet,
    "solid": _solid, "bears": _bears,
}
CHECK_FACTORIES: dict[str, Callable[[str], Check]] = {"ability": _ability, "holding": _holding, "type": _kind,
                                                      "away": _away_from, "asked": _asked}
#: Checks that read an argument's affordances (and permit when they are unknown).
AFFORDANCE_CHECKS = frozenset({"graspable", "ability", "substance", "open_if_openable", "type", "solid", "bears"})
#: Checks that read only the static world, never the state (nor the hand capacity): a bound call
#: runs them once (``execute.bind``). A check added here must never read its state argument.
STATIC_CHECKS = frozenset({"graspable", "ability", "substance", "type", "solid", "bears", "asked"})
