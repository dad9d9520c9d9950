"""Which objects an instruction's words name, and how: the things it asks something of, the
tools, sources and modifiers it only mentions (:func:`incidental_objects`), what it asks to make
(:func:`requested_products`), the plurals it asks all of (:func:`plural_mentions`), words only
the scene explains (:func:`scene_mentions`), and the phrases a drafted goal must mention
(:func:`goal_must_mention`; docs/perception.md, "What the goal may name").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

from symplan_core.bddl import Problem
from symplan_core.perception.goal_reading import PRODUCT_PREFIXES, goal_polarities, goal_types, made_types
from symplan_core.perception.synsets import (
    PARTICLES,
    WHERE_PREPOSITIONS,
    Mention,
    ReadInstruction,
    ancestors,
    grounds_in,
    is_floor,
    is_substance,
    kinds_of,
    lemma_index,
    read_instruction,
    singulars,
    sounds_plural,
    wordnet_lemmas,
    wordnet_part_holonyms,
    wordnet_scene_lemmas,
    words_of,
)
from symplan_core.perception.verbs import (
    DETERMINERS,
    PLACE_WORDS,
    PLACEMENT_VERBS,
    STATE_VERBS,
    SUBJECTS,
    TOGGLE_VERBS,
    moves_things,
    speakers_own,
    verb_forms,
)
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import kinds_below, synset_info, synset_parents, synset_table

#: Words that may follow an object's name in a sentence (so the name is not a modifier of a word
#: we do not know: "watermelon punch").
_AFTER_NOUN = frozenset("and or but in into inside on onto off out of at to from with without by for under "
                        "beneath below above over next beside near up down away back please now too then "
                        "again first here there is are was be that which still has have had got gets "
                        "needs need looks look seems seem smells smell were can could will would may might "
                        "must should go goes belong belongs instead "
                        # a clause opener or a time: "wash both windows so there are no marks left",
                        # "turkey drumsticks tonight" (not "later": "trim the hedges later" is no request)
                        "so because before after when while until till once since although though unless "
                        "tonight today".split())


#: Verbs whose object is where things come from, not where they go ("empty the dryer").
_SOURCE_VERBS = frozenset("empty empties emptying clear clears clearing unload unloads unloading".split())


def reading_of(instruction: str | ReadInstruction) -> ReadInstruction:
    """The instruction's reading: the one a caller already has, or :func:`read_instruction`'s."""
    return instruction if isinstance(instruction, ReadInstruction) else read_instruction(instruction)


#: Words that make what follows a tool or a source, not a goal's object.
_TOOL_WORDS = frozenset(("with", "using", "from"))

#: Words that measure out a quantity of what follows "of" ("with *a bit of* detergent").
_MEASURE_WORDS = frozenset("bit little splash drop drops dab squirt pinch dash touch spot squeeze sprinkle "
                           "lot handful".split())


def governing_word(read: ReadInstruction, m: Mention) -> str:
    """The word that governs the noun phrase whose head is ``m``: the word before it past any
    determiners, up to two describing words ("with a *damp* rag"), a compound's modifier right
    before the head ("with a *butter* knife") and a measure of it ("with *a bit of* detergent"); ""
    at the clause's edge."""
    words, clause = read.words, read.clause_of
    k, described = m.start - 1, 0
    while k >= 0 and clause[k] == clause[m.start]:
        modifier = read.object_at(k)
        if words[k] in DETERMINERS:
            k -= 1
        elif words[k] == "of" and k > 0 and clause[k - 1] == clause[k] and words[k - 1] in _MEASURE_WORDS:
            k -= 2
        elif modifier is not None and k == m.start - 1:
            k = modifier.start - 1
        elif (modifier is None and described < 2 and not read.function[k] and words[k] not in _AFTER_NOUN
              and words[k] not in _TOOL_WORDS):
            described += 1
            k -= 1
        else:
            return words[k]
    return ""


def acted_on_directly(instruction: str | ReadInstruction) -> frozenset[str]:
    """Object phrases a verb acts on directly ("get me some *water*"): not after a preposition ("the
    sheets on *the bed*", "with *soap*") and not what "there is" points out ("there's *soap* by the
    sink")."""
    read = reading_of(instruction)
    return frozenset(m.phrase for m in read.mentions if _governed_by_verb(read, m) and not _given_as_act(read, m))


_GIVE = frozenset("give gives giving gave".split())


def _given_as_act(read: ReadInstruction, m: Mention) -> bool:
    """``m`` is the act that "give ... a" names ("give it a quick iron", "give both of them a spray"):
    what is done to the thing, not a thing acted on; not what is given to a person ("give me a towel")."""
    k = m.start - 1
    while k >= 0 and read.clause_of[k] == read.clause_of[m.start] and k >= m.start - 3 and read.words[k] not in ("a", "an"):
        k -= 1
    if k < 2 or read.words[k] not in ("a", "an") or read.clause_of[k] != read.clause_of[m.start]:
        return False
    if read.words[k - 1] in ("me", "us", "him", "her", "you"):
        return False  # "give me a towel": the towel is what is given
    return any(read.words[j] in _GIVE for j in range(max(0, k - 5), k - 1) if read.clause_of[j] == read.clause_of[k])


#: Verbs among the words that may follow a name: before one, they act on it ("I won't *need* my fur
#: coat", "it *has* a stain").
_VERBS_AFTER_NOUN = frozenset("has have had got gets needs need looks look seems seem smells smell go goes "
                              "belong belongs".split())


def _governed_by_verb(read: ReadInstruction, m: Mention) -> bool:
    """No preposition governs ``m``: the word before its phrase is not one (a verb's particle is
    not: "chop up that cabbage", but "the dust off the table")."""
    word = governing_word(read, m)
    if word not in _AFTER_NOUN or word in _VERBS_AFTER_NOUN:
        return True
    if word not in PARTICLES:
        return False
    k = next(j for j in range(m.start - 1, -1, -1) if read.words[j] == word)
    return k > 0 and read.object_at(k - 1) is None and read.clause_of[k - 1] == read.clause_of[k]


def word_before(read: ReadInstruction, m: Mention) -> tuple[int, str]:
    """The index and word before the mention ``m`` in its clause, past any determiners ("with *some*
    soap") and a measure of it ("a rag and *a bit of* detergent"); (-1 or the clause's edge, "")
    where the clause starts there."""
    words, clause = read.words, read.clause_of
    k = m.start - 1
    while k >= 0 and words[k] in DETERMINERS and clause[k] == clause[m.start]:
        k -= 1
    if k > 0 and words[k] == "of" and words[k - 1] in _MEASURE_WORDS and clause[k - 1] == clause[m.start]:
        k -= 2
        while k >= 0 and words[k] in DETERMINERS and clause[k] == clause[m.start]:
            k -= 1
    return k, (words[k] if k >= 0 and clause[k] == clause[m.start] else "")


#: Verbs that seek what "for" names ("look for the keys"): there "for" names the thing.
_SEEKING = frozenset("look looking search searching hunt hunting check checking ask asking wait waiting reach".split())


_BE = frozenset("is are was were".split())
#: Words between a form of "be" and where something is ("they're *all* over the floor").
_BETWEEN_BE_AND_PLACE = frozenset("all still just now already".split())


#: Past forms of verbs that move things: where something was put is where it is, not where it goes
#: ("somebody dumped the firewood on the floor, can you pile it up on the table?").
_PUT_BEFORE = frozenset("dumped left threw thrown dropped piled tossed stacked stuck shoved chucked".split())


#: Verbs whose "with" names what goes in or on the thing, not a tool: "load up the grill with
#: coal", "stock the cart with the whiskey", "pack it in the bag with the sandwich".
_MATERIAL_VERBS = frozenset(f for verb in "load stock restock stuff pack fill refill cover coat top season garnish "
                            "sprinkle line".split() for f in verb_forms(verb))
#: The other verbs the readings know: the nearest verb before the "with" decides.
_OTHER_VERBS = frozenset(f for verb in STATE_VERBS for f in verb_forms(verb)) | PLACEMENT_VERBS | TOGGLE_VERBS


def _with_material(read: ReadInstruction, m: Mention) -> bool:
    """The "with" that governs ``m`` follows a verb of :data:`_MATERIAL_VERBS`, the nearest verb
    before it in the clause ("wipe it down with a rag and load the dishwasher" has its own verb)."""
    words, clause = read.words, read.clause_of
    k = next((j for j in range(m.start - 1, -1, -1) if words[j] == "with" and clause[j] == clause[m.start]), -1)
    for j in range(k - 1, -1, -1):
        if clause[j] != clause[m.start]:
            return False
        if read.object_at(j) is not None:
            continue  # a name, though a verb too ("the grill")
        if words[j] in _MATERIAL_VERBS:
            return True
        if words[j] in _OTHER_VERBS:
            return False
    return False


def incidental_objects(instruction: str | ReadInstruction) -> frozenset[str]:
    """Object phrases a goal need not mention: tools ("with a rag", "with a damp rag", "using the
    sponge", and what the phrase goes on to list: "with some soap and a rag"), sources ("out of the
    dryer", "from the shelf", "empty the trash cans"), where a process happens ("bake it in the
    oven": see :func:`_process_location`), a purpose ("for pickup"), where something is ("the
    fruit's in the fridge"), an arrangement made ("make a candy centerpiece") and modifiers: an
    English compound's head is its last noun ("the stucco wall" is a wall; "make watermelon punch":
    the goal makes a punch). ``instruction``: the text, or its reading where the caller has one."""
    read = reading_of(instruction)
    words, clause = read.words, read.clause_of
    out = set()
    listed_after: int | None = None  # the word after the last tool or source: "and"/"or" may go on there
    for m in sorted(read.mentions, key=lambda mention: mention.start):
        k, before = word_before(read, m)
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
        emptied = _emptied(read, m, k)
        # "for pickup", "for the baby": a purpose or whom it is for (not "look for the keys")
        purpose = before == "for" and not (k > 0 and words[k - 1] in _SEEKING)
        # "whatever fruit's in the fridge": where something is, said with "is" (not "make sure it is in"),
        # or where somebody put something ("somebody dumped the firewood on the floor"; not "there's
        # milk left in the mug", where nothing is put between the verb and the place)
        be = k - 1
        while be > 0 and words[be] in _BETWEEN_BE_AND_PLACE and clause[be] == clause[m.start]:
            be -= 1  # "the shoes are all over the floor"
        described = before in WHERE_PREPOSITIONS and k > 0 and (
            (words[be] in _BE and "sure" not in words[:k])
            or any(words[j] in _PUT_BEFORE for j in range(k - 1) if clause[j] == clause[m.start])
            or _says_which(read, m, k))
        governing = governing_word(read, m)
        tool = governing in _TOOL_WORDS and not (governing == "with" and _with_material(read, m))
        if (tool or out_of or emptied or listed) and not (
                (before in ("and", "or") or comma or governing == "with") and _food(m.synset)):
            out.add(m.phrase)
            listed_after = m.end
        elif (before in ("in", "inside") and _process_location(read, k)) or purpose or described:
            out.add(m.phrase)
        elif _modifier(read, m) or _made_arrangement(read, m) or _in_others_clause(read, m):
            out.add(m.phrase)
    return frozenset(out)


def _in_others_clause(read: ReadInstruction, m: Mention) -> bool:
    """``m`` is named in a clause of time with a subject of its own other than the robot ("give it a
    good scrub *before I use it on the dishes*"): what the speaker or others do, not what is asked.
    Not a clause of reason, which often brings in what is then asked of ("so I won't need my fur
    coat for a while. Can you hang it up?")."""
    return any(read.words[j] in _TIME_OPENERS and read.words[j + 1] in SUBJECTS and read.words[j + 1] != "you"
               for j in range(m.start - 1) if read.clause_of[j] == read.clause_of[m.start])


#: Words that open a clause of time (``verbs._SUBORDINATORS`` less those of reason and concession).
_TIME_OPENERS = frozenset("before after when whenever while until till once".split())


def measuring_containers(instruction: str | ReadInstruction) -> frozenset[str]:
    """Container names that measure out the food, drink or substance named right after "of" ("brew
    *a pot* of drip coffee", "two *cups* of tea", "a *tray* of nachos"): counted by "a", "an" or a
    number. Where the scene has no such container, the request asks for the coffee, not the pot;
    where it has one, the container is an object like any other (the verifier decides which)."""
    read = reading_of(instruction)
    words, clause = read.words, read.clause_of
    out = set()
    for m in read.mentions:
        k = m.start - 1
        if (m.end + 1 >= len(words) or words[m.end] != "of" or k < 0 or words[k] not in _NUMBERS
                or is_substance(m.synset, "omnigibson") or _food(m.synset)):
            continue
        measured = next((o for o in read.mentions if m.end < o.start <= m.end + 3 and clause[o.start] == clause[m.start]),
                        None)
        if measured is not None and (is_substance(measured.synset, "omnigibson") or _food(measured.synset)
                                     or {measured.synset, *kinds_of(measured.synset)} & _MADE_KINDS):
            out.add(m.phrase)
    return frozenset(out)


def held_contents(instruction: str | ReadInstruction) -> dict[str, str]:
    """Substance or food named right after a thing and "of" -> that thing's name: what it holds
    ("both *bottles* of *water*", "the jar of jam"). Where the scene has the thing but not what it
    holds, the words describe the thing; they ask for no object of their own."""
    read = reading_of(instruction)
    words = read.words
    out = {}
    for m in read.mentions:
        k = m.start - 1
        holder = read.object_at(k - 1) if k > 0 and words[k] == "of" else None
        if holder is not None and holder.end == k and (is_substance(m.synset, "omnigibson") or _food(m.synset)):
            out[m.phrase] = holder.phrase
    return out


def _made_arrangement(read: ReadInstruction, m: Mention) -> bool:
    """``m`` is what a making verb makes, "a"/"an" something that is no food or drink: the result
    the request describes, not an object to find ("make a cute candy centerpiece": the lollipops
    in the vase; not "make the bed")."""
    before = [j for j in range(max(0, m.start - 4), m.start) if read.clause_of[j] == read.clause_of[m.start]]
    verb = next((j for j in reversed(before) if read.words[j] in MAKING_VERBS), None)
    measure = m.end < len(read.words) and read.words[m.end] == "of"  # "make a pitcher of lemonade"
    return (verb is not None and not measure and any(read.words[j] in ("a", "an") for j in before if j > verb)
            and not ({m.synset, *kinds_of(m.synset)} & _MADE_KINDS))


def _says_which(read: ReadInstruction, m: Mention, k: int) -> bool:
    """``m`` follows the preposition at ``k`` right after the name of a thing (not a substance) in a
    clause with no verb that moves things: it says which thing, or where it is ("wipe the dust off
    the knife block *on the counter*", "there's three glasses *on the counter*"), not where
    anything goes ("put the cups on the counter")."""
    thing = read.object_at(k - 1)
    return (thing is not None and not is_substance(thing.synset, "omnigibson")
            and not any(moves_things(read, j) for j in range(k) if read.clause_of[j] == read.clause_of[m.start]))


#: Verbs of having: what a thing "has" or "has got" describes it ("the glasses still have those
#: red rings in them").
_HAVE = frozenset("have has had got having".split())


def _emptied(read: ReadInstruction, m: Mention, k: int) -> bool:
    """The mention ``m`` (``k``: :func:`word_before`) is what a verb that empties things empties
    ("unload the cart"); "clear the dinner table": up to two words no object is called between the
    verb and the name."""
    words, clause = read.words, read.clause_of
    if _taken_from_elsewhere(read, m):
        return False
    j = k
    while j > 0 and k - j < 2 and words[j] not in _SOURCE_VERBS and read.object_at(j) is None \
            and not read.function[j] and clause[j - 1] == clause[m.start]:
        j -= 1
        while j > 0 and words[j] in DETERMINERS and clause[j - 1] == clause[m.start]:
            j -= 1
    return j >= 0 and words[j] in _SOURCE_VERBS and clause[j] == clause[m.start]


def _taken_from_elsewhere(read: ReadInstruction, m: Mention) -> bool:
    """``m`` (or the list it starts) is taken off, out of or from something named after it in its
    clause: "clear the wine glasses and beer glasses off the bar" moves the glasses, it empties the
    bar."""
    words, clause = read.words, read.clause_of
    for j in range(m.end, min(len(words) - 1, m.end + 8)):
        if clause[j] != clause[m.start]:
            return False
        if words[j] in ("off", "from") or (words[j] == "out" and words[j + 1] == "of"):
            return True
    return False


#: What is taken off or out of a thing, said without a name ("take everything off the line").
TAKEN_PRONOUNS = frozenset("it them everything all stuff things".split())


def taken_off_sources(instruction: str | ReadInstruction) -> frozenset[str]:
    """Names that follow "off" right after a thing that is no substance, or a pronoun: what things
    are taken off ("clear the glasses off the bar", "everything off the line"; not "turn off the
    lamp", a particle, nor "wipe the dust off the table", which cleans it). Where the scene has no
    such thing, the request still says what to move (the verifier notes the word)."""
    read = reading_of(instruction)
    out = set()
    for m in read.mentions:
        k, before = word_before(read, m)
        if before != "off" or k < 1:
            continue
        prior = next((o for o in read.mentions if o.end == k), None)
        taken = not is_substance(prior.synset, "omnigibson") if prior is not None else read.words[k - 1] in TAKEN_PRONOUNS
        if taken:
            out.add(m.phrase)
    return frozenset(out)


def emptied_sources(instruction: str, types: Iterable[str]) -> list[Mention]:
    """What the instruction's verbs that empty things empty ("unload the cart at checkout", "empty
    the dishwasher"), a word only the scene's ``types`` explain included."""
    read = scene_reading(instruction, types)
    return [m for m in read.mentions if _emptied(read, m, word_before(read, m)[0])]


def possessed(instruction: str | ReadInstruction) -> frozenset[str]:
    """Object phrases the instruction says something has: after a verb of having in the same
    clause ("the wine glasses still have those red rings in them"). In a request to clean, what a
    thing has that the scene shows none of is its dirt, seen as the scene's stain or dust."""
    read = reading_of(instruction)
    return frozenset(m.phrase for m in read.mentions
                     if any(read.words[j] in _HAVE and read.clause_of[j] == read.clause_of[m.start]
                            for j in range(m.start)))


def _continues_list(read: ReadInstruction, m: Mention, k: int, before: str, end: int | None) -> bool:
    """The mention ``m`` (``k``, ``before``: :func:`word_before`) goes on a list whose last name
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
    return (after is not None and read.words[after] not in _AFTER_NOUN and read.words[after] not in DETERMINERS
            and not read.function[after] and not _participle(read, after))


def _participle(read: ReadInstruction, k: int) -> bool:
    """The word at ``k`` after a name is a participle that says where or how the thing is ("leave
    the lighter *sitting* on top", "the towels *hanging* there"), an -ing word that names nothing and
    is followed by a preposition or particle: no compound's head."""
    return (read.words[k].endswith("ing") and read.object_at(k) is None and k + 1 < len(read.words)
            and read.words[k + 1] in _AFTER_NOUN)


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
#: eggnog", "blend me an iced cappuccino", "cook us a beef stew", "pour me a chocolate milk", "fix
#: me a drink"; only for what the scene does not have, and "pour" only for someone or "a" something:
#: "pour the coffee into the mug" pours the coffee there is).
MAKING_VERBS = frozenset(f for verb in "make bake brew cook prepare whip blend mix pour fix".split()
                         for f in verb_forms(verb))
#: Making verbs that also act on what there is ("pour the coffee into the mug"): they make only for
#: someone, or "a"/"an" something ("pour me a chocolate milk").
_MAKING_FOR = frozenset(verb_forms("pour"))


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
_MAKING_FILLERS = frozenset("me us him her them you up together".split()) | DETERMINERS


@dataclass(frozen=True)
class RequestedProduct:
    """A dish, drink or mixture the request asks to make that the scene does not have yet."""

    phrase: str
    synset: str
    count: int
    #: The vessel the request names it in ("a *pitcher* of lemonade"), if any.
    vessel: Mention | None = None


def _made_by_verb(read: ReadInstruction, m: Mention) -> tuple[bool, int | None, Mention | None]:
    """Whether a making verb governs ``m`` in its clause, the number said before it (None: none)
    and the vessel named before "of" (None: none). "make a glass of eggnog", "make me a fruit
    punch", "blend them with some water into fruit punch" (what a making verb earlier in the clause
    makes "into")."""
    words, clause = read.words, read.clause_of
    k, count, described, vessel = m.start - 1, None, 0, None
    while k >= 0 and clause[k] == clause[m.start]:
        word = words[k]
        if word in MAKING_VERBS:
            if speakers_own(words, clause, k):
                return False, None, None  # "I'm baking a pie later": the speaker's own
            return (word not in _MAKING_FOR
                    or any(w in ("me", "us", "a", "an") for w in words[k + 1:m.start])), count, vessel
        if word == "into":
            return any(words[j] in MAKING_VERBS for j in range(k) if clause[j] == clause[m.start]), count, vessel
        if word == "of" and k >= 1 and clause[k - 1] == clause[k]:
            vessel = vessel or read.object_at(k - 1)
            k -= 2  # a measure: "a glass of", "a bowl of"
            continue
        if word in _NUMBERS or word.isdigit():
            count = count or (int(word) if word.isdigit() else _NUMBERS[word])
        elif word in _MAKING_FILLERS:
            pass
        elif (described < 2 and read.object_at(k) is None and not read.function[k] and word not in _AFTER_NOUN):
            described += 1  # "a blended iced cappuccino", "a nice hot cocoa"
        else:
            return False, None, None
        k -= 1
    # no verb: a request that is the thing's name alone, said politely ("hot cocoa with marshmallows,
    # please"), asks for it as "make" would
    sentence = read.sentence_of[m.start] if read.sentence_of else 0
    alone = k < 0 or (bool(read.sentence_of) and read.sentence_of[k] != sentence)
    return alone and any(w == "please" and (not read.sentence_of or read.sentence_of[j] == sentence)
                         for j, w in enumerate(words)), count, vessel


#: What stands for a dish or drink named before the making verb ("I'm craving chocolate milk. Could
#: you mix *some* up?").
_MADE_PRONOUNS = frozenset("some it one".split())


def _made_later(read: ReadInstruction, m: Mention) -> bool:
    """A making verb after ``m`` takes a word that stands for it: "I feel like blueberry mousse for
    dessert. Could you whip some up in the mixer?" (not "some" before a name: "We need sauce for the
    pizza, could you cook some tomato sauce?" makes the sauce), where no other name stands between."""
    for j in range(m.end, len(read.words) - 1):
        if read.object_at(j) is not None:
            return False  # another name nearer the verb is what the word stands for ("pie ... pumpkin spice")
        if read.words[j] in MAKING_VERBS:
            k = j + 1
            while k < len(read.words) - 1 and read.words[k] in ("me", "us"):
                k += 1
            named_after = (after := read.object_at(k + 1)) is not None and after.start == k + 1
            if read.words[k] in _MADE_PRONOUNS and not named_after:
                return True
    return False


#: Words that say a dish or drink is wanted ("I'm craving some homemade applesauce", "in the mood
#: for chicken", "I'd love some candied walnuts").
_WANTING = frozenset("craving crave want wanna love like fancy for".split())

#: Verbs that cook or make, one of which the request must have for a wanted dish to be made: the
#: making verbs and the state verbs that ask for ``cooked`` (fry, roast, boil ...).
COOKING_VERBS = MAKING_VERBS | frozenset(f for verb, states in STATE_VERBS.items() if ("cooked", True) in states
                                    for f in verb_forms(verb))


def _wanted_and_cooked(read: ReadInstruction, m: Mention) -> bool:
    """``m`` is said to be wanted (:data:`_WANTING`, past determiners and up to two describing
    words) in a request that cooks or makes something (:data:`COOKING_VERBS`): "I'm craving some
    homemade applesauce. Could you cook those apples down in the saucepan?" asks for the
    applesauce. "for" counts after "mood" or "craving" only ("in the mood for", not "for the baby")."""
    words, clause = read.words, read.clause_of
    k, described = m.start - 1, 0
    while k >= 0 and clause[k] == clause[m.start] and (words[k] in DETERMINERS or (
            described < 2 and read.object_at(k) is None and not read.function[k] and words[k] not in _WANTING)):
        described += words[k] not in DETERMINERS
        k -= 1
    if k < 0 or clause[k] != clause[m.start] or words[k] not in _WANTING:
        return False
    if words[k] == "for" and not (k > 0 and words[k - 1] in ("mood", "craving")):
        return False
    return any(w in COOKING_VERBS for w in words)


def requested_products(instruction: str | ReadInstruction, types: Iterable[str]) -> list[RequestedProduct]:
    """The dishes, drinks and mixtures the instruction asks to make (a making verb governs the name,
    :data:`MAKING_VERBS`) that no type among ``types`` is: what an LLM goal may ask into being
    (``additions.scene_additions``). Only the head of its phrase ("make pizza sauce" makes no pizza),
    only a kind that is made (food or drink, not raw meat, fruit or vegetables, which cooking
    changes), and only in a number the request says: one for a substance or a singular, the count
    said for a plural ("bake six muffins"), and nothing for a plural with no number, which the
    scene cannot tell ("bake some cookies": the request stays refused). A name said before the
    making verb counts where the verb takes a word that stands for it ("I'm craving chocolate milk.
    Could you mix some up?"), and so does one said to be wanted in a request that cooks ("I'm
    craving some homemade applesauce. Could you cook those apples down ...?")."""
    read = reading_of(instruction)
    types = set(types)
    out = []
    for m in read.mentions:
        kinds = {m.synset, *kinds_of(m.synset)}
        if (grounds_in(m.phrase, m.synset, types, loose=False) is not None or _modifier(read, m)
                or not kinds & _MADE_KINDS or kinds & _RAW_KINDS or assembled(m.synset)):
            continue  # (a sandwich is put together, not made: no object of it to add)
        made, count, vessel = _made_by_verb(read, m)
        if not made and not _made_later(read, m) and not _wanted_and_cooked(read, m):
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
        out.append(RequestedProduct(m.phrase, m.synset, count, vessel))
    return out


def assembled(synset: str) -> bool:
    """A kind of food BEHAVIOR has no object of, whose own kinds are all things, not substances
    (``sandwich.n.01``: arepa, club sandwich, hamburger, hotdog): making one puts it together from
    what the scene has. BEHAVIOR's make_a_sandwich spreads the bread slices and stacks them; no
    object is made. A kind of drink ("coffee": drip coffee, espresso) is made, not put together."""
    if synset in synset_table() or not {synset, *kinds_of(synset)} & _MADE_KINDS:
        return False
    kinds = [k for k in kinds_below(synset) if "__" not in k.synset]  # not its halves and dicings
    return bool(kinds) and not any(is_substance(k.synset, "omnigibson") for k in kinds)


def assembled_products(instruction: str | ReadInstruction) -> list[Mention]:
    """The names a making verb governs (:data:`MAKING_VERBS`) that are :func:`assembled` kinds,
    through the names of what goes in it ("make a peanut butter and jelly sandwich"): what the goal
    puts together, which it need not name, and no object to make."""
    read = reading_of(instruction)
    out = []
    for m in read.mentions:
        if not assembled(m.synset):
            continue
        k = m.start - 1
        while k >= 0 and read.clause_of[k] == read.clause_of[m.start] and (
                read.words[k] in DETERMINERS or read.words[k] in ("and", "me", "us", "you", "up")
                or read.object_at(k) is not None or not read.function[k]) and read.words[k] not in MAKING_VERBS:
            k -= 1
        if k >= 0 and read.clause_of[k] == read.clause_of[m.start] and read.words[k] in MAKING_VERBS \
                and not speakers_own(read.words, read.clause_of, k):
            out.append(m)
    return out


def requested_kinds(instruction: str | ReadInstruction) -> list[Mention]:
    """Words a making verb governs (:data:`MAKING_VERBS`, as for :func:`requested_products`) that
    name no BEHAVIOR object but a kind of food or drink BEHAVIOR has kinds of: "make me a coffee"
    (``coffee.n.01``: drip coffee, espresso, cappuccino and more are its kinds). Each as a mention
    of that kind; what the goal makes must be one of its kinds."""
    read = reading_of(instruction)
    table, index = synset_table(), lemma_index()
    out = []
    for i, word in enumerate(read.words):
        if read.function[i] or read.object_at(i) is not None:
            continue
        kind = next((index[(w,)] for w in singulars(word) if (w,) in index), None)
        if kind is None or kind in table or not ({kind, *kinds_of(kind)} & _MADE_KINDS) or set(kinds_of(kind)) & _RAW_KINDS:
            continue
        m = Mention(word, kind, i, i + 1)
        if _made_by_verb(read, m)[0] or _made_later(read, m):
            out.append(m)
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
    tomato, onion and some chicken broth"; names only the scene's ``types`` explain too), or says
    where they are ("Lemon juice is in the fridge, sugar's in the cupboard"): where the goal makes
    a dish, what it is made from, which the goal need not name (:func:`goal_tools`; B-1K's goals
    name the dish, not what went into it)."""
    read = read_instruction(instruction)
    out = set()
    listed_after: int | None = None  # the word after the last ingredient: "and"/"or" or a comma may go on there
    scene_words = scene_mention_spans(instruction, types, any_of=True)  # "onion": the onion or its halves
    for m in sorted([*read.mentions, *scene_words], key=lambda mention: mention.start):
        k, before = word_before(read, m)
        told_where = (m.end + 1 < len(read.words) and read.words[m.end] in _BE
                      and read.words[m.end + 1] in WHERE_PREPOSITIONS)
        if (governing_word(read, m) == "with" or told_where
                or _continues_list(read, m, k, before, listed_after)) and (
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
    read = reading_of(instruction)
    out = set()
    fetched_up_to: int | None = None  # the word after the last fetched name: "and"/"or" may go on there
    for m in sorted(read.mentions, key=lambda mention: mention.start):
        k, before = word_before(read, m)
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
    types = sorted(set(types))
    read = scene_reading(instruction, types) if isinstance(instruction, str) else instruction
    every_ability = {need for needs in _SERVES.values() for need in needs}
    excused = incidental_objects(read) | fetched_tools(read, types, every_ability) | set(alternatives(read))
    acted_on = acted_on_directly(read)
    out: list[tuple[str, frozenset[str]]] = []
    for phrase, synset in mentioned:
        if phrase in excused or any(phrase == said for said, _ in out):
            continue
        answers = frozenset(t for t in types if grounds_in(phrase, synset, (t,)))
        exact = frozenset(t for t in answers if grounds_in(phrase, synset, (t,), loose=False))
        if phrase in acted_on and exact:  # as the verifier reads it: the water, not the water glass
            answers = exact
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
    read = reading_of(instruction)
    words, clause = read.words, read.clause_of
    mentions = sorted(read.mentions, key=lambda mention: mention.start)
    choices: list[list[str]] = []
    for first, second in pairwise(mentions):
        between = words[first.end:second.start]
        rest = between[2:] if between[1:2] and between[1] in _CHOICE_PREPOSITIONS else between[1:]
        if (clause[first.start] == clause[second.start] and between and between[0] == "or"
                and all(w in DETERMINERS for w in rest)):
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
    sink" the sink is what is cleaned), unless a verb that cooks it comes before: "boil water in
    the kettle" boils it there."""
    c = read.clause_of[preposition]
    earlier = [j for j in range(preposition) if read.clause_of[j] == c]
    if any(read.words[j] in PLACEMENT_VERBS for j in earlier) or not any(read.words[j] in STATE_VERBS
                                                                       for j in earlier):
        return False
    return any(read.words[j] in COOKING_VERBS for j in earlier) or not any(
        is_substance(m.synset, "omnigibson") for m in read.mentions if m.end == preposition)


#: Words that count what follows ("two apples", "one of the cups", "some plates"): such a plural
#: means some of the things, not all of them.
_COUNTING = frozenset("a an one two three four five six seven eight nine ten some any few several couple pair "
                      "either neither another each most many half".split())


#: Words that ask for every one of what follows, in any number ("all the salmon", "every apple").
_EVERY = frozenset({"all", "every", "both"})


#: Words that say "many" with a counting word before them ("a bunch of flowers", "a lot of toys"):
#: no count, so the plural means every one there is.
_MANY = frozenset("bunch lot lots load loads heap heaps pile piles ton tons plenty".split())


#: Nouns whose plural is the singular ("the salmon" with three in the freezer: all of them), and
#: "laundry", a whole that is many things ("fold the laundry": every garment, towel and tablecloth).
_SAME_PLURAL = frozenset("fish salmon trout tuna cod halibut shrimp squid sheep deer moose bison laundry".split())


#: Determiners that name the things meant, all of those there are ("the salmon", "my snacks").
DEFINITE = frozenset("the these those my your our their his her its".split())


def plural_mentions(instruction: str | ReadInstruction) -> list[Mention]:
    """Object names the instruction says in the plural with no count ("cook the mustard greens",
    "put apples in the bowl", "a bunch of flowers"; not "two apples", "one of the cups"), or after
    a word asking for all of them ("all the salmon", "every apple"), or a noun whose plural is its
    singular after a definite determiner ("move the salmon to the cart", with three salmon): in
    English the speaker means every one of them there is. A kind whose own name is plural is no
    plural ("the fries": ``french_fries.n.02``). ``instruction``: the text, or its reading
    where the caller has one."""
    read = reading_of(instruction)
    out = []
    for m in read.mentions:
        before = [w for k, w in enumerate(read.words[max(0, m.start - 3):m.start], start=max(0, m.start - 3))
                  if read.clause_of[k] == read.clause_of[m.start]]
        counted = any(w in _COUNTING for w in before) and not any(w in _MANY for w in before)
        head = m.phrase.split()[-1]
        same = head in _SAME_PLURAL and bool(before) and before[-1] in DEFINITE
        # a kind whose own name is plural: "the fries" are one serving of french_fries
        named_so = head == m.synset.split(".")[0].split("_")[-1]
        if any(w in _EVERY for w in before) or ((sounds_plural(head) and not named_so or same) and not counted):
            out.append(m)
    return out


def scene_reading(instruction: str, types: Iterable[str]) -> ReadInstruction:
    """The instruction's reading with the words only the scene's ``types`` explain
    (:func:`scene_mention_spans`: "unload the *cart*" with a shopping cart) read as names too, so
    that they can be tools or sources (:func:`incidental_objects`) like any other name."""
    read = read_instruction(instruction)
    extra = tuple(scene_mention_spans(instruction, types))
    return replace(read, mentions=read.mentions + extra) if extra else read


def scene_mentions(instruction: str, types: Iterable[str]) -> list[tuple[str, str]]:
    """(word, type) of each of :func:`scene_mention_spans`."""
    return [(m.phrase, m.synset) for m in scene_mention_spans(instruction, types)]


def scene_mention_spans(instruction: str, types: Iterable[str], any_of: bool = False) -> list[Mention]:
    """A mention (word, type, where) of each word the reading leaves unread (no BEHAVIOR object is
    called just that: ``rod``) that names exactly one scene type (with ``any_of``, the first of
    several): the last word of its name or of one of its WordNet lemmas, where that has more words
    (``fishing_rod``; "checkout counter") or is a closed compound ("the line": a clothesline), or a
    WordNet lemma of it that mostly means something else (``synsets.wordnet_scene_lemmas``:
    "tackle" is fishing gear, though first a football position; "closet" a wardrobe). "throw the rod and tackle in the boat" names the fishing rod
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
            else:  # a closed compound's last word: "the line" of a clothesline
                for tail in _compound_tails(name[0]):
                    heads.setdefault(tail, set()).add(typ)
    verbs = STATE_VERBS.keys() | PLACEMENT_VERBS | TOGGLE_VERBS
    out = []
    for i, word in enumerate(read.words):
        if read.function[i] or read.object_at(i) is not None or word in verbs or word in DETERMINERS:
            continue
        if i + 1 < len(read.words) and read.object_at(i + 1) is not None:
            continue  # a modifier of the name after it ("the fireplace logs" are logs), as in incidental_objects
        if hit := _the_one(heads, word) or (any_of and _first_of(heads, word)) or _general_plural(word, types):
            out.append(Mention(word, hit, i, i + 1))
    return out


def _general_plural(word: str, types: set[str]) -> str | None:
    """The BEHAVIOR kind a plural names where two or more scene types are kinds of it, though no
    object is called just that ("all the berries" with blackberries, raspberries and blueberries:
    ``berry.n.01``): read as every one of them, as "flowers" is."""
    if not sounds_plural(word):
        return None
    kind = next((hit for w in singulars(word) if (hit := lemma_index().get((w,)))), None)
    if kind is None or kind in synset_table():
        return None
    return kind if sum(1 for t in types if kind in kinds_of(t)) >= 2 else None


def _compound_tails(word: str) -> list[str]:
    """The words a closed compound may end in, four letters or more after three or more
    ("clothesline": "line", "esline" ...; only a word the instruction says is ever matched)."""
    return [word[cut:] for cut in range(3, len(word) - 3)]


#: A kind with at most this many kinds of it in BEHAVIOR's hierarchy is narrow enough that people
#: call one by another's name (``trouser.n.01``: jeans, long trousers, shorts; not ``shoe.n.01``).
_NARROW_KIND = 3


@lru_cache(maxsize=1)
def _kinds_below() -> dict[str, frozenset[str]]:
    """Synset -> the synsets BEHAVIOR's hierarchy puts right below it."""
    out: dict[str, set[str]] = {}
    for child, parent in synset_parents().items():
        out.setdefault(parent, set()).add(child)
    return {parent: frozenset(children) for parent, children in out.items()}


def _sibling_in(synset: str, types: set[str]) -> str | None:
    """The one scene type right below the kind ``synset`` is right below, where that kind is narrow
    (:data:`_NARROW_KIND`): "jeans" for the scene's long trousers."""
    parent = synset_parents().get(synset)
    siblings = _kinds_below().get(parent, frozenset()) if parent else frozenset()
    if len(siblings) > _NARROW_KIND:
        return None
    found = {t for t in types if t in siblings and t != synset}
    return next(iter(found)) if len(found) == 1 else None


def _head_in(words: list[str], types: set[str]) -> str | None:
    """The one scene type whose whole name is the last word of a name of several words: an English
    compound's head says what the thing is ("bath mat": the scene's ``mat.n.01``)."""
    if len(words) < 2:
        return None
    found = {t for t in types if (name := type_word(t).split()) and len(name) == 1 and name[0] in singulars(words[-1])}
    return next(iter(found)) if len(found) == 1 else None


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
    """The one type ``index`` has for ``word`` or one of the singulars it may be the plural of; of a
    thing and what is made of it (``head_cabbage``, ``cooked__diced__head_cabbage``) the thing."""
    hit = next((raw for f in singulars(word) if len(raw := _unmade(index.get(f, set()))) == 1), None)
    return next(iter(hit)) if hit else None


def _unmade(types: set[str]) -> set[str]:
    """``types`` less those made of another of them (``cooked__diced__head_cabbage`` beside
    ``head_cabbage``: "the cabbage" is the one there is)."""
    bases = {t.split(".n.")[0] for t in types}
    return {t for t in types if not any(t.split(".n.")[0] == prefix + base
                                        for prefix in PRODUCT_PREFIXES for base in bases)}


#: Parts a thing is named by where the scene has no object for the part ("the fridge door").
_PART_WORDS = frozenset("door doors lid lids handle handles knob knobs drawer drawers".split())


def names_a_floor(instruction: str, types: Iterable[str]) -> bool:
    """The instruction names a floor (:func:`instruction_objects`: "the floor", "the ground", "the lawn")."""
    return any(is_floor(synset) for _word, synset in instruction_objects(instruction, types))


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
      ("lids on" with jars is no place, and stays unread);
    * or a part (a door, a lid, a handle, a drawer) named right after the scene thing it is part
      of: "close the fridge door" names the fridge;
    * or the one scene type of a narrow kind the name is of too (:func:`_sibling_in`): "wash the
      jeans" with long trousers in the scene (both ``trouser.n.01``);
    * or the one scene type a compound's last word names (:func:`_head_in`): "the rubber bath
      mat" with a mat in the scene (BEHAVIOR files ``bath_mat`` under bath linen)."""
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
            wholes = wordnet_part_holonyms().get(synset, ()) if word_before(read, m)[1] in PLACE_WORDS else ()
            whole_of = {t for t in types if any(w == t or w in ancestors(t) for w in wholes)}
            # "close the fridge door": a part named after the thing it is part of is that thing
            owned = next((kind for o in read.mentions if o.end == m.start and len(words) == 1
                          and read.clause_of[o.start] == read.clause_of[m.start] and words[0] in _PART_WORDS
                          and not is_substance(o.synset, "omnigibson")
                          and (kind := grounds_in(o.phrase, o.synset, types))), None)
            synset = (lemma_of or (next(iter(whole_of)) if len(whole_of) == 1 else owned)
                      or _sibling_in(synset, types) or _head_in(words, types) or synset)
        out.append((phrase, synset))
    return out + scene_mentions(instruction, types)
