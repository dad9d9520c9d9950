"""What an instruction's words say about the goal: state words with a polarity, the objects the
goal must mention, and verb -> predicate hints for the LLM drafter (docs/perception.md, "Language
checks").

* **State words** (:func:`state_words`): verbs that name a goal state and its polarity ("turn off"
  -> ``toggled_on`` false, "cook" -> ``cooked`` true, "close" -> ``open`` false). The table
  (:data:`STATE_VERBS`) is general English, one row per verb, never per activity; a row whose
  predicate the domain does not have is dropped. A word counts only where the sentence uses it as
  a verb: not inside an object's name (``washing machine``, ``the dust``), not after a determiner,
  a preposition or a form of *be* (``a clean towel``, ``is dusty``: adjectives describe the scene
  as it is, not the goal). "on"/"off" count with a switching verb (``turn the lamp off``, ``switch
  on the tv``) or right after something that switches (``hot tub on``); ``shut off``/``shut
  down`` is switching off, ``shut`` alone is closing.
* **Goal polarities** (:func:`goal_polarities`): for each predicate, whether the goal asserts it,
  its negation, or both (negations counted through ``not``; ``imply``'s antecedent left out).
* **Conflict** (:func:`state_conflicts`): the instruction's words give a predicate one polarity and
  the goal uses that predicate only with the other ("turn off the hot tub", goal
  ``(toggled_on hot_tub)``). An instruction giving both polarities of one predicate ("turn off
  the lamp and turn on the tv", "wash the dirty dishes") says nothing about it. A predicate the
  goal never uses is *missing* (the caller decides what that is worth).
* **Hints** (:func:`prompt_hints`): for the state words and the placement prepositions (after a
  verb that moves things, in its clause) of the instruction, the goal literal they ask for, where some action of the engine's action library
  achieves it (``symplan_core.engine.actions``: ``wait_for_cooked`` adds ``cooked``, ``close``
  deletes ``open``, ``place_inside`` places ``inside``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from symplan_core.bddl import And, Atom, Formula, Imply, Not, Or, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_instances,
    argument_type,
    bound_goal_atoms,
    goal_atoms,
    iter_atoms,
    iter_quantifiers,
)
from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.engine.predicates import BULK_TYPES, HANGING_PLACES, OBJECT_RELATIONS, SUBSTANCE_HOLDING
from symplan_core.perception.synsets import (
    WHERE_PREPOSITIONS,
    Mention,
    ReadInstruction,
    ancestors,
    grounds_in,
    is_substance,
    kinds_of,
    lemma_index,
    read_instruction,
    singulars,
    wordnet_lemmas,
    wordnet_part_holonyms,
    wordnet_scene_lemmas,
    words_of,
)
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import synset_info

_CLEAN = (("covered", False),)
_WET = (("saturated", True),)
#: Verb -> the goal states it asks for, (predicate, polarity). General English; rows whose
#: predicate the domain lacks are dropped (``sliced`` is B-100's).
STATE_VERBS: dict[str, tuple[tuple[str, bool], ...]] = {
    **dict.fromkeys("cook bake fry boil roast grill toast steam simmer".split(), (("cooked", True),)),
    **dict.fromkeys("freeze".split(), (("frozen", True),)),
    **dict.fromkeys("thaw defrost unfreeze".split(), (("frozen", False),)),
    **dict.fromkeys("clean wash wipe scrub rinse mop sweep vacuum scour".split(), _CLEAN),
    # the verb names the dirt it removes: "dust it off" is not answered by the debris cleaned out
    # of the canister (``covered:dust.n.01``, see goal_polarities)
    "dust": (("covered:dust.n.01", False),),
    # Disinfecting covers the thing with what a goal applies (``covered:applied``, see
    # goal_polarities): BEHAVIOR states it as (covered ?x ?disinfectant).
    **dict.fromkeys("disinfect sanitize sanitise".split(), (("covered:applied", True),)),
    # So do seasoning, coating and spraying: cook_a_ham has (covered ?ham ?glaze), clean_a_vacuum
    # (covered ?vacuum ?disinfectant) for "spray everything with disinfectant"
    **dict.fromkeys("season glaze coat sprinkle spray".split(), (("covered:applied", True),)),
    **dict.fromkeys("soak wet saturate dampen moisten".split(), _WET),
    "dry": (("saturated", False), ("covered", False)),
    "open": (("open", True),),
    **dict.fromkeys("close shut".split(), (("open", False),)),
    "fill": (("filled", True),),  # not "empty": emptying a bin moves things out of it (inside, not filled)
    # pouring fills or puts some in (pour_beer: every glass filled; "pour out the water" empties: skipped)
    "pour": (("filled", True), ("contains", True)),
    "fold": (("folded", True), ("unfolded", False)),
    "unfold": (("unfolded", True), ("folded", False)),
    **dict.fromkeys("heat warm reheat".split(), (("hot", True),)),
    **dict.fromkeys("cool chill".split(), (("hot", False),)),
    **dict.fromkeys("light ignite".split(), (("on_fire", True),)),
    "burn": (("burnt", True), ("on_fire", True)),
    "extinguish": (("on_fire", False),),
    **dict.fromkeys("break smash".split(), (("broken", True),)),
    **dict.fromkeys("fix repair mend".split(), (("broken", False),)),
    **dict.fromkeys("slice chop dice cut".split(), (("sliced", True),)),
    # every B-1K task named for hanging hangs with one of the two (a bike on a rack, sheets on a line)
    "hang": (("attached", True), ("draped", True)),
}
#: The name of a made thing -> the state its making is (``half__egg``: the egg cut; B-1K states
#: cutting and cooking an ingredient this way, B-100 with ``sliced``/``cooked``).
PRODUCT_STATES = {"half": ("sliced", True), "diced": ("sliced", True), "cooked": ("cooked", True)}
#: Verbs that switch a thing with the particle "on"/"off" (``turn off the tv``, ``switch it on``).
TOGGLE_VERBS = frozenset("turn turns turned turning switch switches switched switching power powers powered "
                         "powering flip flips flipped flipping".split())
_SHUT = frozenset("shut shuts shutting".split())
#: Words after which a state verb is an adjective or a noun, not a verb ("a clean towel", "the
#: dust", "full of dust", "is dusty").
_NOT_BEFORE_VERB = frozenset("the a an this that these those my your our their his her its some any all no "
                             "of in on with by for from into onto at to's is are was were be been being am "
                             "very really too so quite".split())
#: A state word right after one of these is asked for the other way round ("the bin is not open",
#: "don't turn off the lamp").
_NEGATIONS = frozenset("not never don't dont doesn't isn't aren't won't shouldn't mustn't".split())
#: Words after which a word is the verb of an imperative (or "" : the clause's first word).
_VERB_STARTS = frozenset(["", *"please you to then just also can could will would should must".split()])
#: Words that open a clause saying when or why rather than what to do ("before we light the fire",
#: "so they don't get lost"): a state verb after one of these and a subject is not asked for.
#: Not "if": "if you could wash the dishes" is a request.
_SUBORDINATORS = frozenset("before after when whenever while until till once since because so although though "
                           "unless".split())
#: ("it's" reaches here as "it": the reading drops a final "'s".)
_SUBJECTS = frozenset("i we you they he she it somebody someone everyone everybody we're you're they're "
                      "i'm".split())
#: Words between a subject and its verb ("so it doesn't freeze", "it's going to freeze").
_AUXILIARIES = frozenset("do does did don't doesn't didn't will won't would can can't could might may shall "
                         "should is are am was were going gonna to get gets".split())
_BEFORE_VERB = _AUXILIARIES | _NEGATIONS
#: Of those, the ones that make a third person's verb a forecast, not a request ("it's going to freeze").
_FORECASTS = frozenset("going gonna will won't might may".split())
_THIRD_PERSONS = frozenset("it they he she they're".split())
_DETERMINERS = frozenset("the a an this that these those my your our their his her its some any all".split())
#: Verbs that move things somewhere: a preposition after one in its clause says where ("put the
#: cup in the sink"); elsewhere it may not ("make a latte in the mug", "the dust on the shelf").
PLACEMENT_VERBS = frozenset("put putting place placing set setting lay laying move moving bring bringing take "
                            "taking throw throwing toss tossing drop dropping load loading pack packing store "
                            "storing hang hanging return returning stack stacking stick sticking leave leaving "
                            "get getting pile piling pop popping shove shoving tuck tucking slide sliding "
                            "chuck chucking".split())
#: Possessive determiners: "toss in its toys" moves the toys (a verb, a particle, then what moves).
POSSESSIVES = frozenset("my your his her its our their".split())
#: Placement prepositions -> the relation a goal states (``put the cup in the sink``).
RELATION_WORDS: dict[tuple[str, ...], str] = {
    ("in",): "inside", ("into",): "inside", ("inside",): "inside",
    ("on",): "ontop", ("onto",): "ontop", ("on", "top", "of"): "ontop",
    ("under",): "under", ("underneath",): "under", ("beneath",): "under", ("below",): "under",
    ("next", "to"): "nextto", ("beside",): "nextto",
}
#: Placement prepositions that name a place but no one relation ("leave them at the mailbox": in
#: it or next to it): a goal must put something there (:func:`empty_places`), by any relation.
ANY_PLACE_WORDS: tuple[tuple[str, ...], ...] = (("at",), ("by",), ("near",))
#: Every placement phrase with its relation ("" for :data:`ANY_PLACE_WORDS`), longest first (so
#: "on top of" is read before "on"), and the words they are spelled with.
_PLACE_PHRASES = tuple(sorted([*RELATION_WORDS.items(), *((phrase, "") for phrase in ANY_PLACE_WORDS)],
                              key=lambda kv: -len(kv[0])))
_PLACE_WORDS = frozenset(word for phrase, _ in _PLACE_PHRASES for word in phrase)


def _forms(verb: str) -> set[str]:
    """The base form and the -ing form: requests are imperatives ("cook", "could you cook", "start
    cooking"); the -s form is left out, being also a plural noun ("the christmas lights")."""
    out = {verb, verb + "ing", verb + verb[-1] + "ing"}
    if verb.endswith("e"):
        out.add(verb[:-1] + "ing")
    return out


@lru_cache(maxsize=1)
def _verb_index() -> dict[str, str]:
    return {form: verb for verb in STATE_VERBS for form in _forms(verb)}


@dataclass(frozen=True)
class StateWord:
    """A word (or verb + particle) of the instruction naming a goal state."""

    said: str  # as said: "cook", "turn off", "hot tub on"
    predicate: str
    polarity: bool
    position: int  # word index
    particle: int | None = None  # word index of its "on"/"off"


def _domain_predicates(domains: Iterable[str]) -> frozenset[str]:
    return frozenset(p for d in domains for p in vocabulary(d))


def state_words(instruction: str, domains: Iterable[str] = ("omnigibson", "igibson")) -> list[StateWord]:
    """The state words of an instruction (see the module docstring), in order."""
    predicates = _domain_predicates(domains)
    read = read_instruction(instruction)
    words, clause = read.words, read.clause_of
    n = len(words)
    index = _verb_index()
    out: list[StateWord] = []
    particles: set[int] = set()
    for i, w in enumerate(words):
        if w in TOGGLE_VERBS or w in _SHUT:
            for j in range(i + 1, min(n, i + 6)):
                if clause[j] != clause[i]:
                    break
                particle = words[j]
                if w in _SHUT and particle not in ("off", "down"):
                    continue
                if particle not in ("on", "off", "down") or (particle == "down" and w not in _SHUT):
                    continue
                last = j + 1 == n or clause[j + 1] != clause[j]
                if j == i + 1 or last or words[j + 1] not in _DETERMINERS:
                    particles.add(j)
                    if "toggled_on" in predicates:
                        on = (particle == "on") != _negated(words, clause, i)
                        out.append(StateWord(f"{w} {particle}", "toggled_on", on, i, j))
                    break
    for i, w in enumerate(words):
        if i in particles or any(s.position == i for s in out):
            continue
        if w in ("on", "off") and i and (i + 1 == n or clause[i + 1] != clause[i]):
            thing = read.object_at(i - 1)  # "hot tub on": a thing that switches, then on/off at clause end
            info = synset_info(thing.synset) if thing else None
            if thing is not None and info is not None and "toggleable" in info.abilities \
                    and "toggled_on" in predicates:
                out.append(StateWord(f"{thing.phrase} {w}", "toggled_on", w == "on", i, i))
            continue
        if w == "done" and "cooked" in predicates and _until_done(read, i):
            out.append(StateWord("done", "cooked", True, i))
            continue
        verb = index.get(w)
        if verb is None:
            continue
        before = words[i - 1] if i and clause[i - 1] == clause[i] else ""
        # An imperative's verb ("dust off the piano", "please dust it") even where the word also
        # names an object; elsewhere a word read as an object's name is one ("wipe the dust off").
        if before not in _VERB_STARTS and (read.object_at(i) is not None or before in _NOT_BEFORE_VERB):
            continue
        if _described(words, clause, i):
            continue
        after = words[i + 1] if i + 1 < n and clause[i + 1] == clause[i] else ""
        if verb in ("close", "cool") and after in ("to", "by"):
            continue  # "close to the sink": near, not shut
        if verb == "clean" and after in ("up", "out"):
            continue  # "clean up the room", "clean out the fridge": tidying and emptying, not dirt
        if verb == "pour" and after in ("out", "away", "off"):
            continue  # "pour out the water": emptying, not filling
        flip = _negated(words, clause, i)
        for predicate, polarity in STATE_VERBS[verb]:
            if predicate.partition(":")[0] in predicates:
                out.append(StateWord(w, predicate, polarity != flip, i))
    return sorted(out, key=lambda s: s.position)


def _until_done(read: ReadInstruction, i: int) -> bool:
    """Whether "done" at ``i`` ends "until it's done" ("till they are done") in an instruction that
    names a heat source: "pop it in the oven until it's done" asks for it cooked. Elsewhere "done"
    says nothing ("dinner's done"; a dryer "until it's done" is no heat source's work)."""
    words, clause = read.words, read.clause_of
    until = any(words[j] in ("until", "till", "til") and clause[j] == clause[i] for j in range(max(0, i - 4), i))
    return until and any((info := synset_info(m.synset)) is not None and "heatSource" in info.abilities
                         for m in read.mentions)


def _described(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> bool:
    """The verb at ``i`` has a subject of its own in a clause of time or reason ("before we light
    the fireplace"), or opens a forecast about a third person ("it's going to freeze tonight"):
    said about the world, not asked of the robot."""
    j, passed = i - 1, set()
    while j >= 0 and clause[j] == clause[i] and words[j] in _BEFORE_VERB:
        passed.add(words[j])
        j -= 1
    if j < 0 or clause[j] != clause[i] or words[j] not in _SUBJECTS:
        return False
    opener = words[j - 1] if j and clause[j - 1] == clause[j] else ""
    # A forecast opens its clause: "make sure they will not break" still asks for something.
    return opener in _SUBORDINATORS or (not opener and words[j] in _THIRD_PERSONS and bool(passed & _FORECASTS))


def _negated(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> bool:
    return i > 0 and clause[i - 1] == clause[i] and words[i - 1] in _NEGATIONS


def goal_polarities(goal: Formula, objects: dict[str, str] | None = None,
                    initially: frozenset[tuple[str, tuple[str, ...]]] | None = None,
                    instances: dict[str, str] | None = None) -> dict[str, set[bool]]:
    """Predicate -> the polarities the goal uses it with (through ``not``; ``imply``'s antecedent
    is a condition, not a goal, and is left out). With ``objects`` (instance -> type), ``covered``
    counts only for what goals remove (:func:`removed_substances`: dust, stains, mud, ...), each
    also as ``covered:`` and its type (``covered:dust.n.01``); covering with what they apply
    (disinfectant, polish, salt) is ``covered:applied``: cleaning a lens may mean disinfecting it.
    With ``initially`` (the initial state's true facts, :func:`initial_facts`), a literal over named instances that already holds there and that no
    action can make false is left out (:func:`idle_literal`): it asks for nothing. So is a container
    asked to hold what each of its instances already holds (:func:`holds_for_every`): Qwen 1.5B
    answered "pour three beers" with ``(filled ?beer_bottle ?beer_1)``, the bottles full from the start.
    ``instances``: the scene's instances, where ``objects`` is left out to read ``covered`` as it is."""
    out: dict[str, set[bool]] = {}
    removed = removed_substances() if objects is not None else frozenset()
    for atom, positive, types in goal_atoms(goal):
        if initially is not None and (idle_literal(atom, positive, types, initially, objects or {}) or (
                positive and atom.predicate in SUBSTANCE_HOLDING
                and holds_for_every(atom, positive, types, initially, instances or objects or {}))):
            continue
        key = atom.predicate
        if objects is not None and key == "covered" and len(atom.args) == 2:
            substance = types.get(atom.args[1], objects.get(atom.args[1]))
            if substance not in removed:
                key = "covered:applied"
            else:  # also by the dirt itself, for a verb that names it ("dust")
                out.setdefault(f"covered:{substance}", set()).add(positive)
        out.setdefault(key, set()).add(positive)
        if key == "real" and positive and atom.args:
            # a product asked into being says how it is made: (real half__egg) is the egg cut
            arg = atom.args[0]
            typ = argument_type(arg, types, objects or {}) or arg.lstrip("?").rsplit("_", 1)[0]
            for step in typ.split(".n.")[0].split("__")[:-1]:
                if step in PRODUCT_STATES:
                    predicate, polarity = PRODUCT_STATES[step]
                    out.setdefault(predicate, set()).add(polarity)
    return out


def initial_facts(problem: Problem) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The true facts of ``problem``'s initial state, with ``contains`` wherever ``filled`` holds
    (the engine derives one from the other)."""
    facts = {(lit.predicate, tuple(lit.args)) for lit in problem.init if not lit.negated}
    facts |= {("contains", args) for predicate, args in facts if predicate == "filled"}
    return frozenset(facts)


def already_holds(atom: Atom, positive: bool, types: dict[str, str],
                  initially: frozenset[tuple[str, tuple[str, ...]]]) -> bool:
    """``atom`` (at ``positive``) names instances only and the initial state (``initially``)
    already satisfies it; over a quantified variable, some instance may still change."""
    if any(arg in types for arg in atom.args):
        return False
    return ((atom.predicate, tuple(arg.lstrip("?") for arg in atom.args)) in initially) == positive


def idle_literal(atom: Atom, positive: bool, types: dict[str, str],
                 initially: frozenset[tuple[str, tuple[str, ...]]], objects: dict[str, str]) -> bool:
    """``atom`` (at ``positive``) names instances only, already holds in the initial state
    (``initially``), and no action can make it false, so no plan ever has to keep it: ``(not
    (covered ?canister ?dust))`` with no dust on the canister (nothing pours a coating back), or
    ``(cooked ?ham)`` with the ham already cooked. ``(not (open ?car))`` with the car shut is not
    idle: loading the car opens it, and the goal asks for it shut again."""
    if not already_holds(atom, positive, types, initially):
        return False
    args = tuple(arg.lstrip("?") for arg in atom.args)
    if atom.predicate in OBJECT_RELATIONS or atom.predicate in SUBSTANCE_HOLDING:
        return False  # things move; containers fill and empty
    if atom.predicate == "covered" and not positive and len(args) == 2:
        info = synset_info(objects.get(args[1], ""))
        return info is None or info.object_type not in BULK_TYPES  # only what pours covers things
    return (atom.predicate, not positive) not in achievable()


@lru_cache(maxsize=1)
def removed_substances() -> frozenset[str]:
    """Substances the released goals (B-1K and B-100) remove more often than they apply: the
    ``covered`` that cleaning words undo (derived from the task files, not listed by hand)."""
    from symplan_core.bddl.normalize import to_omnigibson
    from symplan_core.fetch import BENCHMARKS
    from symplan_core.tasks import list_tasks, load_problem

    counts: dict[str, list[int]] = {}
    for bench in BENCHMARKS:
        for name in list_tasks(bench):
            problem = to_omnigibson(load_problem(f"{bench}/{name}"))
            for atom, positive, types in goal_atoms(problem.goal):
                if atom.predicate == "covered" and len(atom.args) == 2:
                    arg = atom.args[1]
                    typ = types.get(arg, problem.objects.get(arg, arg))
                    counts.setdefault(typ, [0, 0])[positive] += 1
    return frozenset(t for t, (removed, applied) in counts.items() if removed > applied)


def carried(problem: Problem) -> dict[str, str]:
    """Type -> instance it rides in or on, for what the initial state has inside or on top of an
    object the goal puts somewhere: moving the basket moves the apples in it ("pay for the apples",
    with a goal that puts the basket on the checkout)."""
    moved: set[str] = set()
    for atom, positive, types in goal_atoms(problem.goal):
        if positive and atom.predicate in ("inside", "ontop", "nextto", "under") and len(atom.args) == 2:
            moved.update(argument_instances(atom.args[0], types, problem.objects))
    return {problem.objects[lit.args[0]]: lit.args[1] for lit in problem.init
            if not lit.negated and lit.predicate in ("inside", "ontop") and len(lit.args) == 2
            and lit.args[1] in moved and lit.args[0] in problem.objects}


def goal_types(problem: Problem, skip_idle: bool = False) -> set[str]:
    """The object types a goal mentions: its instances' types and its quantified types.
    ``skip_idle``: a negated ground atom outside any quantifier that the initial state already
    leaves false mentions nothing (``(not (attached ?rod ?sink))`` asks nothing of the rod), as in
    :func:`idle_negation`; the drafter's mention grammar reads it the same way. Nor does a quantified
    variable its body never uses: ``(forpairs (?peach - peach) (?jar - jar) (filled ?jar ?water))``
    says nothing of the peaches (Qwen 1.5B wrote it for "two peaches in each jar")."""
    out: set[str] = set()
    held = {lit.atom for lit in problem.init if not lit.negated}

    def walk(f: Formula, quantified: bool) -> None:
        if isinstance(f, Atom):
            out.update(problem.objects[a] for a in f.args if a in problem.objects)
        elif isinstance(f, Not):
            if not (skip_idle and not quantified and idle_negation(f, problem.objects, held)):
                walk(f.body, quantified)
        elif isinstance(f, And | Or):
            for part in f.parts:
                walk(part, quantified)
        elif isinstance(f, Imply):
            walk(f.antecedent, quantified)
            walk(f.consequent, quantified)
        elif isinstance(f, Quantifier):
            used = {a for atom in iter_atoms(f.body) for a in atom.args} if skip_idle else set()
            out.update(p.type for p in f.params if not skip_idle or p.var in used)
            walk(f.body, True)

    walk(problem.goal, False)
    return out


def idle_negation(f: Not, objects: dict[str, str], held: set[Atom]) -> bool:
    """A negated ground atom (every argument an instance) that does not hold initially: it asks for
    nothing. The drafter's mention grammar (``goal_grammar``'s ``held``) lets a negation mention an
    object only over an atom that holds, so the two agree."""
    return isinstance(f.body, Atom) and all(a in objects for a in f.body.args) and f.body not in held


def made_types(problem: Problem) -> set[str]:
    """The types of the objects the goal brings into being: ``future`` in ``:init``, or ``real``
    in the goal (a stew, a latte, a slushie)."""
    out = {problem.objects[lit.args[0]] for lit in problem.init
           if lit.predicate == "future" and not lit.negated and lit.args and lit.args[0] in problem.objects}
    for atom, _, types in goal_atoms(problem.goal):
        if atom.predicate == "real" and atom.args:
            typ = types.get(atom.args[0], problem.objects.get(atom.args[0]))
            if typ:
                out.add(typ)
    return out


def parent_of(synset: str) -> str:
    from symplan_core.tasks import synset_parents

    return synset_parents().get(synset, "")


def another_kind(phrase: str, synset: str, made: set[str]) -> str | None:
    """A type the goal makes that is a sibling of what the phrase names (same parent in BEHAVIOR's
    hierarchy) and not it: "make a beef stew" with a goal that makes a fish stew. A made type
    whose name has all the phrase's words ("diced tomato": diced beefsteak tomato), or that the
    phrase can mean, is what was asked for; so is one with each of its words in the singular
    ("diced onions": diced vidalia onion)."""
    from symplan_core.perception.synsets import grounds_in, singulars, words_of

    parent = parent_of(synset)
    if not parent or not made or grounds_in(phrase, synset, made):
        return None
    said = words_of(phrase)
    for typ in sorted(made):
        named = set(words_of(typ.split(".", 1)[0]))
        # a word said in the plural names the type's singular word ("diced onions": diced vidalia onion)
        if parent_of(typ) == parent and not all(named & set(singulars(word)) for word in said):
            return typ
    return None


@dataclass(frozen=True)
class StateCheck:
    conflicts: tuple[str, ...]  # reasons: the goal says the opposite of the instruction
    missing: tuple[str, ...]  # the instruction asks for a state (or a placement) the goal never states
    unanswered: tuple[str, ...] = ()  # the words of ``missing``, as the instruction says them


def _literal(predicate: str, polarity: bool) -> str:
    base, _, kind = predicate.partition(":")
    atom = f"({base} ... {kind if '.n.' in kind else f'<something {kind}>'})" if kind else f"({predicate} ...)"
    return atom if polarity else f"(not {atom})"


def asked_states(words: Iterable[StateWord]) -> list[tuple[str, tuple[tuple[str, bool], ...]]]:
    """Each state word as said, with the (predicate, polarity) pairs any one of which answers it
    ("hang": ``attached`` or ``draped``; ``covered:applied`` is a covering with something applied)."""
    by_word: dict[int, list[StateWord]] = {}
    for word in words:
        by_word.setdefault(word.position, []).append(word)
    return [(rows[0].said, tuple((w.predicate, w.polarity) for w in rows)) for rows in by_word.values()]


_SAID = re.compile(r"says '([^']+)'")


def state_conflicts(instruction: str, problem: Problem, domains: Iterable[str] = ("omnigibson", "igibson")) -> StateCheck:
    """Compare the instruction's state words with the goal of ``problem`` (omnigibson vocabulary;
    see the module docstring)."""
    words = state_words(instruction, domains)
    said: dict[str, dict[bool, list[str]]] = {}
    for word in words:
        said.setdefault(word.predicate, {}).setdefault(word.polarity, []).append(word.said)
    used = goal_polarities(problem.goal, problem.objects)  # covered: only what goals remove
    anywhere = goal_polarities(problem.goal)  # covered: with anything
    # A literal that holds from the start and that nothing can undo answers no state word: "dust
    # it off" is not answered by (not (covered canister dust)) when no dust was on the canister.
    initially = initial_facts(problem)
    changes = goal_polarities(problem.goal, problem.objects, initially)
    changes_anywhere = goal_polarities(problem.goal, None, initially, problem.objects)
    conflicts, missing, unanswered = [], [], []
    for predicate, by_polarity in said.items():
        if len(by_polarity) != 1:
            continue  # both polarities said: nothing to hold the goal to
        ((polarity, ws),) = by_polarity.items()
        in_goal = used.get(predicate)
        if in_goal and polarity not in in_goal:
            quoted = "/".join(f"'{w}'" for w in dict.fromkeys(ws))
            conflicts.append(f"the instruction says {quoted}, which asks for {_literal(predicate, polarity)}, "
                             f"but the goal has only {_literal(predicate, not polarity)}")
    conflicts += substance_subjects(problem)  # no drafter's goal should have one: a reason for each
    for said_as, states in asked_states(words):  # answered when the goal has one of the states it names
        # ("covered:applied" exists only where the objects' types are read: in ``used``)
        if not any(polarity in (changes if ":" in predicate else changes_anywhere).get(predicate, ())
                   for predicate, polarity in states):
            wanted = " or ".join(_literal(predicate, polarity) for predicate, polarity in states)
            held = any(polarity in (used if ":" in predicate else anywhere).get(predicate, ())
                       for predicate, polarity in states)
            missing.append(f"the instruction says '{said_as}', which asks for {wanted}, but the goal has none"
                           + (" that does not already hold" if held else ""))
            unanswered.append(said_as)
    # "fry the brats", and the goal cooks the oil (a word the goal answers for nothing is said above)
    missing += states_of_others(instruction, [w for w in words if w.said not in unanswered], problem)
    places = placement_words(instruction, words)
    unplaced = [*misplacements(instruction, problem, places),  # "on the plate", and the goal puts them in it
                *empty_places(instruction, problem, places),  # "in it", "at the mailbox", and nothing put there
                *placed_elsewhere(instruction, problem, places)]  # "the basket on the counter", and it on the floor
    missing += unplaced
    # the words as said, quoted first in each reason ("the instruction says 'in the oven', ...")
    unanswered += [m.group(1) for reason in unplaced if (m := _SAID.search(reason))]
    missing += arrangements(instruction, problem)  # "one per pot", "one on top of the other"
    missing += unasked_damage(words, problem)
    missing += unasked_switching(instruction, words, problem)
    missing += unasked_removals(instruction, problem)
    missing += unserved_drinks(instruction, problem, places)  # "blend me a cappuccino", left in the blender
    return StateCheck(tuple(conflicts), tuple(dict.fromkeys(missing)), tuple(dict.fromkeys(unanswered)))


@lru_cache(maxsize=4)
def achievable(action_set: str = "b1k") -> frozenset[tuple[str, bool]]:
    """(predicate, polarity) pairs some action of the engine's action library makes true, read
    from the actions' effects (``add:P``, ``del:P``, ``place:REL``, ``clean``, ``pour``)."""
    from symplan_core.engine.actions import action_set as actions

    out: set[tuple[str, bool]] = set()
    for spec in actions(action_set).values():
        for effect in spec.effects:
            kind, _, rest = effect.partition(":")
            if kind in ("add", "del"):
                out.add((rest.split(":", 1)[0], kind == "add"))
            elif kind == "place":
                out.add((rest.split(":", 1)[0], True))
            elif kind == "clean":
                out.add(("covered", False))
            elif kind == "pour":
                out.update({("filled", True), ("covered", True)})
            elif kind == "overlay":
                out.add(("overlaid", True))
    return frozenset(out)


#: Words that may follow an object's name in a sentence (so the name is not a modifier of a word
#: we do not know: "watermelon punch").
_AFTER_NOUN = frozenset("and or but in into inside on onto off out of at to from with without by for under "
                        "beneath below above over next beside near up down away back please now too then "
                        "again first here there is are was be that which still has have had got gets "
                        "needs need looks look seems seem smells smell were can could will would may might "
                        "must should go goes belong belongs instead".split())
#: Verbs whose object is where things come from, not where they go ("empty the dryer").
_SOURCE_VERBS = frozenset("empty empties emptying clear clears clearing unload unloads unloading".split())


def _reading(instruction: str | ReadInstruction) -> ReadInstruction:
    """The instruction's reading: the one a caller already has, or :func:`read_instruction`'s."""
    return instruction if isinstance(instruction, ReadInstruction) else read_instruction(instruction)


#: Words that make what follows a tool or a source, not a goal's object.
_TOOL_WORDS = frozenset(("with", "using", "from"))


def _governing_word(read: ReadInstruction, m: Mention) -> str:
    """The word that governs the noun phrase whose head is ``m``: the word before it past any
    determiners, up to two describing words ("with a *damp* rag") and a compound's modifier right
    before the head ("with a *butter* knife"); "" at the clause's edge."""
    words, clause = read.words, read.clause_of
    k, described = m.start - 1, 0
    while k >= 0 and clause[k] == clause[m.start]:
        modifier = read.object_at(k)
        if words[k] in _DETERMINERS:
            k -= 1
        elif modifier is not None and k == m.start - 1:
            k = modifier.start - 1
        elif (modifier is None and described < 2 and not read.function[k] and words[k] not in _AFTER_NOUN
              and words[k] not in _TOOL_WORDS):
            described += 1
            k -= 1
        else:
            return words[k]
    return ""


def _word_before(read: ReadInstruction, m: Mention) -> tuple[int, str]:
    """The index and word before the mention ``m`` in its clause, past any determiners ("with *some*
    soap"); (-1 or the clause's edge, "") where the clause starts there."""
    words, clause = read.words, read.clause_of
    k = m.start - 1
    while k >= 0 and words[k] in _DETERMINERS and clause[k] == clause[m.start]:
        k -= 1
    return k, (words[k] if k >= 0 and clause[k] == clause[m.start] else "")


#: Verbs that seek what "for" names ("look for the keys"): there "for" names the thing.
_SEEKING = frozenset("look looking search searching hunt hunting check checking ask asking wait waiting reach".split())
_BE = frozenset("is are was were".split())
#: Past forms of verbs that move things: where something was put is where it is, not where it goes
#: ("somebody dumped the firewood on the floor, can you pile it up on the table?").
_PUT_BEFORE = frozenset("dumped left threw thrown dropped piled tossed stacked stuck shoved chucked".split())


def incidental_objects(instruction: str | ReadInstruction) -> frozenset[str]:
    """Object phrases a goal need not mention: tools ("with a rag", "with a damp rag", "using the
    sponge", and what the phrase goes on to list: "with some soap and a rag"), sources ("out of the
    dryer", "from the shelf", "empty the trash cans"), where a process happens ("bake it in the
    oven": see :func:`_process_location`), a purpose ("for pickup"), where something is ("the
    fruit's in the fridge") and modifiers: an English compound's head is its last noun ("the stucco
    wall" is a wall; "make watermelon punch": the goal makes a punch). ``instruction``: the text, or
    its reading where the caller has one."""
    read = _reading(instruction)
    words, clause = read.words, read.clause_of
    out = set()
    listed_after: int | None = None  # the word after the last tool or source: "and"/"or" may go on there
    for m in sorted(read.mentions, key=lambda mention: mention.start):
        k, before = _word_before(read, m)
        # "out of the dryer" is a source, but "wash the stain out of the hamper" names what is cleaned
        taken = max((o for o in read.mentions if o.end <= k - 1 and clause[o.start] == clause[m.start]),
                    key=lambda o: o.end, default=None)
        out_of = before == "of" and k > 0 and words[k - 1] == "out" and not (
            taken is not None and is_substance(taken.synset, "omnigibson"))
        continues = _continues_list(read, m, k, before, listed_after)
        # "with soap, water and the brush": a comma goes on with the list too, where the list goes on
        # after it ("with water, lids on" says more than a tool)
        comma = continues and not before and m.end < len(words) and (
            words[m.end] in ("and", "or") or clause[m.end] != clause[m.start])
        listed = (continues and before in ("and", "or")) or comma
        # "clear the dinner table": up to two words no object is called between the verb and the name
        j = k
        while j > 0 and k - j < 2 and words[j] not in _SOURCE_VERBS and read.object_at(j) is None \
                and not read.function[j] and clause[j - 1] == clause[m.start]:
            j -= 1
            while j > 0 and words[j] in _DETERMINERS and clause[j - 1] == clause[m.start]:
                j -= 1
        emptied = j >= 0 and words[j] in _SOURCE_VERBS and clause[j] == clause[m.start]
        # "for pickup", "for the baby": a purpose or whom it is for (not "look for the keys")
        purpose = before == "for" and not (k > 0 and words[k - 1] in _SEEKING)
        # "whatever fruit's in the fridge": where something is, said with "is" (not "make sure it is in"),
        # or where somebody put something ("somebody dumped the firewood on the floor"; not "there's
        # milk left in the mug", where nothing is put between the verb and the place)
        described = before in WHERE_PREPOSITIONS and k > 0 and (
            (words[k - 1] in _BE and "sure" not in words[:k])
            or any(words[j] in _PUT_BEFORE for j in range(k - 1) if clause[j] == clause[m.start]))
        governing = _governing_word(read, m)
        if (governing in _TOOL_WORDS or out_of or emptied or listed) and not (
                (before in ("and", "or") or comma or governing == "with") and _food(m.synset)):
            out.add(m.phrase)
            listed_after = m.end
        elif (before in ("in", "inside") and _process_location(read, k)) or purpose or described:
            out.add(m.phrase)
        elif _modifier(read, m):
            out.add(m.phrase)
    return frozenset(out)


#: Verbs of having: what a thing "has" or "has got" describes it ("the glasses still have those
#: red rings in them").
_HAVE = frozenset("have has had got having".split())


def possessed(instruction: str | ReadInstruction) -> frozenset[str]:
    """Object phrases the instruction says something has: after a verb of having in the same
    clause ("the wine glasses still have those red rings in them"). In a request to clean, what a
    thing has that the scene shows none of is its dirt, seen as the scene's stain or dust."""
    read = _reading(instruction)
    return frozenset(m.phrase for m in read.mentions
                     if any(read.words[j] in _HAVE and read.clause_of[j] == read.clause_of[m.start]
                            for j in range(m.start)))


def _continues_list(read: ReadInstruction, m: Mention, k: int, before: str, end: int | None) -> bool:
    """The mention ``m`` (``k``, ``before``: :func:`_word_before`) goes on a list whose last name
    ended at ``end``: right after an "and"/"or" there, or after a comma there (a new clause of the
    same sentence)."""
    if end is None:
        return False
    if before in ("and", "or"):
        return k == end
    return (not before and 0 <= k and k + 1 == end and read.clause_of[k] != read.clause_of[m.start]
            and read.sentence_of[k] == read.sentence_of[m.start])


def _modifier(read: ReadInstruction, m: Mention) -> bool:
    """The name modifies the word after it in its clause: a word we do not know, or the next name
    ("the stucco wall" is a wall, "make pizza sauce" makes a sauce): an English compound's head is
    its last noun. A determiner starts another phrase ("give the necklace a wash")."""
    after = m.end if m.end < len(read.words) and read.clause_of[m.end] == read.clause_of[m.start] else None
    return (after is not None and read.words[after] not in _AFTER_NOUN and read.words[after] not in _DETERMINERS
            and not read.function[after])


#: BEHAVIOR's kinds of things one eats (its hierarchy has one parent per synset).
_FOOD_KINDS = frozenset({"food.n.01", "food.n.02", "fruit.n.01", "vegetable.n.01", "edible_fruit.n.01"})


def _food(synset: str) -> bool:
    """A thing one eats, not a substance: never a tool, so "a food bowl with the apple" asks for the
    apple in the bowl (a substance after "with" may be an agent: "wash it with lemon juice")."""
    if is_substance(synset, "omnigibson"):
        return False
    info = synset_info(synset)
    return bool(info and "cookable" in info.abilities) or bool(_FOOD_KINDS & {synset, *ancestors(synset)})


#: Verbs that bring a dish, a drink or a mixture into being ("make some tomato rice", "whip up some
#: eggnog", "blend me an iced cappuccino", "cook us a beef stew").
MAKING_VERBS = frozenset(f for verb in "make bake brew cook prepare whip blend mix".split() for f in _forms(verb))
#: What a making verb can bring into being: food, drink, and the cleaning mixtures BEHAVIOR makes
#: ("a vinegar cleaning solution").
_MADE_KINDS = frozenset({"food.n.01", "food.n.02", "beverage.n.01", "drink.n.01", "cleansing_agent.n.01"})
#: Food a verb like "cook" changes rather than makes: "cook the beef" cooks the beef there is.
_RAW_KINDS = frozenset({"meat.n.01", "fish.n.02", "seafood.n.01", "vegetable.n.01", "edible_fruit.n.01",
                        "fruit.n.01", "egg.n.02"})
#: Words that count what a making verb makes ("make two pizzas"); a plural with none says no number.
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "dozen": 12}
#: Words between a making verb and what it makes: whom for ("make me a latte"), the particle ("whip
#: up some eggnog"), and how much ("a glass of eggnog": the measure word is skipped with its "of").
_MAKING_FILLERS = frozenset("me us him her them you up together".split()) | _DETERMINERS


@dataclass(frozen=True)
class RequestedProduct:
    """A dish, drink or mixture the request asks to make that the scene does not have yet."""

    phrase: str
    synset: str
    count: int


def _made_by_verb(read: ReadInstruction, m: Mention) -> tuple[bool, int | None]:
    """Whether a making verb governs ``m`` in its clause, and the number said before it (None: none).
    "make a glass of eggnog", "make me a fruit punch", "blend them with some water into fruit
    punch" (what a making verb earlier in the clause makes "into")."""
    words, clause = read.words, read.clause_of
    k, count, described = m.start - 1, None, 0
    while k >= 0 and clause[k] == clause[m.start]:
        word = words[k]
        if word in MAKING_VERBS:
            return True, count
        if word == "into":
            return any(words[j] in MAKING_VERBS for j in range(k) if clause[j] == clause[m.start]), count
        if word == "of" and k >= 1 and clause[k - 1] == clause[k]:
            k -= 2  # a measure: "a glass of", "a bowl of"
            continue
        if word in _NUMBERS or word.isdigit():
            count = count or (int(word) if word.isdigit() else _NUMBERS[word])
        elif word in _MAKING_FILLERS:
            pass
        elif (described < 2 and read.object_at(k) is None and not read.function[k] and word not in _AFTER_NOUN):
            described += 1  # "a blended iced cappuccino", "a nice hot cocoa"
        else:
            return False, None
        k -= 1
    return False, None


def requested_products(instruction: str | ReadInstruction, types: Iterable[str]) -> list[RequestedProduct]:
    """The dishes, drinks and mixtures the instruction asks to make (a making verb governs the name,
    :data:`MAKING_VERBS`) that no type among ``types`` is: what an LLM goal may ask into being
    (``additions.scene_additions``). Only the head of its phrase ("make pizza sauce" makes no pizza),
    only a kind that is made (food or drink, not raw meat, fruit or vegetables, which cooking
    changes), and only in a number the request says: one for a substance or a singular, the count
    said for a plural ("bake six muffins"), and nothing for a plural with no number, which the
    scene cannot tell ("bake some cookies": the request stays refused)."""
    read = _reading(instruction)
    types = set(types)
    out = []
    for m in read.mentions:
        kinds = {m.synset, *kinds_of(m.synset)}
        if (grounds_in(m.phrase, m.synset, types) is not None or _modifier(read, m)
                or not kinds & _MADE_KINDS or kinds & _RAW_KINDS):
            continue
        made, count = _made_by_verb(read, m)
        if not made:
            continue
        plural = sounds_plural(read.words[m.end - 1])
        if is_substance(m.synset, "omnigibson"):
            if plural:
                continue  # "cook the red peppers": things, read as a spice; a substance has no plural
            count = 1
        elif plural:
            if count is None or count < 2:
                continue
        else:
            count = 1
        out.append(RequestedProduct(m.phrase, m.synset, count))
    return out


#: Verbs that fetch or work what the work needs ("grab a bucket and some soap and scrub it down",
#: "run the vacuum over it"). Not "get", which as often means "make" ("get the cage ready").
FETCH_VERBS = frozenset("grab grabbing fetch fetching take taking bring bringing use using run running".split())
#: What can serve a goal's process, by the goal states it asks (``goal_polarities`` keys): a cleaning
#: tool, a liquid to soak it in or a vessel to carry that liquid for cleaning; a heat source for
#: cooking; a blade for slicing (the engine's ``cleaner``, ``wet``, ``heated`` and ``cut`` checks).
_SERVES = {("covered", False): ("particleRemover", "liquid", "fillable"), ("cooked", True): ("heatSource",),
           ("sliced", True): ("slicer",), ("diced", True): ("slicer",)}


def goal_tools(instruction: str, problem: Problem) -> frozenset[str]:
    """Object phrases the instruction has fetched whose kind in the scene can serve a process the
    goal asks for (:data:`_SERVES`): tools, so a goal need not mention them. "grab a bucket and
    some soap and scrub it down" with a goal that cleans the boat: the bucket carries water, the
    soap is a liquid; "take the pear and the apple and put them in the bowl" fetches no tool.
    Where the goal makes a dish, also its :func:`ingredients`."""
    polarities = goal_polarities(problem.goal, dict(problem.objects))
    serving = {need for (predicate, polarity), needs in _SERVES.items()
               if polarity in polarities.get(predicate, ()) for need in needs}
    made = ingredients(instruction, problem.types) if made_types(problem) & goal_types(problem) else frozenset()
    return fetched_tools(instruction, problem.types, serving) | made


def ingredients(instruction: str, types: Iterable[str]) -> frozenset[str]:
    """Foods and substances the instruction lists after "with" ("make some tomato rice ... with the
    tomato, onion and some chicken broth"; names only the scene's ``types`` explain too): where the
    goal makes a dish, what it is made from, which the goal need not name (:func:`goal_tools`;
    B-1K's goals name the dish, not what went into it)."""
    read = read_instruction(instruction)
    out = set()
    listed_after: int | None = None  # the word after the last ingredient: "and"/"or" or a comma may go on there
    scene_words = scene_mention_spans(instruction, types, any_of=True)  # "onion": the onion or its halves
    for m in sorted([*read.mentions, *scene_words], key=lambda mention: mention.start):
        k, before = _word_before(read, m)
        if (_governing_word(read, m) == "with" or _continues_list(read, m, k, before, listed_after)) and (
                _food(m.synset) or is_substance(m.synset, "omnigibson")):
            out.add(m.phrase)
            listed_after = m.end
    return frozenset(out)


def fetched_tools(instruction: str | ReadInstruction, types: Iterable[str], serving: Iterable[str]) -> frozenset[str]:
    """Object phrases the instruction fetches (after :data:`FETCH_VERBS`, and what the phrase goes
    on to list) whose kind among ``types`` has one of the ``serving`` abilities (or is a liquid,
    where ``liquid`` is one of them)."""
    serving = set(serving)
    if not serving:
        return frozenset()
    read = _reading(instruction)
    out = set()
    fetched_up_to: int | None = None  # the word after the last fetched name: "and"/"or" may go on there
    for m in sorted(read.mentions, key=lambda mention: mention.start):
        k, before = _word_before(read, m)
        if not (before in FETCH_VERBS or (before in ("and", "or") and k == fetched_up_to)):
            continue
        fetched_up_to = m.end
        typ = grounds_in(m.phrase, m.synset, types)
        info = synset_info(typ) if typ else None
        if info is not None and serving & (info.abilities | ({"liquid"} if info.object_type == "liquid" else set())):
            out.add(m.phrase)
    return frozenset(out)


def goal_must_mention(instruction: str | ReadInstruction, mentioned: Iterable[tuple[str, str]],
                      types: Iterable[str]) -> list[tuple[str, frozenset[str]]]:
    """Before any goal is drafted: the instruction's object phrases (``mentioned``, from
    :func:`instruction_objects`) that a drafted goal must mention, each with the scene ``types``
    that answer it (in ``mentioned``'s order). The verifier's objects axis refuses a drafted goal
    that never mentions one of them; the goal grammar can ask for each (``goal_grammar``'s
    ``mentions``). Left out, as the verifier excuses them: tools, sources and modifiers
    (:func:`incidental_objects`), what is fetched and could serve some process (:func:`fetched_tools`
    for every ability of :data:`_SERVES`: the goal is not written yet), and the names of a choice
    (:func:`alternatives`: "lemon juice or detergent")."""
    read = _reading(instruction)
    types = sorted(set(types))
    every_ability = {need for needs in _SERVES.values() for need in needs}
    excused = incidental_objects(read) | fetched_tools(read, types, every_ability) | set(alternatives(read))
    out: list[tuple[str, frozenset[str]]] = []
    for phrase, synset in mentioned:
        if phrase in excused or any(phrase == said for said, _ in out):
            continue
        answers = frozenset(t for t in types if grounds_in(phrase, synset, (t,)))
        if answers:
            out.append((phrase, answers))
    return out


_CHOICE_PREPOSITIONS = frozenset("in on into onto inside under to near by".split())


def alternatives(instruction: str | ReadInstruction) -> dict[str, frozenset[str]]:
    """Object phrases offered as a choice, each to the others of its choice: "try some lemon juice
    or detergent on them", "a sponge or a rag". A goal that uses one of them answers the request,
    so the others need not be in it. Only ``or`` between two names of one clause makes a choice
    (a preposition and determiners may stand after it: "in the cabinet or on the table"); "and"
    lists everything asked for."""
    read = _reading(instruction)
    words, clause = read.words, read.clause_of
    mentions = sorted(read.mentions, key=lambda mention: mention.start)
    choices: list[list[str]] = []
    for first, second in pairwise(mentions):
        between = words[first.end:second.start]
        rest = between[2:] if between[1:2] and between[1] in _CHOICE_PREPOSITIONS else between[1:]
        if (clause[first.start] == clause[second.start] and between and between[0] == "or"
                and all(w in _DETERMINERS for w in rest)):
            if choices and choices[-1][-1] == first.phrase:
                choices[-1].append(second.phrase)  # "a sponge or a rag or a towel"
            else:
                choices.append([first.phrase, second.phrase])
    return {phrase: frozenset(choice) - {phrase} for choice in choices for phrase in choice}


def _process_location(read: ReadInstruction, preposition: int) -> bool:
    """Whether the object after ``in`` at ``preposition`` is where a process happens, not where a
    thing goes: a state verb ("bake", "wash", "soak") comes before it in its clause and no verb
    that moves things does ("bake it in the oven", "wash it off in the sink"; not "put the cup in
    the sink"), and what stands right before ``in`` is not a substance (in "remove the stain in the
    sink" the sink is what is cleaned)."""
    c = read.clause_of[preposition]
    earlier = [j for j in range(preposition) if read.clause_of[j] == c]
    if any(read.words[j] in PLACEMENT_VERBS for j in earlier) or not any(read.words[j] in STATE_VERBS
                                                                       for j in earlier):
        return False
    return not any(is_substance(m.synset, "omnigibson") for m in read.mentions if m.end == preposition)


#: Words that count what follows ("two apples", "one of the cups", "some plates"): such a plural
#: means some of the things, not all of them.
_COUNTING = frozenset("a an one two three four five six seven eight nine ten some any few several couple pair "
                      "either neither another each most many half".split())


def sounds_plural(word: str) -> bool:
    """English plural ending, the forms ``singulars`` undoes ("greens", "boxes", "berries"; not
    "glass", "bus", "axis"-like singulars in -ss, -us, -is). A word in -is is a plural where the
    word without its -s names a thing and the word itself does not ("skis", "kiwis"; not "tennis")."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us")):
        return False
    if word.endswith("is"):
        names = lemma_index()
        return (word[:-1],) in names and (word,) not in names
    return True


#: Words that ask for every one of what follows, in any number ("all the salmon", "every apple").
_EVERY = frozenset({"all", "every", "both"})
#: Words that say "many" with a counting word before them ("a bunch of flowers", "a lot of toys"):
#: no count, so the plural means every one there is.
_MANY = frozenset("bunch lot lots load loads heap heaps pile piles ton tons plenty".split())
#: Nouns whose plural is the singular ("the salmon" with three in the freezer: all of them).
_SAME_PLURAL = frozenset("fish salmon trout tuna cod halibut shrimp squid sheep deer moose bison".split())
#: Determiners that name the things meant, all of those there are ("the salmon", "my snacks").
_DEFINITE = frozenset("the these those my your our their his her its".split())


def plural_mentions(instruction: str | ReadInstruction) -> list[Mention]:
    """Object names the instruction says in the plural with no count ("cook the mustard greens",
    "put apples in the bowl", "a bunch of flowers"; not "two apples", "one of the cups"), or after
    a word asking for all of them ("all the salmon", "every apple"), or a noun whose plural is its
    singular after a definite determiner ("move the salmon to the cart", with three salmon): in
    English the speaker means every one of them there is. ``instruction``: the text, or its reading
    where the caller has one."""
    read = _reading(instruction)
    out = []
    for m in read.mentions:
        before = [w for k, w in enumerate(read.words[max(0, m.start - 3):m.start], start=max(0, m.start - 3))
                  if read.clause_of[k] == read.clause_of[m.start]]
        counted = any(w in _COUNTING for w in before) and not any(w in _MANY for w in before)
        head = m.phrase.split()[-1]
        same = head in _SAME_PLURAL and bool(before) and before[-1] in _DEFINITE
        if any(w in _EVERY for w in before) or ((sounds_plural(head) or same) and not counted):
            out.append(m)
    return out


def asked_for_all(instruction: str, read: ReadInstruction | None = None,
                  tools: frozenset[str] | None = None) -> list[Mention]:
    """The plurals (:func:`plural_mentions`) that ask something of every one of them: tools,
    sources and modifiers (:func:`incidental_objects`) aside, and placement targets too ("hang them
    on hangers" says where things go, not what to do to all hangers). ``read``/``tools``: the
    instruction's reading and incidental objects, where the caller has them."""
    read = read if read is not None else read_instruction(instruction)
    tools = incidental_objects(read) if tools is None else tools
    targets = {p.target for p in placement_words(instruction) if p.target is not None}
    return [m for m in plural_mentions(read) if m.phrase not in tools and m not in targets]


def goal_coverage(problem: Problem, skip_held: bool = False) -> tuple[set[str], set[str], set[str]]:
    """The instances a goal names, the types it quantifies over for every instance, and those it
    quantifies over only with ``exists`` (it asks something of one of them); ``?inst`` counts as
    ``inst`` (``bddl.checks.argument_instances``). A type only a short ``forpairs`` ranges over
    (:func:`short_pairings`) is not quantified over: the goal covers only some of it.
    ``skip_held``: a literal the initial state already satisfies, for every instance of its
    quantified variables (:func:`holds_for_every`), names nothing (it asks nothing to be done):
    ``(inside ?salmon_1 ?fridge_1)`` beside two salmon put in the cart, for "load the salmon
    fillets into the cart", leaves the first one where it was; ``(forall (?pill_bottle) (not
    (inside ?pill_bottle ?pill_bottle_2)))`` asks nothing of the pill bottles."""
    named: set[str] = set()
    quantified: set[str] = set()
    some: set[str] = set()
    initially = initial_facts(problem) if skip_held else frozenset()
    for atom, positive, types, existential in bound_goal_atoms(problem.goal):
        if skip_held and holds_for_every(atom, positive, types, initially, problem.objects):
            continue
        for arg in atom.args:
            if arg in types:
                (some if arg in existential else quantified).add(types[arg])
            else:
                named.update(i for i in argument_instances(arg, types, problem.objects) if i in problem.objects)
    return named, quantified - set(short_pairings(problem)), some - quantified


def holds_for_every(atom: Atom, positive: bool, types: dict[str, str],
                    initially: frozenset[tuple[str, tuple[str, ...]]], objects: dict[str, str]) -> bool:
    """:func:`already_holds` for every instance of ``atom``'s quantified variables (``types``); a
    variable whose type has no instance leaves it unheld."""
    from itertools import product

    variables = [arg for arg in dict.fromkeys(atom.args) if arg in types]
    if not variables:
        return already_holds(atom, positive, types, initially)
    choices = [[i for i, t in objects.items() if t == types[var]] for var in variables]
    if not all(choices):
        return False
    for chosen in product(*choices):
        instance = dict(zip(variables, chosen, strict=True))
        args = tuple(instance.get(arg, arg.lstrip("?")) for arg in atom.args)
        if ((atom.predicate, args) in initially) != positive:
            return False
    return True


def short_pairings(problem: Problem) -> dict[str, tuple[str, int]]:
    """Type -> (the other type, its count) for each type that the goal quantifies over only in a
    ``forpairs`` whose other type has fewer instances. ``forpairs`` is a one-to-one matching (as in
    BDDL): with one cart, "(forpairs (?salmon - salmon) (?cart - cart) (inside ?salmon ?cart))"
    puts one salmon in the cart, not all three (Qwen 1.5B wrote it for "take all the salmon")."""
    counts = Counter(problem.objects.values())
    short: dict[str, tuple[str, int]] = {}
    whole: set[str] = set()
    for q in iter_quantifiers(problem.goal):
        types = [p.type for p in q.params]
        if q.kind == "forpairs" and len(types) == 2:
            for mine, other in (types, types[::-1]):
                if counts.get(mine, 0) > counts.get(other, 0):
                    short.setdefault(mine, (other, counts.get(other, 0)))
                else:
                    whole.add(mine)
        else:
            whole.update(types)
    return {t: v for t, v in short.items() if t not in whole}



_ARGS = {1: "?x", 2: "?x ?y"}


def prompt_hints(instruction: str, domain: str = "omnigibson", action_set: str = "b1k") -> list[str]:
    """Short hints for the LLM drafter: each state word and placement preposition of the
    instruction with the goal literal it asks for, where the domain has the predicate and an
    action achieves it (``"cook" -> (cooked ?x)``, ``"turn off" -> (not (toggled_on ?x))``)."""
    vocab = vocabulary(domain)
    can = achievable(action_set)
    hints: dict[str, str] = {}

    def add(said: str, predicate: str, polarity: bool) -> None:
        predicate = predicate.partition(":")[0]  # covered:applied is written (covered ?x ?y)
        if predicate in vocab and (predicate, polarity) in can:
            atom = f"({predicate} {_ARGS.get(vocab[predicate], '?x')})"
            hints.setdefault(said, atom if polarity else f"(not {atom})")

    words = state_words(instruction, (domain,))
    for word in words:
        add(word.said, word.predicate, word.polarity)
    for place in placement_words(instruction, words):
        add(place.said, place.relation, True)
    return [f'"{said}" -> {literal}' for said, literal in hints.items()]


@dataclass(frozen=True)
class PlacementWord:
    """A placement preposition of the instruction ("in" of "put the cup in the sink"), the relation
    it asks for, and the object named right after it (the target), if any."""

    said: str
    relation: str  # "" for a place with no one relation (:data:`ANY_PLACE_WORDS`)
    target: Mention | None
    end: int = -1  # the reading's first word after the preposition


def placement_words(instruction: str, words: Iterable[StateWord] | None = None) -> list[PlacementWord]:
    """Each placement preposition (``RELATION_WORDS``) after a verb that moves things in the same
    clause (``PLACEMENT_VERBS``), and not the particle of a state word ("turn on") nor of the verb
    itself: right after the verb and before a possessive ("toss in its toys", "put on your shoes")
    it says what moves, not where. A state verb between the two says where a process happens ("get
    the tofu and cook it in the wok"), not where something goes. ``words``: the instruction's state
    words where the caller has them."""
    read = read_instruction(instruction)
    words = state_words(instruction) if words is None else list(words)
    particles = {w.particle for w in words if w.particle is not None}
    sentence = _list_clauses(read)
    out: list[PlacementWord] = []
    for i in range(len(read.words)):
        if i in particles or read.object_at(i) is not None:
            continue
        if 0 < i < len(read.words) - 1 and read.words[i - 1] in PLACEMENT_VERBS and read.words[i + 1] in POSSESSIVES:
            continue
        movers = [j for j in range(i) if sentence[j] == sentence[i] and _moves_things(read, j)]
        if not movers:
            continue  # no verb that moves things before it in its clause: not where something goes
        if any(movers[-1] < w.position < i and read.words[w.position] not in PLACEMENT_VERBS for w in words):
            continue  # a state verb after it: "get the tofu and cook it in the wok" says where it cooks
        for phrase, predicate in _PLACE_PHRASES:
            if tuple(read.words[i:i + len(phrase)]) == phrase:
                after = range(i + len(phrase), min(i + len(phrase) + 4, len(read.words)))
                target = next((m for k in after if read.clause_of[k] == read.clause_of[i]
                               and (m := read.object_at(k)) is not None), None)
                earlier = out[-1] if out else None
                if earlier is not None and earlier.end == i - 1 and read.words[i - 1] == "or":
                    # "in or next to the mailbox": a choice of relations at one target, any will do
                    out[-1] = PlacementWord(f"{earlier.said} or {' '.join(phrase)}", "", target, i + len(phrase))
                else:
                    out.append(PlacementWord(" ".join(phrase), predicate, target, i + len(phrase)))
                break
    return out


def _where_args(atom: Atom) -> tuple[str, ...]:
    """The places of a literal that say where things are: both of an object relation, the holder
    of a container's ``filled``/``contains``/``insource``."""
    if atom.predicate in OBJECT_RELATIONS:
        return atom.args
    return atom.args[:1] if atom.predicate in SUBSTANCE_HOLDING else ()


def empty_places(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A placement the instruction states where the goal relates nothing to the target by where
    things are (an object relation, either place, or a container's ``filled``/``contains``): the
    goal never puts anything there. The target is the object named after the preposition, a word
    only the scene explains ("into the cart", :func:`scene_mentions`), or "it" ("wash off the boat
    and throw the rod and tackle in it"), read as the last thing (not a substance) named before the
    verb that moves things. Qwen 1.5B cleaned the boat and left the rod on the driveway, and for
    "pack up the leftovers, stick them in the fridge" shut the fridge with nothing in it; that the
    fridge is named and mentioned satisfies the objects axis, not the placement. What the initial
    state already has at the target counts as the target: a dress draped on a hanger that hangs in
    the wardrobe is "in the closet". A substance is no target ("put the ice cubes in the water" is
    the glass's business). ``places``: the instruction's :func:`placement_words`, where the caller
    has them."""
    read = read_instruction(instruction)
    scene_words = dict(scene_mentions(instruction, set(problem.objects.values())))
    asked = goal_polarities(problem.goal, dict(problem.objects)).keys()
    out = []
    for place in placement_words(instruction) if places is None else places:
        target, said = _placement_target(read, place, scene_words), "the"
        if target is None and (target := _it_target(read, place)) is not None:
            said = "it"
        if target is None or is_substance(target.synset, "omnigibson") or not (kind := grounds_in(
                target.phrase, target.synset, set(problem.objects.values()), loose=False)):
            continue  # a target the scene lacks ("on the wall": the nail is the goal's) is the objects axis's
        if _where_processed(kind, asked):
            continue
        there = _at_target(problem, target)
        kinds = {problem.objects[i] for i in there}
        related = any(types[a] in kinds if a in types else a.lstrip("?") in there
                      for atom, positive, types in goal_atoms(problem.goal) if positive and len(atom.args) == 2
                      for a in _where_args(atom))
        if not related:
            where = f"'{place.said} it' (the {target.phrase})" if said == "it" else f"'{place.said} the {target.phrase}'"
            asks = (f"({place.relation} ?x ?{target.phrase.replace(' ', '_')})" if place.relation
                    else "something put there")
            out.append(f"the instruction says {where}, which asks for {asks}, but the goal puts nothing there")
    return out


def _it_target(read: ReadInstruction, place: PlacementWord) -> Mention | None:
    """What "it" after a placement's preposition stands for: the last thing (not a substance) named
    before the verb that moves things ("fill the glass with water and put ice in it": the glass)."""
    if not (0 <= place.end < len(read.words) and read.words[place.end] == "it"):
        return None
    verb = max((j for j in range(place.end) if read.words[j] in PLACEMENT_VERBS), default=-1)
    return max((m for m in read.mentions if m.end <= verb and not is_substance(m.synset, "omnigibson")),
               key=lambda m: m.end, default=None)


@dataclass(frozen=True)
class RequestedPlacement:
    """A placement the request states with its one relation: the kinds of the things it moves, and
    the kinds its target may be ("throw the rod and tackle in it": fishing rod and gear, inside, the
    boat)."""

    said: str
    relation: str
    things: frozenset[str]
    targets: frozenset[str]


def requested_placements(instruction: str, types: Iterable[str]) -> list[RequestedPlacement]:
    """The placements of the instruction (:func:`placement_words` with one relation) whose moved
    things (:func:`moved_by`) and target (named, a word only the scene explains, or "it") are among
    ``types``: what a goal drafter is held to say (``llm_goal``'s continued decoding). Not where the
    relation the preposition says is not the one goals state: a thing hung ("hang the towels on the
    rack": draped), or put on a heat source, where the goal cooks it rather than leaves it."""
    read = read_instruction(instruction)
    types = set(types)
    scene_words = dict(scene_mentions(instruction, types))
    places = placement_words(instruction)
    out = []
    for place in places:
        target = _placement_target(read, place, scene_words)
        said = f"{place.said} the {target.phrase}" if target else f"{place.said} it"  # as empty_places quotes it
        target = target or _it_target(read, place)
        at = place.end - len(place.said.split())
        if (not place.relation or target is None or is_substance(target.synset, "omnigibson")
                or any(read.words[j].startswith("hang") for j in range(at) if read.clause_of[j] == read.clause_of[at])):
            continue
        targets = frozenset(t for t in types if grounds_in(target.phrase, target.synset, {t}, loose=False)
                            and t not in HANGING_PLACES
                            and not ((info := synset_info(t)) is not None and "heatSource" in info.abilities))
        things = frozenset(t for m in moved_by(instruction, place, places, scene_words) for t in types
                           if grounds_in(m.phrase, m.synset, {t}, loose=False))
        if targets and things:
            out.append(RequestedPlacement(said, place.relation, things, targets))
    return out


def moved_by(instruction: str, place: PlacementWord, places: list[PlacementWord] | None = None,
             scene_words: dict[str, str] | None = None) -> list[Mention]:
    """The things (not substances) a placement moves: the names between the verb that moves things
    and the preposition ("set **the basket** on the counter"), after an earlier placement's target
    in between ("put a steak on each slice and **each slice** on a plate"). ``places``: the
    instruction's :func:`placement_words`, where the caller has them; ``scene_words``
    (:func:`scene_mentions`): words only the scene explains count as names too ("the rod")."""
    read = read_instruction(instruction)
    span = _moved_span(read, instruction, place, places)
    if span is None:
        return []
    start, at = span
    named = [*read.mentions, *(Mention(w, scene_words[w], k, k + 1) for k, w in enumerate(read.words)
                               if scene_words and w in scene_words and read.object_at(k) is None)]
    return [m for m in named if start <= m.start and m.end <= at and m != place.target
            and not is_substance(m.synset, "omnigibson")]


def _moved_span(read: ReadInstruction, instruction: str, place: PlacementWord,
                places: list[PlacementWord] | None) -> tuple[int, int] | None:
    """Where a placement's moved things are said: (first word, the preposition) of the words
    between the verb that moves things and the preposition, after an earlier placement's target
    in between (see :func:`moved_by`); None with no such verb."""
    at = place.end - len(place.said.split())  # the preposition
    verb = max((j for j in range(at) if read.clause_of[j] == read.clause_of[at] and _moves_things(read, j)),
               default=None)
    if verb is None:
        return None
    return max([verb + 1, *((p.target.end if p.target else p.end)
                            for p in (placement_words(instruction) if places is None else places)
                            if verb < p.end <= at)]), at


#: Words that end a noun phrase in a list of moved things ("the snacks and water bottles in ..."), as
#: a determiner after it does ("the snacks the kids like": commas are not words).
_PHRASE_ENDS = frozenset(("and", "or", "&"))


def unread_moved_plurals(instruction: str, place: PlacementWord,
                         places: list[PlacementWord] | None = None) -> list[str]:
    """Plural nouns a placement moves that name nothing BEHAVIOR has, so no object is read from
    them ("throw **the snacks** and water bottles in the backpack": no object is a snack): a
    plural word (:func:`sounds_plural`) right after a definite determiner, ending its phrase (a
    list word, a determiner or the preposition follows), that no mention covers. A goal that puts one
    of several things of a kind the instruction never names at that place read the word as that
    kind (``goal_mending.widen_stand_ins``)."""
    read = read_instruction(instruction)
    span = _moved_span(read, instruction, place, places)
    if span is None:
        return []
    start, at = span
    return [read.words[k] for k in range(max(start, 1), at)
            if read.words[k - 1] in _DEFINITE and sounds_plural(read.words[k]) and read.object_at(k) is None
            and (k + 1 == at or read.words[k + 1] in _PHRASE_ENDS | _DETERMINERS)]


def placed_elsewhere(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A thing the instruction moves to a named target ("set **the basket** on the counter": the
    names between the verb that moves things and the preposition) that the goal puts somewhere
    else, and nowhere at the target (or at what the initial state holds there): Qwen 1.5B put the
    basket on the floor and the money on the checkout. A thing the goal does not place at all is
    the objects axis's business. ``places``: the instruction's :func:`placement_words`, where the
    caller has them."""
    return [f"the instruction puts the {thing.phrase} '{place.said} the {target.phrase}', but the goal "
            f"puts it only at {', '.join(sorted(put))}"
            for place, target, thing, put in things_placed_elsewhere(instruction, problem, places)]


def things_placed_elsewhere(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                            ) -> list[tuple[PlacementWord, Mention, Mention, set[str]]]:
    """(placement word, its target, the thing it moves, where the goal puts that thing instead) for
    each of :func:`placed_elsewhere`."""
    read = read_instruction(instruction)
    places = placement_words(instruction) if places is None else places
    scene_words = dict(scene_mentions(instruction, set(problem.objects.values())))
    # where the goal puts each thing; a place the goal puts in or on another is at that one too
    # (the racket in the box, the box in the car: the racket is in the car); a thing a cloth is
    # spread over is in that cloth too ("a knife and a spoon in each napkin": the napkin overlaid)
    asked = goal_polarities(problem.goal, dict(problem.objects)).keys()
    held_by: dict[str, set[str]] = {}
    for atom, positive, types in goal_atoms(problem.goal):
        if positive and atom.predicate in OBJECT_RELATIONS and len(atom.args) == 2:
            first, second = (argument_instances(a, types, problem.objects) for a in atom.args)
            for thing in first:
                held_by.setdefault(thing, set()).update(second)
            for thing in second if atom.predicate == "overlaid" else ():
                held_by.setdefault(thing, set()).update(first)
    out = []
    for place in places:
        target = _placement_target(read, place, scene_words)
        if target is None or place.end < 0 or is_substance(target.synset, "omnigibson"):
            continue
        kind = grounds_in(target.phrase, target.synset, set(problem.objects.values()), loose=False)
        if kind and _where_processed(kind, asked):
            continue
        there = _at_target(problem, target)
        for m in moved_by(instruction, place, places) if there else ():
            things = m.instances_in(problem.objects)
            put = set().union(*(held_by.get(i, set()) for i in things))
            reached, frontier = set(put), set(put)
            while frontier:
                frontier = set().union(*(held_by.get(i, set()) for i in frontier)) - reached
                reached |= frontier
            if put and not reached & there:
                out.append((place, target, m, put))
    return out


def states_of_others(instruction: str, words: Iterable[StateWord], problem: Problem) -> list[str]:
    """A state word whose object the instruction names right after it ("fry up **those brats**":
    past determiners and a particle), a thing of the scene, where the goal asks the states the word
    names only of (or with) other things: "the instruction says 'fry' of the brats, which asks for
    (cooked ...), but the goal asks it only of cooked__olive_oil.n.01". A made thing whose name has
    the object's kind counts as it (``cooked__bratwurst``), and so does any of the word's states
    ("hang the leotard": draped on a hanger). Qwen 1.5B answered "fry up those brats" with cooked
    oil in the pan and the brats uncooked."""
    read = read_instruction(instruction)
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    by_word: dict[int, list[StateWord]] = {}
    for word in words:
        if word.particle is None and (":" not in word.predicate or ".n." in word.predicate.partition(":")[2]):
            by_word.setdefault(word.position, []).append(word)  # a state with a named dirt ("dust") too
    out = []
    for position, alternatives in by_word.items():
        k = position + 1
        while k < len(read.words) and read.clause_of[k] == read.clause_of[position] and (
                read.words[k] in _DETERMINERS or read.words[k] in ("up", "off", "out", "down")):
            k += 1
        same = k < len(read.words) and read.clause_of[k] == read.clause_of[position]
        thing = read.object_at(k) if same else None
        if same and thing is None and read.words[k] in scene_words:  # "those brats": a word only the scene explains
            thing = Mention(read.words[k], scene_words[read.words[k]], k, k + 1)
        if thing is None or thing.start != k or is_substance(thing.synset, "omnigibson"):
            continue
        kinds = {t for t in scene if grounds_in(thing.phrase, thing.synset, {t}, loose=False)}
        if not kinds:
            continue
        heads = {type_word(t).split()[-1] for t in kinds}
        states = {(w.predicate, w.polarity) for w in alternatives}
        subjects: set[str] = set()
        for atom, positive, types in goal_atoms(problem.goal):
            dirt = argument_type(atom.args[1], types, problem.objects) if len(atom.args) == 2 else None
            if ((atom.predicate, positive) in states or (f"{atom.predicate}:{dirt}", positive) in states) and atom.args:
                # of the thing, or with it: "clean the mold off the wall" is (not (covered ?wall ?mold))
                argument_kinds = [argument_type(a, types, problem.objects) or a for a in atom.args]
                subjects |= (set(argument_kinds) & kinds) or {argument_kinds[0]}
            elif atom.predicate == "real" and positive and atom.args:
                arg = atom.args[0]  # as in goal_polarities: a made thing may be declared by the goal alone
                typ = argument_type(arg, types, problem.objects) or arg.lstrip("?").rsplit("_", 1)[0]
                made = PRODUCT_STATES.get(typ.split(".n.")[0].split("__")[0])
                if made is not None and made in states:
                    subjects.add(typ)
        if subjects and not any(t in kinds or type_word(t).split()[-1] in heads for t in subjects):
            asked = " or ".join(_literal(w.predicate, w.polarity) for w in alternatives)
            out.append(f"the instruction says '{alternatives[0].said}' of the {thing.phrase}, which asks for "
                       f"{asked}, but the goal asks it only of " + ", ".join(sorted(subjects)))
    return out


def _at_target(problem: Problem, target: Mention) -> set[str]:
    """The instances a placement target names, and what the initial state has at them, which
    counts as the place too: a dress draped on a hanger that hangs in the wardrobe is "in the
    closet"."""
    there = target.instances_in(problem.objects)
    return there | {lit.args[0] for lit in problem.init if not lit.negated and lit.predicate in OBJECT_RELATIONS
                    and len(lit.args) == 2 and lit.args[1] in there}


def _moves_things(read: ReadInstruction, j: int) -> bool:
    """Word ``j`` is a verb that moves things: not part of an object's name, nor a noun after a
    determiner ("left a stack of books")."""
    return (read.words[j] in PLACEMENT_VERBS and read.object_at(j) is None
            and not (j and read.words[j - 1] in _DETERMINERS))


def _machine(synset: str) -> bool:
    """A machine things are put in to be processed: it switches on and holds things (a washer, a
    blender, an oven, a dishwasher; not a fridge, a bowl or a stove top)."""
    info = synset_info(synset)
    return info is not None and {"toggleable", "fillable"} <= info.abilities


def _where_processed(kind: str, asked: AbstractSet[str]) -> bool:
    """Whether a placement's target of scene type ``kind`` is where the goal's process happens, not
    where a thing is to end up: a machine when the goal asks (``asked``: its ``goal_polarities``
    keys) a state a machine makes ("toss it in the blender", "throw it in the washer"), a heat
    source when it asks for cooking ("throw the kabobs on the grill, then put them on a plate")."""
    info = synset_info(kind)
    return (_machine(kind) and bool(asked & (APPLIANCE_STATES | {"real"}))) or (
        info is not None and "heatSource" in info.abilities and bool(asked & {"cooked", "hot"}))


def _placement_target(read: ReadInstruction, place: PlacementWord, scene_words: dict[str, str]) -> Mention | None:
    """The object a placement names as its target: the one named after the preposition, else a
    word right after it (past determiners) that only the scene explains (:func:`scene_mentions`)."""
    if place.target is not None or not scene_words or place.end < 0:
        return place.target
    k = place.end
    while k < len(read.words) and read.words[k] in _DETERMINERS:
        k += 1
    if k < len(read.words) and read.words[k] in scene_words:
        return Mention(read.words[k], scene_words[read.words[k]], k, k + 1)
    return None


def scene_mentions(instruction: str, types: Iterable[str]) -> list[tuple[str, str]]:
    """(word, type) of each of :func:`scene_mention_spans`."""
    return [(m.phrase, m.synset) for m in scene_mention_spans(instruction, types)]


def scene_mention_spans(instruction: str, types: Iterable[str], any_of: bool = False) -> list[Mention]:
    """A mention (word, type, where) of each word the reading leaves unread (no BEHAVIOR object is
    called just that: ``rod``) that names exactly one scene type (with ``any_of``, the first of
    several): the last word of its name or of one of its WordNet lemmas, where that has more words
    (``fishing_rod``; "checkout counter"), or a WordNet lemma of it that mostly means something else
    (``synsets.wordnet_scene_lemmas``: "tackle" is fishing gear, though first a football
    position; "closet" a wardrobe). "throw the rod and tackle in the boat" names the fishing rod
    and the fishing gear the scene has. Function words, the verbs the language checks read, and a
    word right before an object's name ("dust the fireplace logs": a modifier) are never such
    names."""
    read = read_instruction(instruction)
    types = set(types)
    heads = _rarer_lemmas(types)
    for typ in types:
        for name in (words_of(type_word(typ)), *map(words_of, wordnet_lemmas().get(typ, ()))):
            if len(name) > 1:  # "checkout counter", a WordNet lemma of checkout.n.03: "the counter"
                heads.setdefault(name[-1], set()).add(typ)
    verbs = STATE_VERBS.keys() | PLACEMENT_VERBS | TOGGLE_VERBS
    out = []
    for i, word in enumerate(read.words):
        if read.function[i] or read.object_at(i) is not None or word in verbs or word in _DETERMINERS:
            continue
        if i + 1 < len(read.words) and read.object_at(i + 1) is not None:
            continue  # a modifier of the name after it ("the fireplace logs" are logs), as in incidental_objects
        if hit := _the_one(heads, word) or (any_of and _first_of(heads, word)):
            out.append(Mention(word, hit, i, i + 1))
    return out


def _rarer_lemmas(types: set[str]) -> dict[str, set[str]]:
    """Word -> the scene types it is a one-word WordNet lemma of that mostly means something else
    (``synsets.wordnet_scene_lemmas``)."""
    out: dict[str, set[str]] = {}
    for typ in types:
        for lemma in wordnet_scene_lemmas().get(typ, ()):
            out.setdefault(lemma, set()).add(typ)
    return out


def _first_of(index: dict[str, set[str]], word: str) -> str | None:
    """The first (by name) of the types ``index`` has for ``word`` or a singular of it."""
    return next((min(index[f]) for f in singulars(word) if index.get(f)), None)


def _the_one(index: dict[str, set[str]], word: str) -> str | None:
    """The one type ``index`` has for ``word`` or one of the singulars it may be the plural of."""
    hit = next((index[f] for f in singulars(word) if len(index.get(f, ())) == 1), None)
    return next(iter(hit)) if hit else None


def instruction_objects(instruction: str, types: Iterable[str]) -> list[tuple[str, str]]:
    """(phrase, synset) of every object the instruction names: the words
    (``synsets.mentioned_synsets``), and the words only the scene's ``types`` explain
    (:func:`scene_mentions`: "the rod"). A name whose reading the scene lacks is read as the one
    scene type that is
    * a WordNet lemma of it, one word, that mostly means something else
      (``synsets.wordnet_scene_lemmas``): "wash the bike" is read first as a motorcycle, and the
      scene has a bicycle;
    * or, named as where something goes, a whole WordNet says it is a part of
      (``synsets.wordnet_part_holonyms``): "put the books back on the shelves" with a bookcase
      ("lids on" with jars is no place, and stays unread)."""
    types = set(types)
    rarer = _rarer_lemmas(types)
    read = read_instruction(instruction)
    out = []
    for m in read.mentions:
        phrase, synset = m.phrase, m.synset
        if grounds_in(phrase, synset, types) is None:
            words = words_of(phrase)
            lemma_of = _the_one(rarer, words[0]) if len(words) == 1 else None
            # a part only where something goes ("back on the shelves"): "lids on" is no place, and
            # the jars' lids are their open state, not a thing the goal can name
            wholes = wordnet_part_holonyms().get(synset, ()) if _word_before(read, m)[1] in _PLACE_WORDS else ()
            whole_of = {t for t in types if any(w == t or w in ancestors(t) for w in wholes)}
            synset = lemma_of or (next(iter(whole_of)) if len(whole_of) == 1 else synset)
        out.append((phrase, synset))
    return out + scene_mentions(instruction, types)


#: Predicates whose first argument bears or holds a substance (a surface, a container, a source).
SUBSTANCE_BEARERS = frozenset({"covered", "saturated", "filled", "contains", "insource"})


def substance_subjects(problem: Problem) -> list[str]:
    """Each goal literal that asks a substance to bear or hold one (``(covered ?stain_1 ?stain)``):
    a substance is never covered, filled or soaked itself, so the literal says nothing a plan can
    do, and it answers no state word (Qwen 1.5B wrote two for "wash the stain out of the hamper",
    and never named the hamper). No released goal has one."""
    out = []
    for atom, _positive, types in goal_atoms(problem.goal):
        if atom.predicate in SUBSTANCE_BEARERS and len(atom.args) == 2:
            typ = argument_type(atom.args[0], types, problem.objects)
            if typ is not None and is_substance(typ, "omnigibson"):
                out.append(f"the goal has ({atom.predicate} {' '.join(atom.args)}), but {typ} is a substance, "
                           f"which bears and holds nothing")
    return list(dict.fromkeys(out))


#: States that harm what they reach and that no action undoes: a drafted goal makes one true only
#: where the instruction asks for it (a robot sets nothing on fire on its own initiative).
DAMAGE_STATES = ("on_fire", "broken", "burnt")


def unasked_damage(words: Iterable[StateWord], problem: Problem) -> list[str]:
    """Each damage state (:data:`DAMAGE_STATES`) the goal makes true and no state word of the
    instruction (``words``) asks for: Qwen 1.5B set the cooked salt on fire for "season the ham with
    salt ... and bake it"."""
    asked = {w.predicate for w in words if w.polarity}
    out = []
    for atom, positive, types in goal_atoms(problem.goal):
        if positive and atom.predicate in DAMAGE_STATES and atom.predicate not in asked:
            what = argument_type(atom.args[0], types, problem.objects) if atom.args else None
            out.append(f"the goal makes ({atom.predicate} {atom.args[0] if atom.args else ''}) true "
                       f"({what or 'something'}), which the instruction never asks for")
    return list(dict.fromkeys(out))


#: States a switched-on appliance brings about (an oven cooks, a freezer freezes, a sink soaks and
#: fills, a washer cleans): a goal that asks one of them may switch on what does it unnamed.
APPLIANCE_STATES = frozenset({"cooked", "frozen", "hot", "saturated", "filled", "contains", "covered", "insource"})


def unasked_switching(instruction: str, words: Iterable[StateWord], problem: Problem) -> list[str]:
    """Each ``(toggled_on x)`` the goal asks where nothing asks for it: no word of the instruction
    switches anything on, the instruction never names x's kind, and the goal asks no state an
    appliance brings about (:data:`APPLIANCE_STATES`; "bake the lasagna" may switch on the oven it
    never names). Qwen 1.5B answered "bag up the pill bottles" with a printer switched on; a robot
    switches on nothing on its own initiative."""
    if any(w.predicate == "toggled_on" and w.polarity for w in words):
        return []
    atoms = list(goal_atoms(problem.goal))
    if any(atom.predicate in APPLIANCE_STATES for atom, _positive, _types in atoms):
        return []
    named = instruction_objects(instruction, set(problem.objects.values()))
    out = []
    for atom, positive, types in atoms:
        if not positive or atom.predicate != "toggled_on" or not atom.args:
            continue
        what = argument_type(atom.args[0], types, problem.objects)
        if what is None or any(grounds_in(phrase, synset, {what}) for phrase, synset in named):
            continue
        out.append(f"the goal switches on {atom.args[0]} ({what}), which the instruction never names or asks "
                   "to switch on")
    return list(dict.fromkeys(out))


#: What a made drink is: BEHAVIOR's drinks (coffee, punch, a latte, a slushie).
_DRINK_KINDS = frozenset({"beverage.n.01", "drink.n.01"})


def _serves_drinks(typ: str) -> bool:
    """A vessel one drinks or pours from: it holds liquids, and it is neither an appliance (switched
    on to make things: a blender, a coffee maker) nor furniture (a cabinet)."""
    info = synset_info(typ)
    return info is not None and "fillable" in info.abilities and not info.abilities & {"toggleable", "sceneObject"}


def unserved_drinks(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """Each drink the instruction asks to make (:func:`requested_products`) and the goal makes
    (:func:`made_types`) that the goal holds in nothing one drinks or pours from
    (:func:`_serves_drinks`), unless the instruction puts that drink where the goal holds it
    ("leave the punch in the blender"). Every B-1K goal that makes a drink asked for by name ends
    it in a mug, cup, glass or pitcher (wine made to coat pears is no drink served); Qwen 1.5B left
    "blend me an iced cappuccino" in the blender and "make eggnog and pour it into the water glass"
    in a cabinet."""
    made = made_types(problem)
    drinks = {t for t in made if _DRINK_KINDS & {t, *kinds_of(t)}}
    if drinks:
        before = {t for t in problem.objects.values() if t not in made}
        drinks &= {p.synset for p in requested_products(instruction, before)}
    if not drinks:
        return []
    held: dict[str, set[str]] = {t: set() for t in drinks}
    for atom, positive, types in goal_atoms(problem.goal):
        if not positive or len(atom.args) != 2:
            continue
        first, second = (argument_type(a, types, problem.objects) for a in atom.args)
        if atom.predicate in SUBSTANCE_HOLDING and second in held and first:
            held[second].add(first)
        elif atom.predicate in ("inside", "ontop") and first in held and second:
            held[first].add(second)
    read = read_instruction(instruction)
    places = placement_words(instruction) if places is None else places
    out = []
    for drink, holders in sorted(held.items()):
        if any(_serves_drinks(h) for h in holders):
            continue
        # the drink named before a placement, in its clause, whose target is where the goal holds it
        if any(p.target is not None and any(grounds_in(p.target.phrase, p.target.synset, {h}, loose=False)
                                            for h in holders)
               and any(grounds_in(m.phrase, m.synset, {drink}, loose=False) and m.end <= p.target.start
                       and read.clause_of[m.start] == read.clause_of[p.target.start] for m in read.mentions)
               for p in places):
            continue
        where = f"only in {', '.join(sorted(holders))}" if holders else "in nothing"
        out.append(f"the goal makes {drink}, a drink, and holds it {where}: nothing to drink or pour it from")
    return out


#: Words that take things out of or off something ("take the salmon out of the fridge", "remove
#: the books from the shelf", "clear the table"): where one is said, a goal may unplace things.
REMOVAL_WORDS = frozenset("out off remove removes removing away empty empties emptying clear clears clearing "
                          "unload unloads unloading unpack unpacks unpacking pick picking lift lifting".split())


def unasked_removals(instruction: str | ReadInstruction, problem: Problem) -> list[str]:
    """Each ``(not (inside x y))`` / ``(not (ontop x y))`` of the goal, for a kind of object the goal
    puts nowhere else, where the instruction has no word that takes things out or off
    (:data:`REMOVAL_WORDS`): Qwen 1.5B wrote ``(forall (?pill_bottle - pill_bottle) (not (inside
    ?pill_bottle ?sack_1)))`` for "bag up the pill bottles", a goal that keeps them out of the bag.
    ("from" is not such a word: "my meds from the pharmacy".)"""
    if asks_removal(instruction):
        return []
    placed = placed_kinds(problem)
    out = []
    for atom, positive, types in goal_atoms(problem.goal):
        if not positive and (removed := removal_of(atom, types, problem, placed)) is not None:
            what, where = removed
            out.append(f"the goal takes {what} {'out of' if atom.predicate == 'inside' else 'off'} {where} "
                       f"((not ({atom.predicate} ...))), but the instruction asks to take nothing out or off")
    return list(dict.fromkeys(out))


def asks_removal(instruction: str | ReadInstruction) -> bool:
    """The instruction has a word that takes things out or off (:data:`REMOVAL_WORDS`)."""
    return any(w in REMOVAL_WORDS for w in _reading(instruction).words)


def placed_kinds(problem: Problem) -> set[str | None]:
    """The kinds of object the goal puts somewhere (a positive placement literal)."""
    return {argument_type(atom.args[0], types, problem.objects) for atom, positive, types in goal_atoms(problem.goal)
            if positive and atom.predicate in RELATION_WORDS.values() and atom.args}


def removal_of(atom: Atom, types: dict[str, str], problem: Problem,
               placed: set[str | None]) -> tuple[str, str] | None:
    """(what, where) when the negated ``atom`` takes a kind the goal puts nowhere else (``placed``)
    out of or off something; None for any other atom (leaving a place is part of going elsewhere)."""
    if atom.predicate not in ("inside", "ontop") or len(atom.args) != 2:
        return None
    what = argument_type(atom.args[0], types, problem.objects) or atom.args[0]
    if what in placed:
        return None
    return what, argument_type(atom.args[1], types, problem.objects) or atom.args[1]


def _list_clauses(read: ReadInstruction) -> list[int]:
    """Per word, its clause, where a clause that opens with a determiner or an object name goes on
    the list of the one before it in its sentence ("put the vest, the dress and the jersey on hangers")."""
    out: list[int] = []
    for i, clause in enumerate(read.clause_of):
        opens = i == 0 or clause != read.clause_of[i - 1]
        same_sentence = i > 0 and read.sentence_of[i] == read.sentence_of[i - 1]  # "... washer? Detergent's in ..."
        if opens and same_sentence and (read.words[i] in _DETERMINERS or read.object_at(i) is not None):
            out.append(out[-1])
        else:
            out.append(out[-1] + 1 if opens and i else (out[-1] if out else 0))
    return out


def misplacements(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A placement the instruction states ("stack the tortillas on the plate") where the goal puts
    things at that target only by another relation (``(inside ?tortilla ?plate)``): the goal
    places them otherwise than asked. A target the goal never places anything at is
    :func:`empty_places`'s. A target only the scene explains (:func:`scene_mentions`:
    "load them into the cart", with a shopping cart) counts as named. ``places``: the
    instruction's :func:`placement_words`, where the caller has them."""
    return [f"the instruction says '{place.said} the {target.phrase}', which asks for "
            f"({place.relation} ?x ?{target.phrase.replace(' ', '_')}), but the goal has only "
            + " and ".join(f"({r} ...)" for r in sorted(used)) + " there"
            for place, target, used in other_relations(instruction, problem, places)]


def placement_targets(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                      ) -> list[tuple[PlacementWord, Mention]]:
    """Each placement word of the instruction that names a target, with it: the object named after
    the preposition, else a word only the scene explains ("load them into the *cart*", with a
    shopping cart). ``places``: the instruction's :func:`placement_words`, where the caller has them."""
    read = read_instruction(instruction)
    scene_words = dict(scene_mentions(instruction, set(problem.objects.values())))
    return [(place, target) for place in (placement_words(instruction) if places is None else places)
            if (target := _placement_target(read, place, scene_words)) is not None]


def other_relations(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                    ) -> list[tuple[PlacementWord, Mention, set[str]]]:
    """(placement word, its target, the relations the goal uses there) for each placement the
    instruction states where the goal puts things at that target only by other relations (see
    :func:`misplacements`)."""
    out = []
    for place, target in placement_targets(instruction, problem, places):
        if not place.relation:
            continue
        used = {atom.predicate for atom, positive, types in goal_atoms(problem.goal)
                if positive and atom.predicate in RELATION_WORDS.values() and len(atom.args) == 2
                and (typ := argument_type(atom.args[1], types, problem.objects)) is not None
                and grounds_in(target.phrase, target.synset, {typ}, loose=False)}
        if used and place.relation not in used:
            out.append((place, target, used))
    return out


#: Words before a container's name that ask for one thing in each ("one plant per pot", "each in
#: its own pot", "in separate bags").
_ONE_EACH = frozenset("per own separate".split())
#: "one on top of the other", "on top of each other", "on top of one another": a stack of like things.
_STACKED = (("on", "top", "of", "the", "other"), ("on", "top", "of", "each", "other"),
            ("on", "top", "of", "one", "another"))


def _each_filled(read: ReadInstruction, problem: Problem) -> list[str]:
    """*Something in each* ("a couple in **each jar**", "one on every plate"): a container named
    right after "each" or "every" that follows "in"/"into"/"on"/"onto", of which the scene has
    several, where the goal puts things in (or on) some but not all of them."""
    out = []
    for m in read.mentions:
        k, before = _word_before(read, m)
        if before not in ("each", "every") or k < 1 or read.words[k - 1] not in ("in", "into", "on", "onto"):
            continue
        instances = m.instances_in(problem.objects)
        if len(instances) < 2:
            continue
        used: set[str] = set()
        for atom, placed, types in goal_atoms(problem.goal):
            if placed and atom.predicate in ("inside", "ontop", "contains", "filled") and len(atom.args) == 2:
                holder = atom.args[1] if atom.predicate in ("inside", "ontop") else atom.args[0]
                used.update(i for i in argument_instances(holder, types, problem.objects) if i in instances)
        if used and used != instances:
            out.append(f"the instruction puts something in each {m.phrase!r}, but the goal puts nothing in "
                       + ", ".join(sorted(instances - used)))
    return out


def arrangements(instruction: str, problem: Problem) -> list[str]:
    """Three arrangements the instruction states and the goal contradicts or leaves out
    (*something in each*: :func:`_each_filled`):
    * *one per container* ("one plant per pot", "each in its own pot"): the goal puts several
      things in (or on) one instance of that container, by a ``forall`` over a kind with several
      instances or by two ground literals;
    * *a stack* ("stack them one on top of the other"): the goal puts nothing on top of a thing of
      its own kind (``(ontop ?tortilla_2 ?tortilla_1)``).
    ``forpairs`` is a one-to-one matching, so it crowds nothing; an instance counts once."""
    read = _reading(instruction)
    out = []
    counts = Counter(problem.objects.values())
    # Variables a forall binds (BEHAVIOR names them after their type, so one name is one kind).
    universal = {p.var for q in iter_quantifiers(problem.goal) if q.kind == "forall" for p in q.params}
    for m in read.mentions:
        if _word_before(read, m)[1] not in _ONE_EACH:
            continue
        crowded: dict[str, set[str]] = {}  # container instance -> what the goal puts there
        for atom, placed, types in goal_atoms(problem.goal):
            if (not placed or atom.predicate not in ("inside", "ontop") or len(atom.args) != 2
                    or atom.args[1] not in problem.objects
                    or not grounds_in(m.phrase, m.synset, {problem.objects[atom.args[1]]}, loose=False)):
                continue
            thing = atom.args[0]  # every instance of a kind, under a forall; else one thing
            crowded.setdefault(atom.args[1], set()).add(types[thing] if thing in universal else thing)
        for container, things in sorted(crowded.items()):
            n = sum(counts.get(t, 1) for t in things)
            if n > 1:
                out.append(f"the instruction asks for one per {m.phrase!r}, but the goal puts {n} things in or on "
                           f"{container}")
    out += _each_filled(read, problem)
    words = read.words
    if any(words[i:i + len(run)] == run for run in _STACKED for i in range(len(words))):
        stacked = any(atom.predicate == "ontop" and positive and len(atom.args) == 2
                      and (a := argument_type(atom.args[0], types, problem.objects)) is not None
                      and a == argument_type(atom.args[1], types, problem.objects)
                      for atom, positive, types in goal_atoms(problem.goal))
        if not stacked:
            out.append("the instruction says 'on top of' one another, which asks for (ontop ?x ?y) of two things "
                       "of one kind, but the goal has none")
    return out
