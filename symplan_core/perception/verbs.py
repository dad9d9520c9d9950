"""The verbs of an instruction: state words with a polarity, and the word lists other readings
share (docs/perception.md, "Language checks").

* **State words** (:func:`state_words`): verbs that name a goal state and its polarity ("turn off"
  -> ``toggled_on`` false, "cook" -> ``cooked`` true, "close" -> ``open`` false). The table
  (:data:`STATE_VERBS`) is general English, one row per verb, never per activity; a row whose
  predicate the domain does not have is dropped. A word counts only where the sentence uses it as
  a verb: not inside an object's name (``washing machine``, ``the dust``), not after a determiner,
  a preposition or a form of *be* (``a clean towel``, ``is dusty``: adjectives describe the scene
  as it is, not the goal). "on"/"off" count with a switching verb (``turn the lamp off``, ``switch
  on the tv``) or right after something that switches (``hot tub on``); ``shut off``/``shut
  down`` is switching off, ``shut`` alone is closing.
* **Placement verbs and words** (:data:`PLACEMENT_VERBS`, :data:`RELATION_WORDS`): what
  ``placements`` reads where things go by.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.perception.synsets import ReadInstruction, is_substance, read_instruction, sounds_plural
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
    # ironing takes the wrinkles off: every B-1K iron_* and ironing_* goal has (not (covered ?x ?wrinkle))
    "iron": (("covered:wrinkle.n.01", False),),
    # Disinfecting covers the thing with what a goal applies (``covered:applied``, see
    # goal_polarities): BEHAVIOR states it as (covered ?x ?disinfectant).
    **dict.fromkeys("disinfect sanitize sanitise".split(), (("covered:applied", True),)),
    # So do seasoning, coating and spraying: cook_a_ham has (covered ?ham ?glaze), clean_a_vacuum
    # (covered ?vacuum ?disinfectant) for "spray everything with disinfectant"
    **dict.fromkeys("season glaze coat sprinkle spray".split(), (("covered:applied", True),)),
    # and spreading with something ("spread both slices with peanut butter and jelly":
    # make_a_sandwich covers them; "spread the tablecloth over the table" lays it out: state_words)
    "spread": (("covered:applied", True),),
    # covering: with a substance (covered ?peas ?cheese_sauce) or a sheet of something (overlaid ?foil ?ham)
    "cover": (("covered", True), ("overlaid", True)),
    # wrapping lays a sheet over a thing: every B-1K goal with a wrap (foil, plastic wrap, wrapping
    # paper, a napkin round the silverware) has (overlaid ?wrap ?thing)
    "wrap": (("overlaid", True),),
    # and polishing: every B-1K polish_* task has (covered ?x ?polish)
    **dict.fromkeys("polish".split(), (("covered:applied", True),)),
    # and lubricating: lube_a_bicycle_chain has (covered ?chain ?lubricant) (not "oil", "wax": mostly
    # nouns, "scrape the leftover wax out")
    **dict.fromkeys("lube lubricate grease".split(), (("covered:applied", True),)),
    **dict.fromkeys("soak wet saturate dampen moisten".split(), _WET),
    # drying takes water out or off (clean_a_sauna_suit, drying_dishes): not any stain ("wash and
    # dry the duvets" was answered by the stains alone)
    "dry": (("saturated", False), ("covered:water.n.06", False)),
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


#: Forms of *be* (and verbs like it) after which a state word describes its subject: asked for only
#: where "make sure", "ensure", "until" or "so that" governs them (:func:`_asked_to_be`). "it's"
#: reaches here as "it" (the reading drops a final "'s"), so "it" stands for "it's" there.
_COPULAS = frozenset("is are be am isn't aren't they're we're it everything that get gets".split())
_MAKE = frozenset("make makes making".split())
#: Words between such a form of *be* and its state ("make sure they're all closed", "is not open").
_DEGREE = frozenset("all both completely fully properly really totally nice and good not never still".split())


def participles(verb: str) -> set[str]:
    """The regular past participles of ``verb`` ("closed", "chopped", "dried"); a doubled last
    consonant is tried whatever the stress, since a wrong spelling never occurs in a request."""
    if verb.endswith("e"):
        return {verb + "d"}
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return {verb[:-1] + "ied"}
    return {verb + "ed", verb + verb[-1] + "ed"}


#: State words said as what a thing should be ("make sure the door is closed", "until it's clean"):
#: each verb's participles, the verbs that are adjectives too ("clean", "open", "dry"), and the
#: irregular ones.
_STATE_ADJECTIVES: dict[str, str] = {
    **{form: verb for verb in STATE_VERBS for form in participles(verb)},
    **{verb: verb for verb in "clean open dry wet shut cut".split()},
    "frozen": "freeze", "swept": "sweep", "hung": "hang", "lit": "light", "full": "fill",
}


def _asked_to_be(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> int | None:
    """Where the word at ``i`` follows a form of *be* ("is", "are", "gets") that "make sure",
    "ensure", "until" or "so that" governs in its clause ("make sure every door is open", "wipe it
    until it's clean"): the position of that form; else None. Elsewhere a state after *be*
    describes the scene as it is ("the towels are clean now")."""
    k = i - 1
    while k >= 0 and clause[k] == clause[i] and words[k] in _DEGREE:
        k -= 1
    if k < 1 or clause[k] != clause[i] or words[k] not in _COPULAS:
        return None
    for j in range(k - 1, max(k - 10, 0) - 1, -1):
        if clause[j] != clause[i]:
            return None
        if (words[j] in ("ensure", "until", "till", "til") or (words[j] == "sure" and j and words[j - 1] in _MAKE)
                or (words[j] == "that" and j and words[j - 1] == "so" and clause[j - 1] == clause[i])):
            return k
    return None


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

#: Verbs an -ing form goes on from as the verb ("start baking cookies"), not as a name's modifier.
_ASPECT_VERBS = frozenset("start starting keep keeping finish stop try begin continue go get quit and or".split())


#: Words that open a clause saying when or why rather than what to do ("before we light the fire",
#: "so they don't get lost"): a state verb after one of these and a subject is not asked for.
#: Not "if": "if you could wash the dishes" is a request.
_SUBORDINATORS = frozenset("before after when whenever while until till once since because so although though "
                           "unless".split())


#: ("it's" reaches here as "it": the reading drops a final "'s".)
SUBJECTS = frozenset("i we you they he she it somebody someone everyone everybody we're you're they're "
                      "i'm".split())


#: Words between a subject and its verb ("so it doesn't freeze", "it's going to freeze").
_AUXILIARIES = frozenset("do does did don't doesn't didn't will won't would can can't could might may shall "
                         "should is are am was were going gonna to get gets getting start starts begin begins "
                         "finish".split())


_BEFORE_VERB = _AUXILIARIES | _NEGATIONS


#: Of those, the ones that make a third person's verb a forecast, not a request ("it's going to freeze").
_FORECASTS = frozenset("going gonna will won't might may getting".split())


_THIRD_PERSONS = frozenset("it they he she they're".split())


DETERMINERS = frozenset("the a an this that these those my your our their his her its some any all".split())


#: Verbs that move things somewhere: a preposition after one in its clause says where ("put the
#: cup in the sink"); elsewhere it may not ("make a latte in the mug", "the dust on the shelf").
PLACEMENT_VERBS = frozenset("put putting place placing set setting lay laying move moving bring bringing take "
                            "taking throw throwing toss tossing drop dropping load loading pack packing store "
                            "storing hang hanging return returning stack stacking stick sticking leave leaving "
                            "get getting pile piling pop popping shove shoving tuck tucking slide sliding "
                            "chuck chucking sort sorting stash stashing stow stowing arrange arranging "
                            "transfer transferring carry carrying dump dumping unpack unpacking unload unloading "
                            "stand standing lean leaning prop propping".split())


#: Possessive determiners: "toss in its toys" moves the toys (a verb, a particle, then what moves).
POSSESSIVES = frozenset("my your his her its our their".split())


#: Placement prepositions -> the relation a goal states (``put the cup in the sink``).
RELATION_WORDS: dict[tuple[str, ...], str] = {
    ("in",): "inside", ("into",): "inside", ("inside",): "inside",
    ("on",): "ontop", ("onto",): "ontop", ("on", "top", "of"): "ontop",
    ("under",): "under", ("underneath",): "under", ("beneath",): "under", ("below",): "under",
    ("next", "to"): "nextto", ("beside",): "nextto",
    # "put the bag by the door", "leave my card by the register": beside it, not on or in it
    ("by",): "nextto", ("near",): "nextto",
}


#: Placement prepositions that name a place but no one relation ("leave them at the mailbox": in
#: it or next to it): a goal must put something there (:func:`empty_places`), by any relation.
ANY_PLACE_WORDS: tuple[tuple[str, ...], ...] = (("at",),)


#: Every placement phrase with its relation ("" for :data:`ANY_PLACE_WORDS`), longest first (so
#: "on top of" is read before "on"), and the words they are spelled with.
PLACE_PHRASES = tuple(sorted([*RELATION_WORDS.items(), *((phrase, "") for phrase in ANY_PLACE_WORDS)],
                              key=lambda kv: -len(kv[0])))


PLACE_WORDS = frozenset(word for phrase, _ in PLACE_PHRASES for word in phrase)


#: Verbs that put seeds or plants somewhere ("plant some pumpkin seeds in it"): they move things
#: as :data:`PLACEMENT_VERBS` do, kept apart because "plant" is more often a noun ("water the plant").
SOWING_VERBS = frozenset("plant planting sow sowing".split())
_MOVING_VERBS = PLACEMENT_VERBS | SOWING_VERBS


def moves_things(read: ReadInstruction, j: int) -> bool:
    """Word ``j`` is a verb that moves things (:data:`PLACEMENT_VERBS`, :data:`SOWING_VERBS`), or
    one that says where its subject goes (:func:`moves_its_subject`): not part of an object's name,
    nor a noun after a determiner ("left a stack of books"), nor what a form of *be* or *have* makes
    a description ("bugs are getting into the fruit trees", "the kids have put toys in it")."""
    if read.words[j] in GOING_VERBS:
        return moves_its_subject(read, j)
    if read.words[j] in ("line", "lining"):  # "line up my sandals", "line them up": not "the line"
        return (read.object_at(j) is None and "up" in read.words[j + 1:j + 3]
                and not (j and read.words[j - 1] in DETERMINERS))
    return (read.words[j] in _MOVING_VERBS and read.object_at(j) is None
            and not (j and read.words[j - 1] in DETERMINERS) and not described(read, j))


#: Forms of *be* and *have* before a verb that make it a description, not a request.
_DESCRIBING = frozenset("is are was were been has have had 've".split())


#: Verbs that say where their subject belongs ("the pots go in the cabinet", "the puzzles belong on
#: the bookshelf"): a request to put it there, said of the thing rather than to the robot.
GOING_VERBS = frozenset("go goes belong belongs".split())
#: Words between such a subject and its verb ("the balls can go in that box", "it all needs to go").
_BEFORE_GOING = frozenset("can could should will would must might all both just then also each usually always "
                          "need needs to has have".split())
#: Subjects that are things ("they go in the fridge"), not the robot nor the speaker ("you go in").
_THING_SUBJECTS = frozenset("they it these those everything all both them".split())


def moves_its_subject(read: ReadInstruction, j: int) -> bool:
    """Word ``j`` is a :data:`GOING_VERBS` verb whose subject is a thing, named or said as
    "they"/"everything" ("the DVDs can all go up on the bookcase"): what it is said of goes there.
    Not an imperative ("go in the kitchen and ..."), nor with the robot or the speaker as subject."""
    if read.words[j] not in GOING_VERBS or read.object_at(j) is not None:
        return False
    k = j - 1
    while k >= 0 and read.clause_of[k] == read.clause_of[j] and read.words[k] in _BEFORE_GOING:
        k -= 1
    if k < 0 or read.clause_of[k] != read.clause_of[j]:
        return k + 1 < j and read.words[k + 1] in _THING_SUBJECTS  # "all go in the box": "all" opens it
    return read.object_at(k) is not None or read.words[k] in _THING_SUBJECTS or sounds_plural(read.words[k])


#: Words between a :data:`GOING_VERBS` verb and its preposition ("go back in", "can all go up on").
GOING_PARTICLES = frozenset("up back right straight down over".split())


def described(read: ReadInstruction, j: int) -> bool:
    """Word ``j`` is a verb that moves things made a description by a form of *be* or *have* before
    it ("bugs are getting into the fruit trees"): said of the world, not asked of the robot."""
    return (read.words[j] in _MOVING_VERBS and j > 0 and read.words[j - 1] in _DESCRIBING
            and read.clause_of[j - 1] == read.clause_of[j])


def verb_forms(verb: str) -> set[str]:
    """The base form and the -ing form: requests are imperatives ("cook", "could you cook", "start
    cooking"); the -s form is left out, being also a plural noun ("the christmas lights")."""
    out = {verb, verb + "ing", verb + verb[-1] + "ing"}
    if verb.endswith("e"):
        out.add(verb[:-1] + "ing")
    return out


@lru_cache(maxsize=1)
def _verb_index() -> dict[str, str]:
    return {form: verb for verb in STATE_VERBS for form in verb_forms(verb)}


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
                if j == i + 1 or last or words[j + 1] not in DETERMINERS:
                    particles.add(j)
                    if "toggled_on" in predicates:
                        on = (particle == "on") != _negated(words, clause, i)
                        out.append(StateWord(f"{w} {particle}", "toggled_on", on, i, j))
                    break
    for i, w in enumerate(words):
        if i in particles or any(s.position == i for s in out):
            continue
        if w in ("on", "off") and i and (i + 1 == n or clause[i + 1] != clause[i]):
            # "hot tub on": a thing that switches, then on/off at clause end; or what "make sure"
            # holds to it ("make sure the stove is off")
            copula = _asked_to_be(words, clause, i)
            thing = read.object_at(i - 1 if copula is None else copula - 1)
            info = synset_info(thing.synset) if thing else None
            if thing is not None and info is not None and "toggleable" in info.abilities \
                    and "toggled_on" in predicates:
                out.append(StateWord(f"{thing.phrase} {w}", "toggled_on", (w == "on") != _negated(words, clause, i),
                                     i, i))
            continue
        if w == "done" and "cooked" in predicates and _until_done(read, i):
            out.append(StateWord("done", "cooked", True, i))
            continue
        if w in _STATE_ADJECTIVES and _asked_to_be(words, clause, i) is not None:
            flip = _negated(words, clause, i)  # "make sure the oven door is not open"
            out += [StateWord(w, predicate, polarity != flip, i) for predicate, polarity in STATE_VERBS[_STATE_ADJECTIVES[w]]
                    if predicate.partition(":")[0] in predicates]
            continue
        verb = index.get(w)
        if verb is None:
            continue
        before = words[i - 1] if i and clause[i - 1] == clause[i] else ""
        # An imperative's verb ("dust off the piano", "please dust it") even where the word also
        # names an object; elsewhere a word read as an object's name is one ("wipe the dust off").
        if before not in _VERB_STARTS and (read.object_at(i) is not None or before in _NOT_BEFORE_VERB):
            continue
        if _described(words, clause, i) or speakers_own(words, clause, i):
            continue
        if (w.endswith("ing") and i + 1 < n and clause[i + 1] == clause[i] and read.object_at(i + 1) is not None
                and before not in _VERB_STARTS and before not in _ASPECT_VERBS):
            continue  # "leftover baking soda": an -ing form before a name describes it
        after = words[i + 1] if i + 1 < n and clause[i + 1] == clause[i] else ""
        if verb in ("close", "cool") and after in ("to", "by"):
            continue  # "close to the sink": near, not shut
        if verb == "clean" and after in ("up", "out") and not (after == "up" and _movable_after(read, i + 2)):
            continue  # "clean up the room", "clean out the fridge": tidying and emptying, not dirt
        if verb == "sweep" and after == "up" and not _substance_after(read, i + 2):
            continue  # "sweep up the broken glass": gathering things, not dirt ("sweep up the dust" is)
        if verb == "pour" and after in ("out", "away", "off"):
            continue  # "pour out the water": emptying, not filling
        if verb == "spread" and not any(words[j] == "with" and clause[j] == clause[i] for j in range(i + 1, n)):
            continue  # covering only with "with": "spread the tablecloth over the table" lays it out
        flip = _negated(words, clause, i)
        for predicate, polarity in STATE_VERBS[verb]:
            if predicate.partition(":")[0] in predicates:
                out.append(StateWord(w, predicate, polarity != flip, i))
    if "covered" in predicates:  # where no verb of the clause asks it already ("wipe the dust off")
        cleaning = {clause[w.position] for w in out if w.predicate.partition(":")[0] == "covered" and not w.polarity}
        out += [w for w in _taken_off(read) if clause[w.position] not in cleaning]
    return sorted(out, key=lambda s: s.position)


def _movable_after(read: ReadInstruction, k: int) -> bool:
    """The words from ``k`` on (past determiners) name a thing one moves, no fixture of the scene
    (BEHAVIOR's ``sceneObject``): "clean up the turkey", "clean up the baseball" wash it, where
    "clean up the yard" or "clean up the table" tidies."""
    while k < len(read.words) and read.words[k] in DETERMINERS:
        k += 1
    thing = read.object_at(k)
    if thing is None or thing.start != k:
        return False
    info = synset_info(thing.synset)
    return info is not None and "sceneObject" not in info.abilities and not is_substance(thing.synset, "omnigibson")


def _substance_after(read: ReadInstruction, k: int) -> bool:
    """The first thing named from ``k`` on, in its clause, is a substance ("sweep up all the dust")."""
    if k >= len(read.words):
        return False
    first = next((m for m in read.mentions if m.start >= k and read.clause_of[m.start] == read.clause_of[k]), None)
    return first is not None and is_substance(first.synset, "omnigibson")


def _taken_off(read: ReadInstruction) -> list[StateWord]:
    """A substance taken off or out of a thing asks the thing rid of it, whatever the verb ("brush
    all the dust off the pool table", "get the stain out of the sleeping bag"): a state word at
    "off"/"out" for ``(not (covered ...))``, with the thing named after it as its object. Qwen
    1.5B answered "Brush all the dust off the top of the pool table." with the brush kept off the
    table, and the dust never removed. Not what a thing named before "of" holds ("bottles of water
    out of the fridge")."""
    words, clause = read.words, read.clause_of
    out = []
    for m in read.mentions:
        k = m.end
        if k + 1 >= len(words) or clause[k] != clause[m.start] or not is_substance(m.synset, "omnigibson"):
            continue
        if m.start > 1 and words[m.start - 1] == "of" and read.object_at(m.start - 2) is not None:
            continue  # "take both bottles of water out of the fridge": what they hold, not what is taken
        if words[k] == "off" or (words[k] == "out" and words[k + 1] == "of"):
            out.append(StateWord(f"{m.phrase} {words[k]}", "covered", _negated(words, clause, k), k))
    return out


def _until_done(read: ReadInstruction, i: int) -> bool:
    """Whether "done" at ``i`` ends "until it's done" ("till they are done") in an instruction that
    names a heat source: "pop it in the oven until it's done" asks for it cooked. Elsewhere "done"
    says nothing ("dinner's done"; a dryer "until it's done" is no heat source's work)."""
    words, clause = read.words, read.clause_of
    until = any(words[j] in ("until", "till", "til") and clause[j] == clause[i] for j in range(max(0, i - 4), i))
    return until and any((info := synset_info(m.synset)) is not None and "heatSource" in info.abilities
                         for m in read.mentions)


#: Verbs of wanting or planning that take "to" and another verb: with "I" as their subject, what
#: follows is the speaker's own plan ("I want to bake later"), not asked of the robot ("I want you
#: to bake" names who does it).
_OWN_PLANS = frozenset("want wanna plan planning going gonna hope hoping like love need".split())
#: The speaker as the subject of a verb going on ("I'm baking a pie later").
_SPEAKERS_BEING = frozenset("i'm im we're".split())


def speakers_own(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> bool:
    """The verb at ``i`` follows "I want to", "I'd like to", "I'm going to", or is an -ing form
    right after "I'm"/"we're": the speaker's own act ("I want to bake later, could you mix up some
    cookie dough? ... don't cook it yet", "I'm baking a pie later")."""
    if i >= 1 and words[i - 1] in _SPEAKERS_BEING and words[i].endswith("ing") and clause[i - 1] == clause[i]:
        return True
    if i < 3 or words[i - 1] != "to" or words[i - 2] not in _OWN_PLANS:
        return False
    j = i - 3
    while j > 0 and words[j] in ("would", "d", "am", "m", "really", "just") and clause[j] == clause[i]:
        j -= 1
    return words[j] == "i" and clause[j] == clause[i]


def _described(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> bool:
    """The verb at ``i`` has a subject of its own in a clause of time or reason ("before we light
    the fireplace"), or opens a forecast about a third person ("it's going to freeze tonight"):
    said about the world, not asked of the robot."""
    j, passed = i - 1, set()
    while j >= 0 and clause[j] == clause[i] and words[j] in _BEFORE_VERB:
        passed.add(words[j])
        j -= 1
    if j < 0 or clause[j] != clause[i] or words[j] not in SUBJECTS or words[j] == "you":
        return False  # "before you cook it": the robot's own act, still asked
    opener = words[j - 1] if j and clause[j - 1] == clause[j] else ""
    # A forecast opens its clause: "make sure they will not break" still asks for something.
    return opener in _SUBORDINATORS or (not opener and words[j] in _THIRD_PERSONS and bool(passed & _FORECASTS))


#: Verbs whose object is followed by the state it should be left in ("leave the door open").
_LEAVE_VERBS = frozenset("leave leaves leaving left keep keeps keeping kept".split())


def _negated(words: tuple[str, ...], clause: tuple[int, ...], i: int) -> bool:
    """The word at ``i`` is negated: right after a negation ("don't open"), or the state a negated
    *leave*/*keep* leaves its object in ("don't leave the door open", "never leave the oven on")."""
    if i > 0 and clause[i - 1] == clause[i] and words[i - 1] in _NEGATIONS:
        return True
    for k in range(i - 1, max(i - 6, 0), -1):
        if clause[k] != clause[i]:
            return False
        if words[k] in _LEAVE_VERBS:
            before = [words[j] for j in (k - 1, k - 2) if j >= 0 and clause[j] == clause[i]]
            return bool(before) and (before[0] in _NEGATIONS or (before[0] == "be" and before[1:] == ["not"]))
    return False


def asked_states(words: Iterable[StateWord]) -> list[tuple[str, tuple[tuple[str, bool], ...]]]:
    """Each state word as said, with the (predicate, polarity) pairs any one of which answers it
    ("hang": ``attached`` or ``draped``; ``covered:applied`` is a covering with something applied)."""
    by_word: dict[int, list[StateWord]] = {}
    for word in words:
        by_word.setdefault(word.position, []).append(word)
    return [(rows[0].said, tuple((w.predicate, w.polarity) for w in rows)) for rows in by_word.values()]
