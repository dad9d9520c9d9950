"""Rewrites of where things go: placements read with the relation and at the place the words
state, hung things hung, a thing put in two places settled by the words, an emptied thing emptied,
a made drink held in the vessel asked for."""

from __future__ import annotations

from dataclasses import replace

from symplan_core.bddl import And, Atom, Formula, Not, Or, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_type,
    goal_atoms,
    iter_nodes,
)
from symplan_core.engine.predicates import (
    HANGING_PLACES,
    SUBSTANCE_HOLDING,
    SUPPORT_RELATIONS,
)
from symplan_core.perception.goal_mending.formulas import (
    WHERE_RELATIONS,
    args_of,
    conjuncts,
    exists_vars,
    is_literal,
    mapped,
    subject_of,
    where_literals,
    without,
)
from symplan_core.perception.goal_reading import (
    goal_holders,
    made_types,
    placed_kinds,
    removal_of,
)
from symplan_core.perception.language import asks_removal
from symplan_core.perception.object_words import (
    instruction_objects,
    names_a_floor,
    requested_products,
    scene_mentions,
    scene_reading,
)
from symplan_core.perception.placements import (
    emptied_sources_in_goal,
    named_place_types,
    object_after_verb,
    other_relations,
    placement_words,
    things_placed_elsewhere,
)
from symplan_core.perception.synsets import grounds_in, is_container, is_floor, read_instruction
from symplan_core.perception.verbs import state_words
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import synset_info


def place_reversed_removals(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each negated ``inside``/``ontop`` literal that takes a kind the instruction names out of or
    off something (``goal_reading.removal_of``), where the instruction has no removal word and a
    placement word asks for that very relation there ("in it", "in the basket"), read as the
    placement. Qwen 1.5B wrote ``(forall (?bottle__of__lotion - ...) (not (inside ?bottle__of__lotion
    ?wicker_basket_1)))`` for "could you drop the lotion, the perfume and the oil in it?"."""
    if asks_removal(instruction):
        return problem.goal, []
    asked = [p for p in placement_words(instruction) if p.relation in ("inside", "ontop")]
    named = instruction_objects(instruction, problem.types)
    placed = placed_kinds(problem)
    notes: list[str] = []

    def reversed_removal(atom: Atom, types: dict[str, str]) -> bool:
        removed = removal_of(atom, types, problem, placed)
        if removed is None or not any(grounds_in(phrase, synset, {removed[0]}) for phrase, synset in named):
            return False
        where = removed[1]
        return any(p.relation == atom.predicate
                   and (p.target is None or grounds_in(p.target.phrase, p.target.synset, {where}, loose=False))
                   for p in asked)

    def visit(f: Formula, types: dict[str, str]) -> Formula:
        if isinstance(f, Not) and isinstance(f.body, Atom) and reversed_removal(f.body, types):
            notes.append(f"the goal says (not ({f.body.predicate} {' '.join(f.body.args)})), and the instruction "
                         "asks to put it there and to take nothing out: read as the placement")
            return f.body
        if isinstance(f, And):
            return And(tuple(visit(p, types) for p in f.parts))
        if isinstance(f, Quantifier):
            return replace(f, body=visit(f.body, {**types, **{p.var: p.type for p in f.params}}))
        return f  # a disjunction or implication: read as written

    goal = visit(problem.goal, {})
    return (goal, notes) if notes else (problem.goal, [])


#: Where a thing is, for :func:`settle_placements`: "next to" a place is a place too (the honey put
#: in the cupboard and next to the counter, where it stood).
_PLACES = (*WHERE_RELATIONS, "nextto")


def settle_placements(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the goal puts one object (an instance, or a quantified type) in two or more places
    (:data:`WHERE_RELATIONS`, positive), and the instruction's placement words (``placement_words``)
    name some of those places but not all: the places it does not name are left out. The engine
    keeps an object in one place, so such a goal cannot be reached (Qwen 1.5B: "put all the salmon in
    the cart" as the salmon inside the cart and on top of the fridge)."""
    named_types = named_place_types(instruction, problem)
    if not named_types:
        return problem.goal, []
    places: dict[str, set[tuple[str, str]]] = {}
    some = exists_vars(problem.goal)
    for atom, types in where_literals(problem.goal, _PLACES):
        typ = argument_type(atom.args[1], types, problem.objects)
        subject = subject_of(atom.args[0], types, some)
        if typ is not None and subject is not None:
            places.setdefault(subject, set()).add((atom.predicate, typ))

    drop: set[tuple[str, str, str]] = set()
    notes: list[str] = []
    for subject, own in sorted(places.items()):
        # an instance is also where every one of its type is put: (forall salmon in the cart), (salmon_2 on the fridge)
        where = own | places.get(f"every {problem.objects.get(subject)}", set())
        named = {w for w in where if w[1] in named_types}
        unsaid = own - named  # only this subject's own literals are left out
        if len({t for _, t in where}) > 1 and named and unsaid:
            drop |= {(subject, rel, typ) for rel, typ in unsaid}
            notes.append(f"the goal puts {subject} in {len(where)} places at once; the instruction names "
                         + " and ".join(f"({rel} ... {typ})" for rel, typ in sorted(named)) + ", so "
                         + " and ".join(f"({rel} ... {typ})" for rel, typ in sorted(unsaid)) + " is left out")
    if not drop:
        return problem.goal, []

    def left_out(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        return (positive and atom.predicate in _PLACES and len(atom.args) == 2
                and (subject_of(atom.args[0], types, some), atom.predicate,
                     argument_type(atom.args[1], types, problem.objects)) in drop)

    goal = without(problem.goal, left_out)
    return (goal, notes) if goal is not None else (problem.goal, [])


def drop_hedged_places(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A top-level ``or`` of places for one object (an instance, or every instance under a
    ``forall``), where the goal also puts that object at one place outright (a positive
    :data:`WHERE_RELATIONS` literal outside any ``or``) and the instruction's placement words name
    none of the ``or``'s places: the ``or`` is left out. Qwen 1.5B wrote every glass in the
    recycling bin and, beside it, ``(or (inside ?glass ?sink_1) (nextto ?glass ?sink_1))`` for
    "recycle those glasses"; no plan reaches both, and the words ask only for the first."""
    named = named_place_types(instruction, problem)
    some = exists_vars(problem.goal)

    def hedge(part: Formula) -> tuple[str, set[str]] | None:
        """(subject, the types of its places) of an ``or`` of places, bare or under one ``forall``."""
        types: dict[str, str] = {}
        if isinstance(part, Quantifier) and part.kind == "forall" and len(part.params) == 1:
            types, part = {part.params[0].var: part.params[0].type}, part.body
        if not isinstance(part, Or) or not all(isinstance(d, Atom) and len(d.args) == 2
                                               and d.predicate in (*WHERE_RELATIONS, "nextto", "touching")
                                               for d in part.parts):
            return None
        subjects = {subject_of(d.args[0], types, some) for d in part.parts if isinstance(d, Atom)}
        places = {argument_type(d.args[1], types, problem.objects) for d in part.parts if isinstance(d, Atom)}
        subject = subjects.pop() if len(subjects) == 1 else None
        if subject is None or None in places:
            return None
        return subject, {t for t in places if t is not None}

    parts = conjuncts(problem.goal)
    outright = {subject_of(atom.args[0], types, some) for part in parts
                if not any(isinstance(f, Or) for f in iter_nodes(part))
                for atom, types in where_literals(part)} - {None}
    kept: list[Formula] = []
    notes: list[str] = []
    for part in parts:
        found = hedge(part)
        if found is not None and found[0] in outright and not found[1] & named:
            notes.append(f"the goal puts {found[0]} at one place and also at one of "
                         f"{', '.join(sorted(found[1]))}, which the instruction does not name: "
                         "that choice is left out")
            continue
        kept.append(part)
    return (And(tuple(kept)), notes) if notes and kept else (problem.goal, [])


def settle_relations(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the goal relates one object to the same place in two ways (``(attached ?blind ?nail_1)``
    and ``(ontop ?blind ?nail_1)``), only the ways the instruction asks for are kept: those a state
    word asks for ("hang": ``attached`` or ``draped``), else the relation of a placement word naming
    that place ("on the plate": ``ontop``). Where it asks for neither and the two are ``ontop`` and
    ``inside``, ``inside`` is kept for a container and ``ontop`` for anything else, as B-1K's goals
    place things (inside 648 and on top 111 times for a container; on top 387 times and inside
    once for anything else). An object is in a place one way, so no plan reaches both. Qwen 1.5B
    wrote both for "Hang the window blind on the nail in the wall" and for "move the salmon to the
    cart"."""
    stated = {w.predicate for w in state_words(instruction) if w.polarity}
    targets = [(p.relation, p.target) for p in placement_words(instruction) if p.relation and p.target is not None]
    some = exists_vars(problem.goal)
    ways: dict[tuple[str, str], set[str]] = {}
    for atom, types in where_literals(problem.goal):
        subject, place = subject_of(atom.args[0], types, some), subject_of(atom.args[1], types, some)
        if subject is not None and place is not None:
            ways.setdefault((subject, place), set()).add(atom.predicate)
    # an instance is also related as every one of its type is, and a type as each of its instances:
    # (forall towels draped on the rack) with (ontop ?bath_towel_1 ?rack_1)
    def also(subject: str, place: str) -> set[str]:
        if subject.startswith("every "):
            kind = subject.removeprefix("every ")
            return {r for (s, p), rels in ways.items() if p == place and problem.objects.get(s) == kind for r in rels}
        return ways.get((f"every {problem.objects.get(subject)}", place), set())

    every = {pair: rels | also(*pair) for pair, rels in ways.items()}

    def asked_of(place: str, relations: set[str]) -> tuple[set[str], str]:
        """The relations kept at ``place``, and why."""
        typ = place.removeprefix("every ") if place.startswith("every ") else problem.objects.get(place, "")
        said = {relation for relation, target in targets if grounds_in(target.phrase, target.synset, {typ}, loose=False)}
        for asked in (stated, said):  # "hang it on the nail": the state word says how
            if relations & asked:
                return relations & asked, "the instruction asks for"
        if relations == {"ontop", "inside"}:
            kept = "inside" if is_container(typ) else "ontop"
            return {kept}, f"the instruction says neither, and {typ} is {'a' if kept == 'inside' else 'not a'} container:"
        return relations, ""

    drop: set[tuple[tuple[str, str], str]] = set()
    notes: list[str] = []
    for pair, rels in sorted(ways.items()):
        if len(every[pair]) < 2:
            continue
        kept, why = asked_of(pair[1], every[pair])
        for rel in sorted(rels - kept):
            drop.add((pair, rel))
            notes.append(f"the goal relates {pair[0]} to {pair[1]} in {len(every[pair])} ways, and {why} "
                         + " or ".join(sorted(kept)) + f": ({rel} ...) is left out")
    if not drop:
        return problem.goal, []

    def unasked(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        return (positive and atom.predicate in WHERE_RELATIONS and len(atom.args) == 2
                and ((subject_of(atom.args[0], types, some), subject_of(atom.args[1], types, some)), atom.predicate) in drop)

    goal = without(problem.goal, unasked)
    return (goal, notes) if goal is not None else (problem.goal, [])


def hang_on_hanging_places(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """``(ontop ?x ?p)`` where ``?p`` is a wall nail or a hanger, which hold things only hung on
    them (``predicates.HANGING_PLACES``): read as that place's relation (``attached``, ``draped``).
    Qwen 1.5B wrote ``(ontop ?wreath ?wall_nail_1)`` for "put up the wreath ... on those nails" and
    ``(ontop ?vest ?hanger_1)`` for "put the vest ... on hangers"; the engine sets nothing on top of
    either, and the goal grammar offers the form so that the model writes what it means."""
    notes: list[str] = []

    def hung(atom: Atom, types: dict[str, str]) -> Atom:
        if atom.predicate != "ontop" or len(atom.args) != 2:
            return atom
        place = argument_type(atom.args[1], types, problem.objects)
        relation = HANGING_PLACES.get(place or "")
        if relation is None:
            return atom
        return _read_as(atom, relation, f"{place} holds things hung on it", notes)

    goal = mapped(problem.goal, hung)
    return (goal, notes) if notes else (problem.goal, [])


def _read_as(atom: Atom, relation: str, why: str, notes: list[str]) -> Atom:
    """``atom`` with ``relation`` in place of its predicate, the change said in ``notes``."""
    notes.append(f"({atom.predicate} {' '.join(atom.args)}) read as ({relation} {' '.join(atom.args)}): {why}")
    return Atom(relation, atom.args)


def hang_what_is_hung(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """``(ontop ?x ?p)`` or ``(touching ?x ?p)`` where the instruction hangs ``?x`` ("hang the flag
    over the pole": the state word *hang*, its object right after it) and the goal hangs it nowhere:
    read as hung on ``?p``, ``attached`` for a thing BEHAVIOR can attach (a dartboard, a wreath),
    else ``draped`` (a flag, a towel). Qwen 1.5B set the flag on top of the pole, and for "hang up
    the flag" had it touch the pole."""
    hung_words = [w for w in state_words(instruction) if w.predicate in ("attached", "draped") and w.polarity]
    if not hung_words:
        return problem.goal, []
    read = read_instruction(instruction)
    scene = set(problem.objects.values())
    scene_words = dict(scene_mentions(instruction, scene))
    kinds: set[str] = set()
    for word in hung_words:
        if (thing := object_after_verb(read, word.position, scene_words)) is not None:
            kinds |= {t for t in scene if grounds_in(thing.phrase, thing.synset, {t}, loose=False)}
    if not kinds or any(positive and atom.predicate in ("attached", "draped")
                        and argument_type(atom.args[0], types, problem.objects) in kinds
                        for atom, positive, types in goal_atoms(problem.goal)):
        return problem.goal, []
    notes: list[str] = []

    def hung(atom: Atom, types: dict[str, str]) -> Atom:
        kind = argument_type(atom.args[0], types, problem.objects) if atom.args else None
        if atom.predicate not in ("ontop", "touching") or len(atom.args) != 2 or kind not in kinds:
            return atom
        info = synset_info(kind)
        relation = "attached" if info is not None and "attachable" in info.abilities else "draped"
        return _read_as(atom, relation, f"the instruction hangs the {type_word(kind)}", notes)

    goal = mapped(problem.goal, hung)
    return (goal, notes) if notes else (problem.goal, [])


def heed_placement_words(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction says how things go at a place ("pile it up *on* the table", "load
    them *into* the cart") and the goal relates things to that place only otherwise (``(nextto
    ?firewood ?table_1)``, ``(ontop ?salmon ?shopping_cart_1)``: ``placements.other_relations``),
    those literals are read with the relation the words ask for. A place that holds things only
    hung on it (a wall nail, a hanger) keeps its own relation (:func:`hang_on_hanging_places`)."""
    notes: list[str] = []
    goal = problem.goal
    for place, target, used in other_relations(instruction, problem):
        def asked(atom: Atom, types: dict[str, str], place=place, target=target, used=used) -> Atom:
            where = argument_type(atom.args[1], types, problem.objects) if len(atom.args) == 2 else None
            if (atom.predicate not in used or where is None or where in HANGING_PLACES
                    or not grounds_in(target.phrase, target.synset, {where}, loose=False)):
                return atom
            notes.append(f"the instruction says '{place.said} the {target.phrase}': ({atom.predicate} "
                         f"{' '.join(atom.args)}) read as ({place.relation} {' '.join(atom.args)})")
            return Atom(place.relation, atom.args)

        goal = mapped(goal, asked)
    return (goal, notes) if notes else (problem.goal, [])


def move_to_named_places(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction moves one named thing to a named place the scene has one of ("set
    the basket on the counter") and the goal puts that thing somewhere else in exactly one top-level
    literal, and nowhere at that place (``placements.things_placed_elsewhere``: Qwen 1.5B put the
    basket on the floor), that literal is read as the placement the words state: ``(ontop
    ?shopping_basket_1 ?floor_1)`` becomes ``(ontop ?shopping_basket_1 ?checkout_1)``. The
    instruction is the authority on where a thing it names goes; a goal that places several of
    the thing, or places it in several literals, is left to the verifier."""
    parts = list(conjuncts(problem.goal))
    notes: list[str] = []
    for place, target, thing, _put in things_placed_elsewhere(instruction, problem):
        things, there = thing.instances_in(problem.objects), target.instances_in(problem.objects)
        if not place.relation or len(things) != 1 or len(there) != 1:
            continue
        (one,), (at,) = things, there
        placing = [k for k, part in enumerate(parts) if isinstance(part, Atom) and len(part.args) == 2
                   and part.predicate in WHERE_RELATIONS and part.args[0].lstrip("?") == one]
        if len(placing) != 1 or any(one in {a.lstrip("?") for a in args_of(part)}
                                    for k, part in enumerate(parts) if k not in placing and not is_literal(part)):
            continue
        old = parts[placing[0]]
        assert isinstance(old, Atom)
        parts[placing[0]] = Atom(place.relation, (old.args[0], at))
        notes.append(f"the instruction says the {thing.phrase} goes '{place.said} the {target.phrase}': "
                     f"({old.predicate} {' '.join(old.args)}) read as ({place.relation} {old.args[0]} {at})")
    return (And(tuple(parts)), notes) if notes else (problem.goal, [])


def empty_the_sources(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction empties one thing ("unload the cart at checkout": a verb that empties
    things, ``placements.emptied_sources_in_goal``) and the goal takes some of what it holds to one
    place the words name, by one relation, and leaves the rest there (Qwen 1.5B put two of the
    cart's six things on the checkout, and the pomegranate back on the cart), the rest is put where
    the others go, and a literal putting it back is left out. Where the goal takes the things to
    several places, or to one the words do not name ("clear the table": the dishes may go to the
    sink and the food to the fridge), it does not say where the rest goes, and the verifier refuses
    it (``language.left_in_emptied``)."""
    parts = list(conjuncts(problem.goal))
    notes: list[str] = []
    named = instruction_objects(instruction, problem.types)
    for source in emptied_sources_in_goal(instruction, problem):
        places = {where for where in source.moved.values() if where is not None}
        if not source.left or len(places) != 1 or None in source.moved.values():
            continue
        ((relation, place),) = places
        if not any(grounds_in(phrase, synset, {problem.objects[place]}, loose=False) for phrase, synset in named):
            continue  # "clear the table": dishes go to the sink, food to the fridge; only a place said is for all
        parts = [part for part in parts if not (
            isinstance(part, Atom) and part.predicate in SUPPORT_RELATIONS and len(part.args) == 2
            and part.args[0].lstrip("?") in source.left and part.args[1].lstrip("?") == source.instance)]
        parts += [Atom(relation, (thing, place)) for thing in source.left]
        notes.append(f"the instruction empties {source.instance}, and the goal takes {len(source.moved)} of its "
                     f"things to ({relation} ... {place}): {', '.join(source.left)} go there too")
    return (And(tuple(parts)), notes) if notes else (problem.goal, [])


def hold_in_the_said_vessel(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A dish or drink the request asks to make in a vessel it names ("make a *pitcher* of
    lemonade": ``object_words.requested_products``), which the goal makes (one instance) and holds
    in nothing, is held in that vessel (one instance in the scene): the goal's top-level literals
    filling that vessel with things it does not make (what the product is made from) are read as
    the vessel holding the product, else one is added. Qwen 1.5B made the lemonade and filled the
    pitcher with the lemon juice (and the sugar). A goal that holds the product somewhere already
    is left to the verifier."""
    made = made_types(problem)
    if not made:
        return problem.goal, []
    before = {t for t in problem.objects.values() if t not in made}
    parts = list(conjuncts(problem.goal))
    notes: list[str] = []
    for asked in requested_products(scene_reading(instruction, before), before):
        vessel = asked.vessel
        kinds = [t for t in made if grounds_in(asked.phrase, asked.synset, {t}, loose=False)]
        if vessel is None or len(kinds) != 1:
            continue
        instances = problem.instances_of(kinds[0])
        vessels = [i for i in vessel.instances_in(problem.objects) if problem.objects[i] not in made]
        if len(instances) != 1 or len(vessels) != 1 or goal_holders(problem, kinds)[kinds[0]]:
            continue  # which one is not said, or held somewhere already
        (made_one,), (held_in,) = instances, vessels
        filling = [k for k, part in enumerate(parts) if isinstance(part, Atom) and part.predicate in SUBSTANCE_HOLDING
                   and len(part.args) == 2 and part.args[0].lstrip("?") == held_in
                   and problem.objects.get(part.args[1].lstrip("?")) not in made]
        new = Atom("contains", (held_in, made_one))
        said = f"the instruction asks for a {vessel.phrase} of {asked.phrase}"
        if filling:
            olds = [parts[k] for k in filling]
            parts = [part for k, part in enumerate(parts) if k not in filling[1:]]
            parts[filling[0]] = new
            notes.append(f"{said}: " + " and ".join(f"({a.predicate} {' '.join(a.args)})" for a in olds
                                                     if isinstance(a, Atom))
                         + f" read as (contains {held_in} {made_one})")
        else:
            parts.append(new)
            notes.append(f"{said}: (contains {held_in} {made_one}) added")
    return (And(tuple(parts)), notes) if notes else (problem.goal, [])


def drop_unasked_removals(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction takes nothing out or off (``language.asks_removal``), a negated
    ``inside``/``ontop`` that takes a thing out of or off somewhere (``goal_reading.removal_of``) is left
    out, if the rest of the goal still asks something of that kind: Qwen 1.5B wrote ``(not (inside
    ?toaster_1 ?cabinet_1))`` beside the crumbs cleaned off it for "clean the toaster", and ``(not
    (ontop ?raincoat_1 ?detergent__bottle_1))`` beside its stain for "wash my raincoat". A removal
    that is all the goal says of its kind stays, for the verifier to refuse ("bag up the pill
    bottles" drafted as the bottles kept out of the bag)."""
    if asks_removal(instruction):
        return problem.goal, []
    placed = placed_kinds(problem)
    removals = [(atom, types) for atom, positive, types in goal_atoms(problem.goal)
                if not positive and removal_of(atom, types, problem, placed) is not None]
    if not removals:
        return problem.goal, []
    kinds = {removed: argument_type(removed.args[0], types, problem.objects) for removed, types in removals}
    asked = {argument_type(a, types, problem.objects) for atom, _, types in goal_atoms(problem.goal)
             if atom not in kinds for a in atom.args}
    notes: list[str] = []

    def unasked(atom: Atom, _types: dict[str, str], positive: bool) -> bool:
        if positive or atom not in kinds or kinds[atom] not in asked:
            return False
        notes.append(f"the goal takes (not ({atom.predicate} {' '.join(atom.args)})) and the instruction takes "
                     f"nothing out or off: left out beside what else it asks of {kinds[atom]}")
        return True

    goal = without(problem.goal, unasked)
    return (goal, notes) if notes and goal is not None else (problem.goal, [])


def drop_unnamed_floors(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A thing set on a floor (``(ontop ?x ?floor_1)``, also under a quantifier), where the words
    name no floor and the rest of the goal still asks something of that thing, is left out. A
    floor is where things lie by default, and Qwen 1.5B writes it as filler: ``(ontop
    ?calculator_1 ?floor_1)`` beside the calculator switched off for "switch off the calculator",
    the tank on the floor beside the filter in it for "set up the fish tank". A floor placement
    that is all the goal says of the thing stays, for the verifier ("put the box down")."""
    if names_a_floor(instruction, set(problem.objects.values())):
        return problem.goal, []

    def subject(atom: Atom, bound: dict[str, str]) -> str | None:
        return argument_type(atom.args[0], bound, problem.objects)

    def on_floor(atom: Atom, bound: dict[str, str], positive: bool) -> bool:
        return (positive and atom.predicate == "ontop" and len(atom.args) == 2
                and is_floor(argument_type(atom.args[1], bound, problem.objects) or ""))

    floored = [(atom, bound) for atom, positive, bound in goal_atoms(problem.goal) if on_floor(atom, bound, positive)]
    asked = {argument_type(a, bound, problem.objects) for atom, positive, bound in goal_atoms(problem.goal)
             if not on_floor(atom, bound, positive) for a in atom.args}
    dropped = {atom for atom, bound in floored if subject(atom, bound) in asked}
    if not dropped:
        return problem.goal, []
    notes = [f"the goal sets {subject(atom, bound)} on the floor, which the instruction never names: "
             f"(ontop {' '.join(atom.args)}) left out beside what else it asks of it"
             for atom, bound in floored if atom in dropped]
    goal = without(problem.goal, lambda atom, _bound, positive: positive and atom in dropped)
    return (goal, notes) if goal is not None else (problem.goal, [])
