"""Synset grounding: detector labels and instruction words -> BEHAVIOR synsets.

Knowledge comes only from :mod:`symplan_core.tasks` (the B-1K synset table and the WordNet-style
hierarchy, whose names *are* WordNet synset names: ``tennis_racket.n.01``). A label is grounded,
in order, as:

1. ``synset``: it is a known synset name (what a fiducial map gives);
2. ``alias``: a lab-specific alias from the configuration (``{"sofa": "sofa.n.01"}``);
3. ``lemma``: its words (lower-cased, singular) equal a synset's head word (``tennis racket`` ->
   ``tennis_racket.n.01``); several senses: the one with a row in the table, then the lowest sense;
   failing that, one of the synset's other WordNet 3.0 lemmas (``fridge`` ->
   ``electric_refrigerator.n.01``, ``couch`` -> ``sofa.n.01``, ``trash can`` -> ``ashcan.n.01``), from
   the packaged table ``behavior_data/wordnet_lemmas.json`` (``scripts/build_wordnet_lemmas.py``
   derives it from the fetched WordNet). A head word always wins over another synset's WordNet lemma.

The same index grounds the words of an instruction (:func:`mentioned_synsets`), where people say
``fridge`` and ``couch``; fiducial labels are synset names and open-vocabulary labels are the
phrases the detector was prompted with, so those rarely need the synonyms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from symplan_core.bddl.normalize import FLOOR_TYPES, SUBSTANCE_RULES
from symplan_core.fetch import BENCHMARKS
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import list_tasks, load_problem, synset_info, synset_parents, synset_table

_SYNSET = re.compile(r"^[A-Za-z0-9_'\-]+\.[nvas]\.\d+$")
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_CLAUSE = re.compile(r"[.,;:!?()\[\]\n]+")
#: igibson (B-100) declares every object rigid; only the substances its unary predicates name are
#: not, and only those appear as patches (stains, dust: ``soaked`` has nothing to see).
IGIBSON_SUBSTANCES = frozenset(s for _pred, (rel, s) in SUBSTANCE_RULES.items() if rel == "covered")
#: Words instructions use as grammar or position, never as the object they mean ("on top of",
#: "it is not the case that"), even where BEHAVIOR has a synset of that name.
_NOT_OBJECTS = frozenset("case top side bottom front back middle end edge corner center centre place spot "
                         "thing item object stuff kind sort type way set pair group piece bit lot part".split())
#: Closed word classes of English grammar, which never name an object: pronouns (personal,
#: possessive, reflexive, indefinite) and the modal auxiliaries. A word of these classes that is
#: also a noun ("can", "will") is read by its place in the sentence (:func:`function_words`).
_PRONOUNS = frozenset("i me my mine myself you your yours yourself yourselves he him his himself she her hers "
                      "herself it its itself we us our ours ourselves they them their theirs themselves "
                      "somebody someone something anybody anyone anything everybody everyone everything "
                      "nobody nothing".split())
_SUBJECTS = frozenset("i you he she we they somebody someone anybody anyone everybody everyone nobody".split())
_MODALS = frozenset("can could will would may might must shall should".split())
#: Words that start a noun phrase and never follow its head noun directly: a word right before
#: one of them is a verb taking an object ("grease the pans", "cover each of the shrubs").
#: Determiners: the word after one starts a noun phrase, so it is no verb.
_NOUN_STARTS = frozenset("the a an each every my your our their his its this these those some any".split())
_PHRASE_STARTS = _NOUN_STARTS | frozenset("it them me us him".split())
#: Words before a noun phrase that ask for all of it: a word right before one is a verb.
_ALL_OF = frozenset("all both".split())
#: Particles of English phrasal verbs: at a clause's start, a word followed by one and then by a
#: noun phrase is an imperative verb ("sand out the scratch", "wipe down the counter").
PARTICLES = frozenset("out up down off away back over".split())
#: Words an imperative may follow at a clause's start ("please wipe down the counter").
_IMPERATIVE_LEADS = frozenset("please just then also now mind".split())
#: "give it a (good) scrub": an act given, not a thing. The verbs people say so of housework.
_GIVE = frozenset("give gives gave giving given".split())
#: Words that follow a modal and never a noun's head: "the DVDs can all go up", "it could just sit there".
_AFTER_MODAL = frozenset("not n't please all both also just still probably be go stay sit".split())
_ACTS = frozenset("scrub wash clean rinse wipe dust polish soak shine brush sweep mop vacuum spray "
                  "wipedown once-over going-over cleaning coat coating layer".split())
#: Words for a layer of something put on ("a coat of polish", "a thin layer of wax").
_LAYERS = frozenset("coat coating layer".split())
#: Auxiliaries after which a word is a verb ("so the battery doesn't *die*").
_DO_FORMS = frozenset("do does did don't doesn't didn't won't can't couldn't wouldn't shouldn't".split())


@dataclass(frozen=True)
class Grounding:
    label: str
    synset: str | None
    method: str  # synset | alias | lemma | prompt | none
    reason: str = ""


def is_synset_name(text: str) -> bool:
    return bool(_SYNSET.match(text))


@lru_cache(maxsize=1)
def benchmark_types() -> frozenset[str]:
    """Every object type the B-100 and B-1K task files declare (B-100 has words B-1K lacks)."""
    return frozenset(t for bench in BENCHMARKS for name in list_tasks(bench)
                     for t in load_problem(f"{bench}/{name}").objects.values())


@lru_cache(maxsize=8192)
def known_synset(name: str) -> bool:
    """A synset BEHAVIOR knows: a table row, a hierarchy node, a general word its table refines, or
    an object type of a benchmark file."""
    return (name in synset_table() or name in synset_parents() or synset_info(name) is not None
            or name in benchmark_types())


def singulars(word: str) -> list[str]:
    """The word and the singulars it may be the plural of (``cookies`` -> cookie, cooky)."""
    out = [word]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        out.append(word[:-1])
        if word.endswith("es"):
            out.append(word[:-2])
        if word.endswith("ies"):
            out.append(word[:-3] + "y")
        if word.endswith("ves"):  # knives, shelves, halves, loaves
            out += [word[:-3] + "f", word[:-3] + "fe"]
    return out


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def phrase_keys(words: list[str] | tuple[str, ...]) -> list[tuple[str, ...]]:
    """The index keys a phrase may be found under, in order: its words with the last one in its
    singular forms, then (two words or more) the same written as one word, since people write
    compounds open that names write closed ("shower head": showerhead, "wine glasses": wineglass,
    "counter top": countertop)."""
    if not words:
        return []
    keys = [(*words[:-1], last) for last in singulars(words[-1])]
    if len(words) > 1:
        keys += [("".join(key),) for key in keys]
    return keys


def _lookup(words: list[str]) -> str | None:
    """The synset a phrase names (see :func:`phrase_keys`)."""
    index = lemma_index()
    for key in phrase_keys(words):
        hit = index.get(key)
        if hit:
            return hit
    return None


@lru_cache(maxsize=1)
def lemma_index() -> dict[tuple[str, ...], str]:
    """Head-word tuple -> the preferred synset with that head (table rows first, lowest sense)."""
    names = set(synset_table()) | set(synset_parents()) | set(synset_parents().values())
    best: dict[tuple[str, ...], tuple[tuple[int, int, str], str]] = {}
    # what a task can declare comes first: a table row, or a type the benchmarks' files use
    # (``table.n.02``, the furniture, over ``table.n.01``, the data table)
    table = set(synset_table()) | benchmark_types()
    for name in names:
        if ".n." not in name:
            continue
        key = tuple(words_of(type_word(name)))
        sense = int(name.rsplit(".", 1)[1]) if name.rsplit(".", 1)[1].isdigit() else 99
        rank = (0 if name in table else 1, sense, name)  # the name last: no dependence on set order
        if key and (key not in best or rank < best[key][0]):
            best[key] = (rank, name)
    for name in names:  # "apple halves": BEHAVIOR names them half__apple ("half apple")
        key = tuple(words_of(type_word(name)))
        if len(key) > 1 and key[0] == "half" and key[1:] + ("half",) not in best:
            best[key[1:] + ("half",)] = ((2, 0, name), name)
    heads = {k: v for k, (_r, v) in best.items()}
    synonyms: dict[tuple[str, ...], tuple[tuple[int, int, str], str]] = {}
    for name, lemmas in wordnet_lemmas().items():
        if name not in names:
            continue
        sense = int(name.rsplit(".", 1)[1])
        rank = (0 if name in table else 1, sense, name)
        for lemma in lemmas:
            key = tuple(words_of(lemma))
            if key and key not in heads and (key not in synonyms or rank < synonyms[key][0]):
                synonyms[key] = (rank, name)
    index = {**heads, **{k: v for k, (_r, v) in synonyms.items()}}
    # a hyphenated name is also found written open ("lemon pepper seasoning": lemon-pepper_seasoning)
    for key, name in list(index.items()):
        if any("-" in w for w in key):
            index.setdefault(_open_form(key), name)
    return index


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


def _open_form(words: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(part for w in words for part in w.split("-"))


#: Everyday words for a whole kind that WordNet files under a sense with no BEHAVIOR objects below:
#: "clothes" is WordNet's apparel.n.01 ("clothing in general"), a leaf type of B-100, while B-1K types
#: its garments (dress, vest, blouse, tights) under clothing.n.01; "cupboard" is cupboard.n.01 ("a small
#: room or cabinet used for storage"), which no BEHAVIOR type is below, while B-1K's are cabinet.n.01.
#: "the dishes" are the tableware, bowls, mugs, cups and glasses of a meal, where WordNet's dish.n.01
#: has none of them below it (a plate is flatware, a mug a drinking vessel); a mug is a cup and a cap
#: a hat to most people, where WordNet files each beside the other, not under it. WordNet's only "disc"
#: is a gramophone record, while B-1K's discs are DVDs (videodisk.n.01); B-1K fills canister.n.02 with
#: beans to can them, in what people call jars; and its pruner.n.02 (WordNet: a lopper) is what a
#: gardener calls clippers, where WordNet's clipper.n.04 has no BEHAVIOR object; a duvet is a quilt.
EVERYDAY_LEMMAS: dict[str, tuple[str, ...]] = {
    "clothing.n.01": ("clothes", "laundry"), "cabinet.n.01": ("cupboard",),
    **dict.fromkeys(("tableware.n.01", "bowl.n.01", "cup.n.01", "glass.n.02"), ("dish",)),
    "mug.n.04": ("dish", "cup"), "cap.n.01": ("hat",), "videodisk.n.01": ("disc", "disk"),
    "canister.n.02": ("jar",), "pruner.n.02": ("clippers",), "quilt.n.01": ("duvet",),
    **dict.fromkeys(("linen.n.03", "towel.n.01", "bedclothes.n.01"), ("laundry",))}


@lru_cache(maxsize=1)
def wordnet_lemmas() -> dict[str, list[str]]:
    """BEHAVIOR synset -> its other WordNet 3.0 lemmas (packaged; see the module docstring), with
    :data:`EVERYDAY_LEMMAS` added."""
    return _with_words(_packaged_table("wordnet_lemmas.json"), EVERYDAY_LEMMAS)


def _with_words(lemmas: dict[str, list[str]], added: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """``lemmas`` (synset -> words) with each of ``added``'s words it lacks."""
    for synset, words in added.items():
        known = lemmas.setdefault(synset, [])
        known.extend(w for w in words if w not in known)
    return lemmas


#: Everyday one-word names WordNet lacks for a BEHAVIOR type, read like :func:`wordnet_scene_lemmas`
#: (only as a type the scene has): people call the kitchen's countertop "the counter", a word WordNet
#: gives the shop counter (and BEHAVIOR's checkout counter answers it where the scene has that); a
#: tabletop is "the table" where the scene has no table, envelopes to mail (or the mail) are "letters", the
#: floor outdoors is "the ground", and BEHAVIOR's scrub (WordNet: low bushes) is "a shrub".
EVERYDAY_SCENE_LEMMAS: dict[str, tuple[str, ...]] = {
    "countertop.n.01": ("counter",), "tabletop.n.01": ("table",), "envelope.n.01": ("letter",),
    "floor.n.01": ("ground",), "scrub.n.01": ("shrub",), "mail.n.04": ("letter",)}


@lru_cache(maxsize=1)
def wordnet_scene_lemmas() -> dict[str, list[str]]:
    """BEHAVIOR synset -> its one-word WordNet 3.0 lemmas whose most frequent noun sense is another
    synset ("tackle" of fishing_gear.n.01, "closet" of wardrobe.n.01; packaged, built with
    :func:`wordnet_lemmas`' table): read only as a type the scene has (``object_words.scene_mentions``),
    with :data:`EVERYDAY_SCENE_LEMMAS` added."""
    return _with_words(_packaged_table("wordnet_scene_lemmas.json"), EVERYDAY_SCENE_LEMMAS)


@lru_cache(maxsize=1)
def wordnet_part_holonyms() -> dict[str, list[str]]:
    """BEHAVIOR synset -> the wholes WordNet 3.0 says it is a part of, where BEHAVIOR names them
    (``shelf.n.01``: bookcase, cabinet, ...; packaged, built by ``scripts/build_wordnet_lemmas.py``):
    a part the scene has no object for names the scene's whole (``object_words.instruction_objects``)."""
    return _packaged_table("wordnet_part_holonyms.json")


@lru_cache(maxsize=1)
def wordnet_gloss_heads() -> dict[str, list[str]]:
    """BEHAVIOR synset -> the nouns that open its WordNet 3.0 gloss (``silver.n.02``, "coins made
    of silver": coins; packaged, built by ``scripts/build_wordnet_lemmas.py``)."""
    return _packaged_table("wordnet_gloss_heads.json")


def _packaged_table(name: str) -> dict[str, list[str]]:
    """One of the WordNet tables ``scripts/build_wordnet_lemmas.py`` packages in ``behavior_data``."""
    import json
    from importlib import resources

    return json.loads(resources.files("symplan_core").joinpath(f"behavior_data/{name}").read_text())


def ground_label(label: str, aliases: dict[str, str] | None = None) -> Grounding:
    text = label.strip()
    if is_synset_name(text):
        if known_synset(text):
            return Grounding(label, text, "synset")
        return Grounding(label, None, "none", f"{text} is not a BEHAVIOR synset")
    if aliases:
        hit = aliases.get(text.lower())
        if hit:
            if known_synset(hit):
                return Grounding(label, hit, "alias")
            return Grounding(label, None, "none", f"alias {text!r} -> {hit} is not a BEHAVIOR synset")
    hit = _lookup(words_of(text))
    if hit:
        return Grounding(label, hit, "lemma")
    return Grounding(label, None, "none", f"no BEHAVIOR synset is named {text!r}")


#: Adverbs between a modal and its verb ("the long ones can *just* stand next to it").
_MODAL_ADVERBS = frozenset("just also simply then really still all".split())


def _plural_form(word: str) -> bool:
    """An "-s" form, which no imperative verb has ("press", "toss" and "focus" end so in their base
    form): "clothes off the line" names the clothes."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def function_words(words: list[str]) -> list[bool]:
    """Which words the sentence's structure says are not nouns naming an object.

    * pronouns (``somebody``, ``it``) never are;
    * a modal auxiliary next to its subject is a modal, not a noun: ``can you``, ``could somebody``,
      ``you can``, ``we will`` (but ``the can``, ``trash can``, ``a can of soup`` are nouns);
    * a word right after a subject pronoun, a modal or a form of "do" ("doesn't die"), or right
      before a determiner or an object pronoun, is a verb: ``could you scrub it``, ``you rake up``,
      ``cover each of``, ``toast the bread``, ``brush some honey on it`` (a noun head is never
      followed directly by ``the``/``each``/``some``/``it``);
    * at a clause's start, a word followed by a particle and then by a noun phrase is an imperative
      verb: ``sand out the scratch``, ``please wipe down the counter``, ``mind filling up the tray``
      (not ``take the trash out the back door``: there the word is not the clause's first; nor an
      "-s" form: ``clothes off the line`` is a terse request that names the clothes);
    * an act of housework given ("give them a proper *scrub*", "give it a *wash*", "a good *coat* of
      polish") is no object, nor is a layer of something ("put a *coat* of polish on it");
    * at a clause's start, a word joined by "and"/"or" to a verb is a verb too: "*scrub* and rinse
      the fence".
    """
    n = len(words)
    skip = [w in _PRONOUNS for w in words]
    modal = [False] * n
    for i, w in enumerate(words):
        if w in _MODALS:
            before = words[i - 1] if i else ""
            after = words[i + 1] if i + 1 < n else ""
            if after in _SUBJECTS or after in _AFTER_MODAL or before in _SUBJECTS:
                modal[i] = skip[i] = True
    for i in range(n):
        if skip[i]:
            continue
        before = words[i - 1] if i else ""
        after = words[i + 1] if i + 1 < n else ""
        phrasal = (not i or before in _IMPERATIVE_LEADS) and after in PARTICLES and (
            i + 2 < n and words[i + 2] in _PHRASE_STARTS) and not _plural_form(words[i])
        given = words[i] in _ACTS and any(words[j] in ("a", "an", "another") for j in range(max(0, i - 2), i)) and any(
            words[j] in _GIVE for j in range(max(0, i - 6), i))
        # "put a coat of polish on it": a layer of something, whatever the verb (never the garment)
        layer = words[i] in _LAYERS and after == "of" and any(
            words[j] in ("a", "an", "another") for j in range(max(0, i - 2), i))
        # right after a determiner a word is a noun ("give the dog a bath"), whatever follows it;
        # so is the last of a list given an act ("give the bracelet, ring and necklace a good wash")
        takes_object = after in _PHRASE_STARTS and before not in _NOUN_STARTS and not _given_an_act(words, i)
        # "Dice all the vegetables", "wash both towels" (not "toys all go in the box")
        takes_object = takes_object or (after in _ALL_OF and before not in _NOUN_STARTS and not _plural_form(words[i]))
        after_modal = (i and modal[i - 1]) or (i > 1 and modal[i - 2] and before in _MODAL_ADVERBS)
        if (before in _SUBJECTS or after_modal or before == "to" or before in _DO_FORMS or takes_object
                or phrasal or given or layer):
            skip[i] = True
    for i in range(n - 2):  # "scrub and rinse the fence": two imperatives, the first one's object shared
        if (not i or words[i - 1] in _IMPERATIVE_LEADS) and words[i + 1] in ("and", "or") and skip[i + 2] \
                and words[i + 2] not in _PRONOUNS and not _plural_form(words[i]):
            skip[i] = True
    return skip


def _given_an_act(words: list[str], i: int) -> bool:
    """``words[i]`` is followed by an act of housework given to it: "a (good) wash", "another scrub"."""
    following = words[i + 1:i + 4]
    return bool(following) and following[0] in ("a", "an", "another") and any(w in _ACTS for w in following[1:3])


def mentioned_synsets(instruction: str, max_words: int = 4) -> list[tuple[str, str]]:
    """(phrase, synset) for the object names an instruction uses, longest phrases first, no overlaps.

    Only nouns BEHAVIOR can place count: synsets with a row in the table or declared by a task file
    (``container.n.01``), so abstract words that are only hierarchy nodes do not, nor do words
    instructions use as grammar (``top``, ``case``), nor words the sentence uses as pronouns,
    modals or verbs (:func:`function_words`: the "can" of "can you", "somebody", "scrub" in
    "could you scrub it").
    """
    return [(m.phrase, m.synset) for m in read_instruction(instruction, max_words).mentions]


@dataclass(frozen=True)
class Mention:
    """An object name of an instruction: its phrase, synset and word span (``start``, ``end``)."""

    phrase: str
    synset: str
    start: int
    end: int

    def instances_in(self, objects: Mapping[str, str]) -> set[str]:
        """The instances of ``objects`` (instance -> synset) this name means, strictly (:func:`grounds_in`
        without ``loose``: "pizza" is no pizza box)."""
        return {i for i, t in objects.items() if grounds_in(self.phrase, self.synset, {t}, loose=False)}


@dataclass(frozen=True)
class ReadInstruction:
    """An instruction's words (clause by clause, ``the car's`` -> ``car``), where each clause
    starts, which words the structure marks as not naming objects, and the object names found."""

    words: tuple[str, ...]
    clause_of: tuple[int, ...]  # clause index of each word
    function: tuple[bool, ...]  # :func:`function_words`, per word
    mentions: tuple[Mention, ...]  # longest phrases first, no overlaps
    sentence_of: tuple[int, ...] = ()  # sentence index of each word (ended by . ; ! ? or a new line)

    def object_at(self, i: int) -> Mention | None:
        return next((m for m in self.mentions if m.start <= i < m.end), None)


#: Prepositions that say where something is; after one, a word's "'s" is "is", not a possessive
#: ("the fruit's in the fridge").
WHERE_PREPOSITIONS = frozenset("in on at under inside by near next over behind along around beside against".split())


#: States said of a thing after "'s" ("the laundry's dry"): the "'s" is "is", a description.
_STATES_SAID = frozenset("dry wet clean dirty filthy warm hot cold cool open closed shut full empty frozen".split())


def _unclitic(words: list[str]) -> list[str]:
    """"the car's" -> car; "the fruit's in the fridge" -> fruit is in the fridge; "the laundry's
    dry" -> laundry is dry (not after "make sure": "make sure it's dry" asks for it)."""
    out = []
    for i, w in enumerate(words):
        if w.endswith("'s"):
            out.append(w[:-2])
            after = words[i + 1] if i + 1 < len(words) else ""
            if after in WHERE_PREPOSITIONS or (after in _STATES_SAID and "sure" not in words[:i]):
                out.append("is")
        else:
            out.append(w)
    return out


@lru_cache(maxsize=256)
def read_instruction(instruction: str, max_words: int = 4) -> ReadInstruction:
    """The reading :func:`mentioned_synsets` and the state words (``perception.verbs``) share."""
    # Clause by clause (punctuation ends a phrase and a word's neighbourhood); "the car's" -> car.
    pieces = re.split(f"({_CLAUSE.pattern})", instruction)  # clause texts, with the punctuation between
    clauses = [_unclitic(words_of(part)) for part in pieces[0::2]]
    ends = [0, *(bool(re.search(r"[.;!?\n]", mark)) for mark in pieces[1::2])]  # a sentence ends before it
    words = [w for clause in clauses for w in clause]
    function = [flag for clause in clauses for flag in function_words(clause)]
    used = list(function)
    starts = {sum(map(len, clauses[:i])) for i in range(len(clauses))}
    table = synset_table()
    found: list[Mention] = []
    for size in range(max_words, 0, -1):
        for start in range(0, len(words) - size + 1):
            if any(used[start:start + size]) or any(start < b < start + size for b in starts):
                continue
            phrase = words[start:start + size]
            if size == 1 and phrase[0] in _NOT_OBJECTS:
                continue
            hit = _lookup(phrase)
            if hit and (hit in table or hit in benchmark_types()):
                found.append(Mention(" ".join(words[start:start + size]), hit, start, start + size))
                used[start:start + size] = [True] * size
    clause_of = tuple(k for k, clause in enumerate(clauses) for _w in clause)
    sentence_of = tuple(sum(ends[:k + 1]) for k, clause in enumerate(clauses) for _w in clause)
    joined = _gloss_heads_joined(_portions_joined(found, clause_of), words, clause_of)
    return ReadInstruction(tuple(words), clause_of, tuple(function), joined, sentence_of)


def _gloss_heads_joined(found: tuple[Mention, ...], words: list[str], clause_of: tuple[int, ...]) -> tuple[Mention, ...]:
    """"both silver coins" are two of ``silver.n.02`` ("coins made of silver"): a word no name
    covers right after a name, in its clause, that opens the name's WordNet gloss
    (:func:`wordnet_gloss_heads`) says what the named thing is, not a thing the name modifies, and
    is read as part of the name."""
    covered = {k for m in found for k in range(m.start, m.end)}
    heads = wordnet_gloss_heads()
    out = []
    for m in found:
        k = m.end
        if (k < len(words) and k not in covered and clause_of[k] == clause_of[m.start]
                and set(singulars(words[k])) & set(heads.get(m.synset, ()))):
            m = Mention(f"{m.phrase} {words[k]}", m.synset, m.start, k + 1)
        out.append(m)
    return tuple(out)


#: A helping or a cut of food ("fillet", "breast", "leg"): after the name of a food, its form.
_PORTIONS = frozenset({"helping.n.01", "cut.n.06"})
_FOODS = frozenset({"food.n.01", "food.n.02"})


def _portions_joined(found: list[Mention], clause_of: tuple[int, ...]) -> tuple[Mention, ...]:
    """"the salmon fillets" are salmon: a one-word portion of food that no BEHAVIOR object is
    called (``fillet.n.02``) right after the name of a food in the same clause is read as part of
    that name. A portion that is a BEHAVIOR type keeps its own name ("beef steaks" are steaks)."""
    ending_at = {m.end: m for m in found}
    joined: dict[Mention, Mention] = {}  # the food's mention -> the food's mention with its portion
    for m in found:
        food = ending_at.get(m.start)
        if (food is not None and m.end - m.start == 1 and clause_of[food.start] == clause_of[m.start]
                and m.synset not in benchmark_types() and _PORTIONS & set(ancestors(m.synset))
                and _FOODS & set(ancestors(food.synset))):
            joined[food] = Mention(f"{food.phrase} {m.phrase}", food.synset, food.start, m.end)
    portions = {j.end - 1 for j in joined.values()}  # where each joined portion word stood
    out = [joined.get(m, m) for m in found if m.start not in portions]
    return tuple(sorted(out, key=lambda m: (m.start - m.end, m.start)))  # longest first, as found


@lru_cache(maxsize=1)
def sense_index() -> dict[tuple[str, ...], frozenset[str]]:
    """Words -> every BEHAVIOR synset they name: head words of any sense, and WordNet 3.0 lemmas.
    A hyphenated name is also found written open ("lemon pepper seasoning": lemon-pepper_seasoning)."""
    names = set(synset_table()) | set(synset_parents()) | set(synset_parents().values()) | benchmark_types()
    out: dict[tuple[str, ...], set[str]] = {}

    def add(words: list[str], name: str) -> None:
        out.setdefault(tuple(words), set()).add(name)
        if any("-" in w for w in words):
            out.setdefault(_open_form(words), set()).add(name)

    for name in names:
        if ".n." in name:
            add(words_of(type_word(name)), name)
    for name, lemmas in wordnet_lemmas().items():
        if name in names:
            for lemma in lemmas:
                add(words_of(lemma), name)
    return {k: frozenset(v) for k, v in out.items() if k}


def senses(phrase: str) -> frozenset[str]:
    """Every BEHAVIOR synset a phrase may name (a plural last word in its singular forms too; an
    open compound as one word where as written it names nothing: :func:`phrase_keys`)."""
    index = sense_index()
    words = words_of(phrase)
    keys = phrase_keys(words)
    as_written = [index[key] for key in keys if len(key) == len(words) and key in index]
    # the closed form only where the phrase as written names nothing
    found = as_written or [index[key] for key in keys if key in index]
    return frozenset().union(*found)


@lru_cache(maxsize=8192)
def names_of(synset: str) -> tuple[tuple[str, ...], ...]:
    """The word tuples a synset goes by: its head words and its WordNet lemmas."""
    return (tuple(words_of(type_word(synset))), *(tuple(words_of(lemma)) for lemma in wordnet_lemmas().get(synset, ())))


def grounds_in(phrase: str, synset: str, types, loose: bool = True) -> str | None:
    """The type among ``types`` an instruction's phrase can mean, or None. Everyday words reach a
    scene's types through any sense of the word and the hierarchy (``pot``: a stockpot is a kind
    of pot; ``bottles``: a carboy is a bottle), a synonym (``bush``: shrub), the head of a type's
    name (``can``: trash can, ``bag``: tote bag, ``glass``: water glass), or (``loose``) a type
    whose name contains the phrase (``dog food``: can of dog food; not for deciding that a goal
    *needs* what the phrase names: ``pizza`` does not need a pizza box)."""
    words = words_of(phrase)
    wanted = {synset} | senses(phrase)
    forms = {(*words[:-1], last) for last in singulars(words[-1])} if words else set()
    head = type_word(synset).split()
    for t in sorted(types):
        if any(compatibility(s, t) > 0 for s in wanted):
            return t
        for name in names_of(t):
            if any(name[-len(f):] == f for f in forms if len(f) <= len(name)):
                return t
            if loose and head and any(name[i:i + len(head)] == tuple(head) for i in range(len(name) - len(head) + 1)):
                return t
    # English also says "X of Y" as the compound "Y X": the soda bottles are the bottles of soda,
    # the milk carton a carton of milk (only where nothing above answered: BEHAVIOR also has a
    # milk_carton, empty, which the words name first)
    for t in sorted(types):
        for name in names_of(t):
            if "of" in name[1:-1]:
                i = name.index("of")
                if any(f == (*name[i + 1:], *name[:i]) for f in forms):
                    return t
    return None


def ancestors(synset: str) -> list[str]:
    parents = synset_parents()
    chain, seen, cur = [], {synset}, parents.get(synset)
    while cur and cur not in seen:
        chain.append(cur)
        seen.add(cur)
        cur = parents.get(cur)
    return chain


@lru_cache(maxsize=8192)
def kinds_of(synset: str) -> tuple[str, ...]:
    """What a synset is a kind of: its :func:`ancestors`, or, where BEHAVIOR's hierarchy leaves it
    out, its first hypernym in ``synsets.csv`` and that one's ancestors (``kitchen_table.n.01`` is a
    ``table.n.02``, which the hierarchy knows)."""
    chain = ancestors(synset)
    row = synset_table().get(synset)
    if chain or synset in synset_parents() or row is None or not row.hypernyms:
        return tuple(chain)
    return (row.hypernyms[0], *(a for a in ancestors(row.hypernyms[0]) if a != synset))


def compatibility(wanted: str, seen: str) -> int:
    """How well a seen synset fills a wanted type: 3 same, 2 a kind of it, 1 more general, 0 no."""
    if wanted == seen:
        return 3
    if wanted in kinds_of(seen):
        return 2
    if seen in kinds_of(wanted):
        return 1
    return 0


def is_fixture(synset: str) -> bool:
    info = synset_info(synset)
    return synset in FLOOR_TYPES or (info is not None and "sceneObject" in info.abilities)


def is_substance(synset: str, domain: str) -> bool:
    """A particle system or liquid in ``domain``'s reading (B-100 declares only rigid objects)."""
    if domain == "igibson":
        return synset in IGIBSON_SUBSTANCES
    info = synset_info(synset)
    return info is not None and info.is_substance


def is_floor(synset: str) -> bool:
    return synset in FLOOR_TYPES


def is_container(synset: str) -> bool:
    """Can hold things inside: openable or fillable (or unknown: permitted), or a shelf."""
    info = synset_info(synset)
    if info is None:
        return True
    return bool({"openable", "fillable"} & info.abilities) or "shelf.n.01" in (synset, *ancestors(synset))
