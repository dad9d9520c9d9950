"""Rewrites of what a quantifier ranges over: a variable bound to the instance its body names, a
``forpairs`` with one partner read as ``forall``, a pairing with a kind nobody named left out, and a
plural the goal names by one instance (or by ``exists``) read as all of them."""

from __future__ import annotations

from dataclasses import replace

from symplan_core.bddl import And, Atom, Formula, Param, Problem, Quantifier
from symplan_core.bddl.checks import (
    argument_type,
    goal_atoms,
)
from symplan_core.engine.predicates import (
    PLACEMENT_RELATIONS,
    SUPPORT_RELATIONS,
)
from symplan_core.perception.goal_mending.formulas import (
    WHERE_RELATIONS,
    args_of,
    conjuncts,
    each_quantifier,
    is_literal,
    renamed,
)
from symplan_core.perception.goal_reading import (
    goal_coverage,
    short_pairings,
)
from symplan_core.perception.object_words import (
    instruction_objects,
    plural_mentions,
    sounds_plural,
)
from symplan_core.perception.placements import (
    asked_for_all,
    placement_targets,
    placement_words,
    unread_moved_plurals,
)
from symplan_core.perception.synsets import grounds_in, read_instruction


def bind_named_instances(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each quantifier whose variable its body never uses while the body names exactly one instance
    of that variable's type, with that instance read as the variable. Qwen 1.5B wrote ``(forall
    (?log.n.01 - log.n.01) (not (covered ?log.n.01_1 ?dust.n.01_1)))`` for "dust the logs"."""
    notes: list[str] = []

    def bind(f: Quantifier, body: Formula) -> Formula:
        used = args_of(body)
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
        return replace(f, body=renamed(body, names) if names else body)

    goal = each_quantifier(problem.goal, bind)
    return (goal if notes else problem.goal), notes


def bind_only_instances(_instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each ``exists`` over a kind the scene has one of, read as that one (the same goal, said
    plainly): ``(exists (?bookcase - bookcase) (ontop ?book_1 ?bookcase))`` with one bookcase is
    ``(ontop ?book_1 ?bookcase_1)``, which the later rewrites can compare with the goal's other
    literals about that bookcase."""
    notes: list[str] = []

    def bind(f: Quantifier, body: Formula) -> Formula:
        if f.kind == "exists" and len(f.params) == 1 and len(only := problem.instances_of(f.params[0].type)) == 1:
            notes.append(f"the goal's exists over {f.params[0].type} is the scene's one {only[0]}")
            return renamed(body, {f.params[0].var.lstrip("?"): only[0]})
        return replace(f, body=body)

    goal = each_quantifier(problem.goal, bind)
    return (goal, notes) if notes else (problem.goal, [])


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
    for part in conjuncts(problem.goal):
        if isinstance(part, Quantifier) and part.kind == "forpairs" and len(part.params) == 2:
            for many, one in (part.params, part.params[::-1]):
                instances = problem.instances_of(one.type)
                if (len(instances) == 1 and len(problem.instances_of(many.type)) > 1
                        and many.var in args_of(part.body)
                        and any(grounds_in(m.phrase, m.synset, {many.type}, loose=False) for m in plurals)):
                    body = renamed(part.body, {one.var.lstrip("?"): instances[0]})
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
    parts = conjuncts(problem.goal)
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
    parts = conjuncts(problem.goal)
    named, every, some = goal_coverage(problem)
    quantified = every | (some - set(short_pairings(problem)))  # any quantifier, exists too
    nested = {a.lstrip("?") for part in parts if not is_literal(part) for a in args_of(part)}
    said = dict(instruction_objects(instruction, set(problem.objects.values())))  # as widen_exists reads it
    notes: list[str] = []
    for mention in asked_for_all(instruction):
        for typ in sorted(problem.types):
            instances = problem.instances_of(typ)
            if (len(instances) < 2 or typ in quantified
                    or not grounds_in(mention.phrase, said.get(mention.phrase, mention.synset), {typ}, loose=False)):
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
    parts = conjuncts(problem.goal)
    named, every, some = goal_coverage(problem)
    nested = {a.lstrip("?") for part in parts if not is_literal(part) for a in args_of(part)}
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
    return tuple(Quantifier("forall", (Param(var, typ),), renamed(part, {one: var}))
                 if is_literal(part) and one in {a.lstrip("?") for a in args_of(part)} else part
                 for part in parts)


def widen_exists(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """Each top-level ``(exists (?t - T) body)`` over a kind the instruction asks all of
    (``asked_for_all``: "my caps", "the mugs"), of which the scene has several, and that the body
    only asks things of (never a place: "(inside ?rag ?sack)" is some sack), read as ``forall``:
    "run them through the wash" for "my caps" drafted as one cap cleaned. The objects axis would
    otherwise refuse it as asked of only one of them. A plural is read as the scene's kind the
    instruction's words name ("those letters" with envelopes in the scene: ``instruction_objects``)."""
    asked = asked_for_all(instruction)
    said = dict(instruction_objects(instruction, set(problem.objects.values())))
    notes: list[str] = []
    parts = []
    for part in conjuncts(problem.goal):
        if (isinstance(part, Quantifier) and part.kind == "exists" and len(part.params) == 1
                and len(problem.instances_of(part.params[0].type)) > 1
                and _only_subject(part.params[0].var, part.body)
                and any(grounds_in(m.phrase, said.get(m.phrase, m.synset), {part.params[0].type}, loose=False)
                        for m in asked)):
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
