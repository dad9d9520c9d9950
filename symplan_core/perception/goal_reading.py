"""What a drafted goal asks, read against the perceived initial state: the polarity of each
predicate (:func:`goal_polarities`), literals that already hold and ask nothing (:func:`idle_literal`),
the types it mentions (:func:`goal_types`) and covers (:func:`goal_coverage`), what it makes
(:func:`made_types`) and which literals an action of the engine can achieve (:func:`achievable`).
The instruction readings (``object_words``, ``placements``, ``language``) hold goals to words
through these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

from symplan_core.bddl import And, Atom, Formula, Imply, Not, Or, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_instances,
    argument_type,
    bound_goal_atoms,
    goal_atoms,
    iter_atoms,
    iter_quantifiers,
)
from symplan_core.engine.predicates import BULK_TYPES, OBJECT_RELATIONS, SUBSTANCE_HOLDING
from symplan_core.perception.synsets import grounds_in, is_substance, singulars, words_of
from symplan_core.perception.verbs import RELATION_WORDS
from symplan_core.tasks import synset_info

#: The name of a made thing -> the state its making is (``half__egg``: the egg cut; B-1K states
#: cutting and cooking an ingredient this way, B-100 with ``sliced``/``cooked``).
PRODUCT_STATES = {"half": ("sliced", True), "diced": ("sliced", True), "cooked": ("cooked", True)}
#: How BEHAVIOR names what a transformed object was made from (``engine.world._ingredients``).
PRODUCT_PREFIXES = ("half__", "diced__", "cooked__", "melted__", "cooked__diced__")


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


def _released_problems() -> Iterator[Problem]:
    """Every released B-1K and B-100 problem, in the omnigibson vocabulary: what the tables
    below are derived from (not listed by hand). Read once per table, not kept: the tables are."""
    from symplan_core.bddl.normalize import to_omnigibson
    from symplan_core.fetch import BENCHMARKS
    from symplan_core.tasks import list_tasks, load_problem

    for bench in BENCHMARKS:
        for name in list_tasks(bench):
            yield to_omnigibson(load_problem(f"{bench}/{name}"))


@lru_cache(maxsize=1)
def _covering_counts() -> dict[str, tuple[int, int]]:
    """Substance -> (how often the released goals (B-1K and B-100) remove it, apply it) as ``covered``."""
    counts: dict[str, list[int]] = {}
    for problem in _released_problems():
        for atom, positive, types in goal_atoms(problem.goal):
            if atom.predicate == "covered" and len(atom.args) == 2:
                arg = atom.args[1]
                typ = types.get(arg, problem.objects.get(arg, arg))
                counts.setdefault(typ, [0, 0])[positive] += 1
    return {t: (removed, applied) for t, (removed, applied) in counts.items()}


@lru_cache(maxsize=1)
def drape_places() -> frozenset[str]:
    """Types the released goals drape things on (``draped``: hangers 17 times, towel racks 3,
    curtain rods, clotheslines, a coat rack, a pole, a bed once): where a thing lies draped
    "on" them, it is put there as asked."""
    out = {argument_type(atom.args[1], types, problem.objects) for problem in _released_problems()
           for atom, positive, types in goal_atoms(problem.goal)
           if positive and atom.predicate == "draped" and len(atom.args) == 2}
    return frozenset(t for t in out if t)


@lru_cache(maxsize=1)
def removed_substances() -> frozenset[str]:
    """Substances the released goals remove more often than they apply: the ``covered`` that
    cleaning words undo (derived from the task files, not listed by hand)."""
    return frozenset(t for t, (removed, applied) in _covering_counts().items() if removed > applied)


@lru_cache(maxsize=1)
def applied_substances() -> frozenset[str]:
    """Substances the released goals apply more often than they remove (disinfectant 28 times,
    polish 9, olive oil 12; never removed): what a thing is wiped, sprayed or treated *with* ends
    up on it."""
    return frozenset(t for t, (removed, applied) in _covering_counts().items() if applied > removed)


@lru_cache(maxsize=1)
def never_removed_substances() -> frozenset[str]:
    """Substances the released goals apply and never once remove (disinfectant 28 times, polish 9,
    salt 18): a goal that takes one off something reads the request backwards."""
    return frozenset(t for t, (removed, applied) in _covering_counts().items() if applied and not removed)


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


def goal_holders(problem: Problem, kinds: Iterable[str]) -> dict[str, set[str]]:
    """Kind -> the types the goal holds it in or on: a container ``filled``/``contains``/``insource``
    with it (a substance), or what it is put ``inside``/``ontop`` of (a thing)."""
    held: dict[str, set[str]] = {t: set() for t in kinds}
    for atom, positive, types in goal_atoms(problem.goal):
        if not positive or len(atom.args) != 2:
            continue
        first, second = (argument_type(a, types, problem.objects) for a in atom.args)
        if atom.predicate in SUBSTANCE_HOLDING and second in held and first:
            held[second].add(first)
        elif atom.predicate in ("inside", "ontop") and first in held and second:
            held[first].add(second)
    return held


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


#: Predicates whose first argument bears or holds a substance (a surface, a container, a source).
SUBSTANCE_BEARERS = frozenset({"covered", "saturated", "filled", "contains", "insource"})


#: How BEHAVIOR names a thing changed from another (``half__apple``, ``broken__glass``): no package.
_CHANGED_PREFIXES = (*PRODUCT_PREFIXES, "broken__")


def is_changed(synset: str) -> bool:
    """A thing BEHAVIOR names as changed from another (``half__apple``, ``cooked__noodle``,
    ``broken__glass``)."""
    return synset.startswith(_CHANGED_PREFIXES)


def made_from(synset: str) -> str | None:
    """The name of what BEHAVIOR changes into ``synset`` (``cooked__diced__chili.n.01`` ->
    ``chili``), or None for a thing not named as changed from another."""
    base, changed = synset.split(".n.")[0], False
    while base.startswith(PRODUCT_PREFIXES):
        base, changed = base.split("__", 1)[1], True
    return base if changed else None


def is_package(synset: str) -> bool:
    """A packaged supply of something, named for what it holds (``detergent__bottle``,
    ``granulated_sugar__sack``, ``bottle__of__soda``), not a thing changed from another
    (:func:`is_changed`)."""
    return "__" in synset.split(".")[0] and not is_changed(synset)


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


def package_of(synset: str) -> str | None:
    """The name of what a package (:func:`is_package`) holds: ``maple_syrup__jar`` ->
    ``maple_syrup``, ``bottle__of__soda`` -> ``soda``; None for anything else."""
    if not is_package(synset):
        return None
    base = synset.split(".n.")[0]
    return base.split("__of__", 1)[1] if "__of__" in base else base.rsplit("__", 1)[0]


def package_fillings(problem: Problem) -> list[str]:
    """Each positive ``contains``/``filled`` literal that puts a substance in a package of another
    (``(contains ?maple_syrup__jar_1 ?cinnamon_1)``, ``(contains ?granulated_sugar__sack_1
    ?water_1)``): a package holds what it is named for, and no released B-1K or B-100 goal puts
    anything else in one. Dirt aside (``(contains ?liquid_soap__bottle_1 ?mud_1)`` beside the gloves
    washed asks nothing a plan does). Qwen 1.5B wrote one in four wrong terse drafts (untuned7, 9:
    "Serve cinnamon French toast with syrup.", the marinara in the pasta box)."""
    out = []
    dirt = removed_substances()
    for atom, positive, types in goal_atoms(problem.goal):
        if not positive or atom.predicate not in ("contains", "filled") or len(atom.args) != 2:
            continue
        holder = argument_type(atom.args[0], types, problem.objects)
        held = argument_type(atom.args[1], types, problem.objects)
        named_for = package_of(holder) if holder is not None else None
        if named_for is None or held is None or held in dirt:
            continue
        if named_for not in held.split(".n.")[0]:
            out.append(f"the goal has ({atom.predicate} {' '.join(atom.args)}), but {holder} is a package of "
                       f"{named_for.replace('_', ' ')}, which holds nothing else")
    return list(dict.fromkeys(out))


#: States a switched-on appliance brings about (an oven cooks, a freezer freezes, a sink soaks and
#: fills, a washer cleans): a goal that asks one of them may switch on what does it unnamed.
APPLIANCE_STATES = frozenset({"cooked", "frozen", "hot", "saturated", "filled", "contains", "covered", "insource"})


def idle_pairings(problem: Problem) -> list[str]:
    """Each pairing whose body never uses a kind that has fewer instances than the kind it pairs
    it with: ``(forpairs (?turf - turf) (?shovel - shovel) (inside ?turf ?barrow))`` pairs each turf
    with a shovel it never mentions, so with one shovel it asks one turf of four in the barrow (Qwen
    1.5B wrote it for "dig up all four pieces of sod"). With as many of the unused kind, the pairing
    asks its body of every one, as a ``forall`` would. One released goal pairs an unused kind
    (set_up_a_preschool_classroom), with as many."""
    counts = Counter(problem.objects.values())
    out = []
    for q in iter_quantifiers(problem.goal):
        if q.kind not in ("forpairs", "fornpairs") or len(q.params) != 2:
            continue
        used = {arg for atom in iter_atoms(q.body) for arg in atom.args}
        for idle, other in (q.params, q.params[::-1]):
            if idle.var not in used and counts[idle.type] < counts[other.type]:
                out.append(f"the goal's {q.kind} pairs each {other.type} with a {idle.type} it never uses, so it "
                           f"asks {counts[idle.type]} of {counts[other.type]}")
    return list(dict.fromkeys(out))


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
