"""Static, compiled view of one task: objects, types, affordances, rooms.

Built once per task (see :func:`symplan_core.engine.compile_task`) and shared
by every plan verified against it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources

from symplan_core.bddl.model import Problem
from symplan_core.engine.predicates import (
    ABILITY_EVIDENCE,
    BULK_EVIDENCE,
    BULK_TYPES,
    CONTAINER_EVIDENCE,
    COVER_EVIDENCE,
    OBJECT_RELATIONS,
    SUBSTANCE_HOLDING,
)

AGENT_TYPE = "agent.n.01"
FLOOR_TYPES = frozenset({"floor.n.01", "lawn.n.01"})


@dataclass(frozen=True)
class Affordances:
    """Per-object ability flags. ``known=False``: the object's synset is in no BEHAVIOR table;
    checks then permit, and the engine reports each such call as ``UNKNOWN_AFFORDANCE``."""

    known: bool
    abilities: frozenset[str] = frozenset()
    substance: bool = False
    object_type: str = ""  # BEHAVIOR objectType: rigidBody, cloth, softBody, rope, liquid, ...
    #: False for a synset only iGibson's scene data knows (``vehicle.n.01``): its abilities are
    #: known, whether it can be picked up is not (not graspable unless the goal moves it)
    liftable_known: bool = True

    def allows(self, ability: str) -> bool:
        return not self.known or ability in self.abilities


@dataclass
class World:
    """Objects of a task (agent excluded) and what each can do."""

    objects: dict[str, str]  # instance -> type (agent excluded)
    agent: str | None
    affordances: dict[str, Affordances]
    room_of: dict[str, str]
    floors: frozenset[str]
    by_type: dict[str, list[str]] = field(default_factory=dict)
    #: objects whose synset is in no table (instance -> type): their affordances are assumed
    unknown: dict[str, str] = field(default_factory=dict)
    #: substance -> fixtures that supply it without a declared ``insource`` (B-100's sinks give water)
    taps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: substances the task gives no container or tap of at all (nothing a plan could fetch them from)
    sourceless: frozenset[str] = frozenset()
    #: future object -> the declared objects it is made from (``diced__carrot`` <- ``carrot``)
    ingredients: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: objects the goal moves (a synset in no table is graspable only when the goal moves it)
    moved: frozenset[str] = frozenset()
    #: openable objects whose ``open`` the task does not state -> (open?, why): what the
    #: initial state assumes, reported as ASSUMED_STATE diagnostics when a call relies on it
    assumed_open: dict[str, tuple[bool, str]] = field(default_factory=dict)
    #: (predicate, instance) of each one-argument state the goal asks to make true; a quantified
    #: variable stands for every instance of its type (``asked:`` checks: irreversible changes)
    asked: frozenset[tuple[str, str]] = frozenset()
    _having: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _flag_facts: dict[str, list[tuple[str, str]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for inst, typ in self.objects.items():
            self.by_type.setdefault(typ, []).append(inst)
        self.unknown = {o: self.objects[o] for o, aff in self.affordances.items() if not aff.known}

    def having(self, ability: str) -> tuple[str, ...]:
        """Objects that certainly have ``ability``, in declaration order (cached)."""
        found = self._having.get(ability)
        if found is None:
            found = self._having[ability] = tuple(o for o in self.affordances if self.has(o, ability))
        return found

    def flag_facts(self, obj: str) -> list[tuple[str, str]]:
        """``("holding_flag", FLAG)`` for each ability of ``obj`` (what grasping it records; cached)."""
        found = self._flag_facts.get(obj)
        if found is None:
            aff = self.affordances[obj]
            found = self._flag_facts[obj] = [("holding_flag", f) for f in aff.abilities] if aff.known else []
        return found

    def is_fixture(self, obj: str) -> bool:
        aff = self.affordances[obj]
        return obj in self.floors or (aff.known and "sceneObject" in aff.abilities)

    def is_substance(self, obj: str) -> bool:
        return self.affordances[obj].substance

    def allows(self, obj: str, ability: str) -> bool:
        """``obj`` may have ``ability``: it has it, or its affordances are unknown."""
        return self.affordances[obj].allows(ability)

    def has(self, obj: str, ability: str) -> bool:
        """``obj`` certainly has ``ability`` (known affordances that include it)."""
        aff = self.affordances[obj]
        return aff.known and ability in aff.abilities


@lru_cache(maxsize=1)
def igibson_abilities() -> dict[str, frozenset[str]]:
    """B-100's iGibson abilities per synset, from EAI's scene data (``igibson_abilities.json``,
    made by ``symplan_core.eai.igibson_table``)."""
    data = json.loads(resources.files("symplan_core.engine").joinpath("igibson_abilities.json").read_text())
    return {k: frozenset(v) for k, v in data["abilities"].items()}


@lru_cache(maxsize=1)
def open_defaults() -> dict[str, bool]:
    """Per synset: is an instance whose ``open`` the task does not state open (``open_defaults.json``,
    derived from EAI's gold plans by ``symplan_core.eai.igibson_table``)? Absent: closed."""
    data = json.loads(resources.files("symplan_core.engine").joinpath("open_defaults.json").read_text())
    return dict(data["open"])


#: Synsets that supply water without a declared ``insource`` (BEHAVIOR's water sources).
WATER_TAPS = frozenset({"sink.n.01", "water__dispenser.n.01"})
#: Appliances that wash (and wet) what is inside them while on, named by synset: B-1K's table
#: gives a dishwasher or washing machine no flag that a sink's ``particleSource`` would give it.
WASHERS = frozenset({"dishwasher.n.01", "washer.n.03"})

#: Table gaps, named by synset (``docs/engine.md``): appliances that heat what is in them and
#: tools that clear what covers a surface, which B-1K's table leaves without ``heatSource`` /
#: ``particleRemover`` though B-1K tasks use them so (cook_chicken_and_rice, make_waffles;
#: shoveling_snow, scraping_snow_off_vehicle, washing_windows, mowing_the_lawn), and B-100's
#: scrub brushes, ``brush.n.02``, which the table knows only through ``implement.n.01``.
TABLE_GAPS = {"rice_cooker.n.01": "heatSource", "waffle_iron.n.01": "heatSource", "brush.n.02": "particleRemover",
              "shovel.n.01": "particleRemover",
              "scraper.n.01": "particleRemover", "squeegee.n.01": "particleRemover",
              "lawn_mower.n.01": "particleRemover"}

#: Abilities the engine derives (``docs/engine.md``, "Derived abilities"): iGibson's, which
#: B-1K's table lacks, and ``container`` (can hold things: fillable or openable).
IGIBSON_DERIVED = frozenset({"soakable", "stainable", "dustyable", "freezable"})
#: iGibson abilities that B-1K's table names the same way (used for a synset only iGibson's table has)
IGIBSON_OWN = frozenset({"openable", "toggleable", "cookable", "sliceable"})


def _derived_abilities(synset: str, aff: Affordances, igibson: bool) -> frozenset[str]:
    flags = {"container"} if aff.abilities & {"fillable", "openable"} or _kinds_contain(synset) else set()
    if aff.substance and aff.object_type in BULK_TYPES:
        flags.add("bulk")
    if synset in TABLE_GAPS:
        flags.add(TABLE_GAPS[synset])
    row = igibson_abilities().get(synset) if igibson else None
    if row is not None:  # B-100: iGibson's own abilities for this category
        flags |= row & IGIBSON_DERIVED
        if "openable" in row:
            flags.add("container")
    else:  # B-1K: ``saturated`` is a state of particle removers; any object gets dirty and has a temperature
        if "particleRemover" in aff.abilities:
            flags.add("soakable")
        if not aff.substance:
            flags |= {"stainable", "dustyable"}
        flags.add("freezable")
    return frozenset(flags)


def _kinds_contain(synset: str) -> bool:
    """A general word in no table row (B-100's ``pan.n.01``) can contain things when most of its
    kinds in the table can (frying pan, saucepan, wok; not the roaster)."""
    from symplan_core.tasks import _known_children

    kinds = _known_children().get(synset, ())
    return 2 * sum(bool(k.abilities & {"fillable", "openable"}) for k in kinds) > len(kinds) > 0


def _lookup_affordances(synset: str, igibson: bool = False) -> Affordances:
    # The table ships with the package; a broken install raises SynsetTableError (never "allow all").
    from symplan_core.tasks import synset_info

    info = synset_info(synset)
    if info is None and igibson and synset in igibson_abilities():  # in iGibson's table only
        row = igibson_abilities()[synset]
        aff = Affordances(True, frozenset(a for a in row if a in IGIBSON_OWN), False, "rigidBody", False)
        return replace(aff, abilities=aff.abilities | _derived_abilities(synset, aff, igibson))
    if info is None:
        return Affordances(known=False)
    aff = Affordances(True, info.abilities, info.is_substance, info.object_type)
    return replace(aff, abilities=aff.abilities | _derived_abilities(synset, aff, igibson))


#: BEHAVIOR names a transformed object after what it is made from: ``diced__carrot``,
#: ``cooked__diced__chili``, ``half__lemon``, ``melted__butter``.
_MADE_FROM = "__"


def _base(synset: str) -> str:
    return synset.split(".n.")[0]


def _ingredients(problem: Problem, objects: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Future objects whose name declares what they are made from, and that ingredient's
    instances in the task: the longest declared suffix after a ``__`` (``cooked__diced__chili``
    <- ``diced__chili`` when declared, else ``chili``). Names without one declare nothing."""
    by_base: dict[str, list[str]] = {}
    for inst, typ in objects.items():
        by_base.setdefault(_base(typ), []).append(inst)
    out = {}
    for lit in problem.init:
        if lit.predicate != "future" or lit.negated or lit.args[0] not in objects:
            continue
        product = lit.args[0]
        parts = _base(objects[product]).split(_MADE_FROM)
        for k in range(1, len(parts)):
            source = [i for i in by_base.get(_MADE_FROM.join(parts[k:]), []) if i != product]
            if source:
                out[product] = tuple(source)
                break
    return out




def _task_evidence(problem: Problem, goal_evidence: bool = True) -> tuple[dict[str, set[str]], set[str]]:
    """Abilities the task file itself asserts, and objects its goal asks to move. Without
    ``goal_evidence`` only the initial state counts, and no goal makes a scene object movable."""
    from symplan_core.bddl.checks import argument_instances, iter_atoms, iter_quantifiers

    var_type = {p.var: p.type for q in iter_quantifiers(problem.goal) for p in q.params}

    def instances(arg: str) -> list[str]:
        return argument_instances(arg, var_type, problem.objects)

    abilities: dict[str, set[str]] = {}
    moved: set[str] = set()
    atoms = [lit.atom for lit in problem.init] + (list(iter_atoms(problem.goal)) if goal_evidence else [])
    for atom in atoms:
        if atom.predicate in ABILITY_EVIDENCE and atom.args:
            for inst in instances(atom.args[0]):
                abilities.setdefault(inst, set()).add(ABILITY_EVIDENCE[atom.predicate])
        elif atom.predicate == "covered" and len(atom.args) == 2:
            dirt = COVER_EVIDENCE.get(problem.objects.get(atom.args[1], var_type.get(atom.args[1], "")).split(".n.")[0],
                                      "dustyable")
            for inst in instances(atom.args[0]):
                abilities.setdefault(inst, set()).add(dirt)
        if atom.predicate == CONTAINER_EVIDENCE and len(atom.args) == 2:
            for inst in instances(atom.args[1]):
                abilities.setdefault(inst, set()).add("container")
        if atom.predicate in BULK_EVIDENCE and len(atom.args) == 2:
            for inst in instances(atom.args[1]):
                abilities.setdefault(inst, set()).add("bulk")
    for atom in iter_atoms(problem.goal) if goal_evidence else ():
        if atom.predicate in OBJECT_RELATIONS and atom.args:
            moved.update(instances(atom.args[0]))
    return abilities, moved


def _asked_states(problem: Problem, ingredients: Mapping[str, tuple[str, ...]]) -> frozenset[tuple[str, str]]:
    """(predicate, instance) of each one-argument state the goal asks for (positively; a
    quantified variable speaks for every instance of its type), and ``sliced`` for what a
    product the goal asks to be real is made from (halving an egg cuts the egg). Unlike
    ``_task_evidence`` this holds for every goal, trusted or not: a plan is judged against the
    goal it is given."""
    from symplan_core.bddl.checks import argument_instances, goal_atoms

    asked = {(atom.predicate, inst) for atom, positive, types in goal_atoms(problem.goal)
             if positive and len(atom.args) == 1
             for inst in argument_instances(atom.args[0], types, problem.objects)}
    return frozenset(asked | {("sliced", source) for predicate, product in asked if predicate == "real"
                              for source in ingredients.get(product, ())})


def build_world(problem: Problem, source_domain: str | None = None, substances: frozenset[str] = frozenset(),
                goal_evidence: bool = True, open_overrides: Mapping[str, bool] | None = None) -> World:
    """``problem`` must already be in the omnigibson vocabulary.

    The synset table describes B-1K (OmniGibson). Two task-level corrections
    keep it from contradicting the task file: abilities the file asserts
    (``(open package.n.02_1)`` proves it openable) are added, and objects the
    goal moves are not fixtures. A curated task file is trusted on both counts;
    a draft whose goal is itself under judgement (perception, an LLM goal, an
    augmentation) is not: with ``goal_evidence=False`` its goal vouches for no
    ability (``(toggled_on table)`` does not make a table switchable) and moves no
    scene object. ``open_overrides`` (synset -> open?) replaces the packaged default for
    unstated ``open`` (``open_defaults``) for this task. In B-100 (iGibson) every declared object is a
    rigid body (``juice.n.01`` is a bottle there), so only the substances that
    normalization introduced (``stain.n.01``...) count as substances.
    """
    agent = next((i for i, t in problem.objects.items() if t == AGENT_TYPE), None)
    objects = {i: t for i, t in problem.objects.items() if i != agent}
    evidence, moved = _task_evidence(problem, goal_evidence)
    rigid_only = source_domain == "igibson"
    cache: dict[str, Affordances] = {}
    affordances = {}
    for inst, typ in objects.items():
        if typ not in cache:
            cache[typ] = _lookup_affordances(typ, rigid_only)
        aff = cache[typ]
        extra = evidence.get(inst, set())
        # Goal-moved objects drop "fixture"; B-100 objects drop "substance".
        if inst in moved and "sceneObject" in aff.abilities:
            aff = replace(aff, abilities=aff.abilities - {"sceneObject"})
        if rigid_only and aff.substance and inst not in substances:
            aff = replace(aff, substance=False, object_type="rigidBody")
        elif rigid_only and inst in substances:
            aff = replace(aff, known=True, substance=True)
        if extra and aff.known and not extra <= aff.abilities:
            aff = replace(aff, abilities=aff.abilities | extra)
        affordances[inst] = aff
    room_of = {lit.args[0]: lit.args[1] for lit in problem.init
               if lit.predicate == "inroom" and not lit.negated and len(lit.args) == 2}
    floors = frozenset(i for i, t in objects.items() if t in FLOOR_TYPES)
    ingredients = _ingredients(problem, objects)
    world = World(objects, agent, affordances, room_of, floors, ingredients=ingredients,
                  moved=frozenset(moved), asked=_asked_states(problem, ingredients))
    world.assumed_open = _unstated_open(problem, world, open_overrides or {})
    subs = [o for o in objects if affordances[o].substance]
    # A sink gives water (iGibson declares no insource; B-1K files often omit it), and so does a
    # washing machine or dishwasher that is on (``checks.WASHERS``).
    water_taps = tuple(o for o in objects if (rigid_only and world.has(o, "particleSource"))
                       or objects[o] in WATER_TAPS or objects[o] in WASHERS)
    world.taps = {s: water_taps for s in subs if _base(objects[s]) == "water" and water_taps}
    held = {lit.args[1] for lit in problem.init
            if lit.predicate in SUBSTANCE_HOLDING and not lit.negated and len(lit.args) == 2}
    made = set(world.ingredients)  # a made substance is where its ingredient was (see make)
    world.sourceless = frozenset(s for s in subs if s not in held and s not in made and not world.taps.get(s))
    return world


def _unstated_open(problem: Problem, world: World, overrides: Mapping[str, bool]) -> dict[str, tuple[bool, str]]:
    """Each openable object whose initial ``open`` the file states neither way: the default of
    its synset (task override, else ``open_defaults()``, else closed) and the reason."""
    stated = {lit.args[0] for lit in problem.init if lit.predicate == "open" and lit.args}
    table = open_defaults()
    out = {}
    for obj in world.having("openable"):
        if obj in stated:
            continue
        typ = world.objects[obj]
        if typ in overrides:
            out[obj] = (bool(overrides[typ]), f"the task's override for {typ}")
        elif table.get(typ):
            out[obj] = (True, f"{typ} is open by default (EAI's gold plans use it without opening it)")
        else:
            out[obj] = (False, "an unstated openable is closed by default")
    return out
