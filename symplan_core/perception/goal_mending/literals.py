"""Rewrites of single literals: repeats, contradictions and literals that already hold left out,
dirt read as the dirt the scene has, and relations no plan can reach (a thing to itself, a thing
to a substance) dropped."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from itertools import product

from symplan_core.bddl import And, Atom, Formula, Not, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_instances,
    argument_type,
    goal_atoms,
    iter_atoms,
)
from symplan_core.perception.goal_mending.formulas import (
    WHERE_RELATIONS,
    each_quantifier,
    exists_vars,
    mapped,
    subject_of,
    without,
)
from symplan_core.perception.goal_reading import (
    SUBSTANCE_BEARERS,
    holds_for_every,
    initial_facts,
    is_package,
    removed_substances,
)
from symplan_core.perception.object_words import (
    instruction_objects,
)
from symplan_core.perception.placements import (
    placement_words,
)
from symplan_core.perception.synsets import grounds_in, is_substance
from symplan_core.perception.verbs import state_words


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
    some = exists_vars(problem.goal)

    def key(atom: Atom, types: dict[str, str]) -> tuple[str, ...] | None:
        subjects = tuple(subject_of(a, types, some) for a in atom.args)
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

    goal = without(problem.goal, unwanted)
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
    some = exists_vars(problem.goal)
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

    goal = without(problem.goal, idle)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


#: How a thing bears a substance: on it, or held in it.
_HOLDING_SUBSTANCE = ("covered", "contains", "filled")


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


def _left_out(problem: Problem, why: Callable[[Atom, dict[str, str], bool], str | None]) -> tuple[Formula, list[str]]:
    """``problem``'s goal without each literal ``why`` gives a reason for (its note), where the goal
    still says something else; otherwise the goal as it is and no notes."""
    notes: list[str] = []

    def dropped(atom: Atom, types: dict[str, str], positive: bool) -> bool:
        reason = why(atom, types, positive)
        if reason is not None:
            notes.append(reason)
        return reason is not None

    goal = without(problem.goal, dropped)
    return (goal, list(dict.fromkeys(notes))) if notes and goal is not None else (problem.goal, [])


def drop_self_relations(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each positive two-place literal whose two places hold the same instance or variable is left
    out: no state puts a thing inside, on or next to itself. Qwen 1.5B wrote ``(inside ?toolbox_1
    ?toolbox_1)`` beside the shears and the pruner in it for "pack the clippers and shears into the
    toolbox", and ``(attached ?bicycle_1 ?bicycle_1)`` for "give my bike a wash"."""
    def itself(atom: Atom, _types: dict[str, str], positive: bool) -> str | None:
        if positive and len(atom.args) == 2 and atom.args[0] == atom.args[1]:
            return f"({atom.predicate} {' '.join(atom.args)}) relates a thing to itself: left out"
        return None

    return _left_out(problem, itself)


def _substance(arg: str, types: dict[str, str], problem: Problem) -> bool:
    typ = argument_type(arg, types, problem.objects)
    return typ is not None and is_substance(typ, "omnigibson")


#: Relations of a thing to another thing by where it is, which a substance takes no part in.
_NEIGHBOURS = ("touching", "nextto")


def drop_substance_neighbours(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A positive ``touching``/``nextto`` literal with a substance in either place (``(touching
    ?lampshade ?dust_1)``) is left out where the goal says something else: a substance is next to
    nothing, and no plan reaches it (the engine places nothing next to a substance). Qwen 1.5B wrote
    the lampshades touching the dust beside the dust wiped off them for "Could you wipe them down
    gently?"."""
    def beside_substance(atom: Atom, types: dict[str, str], positive: bool) -> str | None:
        if positive and atom.predicate in _NEIGHBOURS and any(_substance(a, types, problem) for a in atom.args):
            return f"({atom.predicate} {' '.join(atom.args)}) puts a thing next to a substance: left out"
        return None

    return _left_out(problem, beside_substance)


def drop_substance_bearings(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A negated literal that asks a substance not to bear or hold one (``(not (covered ?stain_1
    ?water_1))``) is left out where the goal says something else: a substance bears nothing, so it
    always holds and asks nothing. Qwen 1.5B wrote it beside the stain cleaned off the purse for
    "Clean the stain off the purse". A positive one stays, for the verifier to refuse
    (``goal_reading.substance_subjects``)."""
    def borne_by_substance(atom: Atom, types: dict[str, str], positive: bool) -> str | None:
        if positive or atom.predicate not in SUBSTANCE_BEARERS or len(atom.args) != 2 \
                or not _substance(atom.args[0], types, problem):
            return None
        return (f"(not ({atom.predicate} {' '.join(atom.args)})): {atom.args[0].lstrip('?')} is a substance, which "
                "bears nothing, so it always holds: left out")

    return _left_out(problem, borne_by_substance)


def drop_package_places(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """A positive ``inside``/``ontop`` literal whose place is a package (``goal_reading.is_package``:
    a detergent bottle, a sack of sugar, a bag of seeds) is left out where the goal says something
    else: no released B-1K or B-100 goal puts anything in or on one. Qwen 1.5B wrote the sponge in
    the detergent bottle beside the tent cleaned ("clean the tent"), and the curtains in it beside
    their stains washed out ("throw them in the wash with some detergent")."""
    def in_package(atom: Atom, types: dict[str, str], positive: bool) -> str | None:
        if not positive or atom.predicate not in ("inside", "ontop") or len(atom.args) != 2:
            return None
        place = argument_type(atom.args[1], types, problem.objects)
        if place is None or not is_package(place):
            return None
        return (f"({atom.predicate} {' '.join(atom.args)}): {place} is a package of what it holds, which no goal "
                "puts anything in or on: left out")

    return _left_out(problem, in_package)


#: The states a substance does not take but turns into another substance by: BEHAVIOR's cooked
#: sunflower seeds are ``cooked__sunflower_seed``, and no released goal asks ``(cooked ?substance)``.
_TURNS_INTO = {"cooked": "cooked__", "melted": "melted__"}


def read_made_substances(goal: Formula, objects: Mapping[str, str],
                         products: Mapping[str, str]) -> tuple[Formula, list[str]]:
    """``goal`` with ``(cooked ?sunflower_seed_1)`` ("toast the sunflower seeds") read as ``(real
    ?cooked__sunflower_seed_1)``: a substance is never cooked or melted, it becomes the product
    BEHAVIOR names so. Only where the scene can make that product: ``products`` (instance -> type)
    are the additions a goal may ask into being (``additions.scene_additions``), which this runs
    before the goal's additions are chosen. ``objects``: instance -> type of the scene."""
    made_as = {typ: inst for inst, typ in sorted(products.items(), reverse=True)}  # the first instance of each
    notes: list[str] = []

    def turned(atom: Atom, types: dict[str, str]) -> Atom:
        if atom.predicate not in _TURNS_INTO or len(atom.args) != 1 or atom.args[0] in types:
            return atom
        typ = objects.get(atom.args[0].lstrip("?"))
        if typ is None or not is_substance(typ, "omnigibson"):
            return atom
        product = made_as.get(_TURNS_INTO[atom.predicate] + typ.split(".n.")[0] + ".n.01")
        if product is None:
            return atom
        notes.append(f"({atom.predicate} {atom.args[0].lstrip('?')}): {typ} is a substance, which becomes "
                     f"{products[product]} rather than being {atom.predicate}: read as (real {product})")
        return Atom("real", (product,))

    def quantified(q: Quantifier, body: Formula) -> Formula:
        # (forall (?pea - pea) (and (cooked ?pea) (contains ?saucepan ?pea))): the cooked pea is
        # what is held, so every use of the variable is read as the product
        if len(q.params) != 1 or not is_substance(q.params[0].type, "omnigibson"):
            return replace(q, body=body)
        var, typ = q.params[0].var, q.params[0].type
        asked = [a for a in iter_atoms(body) if a.predicate in _TURNS_INTO and a.args == (var,)]
        made = {made_as.get(_TURNS_INTO[a.predicate] + typ.split(".n.")[0] + ".n.01") for a in asked}
        if len(made) != 1 or (made_one := made.pop()) is None:
            return replace(q, body=body)
        notes.append(f"({asked[0].predicate} {var}) over {typ}: a substance, which becomes {products[made_one]} "
                     f"rather than being {asked[0].predicate}: read as (real {made_one}), and {var} as {made_one}")
        return mapped(body, lambda atom, _types: Atom("real", (made_one,)) if atom in asked else Atom(
            atom.predicate, tuple(made_one if a == var else a for a in atom.args)), choices=True)

    out = each_quantifier(mapped(goal, turned), quantified)
    return (out, notes) if notes else (goal, [])
