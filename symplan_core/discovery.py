"""Predicate-guided action discovery: scan -> classify -> infer -> propose -> validate -> emit.

Grows an action library from the goal predicates a benchmark needs (paper,
appendix "Action Set Scaling" and "Predicate Resolution Rules"). Each phase
is a plain function over plain data; only ``validate`` runs the engine (via
the reference planner). Deterministic unless an LLM reviewer is passed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Problem, Quantifier
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.engine.actions import ActionSpec
from symplan_core.engine.predicates import MADE_BY_EFFECT, OBJECT_RELATIONS

# -- resolution rules (paper Table "Predicate resolution") ------------------------
#: other vocabulary -> engine vocabulary
ALIASES = {"onfloor": "ontop", "stained": "covered", "dusty": "covered", "soaked": "saturated",
           "contains": "filled", "grasped": "holding"}
#: (predicate, regex on the second argument's synset) -> requirement it resolves to
REGEX_RULES = ((("covered", re.compile(r"^(stain|dust|dirt|mud|debris|mold|grease|rust)")), "covered"),)
#: Predicates the goal checker handles without an action (derived or static).
HANDLED_FORMATS = frozenset({"touching", "inroom", "future", "insource"})
#: Effects that establish a requirement without an ``add:``/``del:`` effect.
STRUCTURAL = {("ontop", True): "place:ontop", ("inside", True): "place:inside",
              ("under", True): "place:under", ("nextto", True): "place:nextto", ("real", True): "make:",
              ("covered", False): "clean:", ("covered", True): "pour:", ("holding", True): "grasp:",
              ("ontop", False): "grasp:", ("inside", False): "grasp:", ("under", False): "grasp:",
              ("nextto", False): "grasp:", **{(p, True): f"{e}:" for e, p in MADE_BY_EFFECT.items()}}
#: participle/adjective -> verb (morphology the regular rules below get wrong)
IRREGULAR_VERBS = {"frozen": "freeze", "broken": "break_obj", "burnt": "burn", "hot": "heat", "on_fire": "ignite",
                   "overlaid": "overlay", "real": "make", "toggled_on": "toggle_on", "saturated": "saturate",
                   "timeset": "set_timer", "sliced": "cut", "open": "open"}
#: verb -> its inverse, else "un" + verb
INVERSE_VERBS = {"toggle_on": "toggle_off", "attach": "detach", "fill": "empty", "heat": "cool", "freeze": "thaw",
                 "open": "close", "make": "dismantle", "cook": "uncook", "drape": "undrape", "break_obj": "repair"}
#: Relations a held object is put into (``touching`` is derived, never made directly).
RELATIONAL = OBJECT_RELATIONS - {"touching"}
#: What physics demands of an action that makes (True) or undoes (False) a predicate, beyond
#: reaching the object (why: docs/engine.md): freezing needs a cold source that is on, thawing
#: and cooling down need the object away from the cold or the heat, and taking something off,
#: down or out (detach, undrape, empty) is done by hand.
PHYSICS = {("frozen", True): "ability:obj:freezable cooled:obj",
           ("frozen", False): "ability:obj:freezable away:obj:coldSource",
           ("hot", False): "away:obj:heatSource", ("attached", False): "accessible:obj free_hand:obj",
           ("draped", False): "accessible:obj free_hand:obj", ("overlaid", False): "accessible:obj free_hand:obj",
           ("filled", False): "accessible:obj free_hand:obj",
           # the same rules as the hand-written B-1K library (docs/engine.md), for proposals of it
           ("on_fire", True): "ability:obj:flammable flame:obj", ("hot", True): "heated:obj",
           ("folded", True): "type:obj:cloth accessible:obj free_hand:obj",
           ("unfolded", True): "type:obj:cloth accessible:obj free_hand:obj",
           ("draped", True): "type:obj:cloth accessible:tgt", ("overlaid", True): "type:obj:cloth accessible:tgt",
           ("attached", True): "accessible:tgt", ("filled", True): "source:obj:tgt",
           ("saturated", True): "ability:obj:soakable wet:obj:tgt", ("real", True): "ingredients:obj",
           ("broken", False): "accessible:obj free_hand", ("toggled_on", False): "ability:obj:toggleable free_hand:obj"}


@dataclass(frozen=True, order=True)
class Requirement:
    predicate: str
    positive: bool
    arity: int


@dataclass
class Classified:
    requirement: Requirement
    rule: str  # direct | alias | regex | handled | inverse | missing
    resolved: str
    tasks: int


@dataclass
class Proposal:
    requirement: Requirement
    spec: ActionSpec
    reviewed: bool = True
    accepted: bool = False
    newly_solved: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    note: str = ""


def _walk(f: Formula, positive: bool = True):
    if isinstance(f, Atom):
        yield f, positive
    elif isinstance(f, Not):
        yield from _walk(f.body, not positive)
    elif isinstance(f, (And, Or)):
        for p in f.parts:
            yield from _walk(p, positive)
    elif isinstance(f, Imply):
        yield from _walk(f.antecedent, not positive)
        yield from _walk(f.consequent, positive)
    elif isinstance(f, Quantifier):
        yield from _walk(f.body, positive)


# -- 1. scan ------------------------------------------------------------------------
def scan(problems: Iterable[Problem]) -> Counter:
    """Goal-predicate requirements with polarity -> number of tasks needing them."""
    counts: Counter = Counter()
    for problem in problems:
        counts.update({Requirement(a.predicate, pos, len(a.args)) for a, pos in _walk(problem.goal)})
    return counts


def _covered_by(req: Requirement, specs: Iterable[ActionSpec]) -> bool:
    want = f"{'add' if req.positive else 'del'}:{req.predicate}:"
    structural = STRUCTURAL.get((req.predicate, req.positive))
    for spec in specs:
        for eff in spec.effects:
            if eff.startswith(want) or (structural and eff.startswith(structural)):
                return True
    return False


# -- 2. classify ------------------------------------------------------------------------
def classify(requirements: Counter, base: Iterable[ActionSpec]) -> list[Classified]:
    base = list(base)
    out = []
    for req, n in sorted(requirements.items()):
        name = ALIASES.get(req.predicate, req.predicate)
        resolved = Requirement(name, req.positive, req.arity)
        if req.predicate in HANDLED_FORMATS:
            out.append(Classified(req, "handled", req.predicate, n))
        elif _covered_by(req, base):
            out.append(Classified(req, "direct", req.predicate, n))
        elif name != req.predicate and _covered_by(resolved, base):
            out.append(Classified(req, "alias", name, n))
        elif not req.positive and _covered_by(Requirement(req.predicate, True, req.arity), base):
            out.append(Classified(req, "inverse", req.predicate, n))
        else:
            out.append(Classified(req, "missing", req.predicate, n))
    return out


# -- 3. infer ------------------------------------------------------------------------
def verb_of(predicate: str) -> str:
    """Morphology: ``folded`` -> ``fold``, ``draped`` -> ``drape``, ``frozen`` -> ``freeze``."""
    if predicate in IRREGULAR_VERBS:
        return IRREGULAR_VERBS[predicate]
    if predicate.endswith("ied"):
        return predicate[:-3] + "y"
    if predicate.endswith("ed"):
        stem = predicate[:-2]
        if stem.endswith(("at", "ap", "iz", "ur", "as")):  # attached -> attach, draped -> drape
            return stem if stem.endswith(("ch", "sh")) else stem + "e"
        return stem
    return predicate


def infer(item: Classified) -> tuple[str, tuple[str, ...]]:
    """Action name and parameters for an uncovered requirement."""
    verb = verb_of(ALIASES.get(item.requirement.predicate, item.requirement.predicate))
    if not item.requirement.positive:
        verb = INVERSE_VERBS.get(verb, verb if verb.startswith("un") else f"un{verb}")
    params = ("obj",) if item.requirement.arity == 1 else ("obj", "tgt")
    return verb, params


# -- 4. propose ------------------------------------------------------------------------
def propose(item: Classified) -> ActionSpec:
    name, params = infer(item)
    req = item.requirement
    if req.predicate == "contains":  # the engine derives contains from filled
        req = Requirement("filled", req.positive, req.arity)
    op = "add" if req.positive else "del"
    if req.predicate in ("real", "future"):  # existence itself: nothing to stand near yet
        pre, eff = "", ("make:obj" if req.positive == (req.predicate == "real") else f"{op}:real:obj")
    elif req.arity == 1:
        pre, eff = "exists:obj near:obj", f"{op}:{req.predicate}:obj"
    elif req.predicate in RELATIONAL and req.positive:
        pre, eff = "held:obj exists:tgt near:tgt", f"release:obj add:{req.predicate}:obj:tgt"
    else:
        pre, eff = "exists:obj near:obj exists:tgt", f"{op}:{req.predicate}:obj:tgt"
    pre = " ".join(filter(None, (pre, PHYSICS.get((req.predicate, req.positive), ""))))
    doc = f"{'Make' if req.positive else 'Undo'} ({req.predicate} {' '.join(params)}) (discovered)."
    redundant = (f"{'already' if req.positive else 'already_not'}:{req.predicate}:{':'.join(params)}",)
    return ActionSpec(name, params, tuple(pre.split()), tuple(eff.split()), doc, "discovered", redundant)


# -- 5. validate ------------------------------------------------------------------------
def validate(proposals: list[Proposal], tasks: dict[str, Problem], base_set: str,
             solve: Callable[[Problem, str, list[ActionSpec]], bool]) -> list[Proposal]:
    """Accept a proposal when, with the other reviewed proposals present, it turns some
    unsolvable task solvable and breaks no task that was solvable without it.
    ``solve(problem, base_set, extra_specs)`` runs the reference planner in the engine."""
    reviewed = [p for p in proposals if p.reviewed]
    specs = [p.spec for p in reviewed]
    with_all: dict[str, bool] = {}
    for prop in reviewed:
        users = [n for n, p in tasks.items() if any(
            a.predicate == prop.requirement.predicate and pos == prop.requirement.positive
            for a, pos in _walk(p.goal))]
        without = [s for s in specs if s is not prop.spec]
        for name in users:
            if name not in with_all:
                with_all[name] = solve(tasks[name], base_set, specs)
        solved_without = {n: solve(tasks[n], base_set, without) for n in users}
        prop.newly_solved = [n for n in users if with_all[n] and not solved_without[n]]
        prop.broken = [n for n in users if solved_without[n] and not with_all[n]]
        prop.accepted = bool(prop.newly_solved) and not prop.broken
        prop.note = "" if prop.accepted else ("breaks solved tasks" if prop.broken else "solves no task")
    return proposals


# -- 6. emit ------------------------------------------------------------------------
def emit(proposals: list[Proposal]) -> dict:
    """Accepted specs in the library's JSON format, plus the allowed-function lines for prompts."""
    specs = [asdict(p.spec) for p in proposals if p.accepted]
    return {"actions": specs, "allowed_functions": [f"{s['name']}({', '.join(s['params'])})" for s in specs]}


def specs_from_json(data: dict) -> tuple[ActionSpec, ...]:
    return tuple(ActionSpec(**{**s, "params": tuple(s["params"]), "pre": tuple(s["pre"]),
                               "effects": tuple(s["effects"]), "redundant": tuple(s["redundant"])})
                 for s in data["actions"])


@dataclass
class DiscoveryReport:
    base: list[ActionSpec]
    requirements: list[Classified]
    proposals: list[Proposal]
    emitted: dict

    @property
    def base_actions(self) -> int:
        return len(self.base)

    def table(self) -> dict:
        uncovered = [c for c in self.requirements if c.rule in ("inverse", "missing")]
        accepted = [p for p in self.proposals if p.accepted]
        library = list(self.base) + [p.spec for p in accepted]
        after = classify(Counter({c.requirement: c.tasks for c in self.requirements}), library)
        covered = sum(1 for c in after if c.rule not in ("inverse", "missing"))
        return {"base_actions": self.base_actions, "uncovered_goal_predicates": len(uncovered),
                "reviewed_proposals": sum(p.reviewed for p in self.proposals), "accepted_additions": len(accepted),
                "total_actions": self.base_actions + len(accepted),
                "resolved_coverage": round(covered / max(len(self.requirements), 1), 4)}

    def to_json(self) -> dict:
        return {"table": self.table(),
                "requirements": [{"predicate": c.requirement.predicate, "positive": c.requirement.positive,
                                  "arity": c.requirement.arity, "rule": c.rule, "resolved": c.resolved,
                                  "tasks": c.tasks} for c in self.requirements],
                "proposals": [{"action": p.spec.signature, "for": f"{'' if p.requirement.positive else 'not '}"
                               f"{p.requirement.predicate}", "accepted": p.accepted,
                               "newly_solved": len(p.newly_solved), "broken": len(p.broken), "note": p.note}
                              for p in self.proposals],
                "emitted": self.emitted}


def discover(problems: dict[str, Problem], base: list[ActionSpec], base_set: str,
             solve: Callable[[Problem, str, list[ActionSpec]], bool],
             review: Callable[[Proposal], bool] | None = None) -> DiscoveryReport:
    """Run all six phases. ``review`` (e.g. an LLM through a planner backend) may veto proposals."""
    normalized = {n: to_omnigibson(p) for n, p in problems.items()}
    classified = classify(scan(normalized.values()), base)
    proposals = []
    seen: set[str] = set()
    for item in classified:
        if item.rule not in ("inverse", "missing"):
            continue
        spec = propose(item)
        if spec.name in seen:  # consolidation: requirements sharing one schema (contains -> fill)
            continue
        seen.add(spec.name)
        prop = Proposal(item.requirement, spec)
        if review is not None:
            prop.reviewed = review(prop)
        proposals.append(prop)
    validate(proposals, normalized, base_set, solve)
    return DiscoveryReport(list(base), classified, proposals, emit(proposals))


def save(emitted: dict, path) -> None:
    with open(path, "w") as fh:
        json.dump(emitted, fh, indent=2)
        fh.write("\n")


__all__ = ["Classified", "DiscoveryReport", "Proposal", "Requirement", "classify", "discover", "emit", "infer",
           "iter_atoms", "propose", "scan", "specs_from_json", "validate", "verb_of"]
