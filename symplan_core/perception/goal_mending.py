"""Reading an LLM goal as the model meant it: rewrites before the verifier judges it.

A compact model writes the goal it means in ways BDDL reads otherwise. Each rewrite here is one
such slip, read the way the instruction settles (docs/perception.md, "Mending an LLM goal"):

* :func:`bind_named_instances`: a quantifier whose variable its body never uses, and whose body
  names one instance of the variable's type instead (``(forall (?log - log) (not (covered ?log_1
  ?dust_1)))``): the instance is read as the variable.
* :func:`bind_only_instances`: an ``exists`` over a kind the scene has one of is that one.
* :func:`drop_substance_neighbours`: a thing touching or next to a substance, which no plan
  reaches, is left out.
* :func:`hang_on_hanging_places`: ``(ontop ?wreath ?wall_nail_1)`` for "put up the wreath ... on
  those nails": a wall nail or a hanger holds things hung on it, so it is read as ``attached``/``draped``.
* :func:`hang_what_is_hung`: ``(ontop ?flag ?pole_1)`` for "hang the flag over the pole": read as
  hung there (``draped``, or ``attached`` for a thing BEHAVIOR attaches).
* :func:`heed_placement_words`: ``(nextto ?firewood ?table_1)`` for "pile it up on the table": the
  relation the placement words ask for at that place.
* :func:`move_to_named_places`: ``(ontop ?basket_1 ?floor_1)`` for "set the basket on the counter",
  the basket nowhere at the counter: read as the placement the words state.
* :func:`place_reversed_removals`: ``(not (inside ?lotion ?basket_1))`` for "drop the lotion ... in
  it", where the instruction takes nothing out and its placement words ask for that very relation:
  read as the placement.
* :func:`drop_repeats`: a conjunct said twice is said once (a looping model repeats literals).
* :func:`drop_contradicted`: a literal asked both true and false (``(inside ?book ?bookcase_1)`` and
  its negation), where the instruction's placement or state words ask for one of the two: the
  other is left out.
* :func:`drop_idle_literals`: a literal that already holds, which the rest of the goal undoes
  (the books on the table where they lie, beside every book in the bookcase), is left out.
* :func:`drop_hedged_places`: an ``or`` of places for a thing the goal places outright elsewhere,
  where the words name none of them, is left out.
* :func:`settle_relations`: one object related to one place in two ways (``attached`` and
  ``ontop``), where a state word asks for some of them ("hang": attached or draped): the others
  are left out.
* :func:`settle_placements`: an object the goal puts in two places at once (``(inside ?battery
  ?cabinet)`` and ``(ontop ?battery ?shelf_1)``), where the instruction's placement words ("stick
  them in the cabinet") name some of those places and not the others: the others are dropped.
* :func:`empty_the_sources`: "unload the cart at checkout", and the goal takes some of the cart's
  things to the checkout and leaves the rest: the rest goes there too.
* :func:`hold_in_the_said_vessel`: "make a pitcher of lemonade", the lemonade made and held in
  nothing, the pitcher filled with lemon juice: the pitcher holds the lemonade.
* :func:`pair_with_one`: a ``forpairs`` whose other type has one instance pairs one thing with it
  (BDDL's one-to-one matching); where the instruction says the plural, it is every one of them.
* :func:`drop_self_including`: ``(forall (?firewood - firewood) (and (ontop ?firewood ?table_1)
  (nextto ?firewood ?firewood_2)))`` relates firewood_2 to itself; that literal is left out.
* :func:`widen_plurals`: a plural the goal names by its first instance only is every one of them.
* :func:`widen_stand_ins`: a plural no object is called ("the snacks"), moved to a place where the
  goal puts one of several things of a kind the instruction never names, is every one of them.
* :func:`widen_exists`: a top-level ``exists`` over a kind the instruction asks all of is ``forall``.

Every rewrite is recorded (the provenance's ``goal.mended`` and the draft's notes), and the verifier
then judges the mended goal like any other: a rewrite never makes a goal accepted on its own.
Curated (retrieved) goals are never mended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import product

from symplan_core.bddl import And, Atom, Formula, Imply, Not, Or, Param, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_instances,
    argument_type,
    goal_atoms,
    iter_nodes,
    iter_quantifiers,
)
from symplan_core.engine.predicates import (
    ATTACHMENT_RELATIONS,
    HANGING_PLACES,
    PLACEMENT_RELATIONS,
    SUBSTANCE_HOLDING,
    SUPPORT_RELATIONS,
)
from symplan_core.perception.goal_reading import (
    goal_coverage,
    goal_holders,
    holds_for_every,
    initial_facts,
    made_types,
    placed_kinds,
    removal_of,
    removed_substances,
    short_pairings,
)
from symplan_core.perception.language import asks_removal, object_after_verb
from symplan_core.perception.object_words import (
    instruction_objects,
    plural_mentions,
    requested_products,
    scene_mentions,
    scene_reading,
    sounds_plural,
)
from symplan_core.perception.placements import (
    asked_for_all,
    emptied_sources_in_goal,
    named_place_types,
    other_relations,
    placement_targets,
    placement_words,
    things_placed_elsewhere,
    unread_moved_plurals,
)
from symplan_core.perception.synsets import grounds_in, is_container, is_substance, read_instruction
from symplan_core.perception.verbs import state_words
from symplan_core.prompts.goal_text import type_word
from symplan_core.tasks import synset_info

#: Where an object is: it rests on or in one thing, or hangs, lies or is fixed on one.
WHERE_RELATIONS = SUPPORT_RELATIONS + ATTACHMENT_RELATIONS


@dataclass(frozen=True)
class Mended:
    goal: Formula
    notes: tuple[str, ...]  # one per rewrite, in words


Step = Callable[[str, Problem], tuple[Formula, list[str]]]


#: Rounds of :func:`mend_goal`'s rewrites at most: one rewrite can make another apply.
_MEND_ROUNDS = 3


def mend_goal(instruction: str, problem: Problem) -> Mended:
    """``problem``'s goal after each rewrite of this module, in order, with what each changed;
    the rewrites are run again while a round changes the goal (at most :data:`_MEND_ROUNDS`), since
    one can make another apply: ``drop_hedged_places`` reads a hedge beside a placement only once
    ``pair_with_one`` and ``widen_exists`` have made both ``forall`` (Qwen 1.5B's "recycle those
    glasses"). So a mended goal mends to itself, and a recorded draft re-judges as it was judged."""
    notes: list[str] = []
    goal = problem.goal
    for _round in range(_MEND_ROUNDS):
        before = goal
        goal, said = _mend_once(instruction, replace(problem, goal=goal))
        notes += said
        if goal == before:
            break
    return Mended(goal, tuple(notes))


def _mend_once(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """One round of the rewrites, in order."""
    notes: list[str] = []
    goal = problem.goal
    steps: tuple[Step, ...] = (
        bind_named_instances, bind_only_instances, clean_of_the_dirt, drop_self_relations, drop_substance_neighbours,
        hang_on_hanging_places, hang_what_is_hung, heed_placement_words, move_to_named_places,
        place_reversed_removals, drop_unasked_removals, drop_repeats, drop_contradicted, drop_idle_literals,
        drop_hedged_places, settle_relations, settle_placements, empty_the_sources, hold_in_the_said_vessel,
        pair_with_one, drop_unnamed_pairings, drop_self_including, drop_repeats, widen_plurals, widen_stand_ins, widen_exists)
    for step in steps:
        goal, said = step(instruction, replace(problem, goal=goal))
        notes += said
    return goal, notes


def _args(f: Formula) -> set[str]:
    return {a for atom, _, _ in goal_atoms(f) for a in atom.args}


def _mapped(f: Formula, change: Callable[[Atom, dict[str, str]], Atom], types: dict[str, str] | None = None,
            choices: bool = False) -> Formula:
    """``f`` with each atom replaced by ``change(atom, the types of the variables in scope)``; inside
    an ``or``/``imply`` only with ``choices`` (a rewrite of what a literal means reads an LLM goal's
    choices as written; a renaming must reach every use of a name)."""
    types = types or {}
    if isinstance(f, Atom):
        return change(f, types)
    if isinstance(f, Not):
        return Not(_mapped(f.body, change, types, choices))
    if isinstance(f, And) or (choices and isinstance(f, Or)):
        return type(f)(tuple(_mapped(p, change, types, choices) for p in f.parts))
    if isinstance(f, Imply) and choices:
        return Imply(_mapped(f.antecedent, change, types, choices), _mapped(f.consequent, change, types, choices))
    if isinstance(f, Quantifier):
        return replace(f, body=_mapped(f.body, change, {**types, **{p.var: p.type for p in f.params}}, choices))
    return f


def _renamed(f: Formula, names: dict[str, str]) -> Formula:
    """``f`` with each argument in ``names`` (compared without a leading ``?``) renamed, wherever it is used."""
    return _mapped(f, lambda atom, _types: Atom(atom.predicate, tuple(names.get(a.lstrip("?"), a) for a in atom.args)),
                   choices=True)


def _without(goal: Formula, dropped: Callable[[Atom, dict[str, str], bool], bool]) -> Formula | None:
    """``goal`` with each atom for which ``dropped(atom, variable types, polarity)`` holds left out,
    and each ``and``, ``not`` or quantifier left empty by that; None if nothing is left.
    Disjunctions and implications are read as written."""

    def kept(f: Formula, types: dict[str, str], positive: bool) -> Formula | None:
        if isinstance(f, Atom):
            return None if dropped(f, types, positive) else f
        if isinstance(f, Not):
            body = kept(f.body, types, not positive)
            return Not(body) if body is not None else None
        if isinstance(f, And):
            parts = tuple(p for part in f.parts if (p := kept(part, types, positive)) is not None)
            return And(parts) if parts else None
        if isinstance(f, Quantifier):
            body = kept(f.body, {**types, **{p.var: p.type for p in f.params}}, positive)
            return replace(f, body=body) if body is not None else None
        return f

    return kept(goal, {}, True)


def _parts(goal: Formula) -> tuple[Formula, ...]:
    return goal.parts if isinstance(goal, And) else (goal,)


def bind_named_instances(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each quantifier whose variable its body never uses while the body names exactly one instance
    of that variable's type, with that instance read as the variable. Qwen 1.5B wrote ``(forall
    (?log.n.01 - log.n.01) (not (covered ?log.n.01_1 ?dust.n.01_1)))`` for "dust the logs"."""
    notes: list[str] = []

    def bind(f: Quantifier, body: Formula) -> Formula:
        used = _args(body)
        names: dict[str, str] = {}
        for p in f.params:
            if p.var in used:
                continue
            named = {a.lstrip("?") for a in used if problem.objects.get(a.lstrip("?")) == p.type}
            if len(named) == 1:
                (one,) = named
                names[one] = p.var
                notes.append(f"the goal's {f.kind} over {p.type} names {one} and never {p.var}: {one} is read "
                             f"as {p.var}")
        return replace(f, body=_renamed(body, names) if names else body)

    goal = _each_quantifier(problem.goal, bind)
    return (goal if notes else problem.goal), notes


def _each_quantifier(goal: Formula, rewrite: Callable[[Quantifier, Formula], Formula]) -> Formula:
    """``goal`` with each quantifier reached through ``and``/``not`` (innermost first) replaced by
    ``rewrite(quantifier, its body already rewritten)``; disjunctions and implications as written."""
    if isinstance(goal, And):
        return And(tuple(_each_quantifier(p, rewrite) for p in goal.parts))
    if isinstance(goal, Not):
        return Not(_each_quantifier(goal.body, rewrite))
    if isinstance(goal, Quantifier):
        return rewrite(goal, _each_quantifier(goal.body, rewrite))
    return goal


def bind_only_instances(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each ``exists`` over a kind the scene has one of, read as that one (the same goal, said
    plainly): ``(exists (?bookcase - bookcase) (ontop ?book_1 ?bookcase))`` with one bookcase is
    ``(ontop ?book_1 ?bookcase_1)``, which the later rewrites can compare with the goal's other
    literals about that bookcase."""
    notes: list[str] = []

    def bind(f: Quantifier, body: Formula) -> Formula:
        if f.kind == "exists" and len(f.params) == 1 and len(only := problem.instances_of(f.params[0].type)) == 1:
            notes.append(f"the goal's exists over {f.params[0].type} is the scene's one {only[0]}")
            return _renamed(body, {f.params[0].var.lstrip("?"): only[0]})
        return replace(f, body=body)

    goal = _each_quantifier(problem.goal, bind)
    return (goal, notes) if notes else (problem.goal, [])


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


def drop_repeats(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """The goal with each conjunct that repeats an earlier one (at any depth) left out."""
    dropped = 0

    def visit(f: Formula) -> Formula:
        nonlocal dropped
        if isinstance(f, Quantifier):
            return replace(f, body=visit(f.body))
        if not isinstance(f, And):
            return f
        parts = tuple(visit(p) for p in f.parts)
        unique = tuple(dict.fromkeys(parts))
        dropped += len(parts) - len(unique)
        return And(unique)

    goal = visit(problem.goal)
    return (goal, [f"the goal said {dropped} conjunct(s) twice: each is kept once"]) if dropped else (problem.goal, [])


def _where_literals(goal: Formula, relations: tuple[str, ...] = WHERE_RELATIONS) -> list[tuple[Atom, dict[str, str]]]:
    """The goal's positive placement atoms (``relations``, :data:`WHERE_RELATIONS` unless said) with
    the variable types around each."""
    return [(atom, types) for atom, positive, types in goal_atoms(goal)
            if positive and atom.predicate in relations and len(atom.args) == 2]


#: Where a thing is, for :func:`settle_placements`: "next to" a place is a place too (the honey put
#: in the cupboard and next to the counter, where it stood).
_PLACES = (*WHERE_RELATIONS, "nextto")


def _exists_vars(goal: Formula) -> set[str]:
    """The variables ``exists`` binds anywhere in ``goal`` (for :func:`_subject`)."""
    return {p.var for q in iter_quantifiers(goal) if q.kind == "exists" for p in q.params}


def _subject(arg: str, types: dict[str, str], some: set[str]) -> str | None:
    """What a placement atom places: an instance, or every instance of a variable's type; None for
    a variable that some quantifier binds with ``exists`` (``some``): two such clauses may speak of
    two different things ("some lights on the bushes, some on the nail")."""
    if arg in some:
        return None
    return f"every {types[arg]}" if arg in types else arg.lstrip("?")


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
    some = _exists_vars(problem.goal)
    for atom, types in _where_literals(problem.goal, _PLACES):
        typ = argument_type(atom.args[1], types, problem.objects)
        subject = _subject(atom.args[0], types, some)
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
                and (_subject(atom.args[0], types, some), atom.predicate,
                     argument_type(atom.args[1], types, problem.objects)) in drop)

    goal = _without(problem.goal, left_out)
    return (goal, notes) if goal is not None else (problem.goal, [])


def drop_hedged_places(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A top-level ``or`` of places for one object (an instance, or every instance under a
    ``forall``), where the goal also puts that object at one place outright (a positive
    :data:`WHERE_RELATIONS` literal outside any ``or``) and the instruction's placement words name
    none of the ``or``'s places: the ``or`` is left out. Qwen 1.5B wrote every glass in the
    recycling bin and, beside it, ``(or (inside ?glass ?sink_1) (nextto ?glass ?sink_1))`` for
    "recycle those glasses"; no plan reaches both, and the words ask only for the first."""
    named = named_place_types(instruction, problem)
    some = _exists_vars(problem.goal)

    def hedge(part: Formula) -> tuple[str, set[str]] | None:
        """(subject, the types of its places) of an ``or`` of places, bare or under one ``forall``."""
        types: dict[str, str] = {}
        if isinstance(part, Quantifier) and part.kind == "forall" and len(part.params) == 1:
            types, part = {part.params[0].var: part.params[0].type}, part.body
        if not isinstance(part, Or) or not all(isinstance(d, Atom) and len(d.args) == 2
                                               and d.predicate in (*WHERE_RELATIONS, "nextto", "touching")
                                               for d in part.parts):
            return None
        subjects = {_subject(d.args[0], types, some) for d in part.parts if isinstance(d, Atom)}
        places = {argument_type(d.args[1], types, problem.objects) for d in part.parts if isinstance(d, Atom)}
        subject = subjects.pop() if len(subjects) == 1 else None
        if subject is None or None in places:
            return None
        return subject, {t for t in places if t is not None}

    parts = _parts(problem.goal)
    outright = {_subject(atom.args[0], types, some) for part in parts
                if not any(isinstance(f, Or) for f in iter_nodes(part))
                for atom, types in _where_literals(part)} - {None}
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


def drop_contradicted(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A literal the goal asks both ways (``(inside ?book ?bookcase_1)`` and ``(not (inside ?book
    ?bookcase_1))``, each for every book, or for one instance), where the instruction asks for one of
    the two: the other is left out. No plan reaches both. The instruction asks for a placement
    when a placement word names that relation (or any, "at") and that target; for a state when
    its state words give that predicate one polarity; for neither polarity, nothing changes. Qwen
    1.5B wrote both for "Take all six books off the table and put them back in the bookcase"."""
    words = state_words(instruction)
    places = placement_words(instruction, words)
    said: dict[str, set[bool]] = {}
    for word in words:
        said.setdefault(word.predicate, set()).add(word.polarity)
    some = _exists_vars(problem.goal)

    def key(atom: Atom, types: dict[str, str]) -> tuple[str, ...] | None:
        subjects = tuple(_subject(a, types, some) for a in atom.args)
        return None if None in subjects else (atom.predicate, *(s for s in subjects if s is not None))

    asked: dict[tuple[str, ...], set[bool]] = {}
    for atom, positive, types in goal_atoms(problem.goal):
        if (k := key(atom, types)) is not None:
            asked.setdefault(k, set()).add(positive)

    def wanted(atom: Atom, types: dict[str, str]) -> bool | None:
        """The polarity the instruction asks of this atom, or None."""
        if atom.predicate in WHERE_RELATIONS and len(atom.args) == 2:
            typ = argument_type(atom.args[1], types, problem.objects)
            placed = typ is not None and any(
                p.relation in (atom.predicate, "") and p.target is not None
                and grounds_in(p.target.phrase, p.target.synset, {typ}, loose=False) for p in places)
            return True if placed else None
        polarities = said.get(atom.predicate, set())
        return next(iter(polarities)) if len(polarities) == 1 else None

    notes: list[str] = []

    def unwanted(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        k = key(atom, types)
        if k is None or len(asked.get(k, ())) < 2 or (want := wanted(atom, types)) is None or want == positive:
            return False
        literal = f"({atom.predicate} {' '.join(atom.args)})"
        notes.append(f"the goal asks {literal} both ways, and the instruction asks it "
                     f"{'true' if want else 'false'}: {literal if positive else f'(not {literal})'} is left out")
        return True

    goal = _without(problem.goal, unwanted)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


def drop_idle_literals(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A literal that already holds (it asks nothing) and that another literal of the goal undoes
    is left out: no plan reaches both, and it alone asks nothing. Either a negated literal whose
    atom the goal asks true of each instance it speaks for (itself, or every one of its kind)
    (Qwen 1.5B wrote ``(forall (?book - book) (inside ?book ?bookcase_1))`` beside ``(not (inside
    ?book_1 ?bookcase_1))``, the book on the table, for "reshelve these books"), or a placement
    that holds for every thing it places, each of which the goal also puts somewhere else (``(forall
    (?book - book) (ontop ?book ?table_1))``, where the books lie, beside them in the bookcase, for
    "put them all back on the shelves")."""
    initially = initial_facts(problem)
    some = _exists_vars(problem.goal)
    asked: set[tuple[str, ...]] = set()
    places: dict[str, set[str]] = {}  # thing -> every place the goal puts it
    for atom, positive, types in goal_atoms(problem.goal):
        if not positive:
            continue
        spoken = [argument_instances(a, types, problem.objects) for a in atom.args]
        if not any(a in some for a in atom.args):
            asked.update((atom.predicate, *args) for args in product(*spoken))
        if atom.predicate in WHERE_RELATIONS and len(spoken) == 2 and atom.args[0] not in some:
            for thing in spoken[0]:
                places.setdefault(thing, set()).update(spoken[1])
    notes: list[str] = []

    def idle(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        if not holds_for_every(atom, positive, types, initially, problem.objects):
            return False
        if positive:
            if atom.predicate not in WHERE_RELATIONS or len(atom.args) != 2 or atom.args[0] in some:
                return False
            here = set(argument_instances(atom.args[1], types, problem.objects))
            things = argument_instances(atom.args[0], types, problem.objects)
            undone = bool(things) and all(places.get(t, set()) - here for t in things)
        else:  # over instances, or every one of a kind: each one asked true
            grounds = list(product(*(argument_instances(a, types, problem.objects) for a in atom.args)))
            undone = bool(grounds) and not any(a in some for a in atom.args) and all(
                (atom.predicate, *args) in asked for args in grounds)
        if undone:
            literal = f"({atom.predicate} {' '.join(atom.args)})"
            notes.append(f"{literal if positive else f'(not {literal})'} already holds, and the goal undoes it "
                         "elsewhere: left out")
        return undone

    goal = _without(problem.goal, idle)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


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
    some = _exists_vars(problem.goal)
    ways: dict[tuple[str, str], set[str]] = {}
    for atom, types in _where_literals(problem.goal):
        subject, place = _subject(atom.args[0], types, some), _subject(atom.args[1], types, some)
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
                and ((_subject(atom.args[0], types, some), _subject(atom.args[1], types, some)), atom.predicate) in drop)

    goal = _without(problem.goal, unasked)
    return (goal, notes) if goal is not None else (problem.goal, [])


def pair_with_one(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each top-level ``(forpairs (?a - A) (?b - B) body)`` where the scene has one B and several A,
    and the instruction names A in the plural ("a couple of batteries", "all the salmon"), read as
    ``(forall (?a - A) body)`` with the one B in place of ``?b``: "put the batteries in the cabinet"
    drafted as a one-to-one pairing of batteries with the one cabinet means every battery in it. A
    body that says nothing of ``?a`` is left as it is, and so is a plural that says where things go
    ("on hangers")."""
    targets = {p.target for p in placement_words(instruction)}  # "on hangers" says where, not what to move
    read = read_instruction(instruction)
    every = plural_mentions(read)  # "all the salmon" too
    plurals = [m for m in read.mentions if (m in every or sounds_plural(m.phrase.split()[-1])) and m not in targets]
    notes: list[str] = []
    parts = []
    for part in _parts(problem.goal):
        if isinstance(part, Quantifier) and part.kind == "forpairs" and len(part.params) == 2:
            for many, one in (part.params, part.params[::-1]):
                instances = problem.instances_of(one.type)
                if (len(instances) == 1 and len(problem.instances_of(many.type)) > 1
                        and many.var in _args(part.body)
                        and any(grounds_in(m.phrase, m.synset, {many.type}, loose=False) for m in plurals)):
                    body = _renamed(part.body, {one.var.lstrip("?"): instances[0]})
                    part = Quantifier("forall", (Param(many.var, many.type),), body)
                    notes.append(f"the goal pairs each {many.type} one to one with the scene's one {one.type} "
                                 f"(forpairs): read as every {many.type} with {instances[0]}")
                    break
        parts.append(part)
    return (And(tuple(parts)) if notes else problem.goal), notes


def drop_unnamed_pairings(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A top-level ``(forpairs (?a - A) (?b - B) (ontop|inside ?a ?b))`` where the instruction never
    names B, beside a goal that puts A somewhere else, is left out: Qwen 1.5B paired every rug with
    a table beside the rugs laid on the floor for "roll out those rugs on the floor", a goal that
    undoes itself. A pairing with a kind the words name, or that says more than where A goes
    ("overlaid"), is the verifier's to judge."""
    named = instruction_objects(instruction, set(problem.objects.values()))
    parts = _parts(problem.goal)
    notes: list[str] = []
    kept = []
    for k, part in enumerate(parts):
        if (isinstance(part, Quantifier) and part.kind == "forpairs" and len(part.params) == 2
                and isinstance(part.body, Atom) and part.body.predicate in SUPPORT_RELATIONS
                and part.body.args == tuple(p.var for p in part.params)):
            thing, place = part.params
            others = And(tuple(p for j, p in enumerate(parts) if j != k))
            elsewhere = any(positive and atom.predicate in PLACEMENT_RELATIONS and len(atom.args) == 2
                            and argument_type(atom.args[0], types, problem.objects) == thing.type
                            and argument_type(atom.args[1], types, problem.objects) != place.type
                            for atom, positive, types in goal_atoms(others))
            if elsewhere and not any(grounds_in(phrase, synset, {place.type}, loose=False) for phrase, synset in named):
                notes.append(f"the goal pairs each {thing.type} with a {place.type} ({part.body.predicate}, forpairs), "
                             f"which the instruction never names, beside {thing.type} put elsewhere: left out")
                continue
        kept.append(part)
    return (And(tuple(kept)), notes) if notes else (problem.goal, [])


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
        notes.append(f"(ontop {' '.join(atom.args)}) read as ({relation} {' '.join(atom.args)}): "
                     f"{place} holds things hung on it")
        return Atom(relation, atom.args)

    goal = _mapped(problem.goal, hung)
    return (goal, notes) if notes else (problem.goal, [])


def hang_what_is_hung(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """``(ontop ?x ?p)`` where the instruction hangs ``?x`` ("hang the flag over the pole": the
    state word *hang*, its object right after it) and the goal hangs it nowhere: read as hung on
    ``?p``, ``attached`` for a thing BEHAVIOR can attach (a dartboard, a wreath), else ``draped``
    (a flag, a towel). Qwen 1.5B set the flag on top of the pole."""
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
        if atom.predicate != "ontop" or len(atom.args) != 2 or kind not in kinds:
            return atom
        info = synset_info(kind)
        relation = "attached" if info is not None and "attachable" in info.abilities else "draped"
        notes.append(f"(ontop {' '.join(atom.args)}) read as ({relation} {' '.join(atom.args)}): "
                     f"the instruction hangs the {type_word(kind)}")
        return Atom(relation, atom.args)

    goal = _mapped(problem.goal, hung)
    return (goal, notes) if notes else (problem.goal, [])


#: How a thing bears a substance: on it, or held in it.
_HOLDING_SUBSTANCE = ("covered", "contains", "filled")


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

        goal = _mapped(goal, asked)
    return (goal, notes) if notes else (problem.goal, [])


def move_to_named_places(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction moves one named thing to a named place the scene has one of ("set
    the basket on the counter") and the goal puts that thing somewhere else in exactly one top-level
    literal, and nowhere at that place (``placements.things_placed_elsewhere``: Qwen 1.5B put the
    basket on the floor), that literal is read as the placement the words state: ``(ontop
    ?shopping_basket_1 ?floor_1)`` becomes ``(ontop ?shopping_basket_1 ?checkout_1)``. The
    instruction is the authority on where a thing it names goes; a goal that places several of
    the thing, or places it in several literals, is left to the verifier."""
    parts = list(_parts(problem.goal))
    notes: list[str] = []
    for place, target, thing, _put in things_placed_elsewhere(instruction, problem):
        things, there = thing.instances_in(problem.objects), target.instances_in(problem.objects)
        if not place.relation or len(things) != 1 or len(there) != 1:
            continue
        (one,), (at,) = things, there
        placing = [k for k, part in enumerate(parts) if isinstance(part, Atom) and len(part.args) == 2
                   and part.predicate in WHERE_RELATIONS and part.args[0].lstrip("?") == one]
        if len(placing) != 1 or any(one in {a.lstrip("?") for a in _args(part)}
                                    for k, part in enumerate(parts) if k not in placing and not _is_literal(part)):
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
    parts = list(_parts(problem.goal))
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
    parts = list(_parts(problem.goal))
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


def clean_of_the_dirt(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Where the instruction asks something cleaned (a state word for ``(not (covered ...))``:
    "wash", "rinse", "scrub"), a goal literal ``(not (covered ?x ?s))`` that asks nothing (``?s``
    covers no such ``?x`` initially) about a thing the instruction names is read as ``?x`` rid of
    the dirt (``goal_reading.removed_substances``) that covers it initially. Qwen 1.5B wrote ``(not
    (covered ?wineglass_1 ?liquid_soap_1))`` for "wash the wine glasses" and ``(not (covered
    ?trout_1 ?water_1))`` for "rinse off the fish": the cleaning agent where the dirt goes. A thing
    kept free of a substance inside it, which it holds none of, is read the same way: ``(not
    (contains ?mason_jar_1 ?wax_remnant_1))`` for "scrape the wax out ... and wash the jar", the wax
    covering the jar."""
    if not any(w.predicate == "covered" and not w.polarity for w in state_words(instruction)):
        return problem.goal, []
    dirt = removed_substances()
    initially = initial_facts(problem)
    named = {t for t in problem.types if any(grounds_in(p, s, {t}, loose=False)
                                               for p, s in instruction_objects(instruction, problem.types))}
    notes: list[str] = []

    def rid(f: Formula, types: dict[str, str]) -> Formula:
        if isinstance(f, And):
            return And(tuple(rid(p, types) for p in f.parts))
        if isinstance(f, Quantifier):
            return replace(f, body=rid(f.body, {**types, **{p.var: p.type for p in f.params}}))
        if not (isinstance(f, Not) and isinstance(f.body, Atom) and f.body.predicate in _HOLDING_SUBSTANCE
                and len(f.body.args) == 2):
            return f  # a disjunction or implication: read as written
        thing, agent = f.body.args
        kind, agent_kind = (argument_type(a, types, problem.objects) for a in (thing, agent))
        if kind not in named or agent_kind is None or not holds_for_every(f.body, False, types, initially,
                                                                          problem.objects):
            return f
        on_it = set(argument_instances(thing, types, problem.objects))
        found = sorted({args[1] for predicate, args in initially if predicate == "covered" and len(args) == 2
                        and args[0] in on_it and problem.objects.get(args[1]) in dirt})
        if not found:
            return f
        notes.append(f"the goal has (not ({f.body.predicate} {thing} {agent})), which asks nothing, and the "
                     f"instruction asks {kind} cleaned: read as rid of {', '.join(found)}, which covers it")
        rids = tuple(Not(Atom("covered", (thing, d))) for d in found)
        return rids[0] if len(rids) == 1 else And(rids)

    goal = rid(problem.goal, {})
    return (goal, notes) if notes else (problem.goal, [])


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

    goal = _without(problem.goal, unasked)
    return (goal, notes) if notes and goal is not None else (problem.goal, [])


def drop_self_relations(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each positive two-place literal whose two places hold the same instance or variable is left
    out: no state puts a thing inside, on or next to itself. Qwen 1.5B wrote ``(inside ?toolbox_1
    ?toolbox_1)`` beside the shears and the pruner in it for "pack the clippers and shears into the
    toolbox", and ``(attached ?bicycle_1 ?bicycle_1)`` for "give my bike a wash"."""
    notes: list[str] = []

    def itself(atom: Atom, _types: dict[str, str], positive: bool) -> bool:
        if positive and len(atom.args) == 2 and atom.args[0] == atom.args[1]:
            notes.append(f"({atom.predicate} {' '.join(atom.args)}) relates a thing to itself: left out")
            return True
        return False

    goal = _without(problem.goal, itself)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


#: Relations of a thing to another thing by where it is, which a substance takes no part in.
_NEIGHBOURS = ("touching", "nextto")


def drop_substance_neighbours(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A positive ``touching``/``nextto`` literal with a substance in either place (``(touching
    ?lampshade ?dust_1)``) is left out where the goal says something else: a substance is next to
    nothing, and no plan reaches it (the engine places nothing next to a substance). Qwen 1.5B wrote
    the lampshades touching the dust beside the dust wiped off them for "Could you wipe them down
    gently?"."""
    notes: list[str] = []

    def substance(arg: str, types: dict[str, str]) -> bool:
        typ = argument_type(arg, types, problem.objects)
        return typ is not None and is_substance(typ, "omnigibson")

    def beside_substance(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        if positive and atom.predicate in _NEIGHBOURS and any(substance(a, types) for a in atom.args):
            notes.append(f"({atom.predicate} {' '.join(atom.args)}) puts a thing next to a substance: left out")
            return True
        return False

    goal = _without(problem.goal, beside_substance)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


def drop_self_including(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """In each ``forall``/``forpairs`` body that says more than one thing, a positive two-place
    literal relating the variable to an instance of the variable's own type is left out: for that
    instance it relates a thing to itself, which no state has. Qwen 1.5B wrote ``(forall (?firewood
    - firewood) (and (ontop ?firewood ?table_1) (nextto ?firewood ?firewood_2)))`` for "stack the
    firewood": read as written, no plan reaches it."""
    notes: list[str] = []

    def visit(f: Formula) -> Formula:
        if isinstance(f, And):
            return And(tuple(visit(p) for p in f.parts))
        if not isinstance(f, Quantifier):
            return f
        body = visit(f.body)
        if f.kind in ("forall", "forpairs") and isinstance(body, And) and len(body.parts) > 1:
            own = {p.var: p.type for p in f.params}

            def includes_self(part: Formula) -> bool:
                if not (isinstance(part, Atom) and len(part.args) == 2):
                    return False
                a, b = part.args
                return any(v in own and problem.objects.get(i.lstrip("?")) == own[v] for v, i in ((a, b), (b, a)))

            kept = tuple(p for p in body.parts if not includes_self(p))
            if kept and len(kept) < len(body.parts):
                notes.extend(f"the goal's {f.kind} over {', '.join(own.values())} relates each one to one of its "
                             f"own kind, and so that one to itself: ({p.predicate} {' '.join(p.args)}) left out"
                             for p in body.parts if isinstance(p, Atom) and p not in kept)
                body = And(kept)
        return replace(f, body=body)

    goal = visit(problem.goal)
    return (goal, notes) if notes else (problem.goal, [])


def widen_plurals(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """The goal with each plural the instruction asks all of (``asked_for_all``) read as all of them,
    where the goal names exactly one instance of that type, only in top-level literals, and
    quantifies over none: "wash the wine glasses" drafted as ``(not (covered wineglass_1 stain_1))``
    becomes ``(forall (?wineglass.n.01 - wineglass.n.01) (not (covered ?wineglass.n.01 stain_1)))``.
    Qwen 1.5B often wrote the first instance only ("all 2 in the scene, but the goal names only ...")."""
    parts = _parts(problem.goal)
    named, every, some = goal_coverage(problem)
    quantified = every | (some - set(short_pairings(problem)))  # any quantifier, exists too
    nested = {a.lstrip("?") for part in parts if not _is_literal(part) for a in _args(part)}
    notes: list[str] = []
    for mention in asked_for_all(instruction):
        for typ in sorted(problem.types):
            instances = problem.instances_of(typ)
            if (len(instances) < 2 or typ in quantified
                    or not grounds_in(mention.phrase, mention.synset, {typ}, loose=False)):
                continue
            used = [i for i in instances if i in named]
            if len(used) != 1 or used[0] in nested:
                continue
            one = used[0]
            parts = _every_of(parts, one, typ)
            quantified.add(typ)
            notes.append(f"the instruction says {mention.phrase!r}: the goal's {one} is read as every "
                         f"{typ} ({len(instances)} in the scene)")
    return (And(parts) if notes else problem.goal), notes


def widen_stand_ins(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A plural that names nothing BEHAVIOR has, moved to a named place (``unread_moved_plurals``:
    "throw the snacks and water bottles in the backpack"), where the goal puts exactly one thing at
    that place of a kind the instruction never names and the scene has several of (one of two
    biscuits), in a top-level literal, quantifying over none: the model read the word as that kind,
    and the plural asks for every one of them. Only where that kind is the one such at the place;
    otherwise the verifier's ``unnamed_picks`` asks which."""
    places = placement_words(instruction)
    said = instruction_objects(instruction, set(problem.types))
    parts = _parts(problem.goal)
    named, every, some = goal_coverage(problem)
    nested = {a.lstrip("?") for part in parts if not _is_literal(part) for a in _args(part)}
    notes: list[str] = []
    for place, target in placement_targets(instruction, problem, places):
        words = unread_moved_plurals(instruction, place, places)
        if len(words) != 1:
            continue
        there = target.instances_in(problem.objects)
        picks = {part.args[0] for part in parts if isinstance(part, Atom) and len(part.args) == 2
                 and part.predicate in WHERE_RELATIONS and part.args[1].lstrip("?") in there}
        kinds: dict[str, str] = {}
        for one in picks:
            typ = problem.objects.get(one)  # None for a variable
            if (typ is None or len(problem.instances_of(typ)) < 2 or typ in every | some or one in nested
                    or [i for i in problem.instances_of(typ) if i in named] != [one]
                    or any(grounds_in(phrase, synset, {typ}, loose=False) for phrase, synset in said)):
                continue
            kinds[typ] = one
        if len(kinds) != 1:
            continue
        ((typ, one),) = kinds.items()
        parts = _every_of(parts, one, typ)
        every.add(typ)
        notes.append(f"the instruction says {words[0]!r}, which names nothing here, {place.said} the "
                     f"{target.phrase}: the goal's {one}, put there, is read as every {typ} "
                     f"({len(problem.instances_of(typ))} in the scene)")
    return (And(parts) if notes else problem.goal), notes


def _every_of(parts: tuple[Formula, ...], one: str, typ: str) -> tuple[Formula, ...]:
    """``parts`` with each top-level literal that names instance ``one`` read for every ``typ``:
    ``(cooked mustard_1)`` becomes ``(forall (?mustard - mustard) (cooked ?mustard))``."""
    var = "?" + typ
    return tuple(Quantifier("forall", (Param(var, typ),), _renamed(part, {one: var}))
                 if _is_literal(part) and one in {a.lstrip("?") for a in _args(part)} else part
                 for part in parts)


def widen_exists(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each top-level ``(exists (?t - T) body)`` over a kind the instruction asks all of
    (``asked_for_all``: "my caps", "the mugs"), of which the scene has several, and that the body
    only asks things of (never a place: "(inside ?rag ?sack)" is some sack), read as ``forall``:
    "run them through the wash" for "my caps" drafted as one cap cleaned. The objects axis would
    otherwise refuse it as asked of only one of them."""
    asked = asked_for_all(instruction)
    notes: list[str] = []
    parts = []
    for part in _parts(problem.goal):
        if (isinstance(part, Quantifier) and part.kind == "exists" and len(part.params) == 1
                and len(problem.instances_of(part.params[0].type)) > 1
                and _only_subject(part.params[0].var, part.body)
                and any(grounds_in(m.phrase, m.synset, {part.params[0].type}, loose=False) for m in asked)):
            typ = part.params[0].type
            notes.append(f"the instruction asks it of every {typ} ({len(problem.instances_of(typ))} in the scene): "
                         "the goal's exists is read as forall")
            part = replace(part, kind="forall")
        parts.append(part)
    return (And(tuple(parts)), notes) if notes else (problem.goal, [])


def _only_subject(var: str, body: Formula) -> bool:
    """``var`` is the first argument of every atom of ``body`` that uses it: what the goal asks
    something of, never where something goes ("(exists (?sack) (inside ?rag ?sack))": some sack)."""
    uses = [atom for atom, _, _ in goal_atoms(body) if var in atom.args]
    return bool(uses) and all(atom.args[0] == var and var not in atom.args[1:] for atom in uses)


def _is_literal(f: Formula) -> bool:
    return isinstance(f, Atom) or (isinstance(f, Not) and isinstance(f.body, Atom))
