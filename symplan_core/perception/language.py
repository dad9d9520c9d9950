"""What an instruction's words say about the goal, held against a drafted goal: the conflicts
of its state words with the goal (:func:`state_conflicts`, which also gathers the placement and
object checks of ``placements``), and verb -> predicate hints for the LLM drafter
(docs/perception.md, "Language checks"). The words themselves are read in ``verbs`` (state
words), ``object_words`` (what the words name) and ``placements`` (where things go); what a goal
asks is read in ``goal_reading``.

* **Conflict** (:func:`state_conflicts`): the instruction's words give a predicate one polarity
  and the goal uses that predicate only with the other ("turn off the hot tub", goal
  ``(toggled_on hot_tub)``; polarities read by ``goal_reading.goal_polarities``). An instruction
  giving both polarities of one predicate ("turn off the lamp and turn on the tv", "wash the dirty
  dishes") says nothing about it. A predicate the goal never uses is *missing* (the caller decides
  what that is worth).
* **Hints** (:func:`prompt_hints`): for the state words and the placement prepositions (after a
  verb that moves things, in its clause) of the instruction, the goal literal they ask for, where
  some action of the engine's action library achieves it (``symplan_core.engine.actions``:
  ``wait_for_cooked`` adds ``cooked``, ``close`` deletes ``open``, ``place_inside`` places
  ``inside``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from symplan_core.bddl import And, Atom, Formula, Imply, Literal, Not, Or, Problem, Quantifier
from symplan_core.bddl.checks import argument_type, bound_goal_atoms, goal_atoms, iter_atoms
from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.engine.predicates import ABILITY_EVIDENCE
from symplan_core.perception.goal_reading import (
    APPLIANCE_STATES,
    PRODUCT_STATES,
    achievable,
    applied_substances,
    goal_holders,
    goal_polarities,
    initial_facts,
    made_from,
    made_types,
    never_removed_substances,
    package_fillings,
    placed_kinds,
    removal_of,
    substance_subjects,
)
from symplan_core.perception.object_words import (
    COOKING_VERBS,
    FETCH_VERBS,
    acted_on_directly,
    governing_word,
    incidental_objects,
    instruction_objects,
    names_a_floor,
    reading_of,
    requested_kinds,
    requested_products,
    scene_mentions,
    scene_reading,
)
from symplan_core.perception.placements import (
    PlacementWord,
    arrangements,
    asked_for_all,
    emptied_sources_in_goal,
    empty_places,
    misplacements,
    moved_sources,
    object_after_verb,
    partly_placed,
    placed_elsewhere,
    placement_words,
    reversed_placements,
    substances_placed_elsewhere,
    unfilled_containers,
)
from symplan_core.perception.synsets import (
    Mention,
    ReadInstruction,
    grounds_in,
    is_floor,
    is_substance,
    kinds_of,
    read_instruction,
    words_of,
)
from symplan_core.perception.verbs import (
    DETERMINERS,
    PLACEMENT_VERBS,
    STATE_VERBS,
    StateWord,
    asked_states,
    participles,
    state_words,
    verb_forms,
)
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import synset_info


@dataclass(frozen=True)
class StateCheck:
    conflicts: tuple[str, ...]  # reasons: the goal says the opposite of the instruction
    missing: tuple[str, ...]  # the instruction asks for a state (or a placement) the goal never states
    unanswered: tuple[str, ...] = ()  # the words of ``missing``, as the instruction says them


def _literal(predicate: str, polarity: bool) -> str:
    base, _, kind = predicate.partition(":")
    atom = f"({base} ... {kind if '.n.' in kind else f'<something {kind}>'})" if kind else f"({predicate} ...)"
    return atom if polarity else f"(not {atom})"


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
    conflicts += substance_subjects(problem) + package_fillings(problem)  # no drafter's goal should have one
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
                *placed_elsewhere(instruction, problem, places),  # "the basket on the counter", and it on the floor
                *substances_placed_elsewhere(instruction, problem, places),  # "seeds in the pot", left in the bag
                *partly_placed(instruction, problem, places),  # "all the strawberries in a bowl", and one there
                *reversed_placements(instruction, problem, places),  # "sticker on the plate": the plate on it
                *unfilled_containers(instruction, problem),  # "bag the potatoes", and nothing in a sack
                *moved_sources(instruction, problem)]  # "everything off the line", and the line in the hamper
    missing += unplaced
    # the words as said, quoted first in each reason ("the instruction says 'in the oven', ...")
    unanswered += [m.group(1) for reason in unplaced if (m := _SAID.search(reason))]
    missing += arrangements(instruction, problem)  # "one per pot", "one on top of the other"
    missing += unasked_damage(words, problem)
    missing += unasked_switching(instruction, words, problem)
    missing += unasked_removals(instruction, problem)
    missing += left_in_emptied(instruction, problem)  # "unload the cart", and some of it stays there
    missing += floor_only(instruction, problem)  # "mail the letters", and every envelope on the floor
    missing += states_of_some(instruction, words, problem)  # "roast the drumsticks", and one of two cooked
    missing += unapplied_agents(instruction, problem)  # "wipe it down with disinfectant", and none on it
    missing += removed_agents(instruction, problem)  # "treat the pool", and the disinfectant kept off it
    missing += unmade_kinds(instruction, problem)  # "make me a coffee", and cooked coffee beans made
    missing += unserved_drinks(instruction, problem, places)  # "blend me a cappuccino", left in the blender
    missing += made_elsewhere(instruction, problem, places)  # "make mousse in the mixer", and it in a bowl
    missing += idle_products(instruction, problem)  # "cook the peas", and cooked water made for nothing
    missing += unsaid_choices(instruction, problem)  # "cook the meatballs", and (or (cooked penne) (cooked meatball))
    return StateCheck(tuple(conflicts), tuple(dict.fromkeys(missing)), tuple(dict.fromkeys(unanswered)))


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


def _it_before(read: ReadInstruction, position: int, direct: frozenset[str] | None = None,
               needs: frozenset[str] = frozenset()) -> Mention | None:
    """What "it" right after the verb at ``position`` stands for: the one kind named before the verb
    that a verb acts on directly (``object_words.acted_on_directly``), and not as a tool, a source or
    something fetched; None where there are two ("make lemonade with lemon juice, sugar and water,
    and pour it into the pitcher"), unless one of them is in the verb's own clause with no other
    thing named after it (substances aside): "cook some rice, and season the chicken with salt and
    cook it" is the chicken; "load the container into the car and close it" is read as before.
    "chop up that cabbage with a bit of chili and fry it up": the cabbage; "the boat's filthy, could
    you grab a bucket and some soap and scrub it down?": the boat. ``direct``:
    :func:`directly_acted_on` of ``read``, where the caller has it. ``needs``: abilities one of which
    the state asked needs (``engine.predicates.ABILITY_EVIDENCE``): "salt the chicken in the jar,
    close it" is no chicken closed, so a thing known to lack them all is no candidate."""
    k = position + 1
    if k >= len(read.words) or read.words[k] != "it" or read.clause_of[k] != read.clause_of[position]:
        return None
    direct = directly_acted_on(read) if direct is None else direct

    def fetched(m: Mention) -> bool:
        return any(read.words[j] in FETCH_VERBS for j in range(m.start) if read.clause_of[j] == read.clause_of[m.start])

    def able(m: Mention) -> bool:
        info = synset_info(m.synset)
        return not needs or info is None or bool(needs & info.abilities)

    candidates = [m for m in read.mentions if m.end <= position and m.phrase in direct and not fetched(m) and able(m)]
    # one such thing in the verb's own clause ("cook some rice in the rice cooker, and season the
    # chicken with salt and cook it": the chicken); else two such things ("the vacuum is gross, can
    # you clean out the canister, dust it off"): not read
    own = [m for m in candidates if read.clause_of[m.start] == read.clause_of[position]]
    if own:  # where no other thing is named after it ("load the container into the car and close it")
        last = max(own, key=lambda m: m.end)
        between = [m for m in read.mentions if last.end <= m.start < position and not is_substance(m.synset, "omnigibson")]
        if not between and len({m.synset for m in own}) == 1:
            return last
    return max(candidates, key=lambda m: m.end) if len({m.synset for m in candidates}) == 1 else None


def directly_acted_on(read: ReadInstruction) -> frozenset[str]:
    """The names a verb acts on directly (``object_words.acted_on_directly``) that are no tool,
    source or modifier (``object_words.incidental_objects``)."""
    return acted_on_directly(read) - incidental_objects(read)


def states_of_others(instruction: str, words: Iterable[StateWord], problem: Problem) -> list[str]:
    """A state word whose object the instruction names right after it ("fry up **those brats**":
    past determiners and a particle), a thing of the scene, where the goal asks the states the word
    names only of (or with) other things: "the instruction says 'fry' of the brats, which asks for
    (cooked ...), but the goal asks it only of cooked__olive_oil.n.01". A made thing whose name has
    the object's kind counts as it (``cooked__bratwurst``), and so does any of the word's states
    ("hang the leotard": draped on a hanger), and so does what the goal has the thing hold ("boil
    the kettle": the cooked water it is filled with). Qwen 1.5B answered "fry up those brats" with
    cooked oil in the pan and the brats uncooked."""
    read = read_instruction(instruction)
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    by_word: dict[int, list[StateWord]] = {}
    for word in words:
        if word.particle is None and (":" not in word.predicate or ".n." in word.predicate.partition(":")[2]):
            by_word.setdefault(word.position, []).append(word)  # a state with a named dirt ("dust") too
    out = []
    with_scene = scene_reading(instruction, scene)  # "that cabbage", with a head cabbage
    direct = directly_acted_on(with_scene) if by_word else frozenset()
    modifiers = incidental_objects(read) if by_word else frozenset()
    for position, alternatives in by_word.items():
        needs = frozenset(a for w in alternatives if (a := ABILITY_EVIDENCE.get(w.predicate)) is not None)
        thing = object_after_verb(read, position, scene_words)
        if thing is None and any(w.predicate != "overlaid" for w in alternatives):
            # what "wrap it" wraps may be what holds the last thing named ("drop the bell in the box
            # and wrap it up"): an "it" read back stands for no wrapped thing
            thing = _it_before(with_scene, position, direct, needs)
        if thing is None or is_substance(thing.synset, "omnigibson") or thing.phrase in modifiers:
            continue  # "clean the dryer lint screen": the screen is cleaned, "dryer" only says which
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
                # what is wrapped is what a sheet is laid over: (overlaid ?foil ?ham) is said of the ham
                said_of = argument_kinds[-1] if atom.predicate == "overlaid" else argument_kinds[0]
                subjects |= (set(argument_kinds) & kinds) or {said_of}
            elif atom.predicate == "real" and positive and atom.args:
                arg = atom.args[0]  # as in goal_polarities: a made thing may be declared by the goal alone
                typ = argument_type(arg, types, problem.objects) or arg.lstrip("?").rsplit("_", 1)[0]
                made = PRODUCT_STATES.get(typ.split(".n.")[0].split("__")[0])
                if made is not None and made in states:
                    subjects.add(typ)
        # what the goal has the thing hold is the thing's ("boil the kettle": the water in it)
        held = {argument_type(atom.args[1], types, problem.objects)
                for atom, positive, types in goal_atoms(problem.goal)
                if positive and atom.predicate in ("filled", "contains") and len(atom.args) == 2
                and argument_type(atom.args[0], types, problem.objects) in kinds}
        if subjects and not any(t in kinds or t in held or type_word(t).split()[-1] in heads for t in subjects):
            asked = " or ".join(_literal(w.predicate, w.polarity) for w in alternatives)
            out.append(f"the instruction says '{alternatives[0].said}' of the {thing.phrase}, which asks for "
                       f"{asked}, but the goal asks it only of " + ", ".join(sorted(subjects)))
    return out


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


def made_elsewhere(instruction: str, problem: Problem, places: list[PlacementWord] | None = None) -> list[str]:
    """Food (no drink: :func:`unserved_drinks`) the request makes or cooks "in" a named container
    ("Make blueberry mousse in the mixer", "cook them in the saucepan": a making or cooking verb
    before it in its clause, no verb that moves things, and no placement after it), where the goal
    holds it (or what cooking makes of it: ``cooked__pea``), but never in that container: Qwen 1.5B
    made the mousse and put it in a bowl on the mixer, and cooked the peas into a bowl. What is
    made or cooked is named before "in" in its clause, or is "it"/"them" right after the verb: the
    one thing named before it."""
    scene = set(problem.objects.values())
    made = made_types(problem)
    read = scene_reading(instruction, scene)  # "in the mixer": an electric mixer
    places = placement_words(instruction) if places is None else places
    out = []
    for i, word in enumerate(read.words):
        clause = read.clause_of[i]
        earlier = [j for j in range(i) if read.clause_of[j] == clause]
        cooking = [j for j in earlier if read.words[j] in COOKING_VERBS]
        if (word not in ("in", "inside") or not cooking or any(read.words[j] in PLACEMENT_VERBS for j in earlier)
                or any(p.end > i for p in places)):
            continue
        target = object_after_verb(read, i, {})  # the name right after "in", past determiners
        if target is None:
            continue
        named = [m for m in read.mentions if m.end <= i and read.clause_of[m.start] == clause and m != target]
        pronoun = read.words[cooking[0] + 1] if cooking[0] + 1 < i else ""
        if not named and pronoun in ("it", "them"):
            before = {m.phrase: m for m in read.mentions if m.end <= cooking[0]}
            named = list(before.values()) if len(before) == 1 else []
        for m in named:
            said = f"{m.phrase} {word}" if m.end <= i and read.clause_of[m.start] == clause else f"{pronoun} {word}"
            kinds = {t for t in scene | made if grounds_in(m.phrase, m.synset, {t}, loose=False)}
            kinds |= {t for t in made if made_from(t) in {k.split(".n.")[0] for k in kinds}}  # cooked__pea.n.01
            kinds = {t for t in kinds if not _DRINK_KINDS & {t, *kinds_of(t)}}
            held = {h for holders in goal_holders(problem, kinds).values() for h in holders}
            if held and not any(grounds_in(target.phrase, target.synset, {h}, loose=False) for h in held):
                which = "" if said.startswith(m.phrase) else f" (the {m.phrase})"
                out.append(f"the instruction says '{said} the {target.phrase}'{which}, but the goal holds "
                           f"{', '.join(sorted(kinds))} only in {', '.join(sorted(held))}")
    return out


def idle_products(instruction: str, problem: Problem) -> list[str]:
    """A thing changed from another (``goal_reading.made_from``: cooked, melted, diced, halved) that
    the goal only brings into being, relating it to nothing, where the instruction names neither
    it nor what it is made from: Qwen 1.5B added ``(real ?cooked__water_1)`` to "cook the peas and
    melt some butter". A robot makes nothing on its own initiative."""
    made = {typ for atom, positive, types in goal_atoms(problem.goal) if positive and atom.predicate == "real"
            and atom.args and (typ := argument_type(atom.args[0], types, problem.objects))}
    if not made:
        return []
    used = {argument_type(a, types, problem.objects) for atom, _positive, types in goal_atoms(problem.goal)
            if atom.predicate != "real" for a in atom.args}
    named = instruction_objects(instruction, set(problem.objects.values()) | made)
    out = []
    for typ in sorted(made - used):
        raw = made_from(typ)
        if raw is None or any(grounds_in(phrase, synset, {typ}, loose=False)
                              or raw in (synset.split(".n.")[0], made_from(synset)) for phrase, synset in named):
            continue
        out.append(f"the goal makes {typ}, which the instruction never names, and does nothing with it")
    return out


#: Words that offer a choice: a goal may then say "(or ...)".
_CHOICE_WORDS = frozenset({"or", "either", "whichever", "whatever", "wherever"})


def _sexpr(tree: list | str) -> str:
    return tree if isinstance(tree, str) else "(" + " ".join(_sexpr(t) for t in tree) + ")"


def unsaid_choices(instruction: str, problem: Problem) -> list[str]:
    """Each ``(or ...)`` of the goal whose literals are about different things, where the instruction
    offers no choice: Qwen 1.5B hedged "cook all four meatballs" as ``(or (cooked ?penne)
    (cooked ?meatball))``, which a plan meets by cooking the penne. A choice between relations of
    the same things ("in or next to the sink", either one on the other), between places for one
    thing (BEHAVIOR's platter on the tray or the table) or between a thing and what it is made into
    (BEHAVIOR's ``(or (real ?salt) (real ?cooked__salt))``, chips covered in salsa or in cooked
    salsa) is kept."""
    if _CHOICE_WORDS & set(words_of(instruction)):
        return []

    def kind(arg: str) -> str:
        """A substance as what it is or is made from (salsa for cooked__salsa_1), a thing as itself
        (log_1 is not log_2) or, when made, as what it is made from."""
        typ = problem.objects.get(arg)
        if typ is None:
            return arg
        return made_from(typ) or (typ.split(".n.")[0] if is_substance(typ, "omnigibson") else arg)

    out = []
    stack: list[Formula] = [problem.goal]
    while stack:
        f = stack.pop()
        if isinstance(f, Imply):
            stack.append(f.consequent)  # the antecedent is a condition, not a goal
            continue
        if isinstance(f, Or):
            things = {frozenset(map(kind, (a for atom in iter_atoms(part) for a in atom.args))) for part in f.parts}
            subjects = {frozenset(kind(atom.args[0]) for atom in iter_atoms(part) if atom.args) for part in f.parts}
            if len(things) > 1 and len(subjects) > 1:  # a choice of places for the same things is BEHAVIOR's too
                out.append(f"the goal offers a choice the instruction does not: {_sexpr(f.to_list())}")
        if isinstance(f, And | Or):
            stack.extend(f.parts)
        elif isinstance(f, Not | Quantifier):
            stack.append(f.body)
    return list(dict.fromkeys(out))


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
    held = goal_holders(problem, drinks)
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


#: Verbs whose "with" names what ends up on the thing ("wipe it down with disinfectant"). Spray,
#: coat, polish and disinfect are state words that ask for an applied covering already. Not
#: scrubbing or washing: "scrub it with some lemon juice and salt to get the tarnish off" uses the
#: juice to clean (its released goal covers nothing with it).
_APPLYING_VERBS = frozenset(f for verb in "wipe treat".split() for f in verb_forms(verb))


def unapplied_agents(instruction: str, problem: Problem) -> list[str]:
    """A substance the released goals apply (``goal_reading.applied_substances``: disinfectant,
    polish, fertilizer) named after "with" of a verb that wipes or treats, in its clause
    ("wipe it down with disinfectant", "treat the lawn with fertilizer"), where the goal covers
    nothing with it; and any substance listed after the "with" of a verb that covers things with
    it (:func:`_listed_after_covering_with`: "season both steaks with salt, black pepper, and olive
    oil"), where the goal covers things with other substances only (untuned11 direct: no black
    pepper). Qwen 1.5B answered "Clean the mud off the baseball and then wipe it down with
    disinfectant" with the mud cleaned off the ball and the disinfectant bottle."""
    read = read_instruction(instruction)
    applied = applied_substances()
    covered = {argument_type(atom.args[1], types, problem.objects) for atom, positive, types in goal_atoms(problem.goal)
               if positive and atom.predicate == "covered" and len(atom.args) == 2}
    scene = set(problem.objects.values())
    out = []
    for m in read.mentions:
        kinds = {t for t in applied if grounds_in(m.phrase, m.synset, {t}, loose=False)}
        if (not kinds or kinds & covered or governing_word(read, m) != "with"
                or not any(read.words[j] in _APPLYING_VERBS and read.clause_of[j] == read.clause_of[m.start]
                           for j in range(m.start))):
            continue
        out.append(_uncovered_with(m))
    # "season both steaks with salt, black pepper, and olive oil": each substance listed after the
    # "with" of a verb that covers things with what it names, where the goal answers the verb
    # (a substance the goal does not name may be missing from an LLM draft's scene: the pepper in its mill)
    substances = {t for t in scene | covered if t and is_substance(t, "omnigibson")}
    for m in _listed_after_covering_with(read):
        if (is_substance(m.synset, "omnigibson") and covered & substances
                and not any(grounds_in(m.phrase, m.synset, {t}, loose=False) for t in covered & substances)):
            out.append(_uncovered_with(m))
    return list(dict.fromkeys(out))


def _uncovered_with(m: Mention) -> str:
    """The reason for a substance said after "with" that the goal covers nothing with."""
    return (f"the instruction says 'with {m.phrase}', which asks for (covered ?x ?{m.phrase.replace(' ', '_')}), "
            "but the goal covers nothing with it")


#: State verbs that cover a thing with what their "with" names ("season", "coat", "glaze"), and
#: their participles ("make sure they are coated in olive oil and sprinkled with parmesan").
_COVERING_VERBS = frozenset(f for verb, states in STATE_VERBS.items() if ("covered:applied", True) in states
                            for f in verb_forms(verb) | participles(verb))
#: Words that go on a list of things ("salt, black pepper, and olive oil"; commas are not words).
_LIST_WORDS = frozenset(("and", "or")) | DETERMINERS


def _listed_after_covering_with(read: ReadInstruction) -> list[Mention]:
    """The names listed right after the "with" of a covering verb (:data:`_COVERING_VERBS`) in its
    clause, or its "in" within three words of it: "season both steaks *with* salt, black pepper, and
    olive oil", "coated *in* olive oil"."""
    out: list[Mention] = []
    ordered = sorted(read.mentions, key=lambda m: m.start)
    for w, word in enumerate(read.words):
        # "with" after the verb, or "in" right after its object ("coat them in oil", "coated in olive oil")
        before = range(w) if word == "with" else range(max(0, w - 3), w)
        if word not in ("with", "in") or not any(read.words[j] in _COVERING_VERBS for j in before
                                                 if read.clause_of[j] == read.clause_of[w]):
            continue
        end = w + 1
        for m in ordered:
            if m.start < end:
                continue
            if any(read.words[k] not in _LIST_WORDS for k in range(end, m.start)):
                break
            out.append(m)
            end = m.end
    return out


def removed_agents(instruction: str, problem: Problem) -> list[str]:
    """Each ``(not (covered x s))`` of the goal with a substance the released goals only ever apply
    (``goal_reading.never_removed_substances``), where the instruction does not name it. Every
    recorded held-out draft with one was wrong or refused: "treat the pool" drafted as the
    disinfectant kept off the pool, "grill the kabobs" as the oil kept off the grill."""
    read = read_instruction(instruction)
    never_removed = never_removed_substances()
    out = []
    for atom, positive, types in goal_atoms(problem.goal):
        if positive or atom.predicate != "covered" or len(atom.args) != 2:
            continue
        kind = argument_type(atom.args[1], types, problem.objects)
        if kind in never_removed and not any(grounds_in(m.phrase, m.synset, {kind}, loose=False) for m in read.mentions):
            out.append(f"the goal takes {kind} off {atom.args[0].lstrip('?')} ((not (covered ...))), which goals only "
                       "ever apply, and the instruction does not ask for it")
    return out


def unmade_kinds(instruction: str, problem: Problem) -> list[str]:
    """A kind of food or drink the request asks to make by a word no BEHAVIOR object is called
    (``object_words.requested_kinds``: "make me a coffee"), where the goal makes nothing of that
    kind: Qwen 1.5B answered "make me a coffee" with cooked coffee beans in the mug."""
    made = made_types(problem)
    return [f"the instruction asks to make {m.phrase} ({m.synset}), but the goal makes no kind of it"
            + (f" (it makes {', '.join(sorted(made))})" if made else "")
            for m in requested_kinds(instruction)
            if not any(m.synset in kinds_of(t) for t in made)]


def states_of_some(instruction: str, words: Iterable[StateWord], problem: Problem) -> list[str]:
    """A state word whose object is a plural asked all of (``placements.asked_for_all``: "roast the
    turkey drumsticks", two in the scene), where the goal asks that state of some of them by name
    and not of the rest: "the instruction says 'roast' of the turkey drumsticks, all 2 in the
    scene, but the goal asks (cooked ...) only of turkey_leg.n.01_2". Qwen 1.5B cooked one drumstick
    and salted the other. A goal that asks the state of none of them is the other checks' business."""
    types = set(problem.objects.values())
    read = scene_reading(instruction, types)
    scene_words = dict(scene_mentions(instruction, types))
    plurals = {(m.start, m.end) for m in asked_for_all(instruction, read)}
    out = []
    for word in words:
        if word.particle is not None or ":" in word.predicate:
            continue
        thing = object_after_verb(read, word.position, scene_words) or _them_before(read, word.position, plurals)
        if thing is None or (thing.start, thing.end) not in plurals:
            continue
        things = thing.instances_in(problem.objects)
        if len(things) < 2:
            continue
        asked: set[str] = set()
        for atom, positive, bound, existential in bound_goal_atoms(problem.goal):
            if atom.predicate != word.predicate or positive != word.polarity or not atom.args:
                continue
            subject = atom.args[0]
            if subject in bound:
                if subject not in existential:
                    asked |= {i for i in things if problem.objects[i] == bound[subject]}
            elif subject.lstrip("?") in things:
                asked.add(subject.lstrip("?"))
        if asked and asked != things:
            out.append(f"the instruction says '{word.said}' of the {thing.phrase}, all {len(things)} in the scene, "
                       f"but the goal asks {_literal(word.predicate, word.polarity)} only of "
                       + ", ".join(sorted(asked)))
    return out


def _them_before(read: ReadInstruction, position: int, plurals: set[tuple[int, int]]) -> Mention | None:
    """What "them" right after the verb at ``position`` stands for: the one plural asked all of
    (``plurals``: start and end of each) named before the verb ("The towels are clean now. Would you
    fold them up?": every towel); None where several are."""
    k = position + 1
    if k >= len(read.words) or read.words[k] != "them":
        return None
    before = [m for m in read.mentions if m.end <= position and (m.start, m.end) in plurals]
    return max(before, key=lambda m: m.end) if len({m.phrase for m in before}) == 1 else None


def floor_only(instruction: str, problem: Problem) -> list[str]:
    """A goal that only sets things on a floor the words never name asks nothing the request
    said: Qwen 1.5B answered "mail the three letters" with every envelope on the floor. (A floor
    placement beside other literals is left out before: ``goal_mending.drop_unnamed_floors``.)"""
    atoms = list(goal_atoms(problem.goal))
    if not atoms or not all(positive and atom.predicate == "ontop" and len(atom.args) == 2
                            and is_floor(argument_type(atom.args[1], types, problem.objects) or "")
                            for atom, positive, types in atoms):
        return []
    if names_a_floor(instruction, set(problem.objects.values())):
        return []
    return ["the goal only sets things on the floor, which the instruction never names"]


def left_in_emptied(instruction: str, problem: Problem) -> list[str]:
    """The instruction empties a thing ("unload the cart"), and the goal takes some of what it holds
    out but leaves the rest (``placements.emptied_sources_in_goal``)."""
    return [f"the instruction empties {source.instance}, but the goal takes out only {len(source.moved)} of "
            f"its things and leaves {', '.join(source.left)}"
            for source in emptied_sources_in_goal(instruction, problem) if source.left]


def asks_removal(instruction: str | ReadInstruction) -> bool:
    """The instruction has a word that takes things out or off (:data:`REMOVAL_WORDS`)."""
    return any(w in REMOVAL_WORDS for w in reading_of(instruction).words)


#: States the camera cannot see, with the ability a thing needs to have one: asking for one to
#: end says it holds now ("switch off the calculator": it is on). Not ``open``: "take the mail out
#: and close the mailbox" closes what the robot opens (measured on the recorded drafts).
_UNSEEN_STATES = {"toggled_on": "toggleable"}


def presupposed_states(instruction: str, objects: dict[str, str], init: Iterable[Literal]) -> list[Literal]:
    """``(P x)`` for each state P the camera cannot see (:data:`_UNSEEN_STATES`) that a state word
    asks to end ("switch off") and none asks for, and each thing x the words name in that word's clause (or
    before it, for "switch it off") that can have P, where the scene's facts do not say it already:
    the request says it holds now. Without it the closed world reads the calculator as off, a
    goal that switches it off asks for nothing, and Qwen 1.5B, held to mention the calculator,
    set it on the floor instead. The caller keeps those its goal answers (the pipeline's "said"
    facts)."""
    read = scene_reading(instruction, set(objects.values()))  # "the TV": a word only the scene explains
    held = {lit.atom for lit in init if not lit.negated}
    out: list[Literal] = []
    words = state_words(instruction)
    for word in words:
        ability = _UNSEEN_STATES.get(word.predicate)
        if ability is None or word.polarity or any(w.predicate == word.predicate and w.polarity for w in words):
            continue  # "turn the oven on ... and off again" says nothing of how it is now
        clause = read.clause_of[word.position]
        named = [m for m in read.mentions if read.clause_of[m.start] == clause] or \
            [m for m in read.mentions if m.end <= word.position]
        for m in named:
            for inst in sorted(m.instances_in(objects)):
                info = synset_info(objects[inst])
                atom = Atom(word.predicate, (inst,))
                if info is not None and ability in info.abilities and atom not in held \
                        and Literal(atom) not in out:
                    out.append(Literal(atom))
    return out
