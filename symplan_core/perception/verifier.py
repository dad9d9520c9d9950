"""The draft verifier: one typed verdict per axis, with reasons.

* ``syntax``: the goal parsed; the written problem parses back to itself with our parser; no
  unknown predicate or wrong arity.
* ``objects``: every instance in ``:init``/goal declared and every quantified type declared;
  every type a BEHAVIOR synset; every object backed by a detection or the prior (unseen objects
  the goal needs fail here, named); every object the instruction names present.
* ``init``: the engine loads it; nothing physically contradictory: one object on two supports,
  inside a non-container, a support cycle, something resting on a substance, an object in two
  rooms, a relation of an object with itself, a future object with other facts.
* ``goal``: the reference planner finds a plan that strict-passes the engine (one engine), and
  the goal does not already hold at the start.
* ``judge`` (optional): an LLM judge through a backend spec, as in the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from symplan_core.bddl import BDDLSyntaxError, Problem, parse_problem
from symplan_core.bddl.checks import argument_type, check_problem, goal_atoms
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.bddl.writer import write_problem
from symplan_core.engine import compile_task
from symplan_core.engine.predicates import SUBSTANCE_ARGUMENT
from symplan_core.perception.goal_reading import (
    another_kind,
    carried,
    goal_coverage,
    goal_types,
    idle_pairings,
    is_changed,
    made_from,
    made_types,
    parent_of,
    removed_substances,
    short_pairings,
)
from symplan_core.perception.language import state_conflicts
from symplan_core.perception.object_words import (
    acted_on_directly,
    alternatives,
    assembled_products,
    goal_tools,
    held_contents,
    incidental_objects,
    measuring_containers,
    plural_mentions,
    possessed,
    requested_products,
    scene_reading,
    sounds_plural,
    taken_off_sources,
)
from symplan_core.perception.placements import asked_for_all, moved_by, placement_words
from symplan_core.perception.synsets import (
    ReadInstruction,
    grounds_in,
    is_container,
    is_substance,
    kinds_of,
    known_synset,
    read_instruction,
)
from symplan_core.planners.reference import plan_task
from symplan_core.prompts.goal_text import type_word

AXES = ("syntax", "objects", "init", "goal", "judge")
_SYNTAX_CODES = frozenset({"unknown-predicate", "arity", "unbound-variable"})
_OBJECT_CODES = frozenset({"undeclared-instance", "undeclared-type"})
_SUPPORTS = ("ontop", "inside")


@dataclass
class Verdict:
    axis: str
    passed: bool | None  # None: not checked (an earlier axis made it meaningless)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # recorded, not reasons to reject
    #: What the instruction names that the scene lacks (phrases): no redraft of the goal can mend that.
    lacking: list[str] = field(default_factory=list)
    #: State words of the instruction ("fold") that a curated goal never answers (notes, not reasons).
    unanswered: list[str] = field(default_factory=list)
    #: An LLM goal for a request that names nothing the scene has: the model's guess at what it means
    #: (a note; the pipeline states such a goal back for a yes rather than doing it).
    guessed: bool = False

    def to_json(self) -> dict:
        return {"axis": self.axis, "passed": self.passed, "reasons": list(self.reasons), "notes": list(self.notes)}


@dataclass
class DraftFacts:
    """What the verifier needs besides the problem: where each object came from, and what the
    instruction named (phrase, synset)."""

    sources: dict[str, str]
    instruction_objects: list[tuple[str, str]] = field(default_factory=list)
    goal_reason: str = ""  # why there is no goal (a draft that failed before the verifier)
    #: The goal is a curated BEHAVIOR goal (retrieval) whose literals may vouch for abilities
    #: (``(sliced tomato)``: tomatoes slice), as in the task files. An LLM-drafted goal may not:
    #: ``(toggled_on table)`` must not make a table switchable (engine ``goal_evidence``).
    curated_goal: bool = True
    #: Types that better-matching candidate goals needed and the scene lacks -> that candidate
    #: (retrieval skipped it): an instruction naming one of them names a needed object.
    wanted: dict[str, str] = field(default_factory=dict)
    #: The retrieved activity and the object types it declares: an object the instruction names
    #: and the scene has must be one of them, or the drafted task ignores part of the request.
    activity: str | None = None
    activity_types: frozenset[str] = frozenset()
    #: The instruction itself, for the language checks (``perception.language``): its state words
    #: against the goal's polarities, and the objects it names against the goal's. Empty: not checked.
    instruction: str = ""
    #: Types an LLM goal could have named though the camera did not show them (``additions``: the
    #: water a sink gives, the salt in a shaker): an instruction naming one names no missing object.
    offered: frozenset[str] = frozenset()


def check_syntax(problem: Problem | None, facts: DraftFacts) -> tuple[Verdict, Problem | None]:
    if problem is None:
        return Verdict("syntax", False, [facts.goal_reason or "the draft has no goal"]), None
    text = write_problem(problem)
    try:
        reparsed = parse_problem(text, "<draft>")
    except BDDLSyntaxError as exc:
        return Verdict("syntax", False, [f"the written draft does not parse: {exc}"]), None
    reasons = [d.message for d in check_problem(reparsed) if d.severity == "error" and d.code in _SYNTAX_CODES]
    if reparsed != problem:
        reasons.append("the written draft does not read back as the same problem")
    return Verdict("syntax", not reasons, reasons), reparsed


def check_objects(problem: Problem, facts: DraftFacts) -> Verdict:
    reasons = [d.message for d in check_problem(problem) if d.severity == "error" and d.code in _OBJECT_CODES]
    for inst, typ in problem.objects.items():
        if not known_synset(typ):
            reasons.append(f"{inst}: type {typ} is not a BEHAVIOR synset")
        source = facts.sources.get(inst)
        if source == "unseen":
            reasons.append(f"{inst} is needed by the goal but was not detected")
        elif source not in ("detection", "prior"):
            reasons.append(f"{inst} is backed by neither a detection nor the task prior")
    omni_problem = to_omnigibson(problem)
    omni = omni_problem.objects  # B-100's stains are predicates, not objects
    present = {t for i, t in omni.items() if facts.sources.get(i, "detection") in ("detection", "prior")}
    unseen = {i: t for i, t in omni.items() if facts.sources.get(i) == "unseen"}
    notes: list[str] = []
    # An LLM goal mentions an object by asking something of it: an idle negation does not count.
    in_goal = goal_types(omni_problem, skip_idle=not facts.curated_goal)
    # what the goal moves along with its container, unless the instruction puts it on (not in)
    # something on its own: "put the belt on the counter" is not the basket put there with the belt
    # in it, while "load the groceries into the car" is the bags of groceries put in the car
    places = placement_words(facts.instruction) if facts.instruction else []
    placed = {m.phrase for place in places if place.relation != "inside"
              for m in moved_by(facts.instruction, place, places)}
    riding = carried(omni_problem)
    made = made_types(omni_problem)  # what the goal brings into being (future objects)
    read = read_instruction(facts.instruction) if facts.instruction else None  # once, for both language checks
    tools = (incidental_objects(scene_reading(facts.instruction, present)) | goal_tools(facts.instruction, omni_problem)
             if read is not None else frozenset())
    measures = measuring_containers(read) if read is not None else frozenset()
    contents = held_contents(read) if read is not None else {}
    taken_off = taken_off_sources(read) if read is not None else frozenset()
    reachable = present | facts.offered

    def found_as(phrase: str, synset: str) -> str | None:
        """What the phrase names in the scene, or among what it can give ("water.n.06, which the scene can give")."""
        seen = grounds_in(phrase, synset, present)
        if seen is None and (offered := grounds_in(phrase, synset, facts.offered)):
            return f"{offered}, which the scene can give"
        return None if seen is None else f"{seen} in the scene"

    seen_in_scene = {(p, s): grounds_in(p, s, reachable) for p, s in facts.instruction_objects}
    grounded = [(p, s) for p, s in facts.instruction_objects if seen_in_scene[p, s]]
    asked = [(p, s) for p, s in grounded if p not in tools]
    choices = alternatives(read) if read is not None else {}
    said_as = dict(facts.instruction_objects)
    acted_on = acted_on_directly(read) if read is not None else frozenset()

    def chosen_instead(phrase: str) -> str | None:
        """Another object of the instruction's choice ("lemon juice or detergent") that the goal uses."""
        return next((other for other in sorted(choices.get(phrase, ()))
                     if other in said_as and grounds_in(other, said_as[other], in_goal)), None)

    for phrase, synset in asked if facts.instruction else ():
        # a name a verb acts on that the scene has exactly is not answered by a thing merely named
        # after it: "get me some water", with water in the scene, is not the water glass set down
        # ("the sheets on the bed" only say where the sheets are)
        exact = phrase in acted_on and grounds_in(phrase, synset, reachable, loose=False) is not None
        if grounds_in(phrase, synset, in_goal, loose=not exact):
            continue
        if other := chosen_instead(phrase):
            notes.append(f"the instruction offers {phrase!r} or {other!r}; the drafted goal uses {other!r}")
            continue
        if phrase not in placed and (rider := grounds_in(phrase, synset, set(riding))):
            notes.append(f"the instruction names {phrase!r} ({rider}), which the goal moves with {riding[rider]}")
            continue
        said = f"the instruction names {phrase!r} ({found_as(phrase, synset)}), which the drafted goal never mentions"
        if not facts.curated_goal or len(asked) == 1:
            reasons.append(said)  # an LLM goal, or the one thing asked about: the draft ignores the request
        else:
            notes.append(said)
    reasons += misplaced_substances(omni_problem)
    if facts.instruction:  # every drafter: a retrieved goal over some of them is another task's
        coverage = goal_coverage(omni_problem, skip_held=True)  # once, for both checks
        reasons.extend(partial_plurals(omni_problem, facts, tools, read, coverage))
        if not facts.curated_goal:
            reasons.extend(picked_singulars(omni_problem, facts, tools, read, coverage))
            reasons.extend(unnamed_picks(omni_problem, facts, coverage))
    lacking: list[str] = []
    had = possessed(read) if read is not None else frozenset()
    asked_to_make = {p.phrase: p.synset for p in requested_products(read, present)} if read is not None else {}
    put_together = {m.phrase for m in assembled_products(read)} if read is not None else set()
    dishes = {t for t in made if not is_changed(t)}
    removed_dirt = sorted({argument_type(atom.args[1], types, omni) or atom.args[1]
                           for atom, positive, types in goal_atoms(omni_problem.goal)
                           if not positive and atom.predicate == "covered" and len(atom.args) == 2}
                          & removed_substances())
    for phrase, synset in facts.instruction_objects:
        seen_as = seen_in_scene[phrase, synset]
        if seen_as and facts.activity and not grounds_in(phrase, synset, facts.activity_types):
            reasons.append(f"the instruction names {phrase!r} ({seen_as} in the scene), which the drafted task "
                           f"({facts.activity}) does not use")
        if seen_as:
            continue
        if other := chosen_instead(phrase):
            notes.append(f"the instruction offers {phrase!r} or {other!r}; {phrase!r} is not in the scene, and "
                         f"the drafted goal uses {other!r}")
            continue
        needed = sorted(i for i, t in unseen.items() if grounds_in(phrase, synset, {t}, loose=False))
        wanted = sorted({task for t, task in facts.wanted.items() if grounds_in(phrase, synset, {t}, loose=False)})
        # A tool, source or modifier (``incidental_objects``) is never what a goal is about; nor, where
        # the scene has none, a container that only measures what is asked ("brew a pot of coffee"),
        # what a thing the scene has holds ("both bottles of water") or what things are taken off
        # ("clear the glasses off the bar")
        holder = contents.get(phrase)
        measure = phrase in measures or (holder in said_as and bool(seen_in_scene.get((holder, said_as[holder]))))
        incidental = (phrase in tools or measure or phrase in taken_off) and not needed and not wanted
        if not (needed or wanted or facts.curated_goal) and removed_dirt and (
                is_substance(synset, "omnigibson") or phrase in had):
            # "I got mud or something on my raincoat": the scene's dirt is a stain, and the goal removes
            # it; "the glasses still have those red rings in them": what they have is their dirt
            notes.append(f"the instruction names {phrase!r} ({synset}), which the scene has none of; the goal "
                         f"removes {', '.join(removed_dirt)}")
            continue
        if phrase in put_together and not needed and not wanted:
            # "make a peanut butter and jelly sandwich": BEHAVIOR has no sandwich object, and its goal
            # spreads and stacks the slices (``object_words.assembled``)
            notes.append(f"the instruction asks to make {phrase!r} ({synset}), which BEHAVIOR has no object of: "
                         "read as what the goal puts together")
            continue
        if needed or wanted or (not facts.curated_goal and not incidental):
            lacking.append(phrase)
        if needed:
            reasons.append(f"the instruction names {phrase!r} ({synset}), which the goal needs "
                           f"({', '.join(needed)}), but no such object was detected")
        elif wanted:
            reasons.append(f"the instruction names {phrase!r} ({synset}), which {wanted[0]} (the closer match "
                           "to the instruction) needs, but no such object was detected")
        elif not facts.curated_goal and not incidental:
            # An LLM goal is written over the scene's objects only: it cannot say it needed one.
            reasons.append(f"the instruction names {phrase!r} ({synset}) but no such object was detected")
        elif not facts.curated_goal and measure:
            notes.append(f"the instruction names {phrase!r} ({synset}) as a measure of what it holds, or as what "
                         "a thing it names holds, which a goal need not mention: nothing in the scene is one")
        elif not facts.curated_goal:
            notes.append(f"the instruction names {phrase!r} ({synset}) as a tool, a source or a modifier, which "
                         "a goal need not mention: nothing in the scene is one")
        elif facts.instruction and (other := another_kind(phrase, synset, made)):
            # Not in the scene, and the goal makes another kind of it: a beef stew is not a fish stew.
            reasons.append(f"the instruction names {phrase!r} ({synset}), and the goal makes another kind of "
                           f"{type_word(parent_of(synset))}: {other}")
        elif phrase in asked_to_make and dishes and not any(grounds_in(p, s, dishes) for p, s in asked_to_make.items()):
            # A retrieved goal that makes another dish and none the request asks for: "make a pitcher
            # of lemonade", answered (held out) by another task's fruit punch. Halves and cooked
            # things are steps (BEHAVIOR's mojito is the halved lime and the rest in the goblet).
            reasons.append(f"the instruction asks to make {phrase!r} ({synset}), and the goal makes "
                           f"{', '.join(sorted(dishes))} instead")
        else:
            notes.append(f"the instruction names {phrase!r} ({synset}): nothing in the scene is one, and the "
                         "goal does not need it")
    # Nothing ties an LLM goal to a request that names nothing the scene has ("pick up the
    # prescriptions", the scene's pill bottles unnamed): it is the model's guess, asked back, not done.
    guessed = bool(facts.instruction) and not facts.curated_goal and not grounded
    if guessed:
        notes.append("the instruction names nothing the scene has, so the drafted goal is the model's guess at "
                     "what it means")
    return Verdict("objects", not reasons, reasons, notes, lacking, guessed=guessed)


def misplaced_substances(omni_problem: Problem) -> list[str]:
    """Goal literals with a thing where a substance belongs: ``(covered iron disinfectant__bottle)``
    (an LLM draft for "wipe it with disinfectant") says nothing a robot can make true. The
    released files always put a substance there (``engine.predicates.SUBSTANCE_ARGUMENT``)."""
    out = []
    for atom, _positive, types in goal_atoms(omni_problem.goal):
        position = SUBSTANCE_ARGUMENT.get(atom.predicate)
        if position is None or len(atom.args) <= position:
            continue
        arg = atom.args[position]
        typ = argument_type(arg, types, omni_problem.objects)
        if typ and not is_substance(typ, "omnigibson"):
            out.append(f"({atom.predicate} {' '.join(atom.args)}): {atom.predicate} takes a substance (dust, "
                       f"water, ...) there, and {typ} is not one")
    return list(dict.fromkeys(out))


def _seen_objects(omni_problem: Problem, facts: DraftFacts) -> dict[str, str]:
    """The draft's instances (instance -> type) backed by a detection or the task prior."""
    return {i: t for i, t in omni_problem.objects.items()
            if facts.sources.get(i, "detection") in ("detection", "prior")}


def _acted_on(omni_problem: Problem) -> set[str]:
    """What the goal's literals ask something of: the first place of each (``?inst`` read as ``inst``)."""
    return {atom.args[0].lstrip("?") for atom, _, _ in goal_atoms(omni_problem.goal) if atom.args}


def partial_plurals(omni_problem: Problem, facts: DraftFacts, tools: frozenset[str],
                    read: ReadInstruction | None = None,
                    coverage: tuple[set[str], set[str], set[str]] | None = None) -> list[str]:
    """A plural the instruction asks all of (``placements.asked_for_all``: "cook the mustard greens",
    "pot the flowers") where the scene has several such things and the goal covers some of them
    but not all: the draft does part of what was asked. A general word counts every kind it names:
    "flowers" are the dahlias and the marigolds, and a goal over the dahlias only covers part. A
    type the goal quantifies over covers its instances, unless only a short ``forpairs`` does.
    ``read``, ``coverage``: ``facts.instruction`` already read and the goal's
    ``goal_coverage(skip_held=True)``, where the caller has them."""
    named, quantified, some = coverage or goal_coverage(omni_problem, skip_held=True)
    short = short_pairings(omni_problem)
    seen = _seen_objects(omni_problem, facts)
    out = []
    # a plural only the scene explains counts too, as the one type it names: "rinse the beans" with
    # green beans (not "make stuffed peppers", the bell pepper and the chili)
    scene_read = scene_reading(facts.instruction, set(seen.values())) if facts.instruction else None
    worded = set(read.mentions if read is not None else read_instruction(facts.instruction).mentions) \
        if facts.instruction else set()
    ingredients = {made_from(t) for t in made_types(omni_problem)} - {None}
    for mention in asked_for_all(facts.instruction, scene_read, tools) if facts.instruction else ():
        things = sorted(mention.instances_in(seen) if mention in worded  # a general plural: its kinds
                        else (i for i, t in seen.items() if t == mention.synset or mention.synset in kinds_of(t)))
        if len(things) < 2:
            continue
        # what the goal changes into a product it makes is covered by it ("toast the sunflower seeds":
        # the cooked seeds made, the raw ones used up)
        covered = [i for i in things if i in named or seen[i] in quantified or seen[i].split(".n.")[0] in ingredients]
        if not covered and any(seen[i] in some for i in things):
            out.append(f"the instruction says {mention.phrase!r}, all {len(things)} in the scene "
                       f"({', '.join(things)}), but the drafted goal asks it of only one of them (exists)")
            continue
        paired = next((t for t in sorted(short) if grounds_in(mention.phrase, mention.synset, {t}, loose=False)), None)
        if paired is not None and len(covered) < len(things):
            other, n = short[paired]
            out.append(f"the instruction says {mention.phrase!r}, all {len(things)} in the scene, but the drafted "
                       f"goal pairs them one to one with the {n} {other} (forpairs), so it covers only {n}")
        elif 0 < len(covered) < len(things):
            out.append(f"the instruction says {mention.phrase!r}, all {len(things)} in the scene "
                       f"({', '.join(things)}), but the drafted goal covers only {', '.join(covered)}")
    return out


def picked_singulars(omni_problem: Problem, facts: DraftFacts, tools: frozenset[str],
                     read: ReadInstruction | None = None,
                     coverage: tuple[set[str], set[str], set[str]] | None = None) -> list[str]:
    """An object the instruction names as "the X", in the singular, where the scene has several X
    and an LLM goal acts on exactly one of them (the first place of its literals; never quantifying
    over them): which one, or all of them, the request does not say, and the draft guessed ("put
    the bowl in the sink" with two bowls; "the salmon" is a plural, ``plural_mentions``). Where the
    thing goes ("in the sink" with two sinks) is left to the placement checks; "a", "one" or "that"
    X asks for one, and is not read here. ``read``, ``coverage``: as for :func:`partial_plurals`."""
    read = read if read is not None else read_instruction(facts.instruction)
    _named, quantified, some = coverage or goal_coverage(omni_problem, skip_held=True)
    acted_on = _acted_on(omni_problem)
    plural = set(plural_mentions(read))
    targets = {p.target for p in placement_words(facts.instruction) if p.target is not None}
    seen = _seen_objects(omni_problem, facts)
    out = []
    for mention in read.mentions:
        if (mention in plural or mention in targets or mention.phrase in tools or mention.start == 0
                or read.words[mention.start - 1] != "the" or sounds_plural(mention.phrase.split()[-1])):
            continue
        found = mention.instances_in(seen)
        picked = [i for i in sorted(found) if i in acted_on]  # not where things go: "on the floor"
        if len(picked) != 1 or any(seen[i] in quantified | some for i in found):
            continue
        things = sorted(i for i in found if seen[i] == seen[picked[0]])  # white chocolate is not its melted kind
        if len(things) > 1:
            out.append(f"the instruction says 'the {mention.phrase}', and the scene has {len(things)} "
                       f"({', '.join(things)}): the drafted goal picks {picked[0]}, but which one, or all, "
                       "is not said")
    return out


def unnamed_picks(omni_problem: Problem, facts: DraftFacts,
                  coverage: tuple[set[str], set[str], set[str]] | None = None) -> list[str]:
    """A kind the instruction never names, of which the scene has several, where an LLM goal acts
    on exactly one of them (the first place of its literals; never quantifying over the kind): the
    request does not say which, nor that one is enough, and the draft guessed. Qwen 1.5B put one
    of two biscuits in the backpack for "throw the snacks and water bottles in the backpack"
    ("snacks" names nothing BEHAVIOR has). One the goal also puts things at is a means, and not
    read here: a hanger for the clothes hung on it."""
    _named, quantified, some = coverage or goal_coverage(omni_problem, skip_held=True)
    acted_on = _acted_on(omni_problem)
    # a place the goal puts things at is a means, not what was asked: one hanger for the clothes
    places = {atom.args[1].lstrip("?") for atom, _, _ in goal_atoms(omni_problem.goal) if len(atom.args) == 2}
    seen = _seen_objects(omni_problem, facts)
    said = list(facts.instruction_objects)
    out = []
    for typ in sorted(set(seen.values()) - quantified - some):
        things = sorted(i for i, t in seen.items() if t == typ)
        picked = [i for i in things if i in acted_on]
        if len(things) < 2 or len(picked) != 1 or picked[0] in places or any(grounds_in(p, s, {typ}) for p, s in said):
            continue
        out.append(f"the drafted goal acts on {picked[0]}, one of the scene's {len(things)} {typ}, which the "
                   "instruction never names: which one, or all, is not said")
    return out


def physical_problems(problem: Problem) -> list[str]:
    """Contradictions in ``:init`` (omnigibson vocabulary)."""
    omni = to_omnigibson(problem)
    substance = {i for i, t in omni.objects.items() if is_substance(t, problem.domain)}
    reasons: list[str] = []
    support: dict[str, tuple[str, str]] = {}
    rooms: dict[str, str] = {}
    for lit in omni.init:
        if lit.negated or len(lit.args) != 2:
            continue
        a, b = lit.args
        if lit.predicate == "inroom":
            if rooms.setdefault(a, b) != b:
                reasons.append(f"{a} is in two rooms ({rooms[a]} and {b})")
            continue
        if a == b:
            reasons.append(f"({lit.predicate} {a} {b}) relates an object to itself")
            continue
        if lit.predicate not in _SUPPORTS or a in substance:
            continue
        if b in substance:
            reasons.append(f"{a} rests {lit.predicate} {b}, a substance")
        if lit.predicate == "inside" and b in omni.objects and not is_container(omni.objects[b]):
            reasons.append(f"{a} is inside {b}, which is not a container")
        if a in support and support[a] != (lit.predicate, b):
            reasons.append(f"{a} is on two supports ({support[a][0]} {support[a][1]}, {lit.predicate} {b})")
        support.setdefault(a, (lit.predicate, b))
    for start in support:
        seen, cur = [start], support[start][1]
        while cur in support and cur not in seen:
            seen.append(cur)
            cur = support[cur][1]
        if cur == start:
            reasons.append("support cycle: " + " -> ".join([*seen, start]))
    return list(dict.fromkeys(reasons))


def check_init(problem: Problem, curated_goal: bool = True) -> tuple[Verdict, object]:
    reasons = [d.message for d in check_problem(problem) if d.severity == "error" and d.code == "future-in-init"]
    reasons += physical_problems(problem)
    try:
        task = compile_task(problem, goal_evidence=curated_goal)
    except Exception as exc:  # noqa: BLE001 - any engine failure is this axis's reason
        return Verdict("init", False, [f"the engine cannot load the draft: {type(exc).__name__}: {exc}", *reasons]), None
    return Verdict("init", not reasons, reasons), task


def check_goal(problem: Problem, robot: str, budget_s: float, curated_goal: bool = True) -> tuple[Verdict, object]:
    try:
        task = compile_task(problem, robot=robot, goal_evidence=curated_goal)
        if all(task.goal_report(task.initial_state())[0]):
            return Verdict("goal", False, ["the goal already holds in the initial state (nothing to do)"]), None
        result = plan_task(task, problem.name, time_budget=budget_s)
    except Exception as exc:  # noqa: BLE001 - an engine failure on a draft is this axis's reason
        return Verdict("goal", False, [f"the engine failed on the goal: {type(exc).__name__}: {exc}"]), None
    if result.solved and result.strict_pass:
        return Verdict("goal", True, []), result
    return Verdict("goal", False, [f"the reference planner found no strict-pass plan: {result.reason}"]), result


def verify_draft(problem: Problem | None, facts: DraftFacts, robot: str = "single", budget_s: float = 5.0,
                 judge: Callable[[str], tuple[bool, str]] | None = None) -> tuple[list[Verdict], object, bool]:
    """Verdicts on every axis, the reference plan (if any) and whether the engine loads the draft."""
    syntax, reparsed = check_syntax(problem, facts)
    verdicts = [syntax]
    if reparsed is None:
        verdicts += [Verdict(axis, None, ["not checked: no parsable draft"]) for axis in ("objects", "init", "goal")]
        return verdicts, None, False
    verdicts.append(check_objects(reparsed, facts))
    init, task = check_init(reparsed, facts.curated_goal)
    verdicts.append(init)
    plan = None
    if task is None:
        verdicts.append(Verdict("goal", None, ["not checked: the engine does not load the draft"]))
    elif verdicts[1].passed is False and any("needed by the goal" in r or "not declared" in r
                                             or "no declared instances" in r for r in verdicts[1].reasons):
        verdicts.append(Verdict("goal", None, ["not checked: the goal names objects the scene does not have"]))
    else:
        omni = to_omnigibson(reparsed)
        said = state_conflicts(facts.instruction, omni) if facts.instruction else None
        # A goal that says the opposite of the instruction's state words is wrong however well it
        # plans; a state the instruction asks for and the goal never uses rejects an LLM goal (it
        # was written for this instruction) and is a note on a curated one.
        refused = [*said.conflicts, *([] if facts.curated_goal else said.missing)] if said else []
        if not facts.curated_goal:  # a pairing that asks too few: a request half written
            refused += idle_pairings(omni)
        if refused:
            verdicts.append(Verdict("goal", False, refused))
        else:
            goal, plan = check_goal(reparsed, robot, budget_s, facts.curated_goal)
            if said and facts.curated_goal:
                goal.notes += list(said.missing)
                goal.unanswered = list(said.unanswered)
            verdicts.append(goal)
    if judge is not None:
        ok, reason = judge(write_problem(reparsed))
        verdicts.append(Verdict("judge", ok, [reason] if reason else []))
    return verdicts, plan, task is not None
