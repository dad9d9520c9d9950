"""Where an instruction puts things: its placement words (:func:`placement_words`: a preposition
after a verb that moves things, with its target), what each moves (:func:`moved_by`), and the
checks that hold a drafted goal to them: a target the goal puts nothing at (:func:`empty_places`),
a thing put elsewhere (:func:`placed_elsewhere`), another relation (:func:`misplacements`), an
arrangement ("one per pot", "on top of each other": :func:`arrangements`), and the plurals asked
all of (:func:`asked_for_all`), which leave placement targets out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from symplan_core.bddl import Atom, Problem
from symplan_core.bddl.checks import (
    argument_instances,
    argument_type,
    goal_atoms,
    iter_atoms,
    iter_quantifiers,
)
from symplan_core.engine.predicates import (
    HANGING_PLACES,
    OBJECT_RELATIONS,
    SUBSTANCE_HOLDING,
    SUPPORT_RELATIONS,
)
from symplan_core.perception.goal_reading import (
    APPLIANCE_STATES,
    drape_places,
    goal_polarities,
    initial_facts,
)
from symplan_core.perception.object_words import (
    DEFINITE,
    FETCH_VERBS,
    MAKING_VERBS,
    TAKEN_PRONOUNS,
    emptied_sources,
    governing_word,
    incidental_objects,
    instruction_objects,
    plural_mentions,
    reading_of,
    scene_mentions,
    scene_reading,
    sounds_plural,
    word_before,
)
from symplan_core.perception.synsets import (
    Mention,
    ReadInstruction,
    grounds_in,
    is_substance,
    read_instruction,
)
from symplan_core.perception.verbs import (
    DETERMINERS,
    GOING_PARTICLES,
    GOING_VERBS,
    PLACE_PHRASES,
    PLACEMENT_VERBS,
    POSSESSIVES,
    RELATION_WORDS,
    STATE_VERBS,
    SUBJECTS,
    TOGGLE_VERBS,
    StateWord,
    described,
    moves_things,
    state_words,
    verb_forms,
)
from symplan_core.tasks import synset_info


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


@dataclass(frozen=True)
class PlacementWord:
    """A placement preposition of the instruction ("in" of "put the cup in the sink"), the relation
    it asks for, and the object named right after it (the target), if any."""

    said: str
    relation: str  # "" for a place with no one relation (:data:`ANY_PLACE_WORDS`)
    target: Mention | None
    end: int = -1  # the reading's first word after the preposition


#: Prepositions of motion: a thing goes there whatever the verb ("fold the doilies onto the
#: wardrobe"), where "in" or "on" after a verb that moves nothing says where a thing is or is done.
_MOTION_WORDS = frozenset(("onto", "into"))


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
        movers = [j for j in range(i) if sentence[j] == sentence[i] and moves_things(read, j)
                  and (read.words[j] not in GOING_VERBS or _goes_to(read, j, i))]
        if not movers and (read.words[i] not in _MOTION_WORDS or any(
                described(read, j) for j in range(i) if read.clause_of[j] == read.clause_of[i])) \
                and not _verbless_placement(read, i):
            continue  # no verb that moves things before it in its clause: not where something goes
        if movers and any(movers[-1] < w.position < i and read.words[w.position] not in PLACEMENT_VERBS
                          for w in words):
            continue  # a state verb after it: "get the tofu and cook it in the wok" says where it cooks
        for phrase, predicate in PLACE_PHRASES:
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


#: Words that make a clause more than names and a place: verbs, "is"/"are", subjects.
_CLAUSE_VERBS = frozenset({*(f for verb in STATE_VERBS for f in verb_forms(verb)), *PLACEMENT_VERBS, *TOGGLE_VERBS,
                           *MAKING_VERBS, *FETCH_VERBS, *SUBJECTS,
                           *"is are was were be been being goes go went stays stay".split()})


def _goes_to(read: ReadInstruction, verb: int, i: int) -> bool:
    """The preposition at ``i`` is the one of the :data:`GOING_VERBS` verb at ``verb``, in its
    clause and right after it ("the pots go in", "can all go up on"): "the pots go in the cabinet,
    the blanket can be folded up on the bed" puts no pot on the bed."""
    return (read.clause_of[verb] == read.clause_of[i]
            and all(read.words[k] in GOING_PARTICLES for k in range(verb + 1, i)))


def _verbless_placement(read: ReadInstruction, i: int) -> bool:
    """A terse request's clause of names (the first one a name or a plural), a placement
    preposition at ``i`` and its place, in a request with no verb or subject we know ("Stamps on
    counter, cash in register.", "Sandals by the bed, book on a table."): it says where things
    go. Not where the clause goes on after the place ("the towels on the bed are clean"), nor
    beside a verb elsewhere ("Can you saute the veggies? ... green beans in some butter")."""
    clause = [j for j in range(len(read.words)) if read.clause_of[j] == read.clause_of[i]]
    before, after = [j for j in clause if j < i], [j for j in clause if j > i]
    first = before[0] if before else 0
    # "Stamps on counter", "Sticker on the license plate." (a name only the scene explains; not
    # before "at": "look at the mailbox")
    named_first = (read.object_at(first) is not None or sounds_plural(read.words[first])
                   or (not read.function[first] and read.words[i] != "at"))
    return (bool(before) and 0 < len(after) <= 4 and named_first
            and not any(w in _CLAUSE_VERBS for w in read.words)
            and not any(read.words[j] in _RELATION_FIRST_WORDS for j in clause if j != i))


#: The first word of each placement preposition ("next" of "next to").
_RELATION_FIRST_WORDS = frozenset(phrase[0] for phrase in RELATION_WORDS)


def _where_args(atom: Atom) -> tuple[str, ...]:
    """The places of a literal that say where things are: both of an object relation, the holder
    of a container's ``filled``/``contains``/``insource``, and what a ``covered`` covers ("put some
    lube on it": the chain covered with lubricant)."""
    if atom.predicate in OBJECT_RELATIONS:
        return atom.args
    return atom.args[:1] if atom.predicate in (*SUBSTANCE_HOLDING, "covered") else ()


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
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    read_as = dict(instruction_objects(instruction, scene))  # "onto the shelf" with a bookcase: the bookcase
    asked = goal_polarities(problem.goal, dict(problem.objects)).keys()
    out = []
    for place in placement_words(instruction) if places is None else places:
        target, said = _placement_target(read, place, scene_words), "the"
        if target is None and (target := _it_target(read, place)) is not None:
            said = "it"
        if target is not None and target.phrase in read_as and not grounds_in(target.phrase, target.synset, scene,
                                                                               loose=False):
            target = replace(target, synset=read_as[target.phrase])
        if target is None or is_substance(target.synset, "omnigibson") or not (kind := grounds_in(
                target.phrase, target.synset, scene, loose=False)):
            continue  # a target the scene lacks ("on the wall": the nail is the goal's) is the objects axis's
        if _where_processed(kind, asked) or _on_where_processed(problem, kind, asked):
            continue
        named = target.instances_in(problem.objects)
        there = _at_target(problem, target)  # what starts at the target counts as a place there, not as moved there
        related = any(_names_one_of(a, types, named, problem) or (a == _place_arg(atom)
                                                                 and _names_one_of(a, types, there, problem))
                      for atom, positive, types in goal_atoms(problem.goal) if positive and len(atom.args) == 2
                      for a in _where_args(atom))
        if not related:
            where = f"'{place.said} it' (the {target.phrase})" if said == "it" else f"'{place.said} the {target.phrase}'"
            asks = (f"({place.relation} ?x ?{target.phrase.replace(' ', '_')})" if place.relation
                    else "something put there")
            out.append(f"the instruction says {where}, which asks for {asks}, but the goal puts nothing there")
    return out


def _names_one_of(arg: str, types: dict[str, str], instances: set[str], problem: Problem) -> bool:
    """A goal literal's argument stands for one of ``instances``: it is one, or a variable (of
    ``types``) over the kind of one."""
    if arg in types:
        return types[arg] in {problem.objects[i] for i in instances}
    return arg.lstrip("?") in instances


def _place_arg(atom: Atom) -> str:
    """The argument of a where-literal that is the place: the second of an object relation, the
    first (the holder) of a container's or a covering's literal."""
    return atom.args[1] if atom.predicate in OBJECT_RELATIONS else atom.args[0]


def _it_target(read: ReadInstruction, place: PlacementWord) -> Mention | None:
    """What "it" after a placement's preposition stands for: the last thing (not a substance, nor
    one :data:`_NOT_IT` governs) named before the verb that moves things ("fill the glass with water
    and put ice in it": the glass; "serve a plate with the chicken, put the bap on it": the plate)."""
    if not (0 <= place.end < len(read.words) and read.words[place.end] == "it"):
        return None
    return _antecedent(read, max((j for j in range(place.end) if moves_things(read, j)), default=-1))


def _antecedent(read: ReadInstruction, verb: int) -> Mention | None:
    """The last thing named before the verb at ``verb`` that "it" may stand for (see
    :func:`_it_target`). Where that is only the place an earlier "it" was put ("set it on the
    breakfast table, and place a spoon next to it"), it is what that earlier "it" stands for: the
    plate."""
    found = max((m for m in read.mentions if m.end <= verb and not is_substance(m.synset, "omnigibson")
                 and governing_word(read, m) not in _NOT_IT), key=lambda m: m.end, default=None)
    if found is None:
        return None
    k = found.start - 1
    while k > 0 and read.words[k] in DETERMINERS:
        k -= 1
    # "set it on the table": the verb, "it", one preposition, the place
    if k >= 2 and read.words[k] in _RELATION_LAST_WORDS and read.words[k - 1] == "it" and moves_things(read, k - 2):
        return _antecedent(read, k - 2) or found
    return found


#: The last word of each placement preposition ("to" of "next to"), as it stands before its place.
_RELATION_LAST_WORDS = frozenset(phrase[-1] for phrase in RELATION_WORDS)


#: Words governing a name that "it" does not stand for: what comes with another thing, and what a
#: verb moves ("serve a plate with the chicken, put the bap on it, and place a spoon next to it":
#: both are the plate).
_NOT_IT = frozenset({"with", *PLACEMENT_VERBS})


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
             scene_words: dict[str, str] | None = None, scene: AbstractSet[str] = frozenset()) -> list[Mention]:
    """The things (not substances) a placement moves: the names between the verb that moves things
    and the preposition ("set **the basket** on the counter"), after an earlier placement's target
    in between ("put a steak on each slice and **each slice** on a plate"). ``places``: the
    instruction's :func:`placement_words`, where the caller has them; ``scene_words``
    (:func:`scene_mentions`): words only the scene explains count as names too ("the rod"); a
    substance's name that names a thing of the ``scene`` types counts as that thing ("the cream
    cheese", with a bag of cream cheese)."""
    read = read_instruction(instruction)
    places = placement_words(instruction) if places is None else places
    span = _moved_span(read, instruction, place, places)
    if span is None:
        return []
    start, at = span
    named = [*read.mentions, *(Mention(w, scene_words[w], k, k + 1) for k, w in enumerate(read.words)
                               if scene_words and w in scene_words and read.object_at(k) is None)]
    moved = [m for m in named if start <= m.start and m.end <= at and m != place.target
             and (not is_substance(m.synset, "omnigibson")
                  or any(not is_substance(t, "omnigibson") and grounds_in(m.phrase, m.synset, {t}, loose=False)
                         for t in scene))]
    if not moved and start < at and read.words[start] == "them" and (them := _plural_before(read, named, start, places)):
        return [them]
    return moved


def _plural_before(read: ReadInstruction, named: list[Mention], position: int,
                   places: list[PlacementWord]) -> Mention | None:
    """What "them" at ``position`` stands for in a placement ("scrub all six oysters, put them in
    the container"): the one plural thing named before it that is no place; None where the words
    before name several such things, or none."""
    targets = {p.target for p in places if p.target is not None}
    before = [m for m in named if m.end <= position and m not in targets
              and not is_substance(m.synset, "omnigibson") and _said_plural(read, m)]
    return max(before, key=lambda m: m.end) if len({m.phrase for m in before}) == 1 else None


def _said_plural(read: ReadInstruction, m: Mention) -> bool:
    """``m`` is said as several things: a plural word, or after "both" ("both salmon")."""
    return sounds_plural(read.words[m.end - 1]) or word_before(read, m)[1] == "both"


def _moved_span(read: ReadInstruction, instruction: str, place: PlacementWord,
                places: list[PlacementWord] | None) -> tuple[int, int] | None:
    """Where a placement's moved things are said: (first word, the preposition) of the words
    between the verb that moves things and the preposition, after an earlier placement's target
    in between (see :func:`moved_by`); None with no such verb."""
    at = place.end - len(place.said.split())  # the preposition
    places = placement_words(instruction) if places is None else places
    clause = _list_clauses(read)  # "put the corn flakes, the baguette, ... on the counter": one list
    verb = max((j for j in range(at) if clause[j] == clause[at] and moves_things(read, j)
                and (read.words[j] not in GOING_VERBS or _goes_to(read, j, at))), default=None)
    if verb is None:  # "Sticker on the license plate.": the names of the clause before the place
        first = min(k for k in range(at + 1) if read.clause_of[k] == read.clause_of[at])
        return (first, at) if _verbless_placement(read, at) else None
    if read.words[verb] in GOING_VERBS:  # "the pots go in the cabinet": what goes is said before its verb
        first = min(k for k in range(verb + 1) if read.clause_of[k] == read.clause_of[verb])
        while first and _names_only(read, read.clause_of[first - 1]):  # "Laptop, battery, and the DVDs can go"
            first = min(k for k in range(first) if read.clause_of[k] == read.clause_of[first - 1])
        return max([first, *((p.target.end if p.target else p.end) for p in places if first < p.end <= verb)]), verb
    if read.clause_of[verb] != read.clause_of[at]:
        # across a list's commas only where the list runs up to the preposition: in "bring the rake,
        # ..., the plants to the checkout and pay at the register" "at" is another verb's
        last = max((m.end for m in read.mentions if verb < m.start and m.end <= at), default=verb + 1)
        if any(w in _PHRASE_ENDS or w == "then" for w in read.words[last:at]):
            return None
    # "put the bag in the cart and pay at the register": "and" before a word that is no name opens
    # another verb's phrase, whose place this is
    if any(read.words[k] in _PHRASE_ENDS and k + 1 < at and read.words[k + 1] not in DETERMINERS
           and read.object_at(k + 1) is None and not sounds_plural(read.words[k + 1])
           and any(verb < p.end <= k for p in places) for k in range(verb + 1, at)):
        return None
    return max([verb + 1, *(_place_end(read, p) for p in places if verb < p.end <= at)]), at


def _place_end(read: ReadInstruction, place: PlacementWord) -> int:
    """Where a placement's place ends: after its target, or after the word past its determiners
    that only the scene may explain ("set it down on the ground next to the door": the ground)."""
    if place.target is not None:
        return place.target.end
    k = place.end
    while k < len(read.words) and read.words[k] in DETERMINERS:
        k += 1
    return k + 1 if k < len(read.words) and not read.function[k] else place.end


def _names_only(read: ReadInstruction, clause: int) -> bool:
    """The clause says nothing but names ("Laptop, battery, the book, and ..."): a list going on."""
    return all(w in DETERMINERS or w in _PHRASE_ENDS or read.object_at(k) is not None or sounds_plural(w)
               for k, w in enumerate(read.words) if read.clause_of[k] == clause)


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
            if read.words[k - 1] in DEFINITE and sounds_plural(read.words[k]) and read.object_at(k) is None
            and (k + 1 == at or read.words[k + 1] in _PHRASE_ENDS | DETERMINERS)]


def placed_elsewhere(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A thing the instruction moves to a named target ("set **the basket** on the counter": the
    names between the verb that moves things and the preposition) that the goal puts somewhere
    else, and nowhere at the target (or at what the initial state holds there): Qwen 1.5B put the
    basket on the floor and the money on the checkout. So is a thing (no substance) the goal names
    and places nowhere, while the start has it elsewhere: "dry off the kayak, ... and put the kayak
    on the rack", drafted as the kayak dried (Qwen 1.5B, untuned9 direct). A thing the goal never
    names is the objects axis's business. ``places``: the instruction's :func:`placement_words`,
    where the caller has them."""
    return [f"the instruction puts the {thing.phrase} '{place.said} the {target.phrase}', but the goal "
            + (f"puts it only at {', '.join(sorted(put))}" if put else "puts it nowhere")
            for place, target, thing, put in things_placed_elsewhere(instruction, problem, places)]


def substances_placed_elsewhere(instruction: str, problem: Problem,
                                places: list[PlacementWord] | None = None) -> list[str]:
    """A substance a placement puts "in" a target ("plant some pumpkin seeds in it", "pour the milk
    into the glass": named between the verb that moves things and the preposition) that the goal
    holds or spreads, but never in the target: Qwen 1.5B answered "Plant pumpkin seeds in the pot"
    with the pot covered in seeds, and with the seeds kept in their bag. A substance the goal
    never holds is left to the other checks (it may be what is made of it)."""
    read = read_instruction(instruction)
    places = placement_words(instruction) if places is None else places
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    out = []
    for place in places:
        target = _placement_target(read, place, scene_words) or _it_target(read, place)
        span = _moved_span(read, instruction, place, places)
        if place.relation != "inside" or target is None or span is None or is_substance(target.synset, "omnigibson"):
            continue
        targets = {t for t in scene if grounds_in(target.phrase, target.synset, {t}, loose=False)}
        for m in read.mentions:
            if not (span[0] <= m.start and m.end <= span[1]) or not is_substance(m.synset, "omnigibson"):
                continue
            kinds = {t for t in scene if grounds_in(m.phrase, m.synset, {t}, loose=False)}
            held_in, elsewhere = set(), set()
            for atom, positive, types in goal_atoms(problem.goal):
                if not positive or len(atom.args) != 2 or argument_type(atom.args[1], types, problem.objects) not in kinds:
                    continue
                holder = argument_type(atom.args[0], types, problem.objects)
                if atom.predicate in SUBSTANCE_HOLDING:
                    held_in.add(holder)
                elif atom.predicate == "covered":
                    elsewhere.add(f"covering {holder}")
            if targets and not held_in & targets and (held_in or elsewhere):
                where = ", ".join(sorted({f"in {h}" for h in held_in} | elsewhere))
                said = f"it' (the {target.phrase})" if _names_it(read, place) else f"the {target.phrase}'"
                out.append(f"the instruction puts the {m.phrase} '{place.said} {said}, but the goal has it only {where}")
    return out


def things_placed_elsewhere(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                            ) -> list[tuple[PlacementWord, Mention, Mention, set[str]]]:
    """(placement word, its target, the thing it moves, where the goal puts that thing instead) for
    each of :func:`placed_elsewhere`."""
    out = []
    mentioned = {i for atom, _positive, types in goal_atoms(problem.goal) for a in atom.args
                 for i in argument_instances(a, types, problem.objects)}
    for place, target, there, m, things, held_by, reach in _moved_to_targets(instruction, problem, places):
        put = set().union(*(held_by.get(i, set()) for i in things))
        if put and not _reached(reach, set().union(*(reach.get(i, set()) for i in things))) & there:
            if not put & there:  # at the target by another relation: :func:`misplacements` says so
                out.append((place, target, m, put))
        elif not put and things & mentioned and not things & there and not any(
                is_substance(problem.objects[i], "omnigibson") for i in things):
            out.append((place, target, m, put))  # "put the kayak on the rack": the kayak dried, put nowhere
    return out


def partly_placed(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A plural a placement moves ("put all the strawberries in a bowl": every one there is,
    :func:`plural_mentions`) of which the goal puts some at the target and the others nowhere there:
    Qwen 1.5B put one strawberry of six in the bowl and covered the rest with cream (untuned12
    direct). ``places``: the instruction's :func:`placement_words`, where the caller has them."""
    plurals = {(m.start, m.end) for m in plural_mentions(read_instruction(instruction))}
    out = []
    for place, target, there, m, things, _held, reach in _moved_to_targets(instruction, problem, places):
        things = things - there  # "the bags into the backpack": the backpack is no bag moved
        if (m.start, m.end) not in plurals or len(things) < 2:
            continue
        left = sorted(i for i in things if not _reached(reach, reach.get(i, set())) & there)
        if left and len(left) < len(things):
            out.append(f"the instruction puts the {m.phrase} '{place.said} the {target.phrase}', all {len(things)} "
                       f"in the scene, but the goal puts {', '.join(left)} nowhere there")
    return out


def reversed_placements(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """A thing a placement moves that the goal relates to the target only the other way round: "Sticker
    on the license plate.", drafted as ``(attached ?license_plate ?sticker)`` (Qwen 1.5B, untuned12
    terse, accepted and wrong), or the curtain "on the board" as the board on the curtain."""
    target_first: dict[tuple[str, str], set[str]] = {}  # (target, thing) -> relations, target first
    thing_first: set[tuple[str, str]] = set()
    pairs = [(place, target, there, things) for place, target, there, _m, things, _held, _reach
             in _moved_to_targets(instruction, problem, places)]
    for atom, positive, types in goal_atoms(problem.goal):
        # (overlaid napkin knife) is the knife "in the napkin": a cloth spread over is where it goes
        if not positive or atom.predicate not in OBJECT_RELATIONS or atom.predicate == "overlaid" or len(atom.args) != 2:
            continue
        first, second = (argument_instances(a, types, problem.objects) for a in atom.args)
        for a in first:
            for b in second:
                target_first.setdefault((a, b), set()).add(atom.predicate)
                thing_first.add((a, b))
    out = []
    for place, target, there, things in pairs:
        backwards = {r for t in there for x in things for r in target_first.get((t, x), ())}
        if backwards and not any((x, t) in thing_first for x in things for t in there):
            out.append(f"the instruction puts something '{place.said} the {target.phrase}', but the goal has "
                       + " and ".join(f"({r} {target.phrase} ...)" for r in sorted(backwards))
                       + ": the other way round")
    return list(dict.fromkeys(out))


#: Verbs that name the container they put things in ("bag the potatoes", "box it all up", "trash
#: the junk", "recycle the paper", "shelve the rest"), with a name of that container.
CONTAINER_VERBS: dict[str, str] = {
    **dict.fromkeys(("bag", "bagging"), "bag"), **dict.fromkeys(("box", "boxing"), "box"),
    **dict.fromkeys(("trash", "trashing"), "trash can"), **dict.fromkeys(("recycle", "recycling"), "recycling bin"),
    **dict.fromkeys(("shelve", "shelving"), "shelf"),
}


def unfilled_containers(instruction: str, problem: Problem) -> list[str]:
    """A verb that names its container (:data:`CONTAINER_VERBS`) said as a request ("Bag potatoes",
    "could you box it all up", "Trash the junk"), where the scene has such containers and the goal
    puts nothing of what the verb acts on (anything, where that is "it", "them" or unnamed) in or
    on one. Qwen 1.5B answered "Trash the junk, keep the tray." with the tray kept dry and nothing
    in the trash can (untuned12 terse, accepted and wrong)."""
    read = read_instruction(instruction)
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    out = []
    for i, word in enumerate(read.words):
        if word not in CONTAINER_VERBS or not _said_as_verb(read, i):
            continue
        said = f"put it in the {CONTAINER_VERBS[word]}"  # read as the objects axis reads it: a shelf, the bookcase
        name = read_instruction(said).mentions[-1]
        read_as = dict(instruction_objects(said, scene)).get(name.phrase, name.synset)
        containers = {t for t in scene if grounds_in(name.phrase, read_as, {t}, loose=False)}
        if not containers:
            continue
        acted = object_after_verb(read, i, scene_words)
        kinds = {t for t in scene if grounds_in(acted.phrase, acted.synset, {t}, loose=False)} if acted else set()
        put = any(positive and len(atom.args) == 2 and (
                      (atom.predicate in ("inside", "ontop") and argument_type(atom.args[1], types, problem.objects)
                       in containers and (not kinds or argument_type(atom.args[0], types, problem.objects) in kinds))
                      or (atom.predicate in SUBSTANCE_HOLDING and argument_type(atom.args[0], types, problem.objects)
                          in containers))  # "jar up the beans": a jar filled with them
                  for atom, positive, types in goal_atoms(problem.goal))
        if not put:
            what = f"the {acted.phrase}" if acted else "anything"
            out.append(f"the instruction says '{word}', which puts {what} in a {CONTAINER_VERBS[word]} "
                       f"({', '.join(sorted(containers))}), but the goal puts nothing there")
    return out


def _said_as_verb(read: ReadInstruction, i: int) -> bool:
    """The word at ``i`` opens its clause, or follows "please", a modal or "you" ("could you box it
    all up"), and something it acts on follows: a request's verb, not a name ("the trash bags")."""
    k = i - 1
    while k >= 0 and read.clause_of[k] == read.clause_of[i] and read.words[k] in _VERB_OPENERS:
        k -= 1
    opens = k < 0 or read.clause_of[k] != read.clause_of[i]
    follows = i + 1 < len(read.words) and read.clause_of[i + 1] == read.clause_of[i] and (
        read.words[i + 1] in DETERMINERS or read.words[i + 1] in _ACTED_PRONOUNS or read.words[i + 1] == "up"
        or read.object_at(i + 1) is not None or sounds_plural(read.words[i + 1]))
    return opens and follows


_VERB_OPENERS = frozenset("please you could can would will just also then and mind".split())
_ACTED_PRONOUNS = frozenset("it them everything all".split())


def object_after_verb(read: ReadInstruction, position: int, scene_words: dict[str, str]) -> Mention | None:
    """The object a verb at ``position`` names right after it ("fry up **those brats**": past
    determiners and a particle), a word only the scene explains (``scene_words``) included; None
    where something else comes first."""
    k = position + 1
    while k < len(read.words) and read.clause_of[k] == read.clause_of[position] and (
            read.words[k] in DETERMINERS or read.words[k] in ("up", "off", "out", "down")):
        k += 1
    if k >= len(read.words) or read.clause_of[k] != read.clause_of[position]:
        return None
    thing = read.object_at(k)
    if thing is None and read.words[k] in scene_words:  # "those brats": a word only the scene explains
        thing = Mention(read.words[k], scene_words[read.words[k]], k, k + 1)
    return thing if thing is not None and thing.start == k else None


def _moved_to_targets(instruction: str, problem: Problem, places: list[PlacementWord] | None,
                      ) -> list[tuple[PlacementWord, Mention, set[str], Mention, set[str], dict[str, set[str]],
                                       dict[str, set[str]]]]:
    """(placement word, its target, the instances there (:func:`_at_target`), a thing it moves, the
    instances that thing names, where the goal puts each thing, and what counts as reaching the
    target) for each thing a placement with a named target (no substance, nor a machine the goal
    runs) moves. Where the goal puts a thing: a place the goal puts in or on another is at that one
    too (the racket in the box, the box in the car: the racket is in the car); a thing a cloth is
    spread over is in that cloth too ("a knife and a spoon in each napkin": the napkin overlaid).
    "On" a target is reached only on it (on top, hung or draped) or on what is on it: a pen put in
    the backpack on the checkout is not "on the checkout" (untuned12 casual, accepted and wrong)."""
    read = read_instruction(instruction)
    places = placement_words(instruction) if places is None else places
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    asked = goal_polarities(problem.goal, dict(problem.objects)).keys()
    held_by: dict[str, set[str]] = {}
    stacked_on: dict[str, set[str]] = {}  # not inside: a pen in the backpack on the checkout is not on it
    for atom, positive, types in goal_atoms(problem.goal):
        if positive and atom.predicate in OBJECT_RELATIONS and len(atom.args) == 2:
            first, second = (argument_instances(a, types, problem.objects) for a in atom.args)
            for thing in first:
                held_by.setdefault(thing, set()).update(second)
                if atom.predicate in _ON_RELATIONS:
                    stacked_on.setdefault(thing, set()).update(second)
            for thing in second if atom.predicate == "overlaid" else ():
                held_by.setdefault(thing, set()).update(first)
    out = []
    for place in places:
        target = _placement_target(read, place, scene_words)
        if target is None or place.end < 0 or is_substance(target.synset, "omnigibson"):
            continue
        kind = grounds_in(target.phrase, target.synset, scene, loose=False)
        if kind and _where_processed(kind, asked):
            continue
        there = _at_target(problem, target)
        reach = stacked_on if place.relation == "ontop" else held_by
        for m in moved_by(instruction, place, places, scene_words, scene) if there else ():
            out.append((place, target, there, m, m.instances_in(problem.objects), held_by, reach))
    return out


#: The relations a thing said to go "on" a place may have to it, or to what is on it.
_ON_RELATIONS = frozenset(("ontop", "attached", "draped"))


def _reached(held_by: dict[str, set[str]], put: set[str]) -> set[str]:
    """``put`` and every place the goal puts those in or on, transitively."""
    reached, frontier = set(put), set(put)
    while frontier:
        frontier = set().union(*(held_by.get(i, set()) for i in frontier)) - reached
        reached |= frontier
    return reached


def _at_target(problem: Problem, target: Mention) -> set[str]:
    """The instances a placement target names, and what the initial state has at them (and the
    goal does not take away), which counts as the place too: a dress draped on a hanger that hangs
    in the wardrobe is "in the closet"."""
    there = target.instances_in(problem.objects)
    # what the goal takes out of or off the target is no longer at it: the tupperware that starts in
    # the fridge, drafted as (not (inside ?tupperware_1 ?fridge_1)) for "stick it in the fridge"
    taken = {atom.args[0] for atom, positive, _types in goal_atoms(problem.goal) if not positive
             and atom.predicate in OBJECT_RELATIONS and len(atom.args) == 2 and atom.args[1] in there}
    return there | {lit.args[0] for lit in problem.init if not lit.negated and lit.predicate in OBJECT_RELATIONS
                    and len(lit.args) == 2 and lit.args[1] in there and lit.args[0] not in taken}


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


def _on_where_processed(problem: Problem, kind: str, asked: AbstractSet[str]) -> bool:
    """Every instance of ``kind`` starts in or on a place where the goal's process happens
    (:func:`_where_processed`): "pop it in the oven on a baking sheet", the sheet in the oven, says
    how it is cooked, not where it ends up."""
    where = {lit.args[0]: lit.args[1] for lit in problem.init
             if not lit.negated and lit.predicate in SUPPORT_RELATIONS and len(lit.args) == 2}
    instances = [i for i, t in problem.objects.items() if t == kind]
    return bool(instances) and all(i in where and where[i] in problem.objects
                                   and _where_processed(problem.objects[where[i]], asked) for i in instances)


def _placement_target(read: ReadInstruction, place: PlacementWord, scene_words: dict[str, str]) -> Mention | None:
    """The object a placement names as its target: the one named after the preposition, else a
    word right after it (past determiners) that only the scene explains (:func:`scene_mentions`)."""
    if place.target is not None or not scene_words or place.end < 0:
        return place.target
    k = place.end
    while k < len(read.words) and read.words[k] in DETERMINERS:
        k += 1
    if k < len(read.words) and read.words[k] in scene_words:
        return Mention(read.words[k], scene_words[read.words[k]], k, k + 1)
    return None


def _list_clauses(read: ReadInstruction) -> list[int]:
    """Per word, its clause, where a clause that opens with a determiner, an object name or a plural
    goes on the list of the one before it in its sentence ("put the vest, the dress and the jersey
    on hangers", "put my coat, pants and wallet on the bed")."""
    out: list[int] = []
    for i, clause in enumerate(read.clause_of):
        opens = i == 0 or clause != read.clause_of[i - 1]
        same_sentence = i > 0 and read.sentence_of[i] == read.sentence_of[i - 1]  # "... washer? Detergent's in ..."
        # a plural name goes on a list that ends in a name ("my coat, pants and wallet"), not one that
        # ends otherwise ("put a tablecloth down, dogs on one plate")
        listed = i > 0 and (read.object_at(i - 1) is not None or sounds_plural(read.words[i - 1]))
        if opens and same_sentence and (read.words[i] in DETERMINERS or read.object_at(i) is not None
                                        or (sounds_plural(read.words[i]) and listed)):
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
    read = read_instruction(instruction)
    return [f"the instruction says '{place.said} " + (f"it' (the {target.phrase})" if _names_it(read, place)
                                                       else f"the {target.phrase}'")
            + f", which asks for ({place.relation} ?x ?{target.phrase.replace(' ', '_')}), but the goal has only "
            + " and ".join(f"({r} ...)" for r in sorted(used)) + " there"
            for place, target, used in other_relations(instruction, problem, places, with_it=True)]


def _names_it(read: ReadInstruction, place: PlacementWord) -> bool:
    """The placement's target is said as "it" ("place a spoon next to it")."""
    return place.target is None and 0 <= place.end < len(read.words) and read.words[place.end] == "it"


def placement_targets(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                      ) -> list[tuple[PlacementWord, Mention]]:
    """Each placement word of the instruction that names a target, with it: the object named after
    the preposition, else a word only the scene explains ("load them into the *cart*", with a
    shopping cart). ``places``: the instruction's :func:`placement_words`, where the caller has them."""
    read = read_instruction(instruction)
    scene_words = dict(scene_mentions(instruction, set(problem.objects.values())))
    return [(place, target) for place in (placement_words(instruction) if places is None else places)
            if (target := _placement_target(read, place, scene_words)) is not None]


def named_place_types(instruction: str, problem: Problem) -> set[str]:
    """The scene's types that the instruction's placement words name as a target, read strictly
    (``grounds_in(..., loose=False)``): "in the *cart*" names the shopping cart, not the basket."""
    return {typ for _place, target in placement_targets(instruction, problem)
            for typ in problem.types if grounds_in(target.phrase, target.synset, {typ}, loose=False)}


#: Words that hang or drape things: with one, a thing draped "on" a place is put there as asked.
_HANGING_WORDS = frozenset("hang hangs hanging hung drape drapes draping draped".split())


def other_relations(instruction: str, problem: Problem, places: list[PlacementWord] | None = None,
                    with_it: bool = False) -> list[tuple[PlacementWord, Mention, set[str]]]:
    """(placement word, its target, the relations the goal uses there) for each placement the
    instruction states where the goal puts things at that target only by other relations (see
    :func:`misplacements`). ``with_it``: a target said as "it" counts too ("place a spoon next to
    it", :func:`_it_target`)."""
    out = []
    read = read_instruction(instruction)
    hung = any(w in _HANGING_WORDS for w in read.words)
    targets = placement_targets(instruction, problem, places)
    if with_it:  # a place said as "it" has no named target, so none is listed twice
        targets += [(place, it) for place in (placement_words(instruction) if places is None else places)
                    if _names_it(read, place) and (it := _it_target(read, place))]
    for place, target in targets:
        if not place.relation:
            continue
        # a thing draped where nothing is hung, on no place things drape on ("set them up on the
        # wardrobe", drafted as the doilies draped on it) is placed otherwise than asked too
        draped = () if hung or any(grounds_in(target.phrase, target.synset, {t}, loose=False)
                                   for t in drape_places()) else ("draped",)
        relations = (*RELATION_WORDS.values(), *draped)
        used = {atom.predicate for atom, positive, types in goal_atoms(problem.goal)
                if positive and atom.predicate in relations and len(atom.args) == 2
                and (typ := argument_type(atom.args[1], types, problem.objects)) is not None
                and grounds_in(target.phrase, target.synset, {typ}, loose=False)}
        if used and place.relation not in used:
            out.append((place, target, used))
    return out


#: Words before a container's name that ask for one thing in each ("one plant per pot", "each in
#: its own pot", "in separate bags").
_ONE_EACH = frozenset("per own separate".split())


def _shared(read: ReadInstruction, m: Mention, k: int, word: str) -> bool:
    """"own"/"separate" at ``k`` before a singular ``m`` with no "each" before it says one container
    for them all ("yams in their own sack", "the walkers in a separate box"), not one apiece ("each in
    its own pot", "separate bags")."""
    return (word in ("own", "separate") and not sounds_plural(read.words[m.end - 1])
            and not any(read.words[j] == "each" for j in range(k) if read.clause_of[j] == read.clause_of[m.start]))


def _one_in_each(read: ReadInstruction, m: Mention) -> bool:
    """``m`` follows "each" or "each of the", after "one" earlier in its clause: "put one hamburger
    in each of the bags" asks for one per bag (Qwen 1.5B put every hamburger in one sack)."""
    k, word = word_before(read, m)
    if word == "of" and k > 0 and read.clause_of[k - 1] == read.clause_of[m.start]:
        k, word = k - 1, read.words[k - 1]
    return word == "each" and any(read.words[j] == "one" for j in range(k) if read.clause_of[j] == read.clause_of[k])


#: A word before a container that makes it one for all that goes there ("in one hamper").
_ONE_FOR_ALL = frozenset({"one", "same", "single"})
_INTO_OR_ONTO = frozenset({"in", "into", "inside", "on", "onto"})


def _spread(instruction: str, read: ReadInstruction, problem: Problem, counts: Counter,
            read_as: dict[str, str]) -> list[str]:
    """A container said to be one for all that goes there ("put both skirts in one hamper", "in the
    same box", "the yams in their own sack") and a goal that puts like things in different ones:
    by a ``forpairs`` over that container (a one-to-one matching, so each in another) or by ground
    literals. Qwen 1.5B wrote the ``forpairs`` for the skirts."""
    said_one = []  # (mention, index of the word before it) of each container said to be one for all
    for m in read.mentions:
        k, word = word_before(read, m)
        one = word in _ONE_FOR_ALL and (word != "one" or (k > 0 and read.words[k - 1] in _INTO_OR_ONTO))
        if one or _shared(read, m, k, word):
            said_one.append((m, k))
    if not said_one:
        return []
    out = []
    scene = set(counts)
    scene_words = dict(scene_mentions(instruction, scene))
    places = placement_words(instruction)
    for m, k in said_one:
        synset = read_as.get(m.phrase, m.synset)
        kinds = {t for t in counts if counts[t] > 1 and grounds_in(m.phrase, synset, {t}, loose=False)}
        moved = {t for place in places if place.target == m
                 for thing in moved_by(instruction, place, places, scene_words, scene)
                 for t in scene if grounds_in(thing.phrase, thing.synset, {t}, loose=False)}
        if not kinds or not moved:
            continue

        def puts_moved_in(atom: Atom, types: dict[str, str], moved: set[str] = moved) -> bool:
            return (atom.predicate in ("inside", "ontop") and len(atom.args) == 2
                    and argument_type(atom.args[0], types, problem.objects) in moved)

        paired = [q for q in iter_quantifiers(problem.goal) if q.kind in ("forpairs", "fornpairs")
                  and any(puts_moved_in(atom, {p.var: p.type for p in q.params})
                          and any(atom.args[1] == p.var and p.type in kinds for p in q.params)
                          for atom in iter_atoms(q.body))]
        where: dict[str, set[str]] = {}  # a kind of thing moved -> the containers of that kind it is put in
        for atom, placed, types in goal_atoms(problem.goal):
            if placed and puts_moved_in(atom, types) and problem.objects.get(atom.args[1]) in kinds:
                where.setdefault(argument_type(atom.args[0], types, problem.objects) or "", set()).add(atom.args[1])
        spread = sorted(t for t, at in where.items() if len(at) > 1)
        if paired or spread:
            said = " ".join(read.words[k:m.end])
            how = (f"its {paired[0].kind} puts each in a different {m.phrase}" if paired
                   else f"it puts {spread[0]} in {len(where[spread[0]])} of them")
            out.append(f"the instruction says '{said}', one for all that goes there, but {how}")
    return out


#: "one on top of the other", "on top of each other", "on top of one another": a stack of like things.
_STACKED = (("on", "top", "of", "the", "other"), ("on", "top", "of", "each", "other"),
            ("on", "top", "of", "one", "another"))


#: "side by side", "next to each other", "next to one another": like things beside each other.
_SIDE_BY_SIDE = (("side", "by", "side"), ("next", "to", "each", "other"), ("next", "to", "one", "another"),
                 ("beside", "each", "other"), ("beside", "one", "another"))


def _each_filled(read: ReadInstruction, problem: Problem) -> list[str]:
    """*Something in each* ("a couple in **each jar**", "one on every plate"): a container named
    right after "each" or "every" that follows "in"/"into"/"on"/"onto", of which the scene has
    several, where the goal puts things in (or on) some but not all of them."""
    out = []
    for m in read.mentions:
        k, before = word_before(read, m)
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


#: Forms of "keep" that, with "together", ask like things kept beside each other.
_KEEP = frozenset("keep keeps keeping kept".split())


def _kept_together(read: ReadInstruction, i: int) -> bool:
    """"together" at ``i`` in a clause that keeps things ("keep the sandals together", "with each
    pair kept together"; not "cook them together", "put together the favors" or "together with")."""
    words, clause = read.words, read.clause_of
    if words[i] != "together" or (i + 1 < len(words) and words[i + 1] == "with" and clause[i + 1] == clause[i]):
        return False
    return any(words[j] in _KEEP for j in range(max(0, i - 6), i) if clause[j] == clause[i])


def arrangements(instruction: str, problem: Problem) -> list[str]:
    """Arrangements the instruction states and the goal contradicts or leaves out (*something in
    each*: :func:`_each_filled`; *one container for all*: :func:`_spread`):
    * *one per container* ("one plant per pot", "each in its own pot"): the goal puts several
      things in (or on) one instance of that container, by a ``forall`` over a kind with several
      instances or by two ground literals;
    * *a stack* ("stack them one on top of the other"): the goal puts nothing on top of a thing of
      its own kind (``(ontop ?tortilla_2 ?tortilla_1)``); *side by side* likewise, with ``nextto``
      ("put both bottles of vodka in the cabinet, side by side"), and *kept together*
      (:func:`_kept_together`: "keep the sandals together").
    ``forpairs`` is a one-to-one matching, so it crowds nothing; an instance counts once."""
    read = reading_of(instruction)
    out = []
    counts = Counter(problem.objects.values())
    read_as = dict(instruction_objects(instruction, set(counts)))  # "each of the bags" with sacks: the sacks
    # Variables a forall binds (BEHAVIOR names them after their type, so one name is one kind).
    universal = {p.var for q in iter_quantifiers(problem.goal) if q.kind == "forall" for p in q.params}
    for m in read.mentions:
        k, word = word_before(read, m)
        if not (word in _ONE_EACH and not _shared(read, m, k, word)) and not _one_in_each(read, m):
            continue
        synset = read_as.get(m.phrase, m.synset)
        # a kind another word names ("one per bag, bags in the backpack"): not the bags meant
        named_otherwise = {t for t in counts for o in read.mentions if o.synset != m.synset
                           and grounds_in(o.phrase, o.synset, {t}, loose=False)}
        crowded: dict[str, set[str]] = {}  # container instance -> what the goal puts there
        for atom, placed, types in goal_atoms(problem.goal):
            if (not placed or atom.predicate not in ("inside", "ontop") or len(atom.args) != 2
                    or atom.args[1] not in problem.objects or problem.objects[atom.args[1]] in named_otherwise
                    or not grounds_in(m.phrase, synset, {problem.objects[atom.args[1]]}, loose=False)):
                continue
            thing = atom.args[0]  # every instance of a kind, under a forall; else one thing
            crowded.setdefault(atom.args[1], set()).add(types[thing] if thing in universal else thing)
        for container, things in sorted(crowded.items()):
            n = sum(counts.get(t, 1) for t in things)
            if n > 1:
                out.append(f"the instruction asks for one per {m.phrase!r}, but the goal puts {n} things in or on "
                           f"{container}")
    out += _each_filled(read, problem)
    out += _spread(instruction, read, problem, counts, read_as)
    words = read.words
    kept_together = any(_kept_together(read, i) for i in range(len(words)))
    for runs, relation, said in ((_STACKED, "ontop", "'on top of' one another"),
                                 (_SIDE_BY_SIDE, "nextto", "'side by side'")):
        stated = any(words[i:i + len(run)] == run for run in runs for i in range(len(words)))
        if relation == "nextto" and kept_together and not stated:
            stated, said = True, "'kept together'"
        if stated and not any(
                atom.predicate == relation and positive and len(atom.args) == 2
                and (a := argument_type(atom.args[0], types, problem.objects)) is not None
                and a == argument_type(atom.args[1], types, problem.objects)
                for atom, positive, types in goal_atoms(problem.goal)):
            out.append(f"the instruction says {said}, which asks for ({relation} ?x ?y) of two things "
                       "of one kind, but the goal has none")
    return out


@dataclass(frozen=True)
class EmptiedSource:
    """A thing the instruction empties ("unload the cart") and what the goal does with what it
    initially holds: ``moved`` (each thing taken out, with the (relation, place) the goal puts it
    at, or None where the goal only takes it out) and ``left`` (the rest, put back there included)."""

    instance: str
    moved: dict[str, tuple[str, str] | None]
    left: tuple[str, ...]


def emptied_sources_in_goal(instruction: str, problem: Problem) -> list[EmptiedSource]:
    """For each thing the instruction's words empty (``object_words.emptied_sources``: "unload the
    cart at checkout") that names one instance holding things at the start (``inside`` or
    ``ontop``), which of them the goal takes out, and where to, and which it leaves."""
    out = []
    objects = problem.objects
    held_at = [(lit.args[0], lit.args[1]) for lit in problem.init
               if not lit.negated and lit.predicate in SUPPORT_RELATIONS and len(lit.args) == 2]
    for mention in emptied_sources(instruction, set(objects.values())):
        sources = mention.instances_in(objects)
        if len(sources) != 1:
            continue
        (source,) = sources
        held = [thing for thing, where in held_at if where == source]
        moved: dict[str, tuple[str, str] | None] = {}
        for atom, positive, types in goal_atoms(problem.goal):
            if atom.predicate not in SUPPORT_RELATIONS or len(atom.args) != 2:
                continue
            places = argument_instances(atom.args[1], types, objects)
            for thing in argument_instances(atom.args[0], types, objects):
                if thing not in held:
                    continue
                if positive and len(places) == 1 and places[0] != source:
                    moved[thing] = (atom.predicate, places[0])
                elif not positive and source in places:
                    moved.setdefault(thing, None)
        if held and moved:
            out.append(EmptiedSource(source, moved, tuple(t for t in held if t not in moved)))
    return out


def moved_sources(instruction: str, problem: Problem) -> list[str]:
    """A thing the instruction takes other things off, out of or from ("take everything off the
    line", "the blouse off the clothesline", "the plates from the table") and names nowhere else,
    which the goal itself moves in, on or next to something: Qwen 1.5B put the clothesline in the
    hamper (untuned7 direct and casual). What is taken must be a thing or a pronoun, not a
    substance ("knock the dust off my boots" names what is cleaned), and a literal that holds from
    the start moves nothing. A source named again ("take the lid off the pot and put the pot on
    the stove") may move. Nor does the goal put what is taken back there ("grab the towels off the
    bed and hang them on the rack", drafted as the bath towels on the bed): the thing taken, or
    anything for a pronoun, set in or on the source."""
    objects = problem.objects
    read = scene_reading(instruction, set(objects.values()))
    words = read.words
    sources: list[tuple[str, Mention, Mention | None]] = []
    named: set[str] = set()
    for m in read.mentions:
        k, before = word_before(read, m)
        if before == "of" and k > 0 and words[k - 1] == "out":
            before, k = "out of", k - 1
        # taken: a pronoun, a thing, or a word no verb ("both pieces of underwear off the line";
        # not "switch off the calculator")
        prior = next((o for o in read.mentions if o.end == k), None)
        taken = k > 0 and (words[k - 1] in TAKEN_PRONOUNS or (
            not is_substance(prior.synset, "omnigibson") if prior is not None
            else not read.function[k - 1] and words[k - 1] not in DETERMINERS))
        instances = m.instances_in(objects)
        if before in ("off", "out of", "from") and taken:
            sources.append((before, m, prior))
        else:
            named |= instances
    held = initial_facts(problem)
    out = []
    for before, m, prior in sources:
        source = m.instances_in(objects) - named
        what = prior.instances_in(objects) if prior is not None else set(objects)  # what is taken off
        for atom, positive, types in goal_atoms(problem.goal):
            if not positive or atom.predicate not in OBJECT_RELATIONS or len(atom.args) != 2:
                continue
            moved = set(argument_instances(atom.args[0], types, objects)) & source
            places = argument_instances(atom.args[1], types, objects)
            back = set(argument_instances(atom.args[0], types, objects)) & what
            if atom.predicate in ("ontop", "inside") and back and source & set(places):
                out.append(f"the instruction says '{before} the {m.phrase}', taking things {before} it, but the goal "
                           f"puts them there ({atom.predicate} {' '.join(sorted(back))} {' '.join(places)})")
                break
            if moved and not all((atom.predicate, (t, p)) in held for t in moved for p in places):
                out.append(f"the instruction says '{before} the {m.phrase}', taking things {before} it, but the goal "
                           f"moves it itself ({atom.predicate} {' '.join(sorted(moved))} {' '.join(places)})")
                break
    return out
