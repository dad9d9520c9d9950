"""Re-ground a retrieved activity on what was observed: its instances -> observed instances, its
goal over those, and the facts vision cannot see (its *prior*) carried over.

Matching: an activity instance takes an observed instance of the same synset (or of a kind of
it; a more general word last). Among instances of one type, the assignment that makes most of
the activity's visible ``:init`` facts hold in the observed facts wins (roles such as "the floor
of the garage" follow the scene, not the numbering).

What the activity has and the scene does not:

* ``future`` objects, the agent, and substances with no visible fact (water that only a sink's
  ``insource`` names) are declared from the prior, with their prior facts;
* other objects the goal needs are declared as *unseen* (the objects axis rejects the draft and
  says which); distractors that were not seen are dropped.

Observed instances the activity does not name keep their observed facts under fresh names. When
the prior says ``(attached a b)`` (or draped, overlaid) and vision saw ``a`` resting on ``b``, the
prior's relation replaces the observed ``ontop``: it names the kind of contact vision cannot tell.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from symplan_core.bddl.checks import iter_atoms, iter_quantifiers
from symplan_core.bddl.model import Atom, Formula, Literal, Param, Problem
from symplan_core.bddl.normalize import map_formula, substance_instance, to_omnigibson
from symplan_core.perception.synsets import compatibility, is_substance

#: Predicates perception produces from geometry; every other one comes from the prior.
VISUAL = frozenset({"ontop", "inside", "under", "nextto", "onfloor", "inroom", "covered", "filled", "contains"})
#: Contact relations the prior may assert where vision sees an object resting on another.
CONTACT = frozenset({"attached", "draped", "overlaid"})
_MAX_PERMUTATIONS = 720


@dataclass
class Regrounded:
    activity: str
    objects: dict[str, str]  # final instance -> type, declaration order
    sources: dict[str, str]  # final instance -> detection | prior | unseen
    init: list[Literal]
    fact_sources: dict[Literal, str]  # observed | prior
    goal: Formula
    mapping: dict[str, str] = field(default_factory=dict)  # activity instance -> final instance
    renamed: dict[str, str] = field(default_factory=dict)  # observed instance -> final instance


def _lit_key(lit: Literal) -> tuple:
    return (lit.negated, lit.predicate, lit.args)


def _agreement(facts: list[Literal], mapping: dict[str, str], observed: set[tuple]) -> int:
    hits = 0
    for lit in facts:
        args = tuple(mapping.get(a, a) for a in lit.args)
        if (lit.negated, lit.predicate, args) in observed:
            hits += 1
    return hits


def _assign(activity: Problem, seen: dict[str, str], observed: set[tuple], skip: set[str]) -> dict[str, str]:
    """Activity instance -> observed instance."""
    groups: dict[str, list[str]] = {}
    for inst, typ in activity.objects.items():
        if inst not in skip:
            groups.setdefault(typ, []).append(inst)
    visible = [lit for lit in activity.init if lit.predicate in VISUAL]
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    options: dict[str, list[str]] = {}
    for typ, members in groups.items():
        ranked = sorted((o for o in seen if o not in taken and compatibility(typ, seen[o]) > 0),
                        key=lambda o: (-compatibility(typ, seen[o]), o))
        best = compatibility(typ, seen[ranked[0]]) if ranked else 0
        pool = [o for o in ranked if compatibility(typ, seen[o]) == best]
        options[typ] = pool
        for inst, obs in zip(members, pool, strict=False):
            mapping[inst] = obs
            taken.add(obs)
    for _round in range(2):  # roles: permute within a type to agree with the observed relations
        for typ, members in groups.items():
            pool = [o for o in options[typ] if o not in taken or o in {mapping.get(m) for m in members}]
            k = min(len(members), len(pool))
            if k < 1 or (k == 1 and len(pool) == 1):
                continue
            mine = [lit for lit in visible if any(a in members for a in lit.args)]
            if not mine:
                continue
            best_score, best_choice = None, None
            for n, choice in enumerate(itertools.permutations(pool, k)):
                if n >= _MAX_PERMUTATIONS:
                    break
                trial = {**mapping, **dict(zip(members[:k], choice, strict=True))}
                score = _agreement(mine, trial, observed)
                if best_score is None or score > best_score:
                    best_score, best_choice = score, choice
            for m in members:
                if m in mapping:
                    taken.discard(mapping.pop(m))
            assert best_choice is not None, "k >= 1 members over a non-empty pool: at least one permutation"
            for m, o in zip(members[:k], best_choice, strict=True):
                mapping[m] = o
                taken.add(o)
    return mapping


def reground(activity_problem: Problem, activity: str, seen: dict[str, str], observed_init: list[Literal],
             domain: str) -> Regrounded:
    """``seen``: observed instance -> synset; ``observed_init``: observed facts (omnigibson vocabulary)."""
    act = to_omnigibson(activity_problem)
    future = {lit.args[0] for lit in act.init if lit.predicate == "future" and not lit.negated}
    normalized = set(act.objects) - set(activity_problem.objects)  # B-100's stain/dust/water substances
    observed = {_lit_key(lit) for lit in observed_init}
    mapping = _assign(act, seen, observed, skip=future)
    visible_facts: dict[str, int] = {}
    for lit in act.init:
        if lit.predicate in VISUAL:
            for a in lit.args:
                visible_facts[a] = visible_facts.get(a, 0) + 1
    goal_names = {a for atom in iter_atoms(act.goal) for a in atom.args if not a.startswith("?")}
    goal_types = {p.type for q in iter_quantifiers(act.goal) for p in q.params}
    mapped_types = {act.objects[a] for a in mapping}
    sources: dict[str, str] = {}
    final: dict[str, str] = {}  # activity instance -> final name (mapped, prior or unseen)
    for inst, typ in act.objects.items():
        if inst in mapping:
            final[inst] = inst
            sources[inst] = "detection"
        elif inst in future or typ == "agent.n.01" or ((is_substance(typ, domain) or inst in normalized)
                                                       and not visible_facts.get(inst)):
            final[inst] = inst
            sources[inst] = "prior"
        elif inst in goal_names or (typ in goal_types and typ not in mapped_types):
            final[inst] = inst
            sources[inst] = "unseen"
    renamed = {obs: a for a, obs in mapping.items()}
    used = set(final.values())
    objects = {final[a]: act.objects[a] for a in act.objects if a in final}
    for obs, synset in seen.items():
        if obs in renamed:
            continue
        renamed[obs] = substance_instance(synset, used)
        used.add(renamed[obs])
        objects[renamed[obs]] = synset
        sources[renamed[obs]] = "detection"
    for a, obs in mapping.items():
        objects[a] = seen[obs]  # the observed synset types the instance
    init: list[Literal] = []
    fact_sources: dict[Literal, str] = {}
    for lit in observed_init:
        new = Literal(Atom(lit.predicate, tuple(renamed.get(x, x) for x in lit.args)), lit.negated)
        if new not in fact_sources:
            init.append(new)
            fact_sources[new] = "observed"
    for lit in act.init:
        prior_only = any(sources.get(final.get(a, ""), "") == "prior" for a in lit.args)
        if lit.predicate in VISUAL and not prior_only:
            continue
        if lit.predicate == "inroom":
            args_ok = lit.args[0] in final and sources[final[lit.args[0]]] != "unseen"
        else:
            args_ok = all(a in final and sources[final[a]] != "unseen" for a in lit.args)
        if not args_ok:
            continue
        new = Literal(Atom(lit.predicate, tuple(final.get(a, a) for a in lit.args)), lit.negated)
        if new not in fact_sources:
            init.append(new)
            fact_sources[new] = "prior"
    # The prior names the kind of contact vision reads as plain support: (attached a b) explains (ontop a b).
    for lit in [x for x in init if fact_sources[x] == "prior" and x.predicate in CONTACT and not x.negated]:
        seen_as = Literal(Atom("ontop", lit.args))
        if fact_sources.get(seen_as) == "observed":
            init.remove(seen_as)
            del fact_sources[seen_as]
    retype = _retyping(act, mapping, seen)
    goal = map_formula(act.goal, lambda atom: Atom(atom.predicate, tuple(final.get(a, a) for a in atom.args)),
                       lambda p: Param(p.var, retype.get(p.type, p.type)))
    return Regrounded(activity, objects, sources, init, fact_sources, goal, dict(mapping), renamed)


def _retyping(act: Problem, mapping: dict[str, str], seen: dict[str, str]) -> dict[str, str]:
    """Activity type -> observed synset when every mapped instance of it was seen as that synset."""
    out: dict[str, str] = {}
    for typ in set(act.objects.values()):
        kinds = {seen[mapping[i]] for i, t in act.objects.items() if t == typ and i in mapping}
        if len(kinds) == 1 and typ not in kinds:
            out[typ] = kinds.pop()
    return out
