"""Verify one EAI plan for one demo: our verdict, and the same verdict in EAI's terms.

Ours: the translated calls run in the engine (``symplan_core.engine.verify``) against the
B-100 task (bddl 1.0.1), keep-going semantics: Strict-Pass, Engine-Pass, GCR, every error.
The same plan is also scored against the goal EAI's prompt asks for (it differs in three
activities, see ``docs/eai.md``).

EAI's terms (its ``evaluate_results``): a plan with a grammar error (parsing,
hallucination, arguments) does not run at all; otherwise execution stops at the first
runtime error (AFFORDANCE, WRONG_TEMPORAL_ORDER, MISSING_STEP; ADDITIONAL_STEP is noted
and does not stop it), and the goal is checked on the state reached there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from symplan_core.bddl import Atom, Literal, Problem
from symplan_core.bddl.normalize import SUBSTANCE_RULES
from symplan_core.eai.actions import EAI_SPECS, GRAMMAR, RUNTIME
from symplan_core.eai.data import Demo, resolve_demo
from symplan_core.eai.data import eai_problem as eai_problem_of
from symplan_core.eai.mapping import NameMapping, eai_task_problem, goal_lines, mapping_for
from symplan_core.eai.outputs import EaiFormatError, read_action_list, steps_of
from symplan_core.eai.rules import RULES, apply_eai_rules
from symplan_core.eai.translate import Translation, start_state, translate
from symplan_core.engine import CompiledTask, ErrorKind, Finding, compile_task, verify
from symplan_core.engine.plan_text import BadLine, Call, ParsedPlan
from symplan_core.tasks import load_problem

#: EAI's goal-line classes (``action_sequence_evaluator.py``): relation and state predicates.
EDGE_PREDICATES = frozenset({"nextto", "ontop", "inside", "onfloor", "under"})
NODE_PREDICATES = frozenset({"cooked", "dusty", "frozen", "open", "sliced", "soaked", "stained", "toggled_on",
                             "burnt"})


def with_water(problem: Problem) -> Problem:
    """The task with water to soak things in. B-100's ``soaked`` is our ``saturated x water``,
    and a task that never mentions ``soaked`` has no water, yet EAI lets a plan soak a rag
    or brush in any task. The literal added is ``(not (soaked o))``: true already in the
    closed world, so the initial state and goal do not change; normalization then adds
    the water substance. Not done when the task has water bottles (B-100 declares drinking
    water as rigid ``water.n.06`` objects): the substance would share their type and join
    every ``forall ?water.n.06``; SOAK is then an AFFORDANCE error."""
    soaked, (_pred, water_synset) = next((k, v) for k, v in SUBSTANCE_RULES.items() if v[0] == "saturated")
    if any(lit.predicate == soaked for lit in problem.init) or water_synset in problem.objects.values():
        return problem
    first = next(i for i, t in problem.objects.items() if t != "agent.n.01")
    return replace(problem, init=problem.init + (Literal(Atom(soaked, (first,)), negated=True),))


def compile_eai_task(problem: Problem, rules: str = "physics", to_scene: dict[str, str] | None = None) -> CompiledTask:
    """Dual-arm, every engine action (EAI uses toggle_off, freeze, thaw) plus EAI's own; with
    ``rules="eai"``, EAI's rules profile (``symplan_core.eai.rules``; needs the demo's
    instance -> scene-name map, since EAI matches sinks and saucepans by name)."""
    if rules not in RULES:
        raise ValueError(f"rules must be one of {', '.join(RULES)}, not {rules!r}")
    task = compile_task(with_water(problem), robot="dual", actions="full")
    task.add_actions(EAI_SPECS)
    if rules == "eai":
        apply_eai_rules(task, to_scene or {})
    return task


@dataclass
class DemoSession:
    """Everything compiled once per demo."""

    demo: Demo
    mapping: NameMapping
    task: CompiledTask        # the B-100 task (bddl 1.0.1)
    eai_task: CompiledTask    # the goal of EAI's prompt (the same object when equal)
    water: str | None
    goal_lines: list[list[str]]   # EAI's goal conjuncts, flattened (its evaluator's "terms")
    names: re.Pattern
    scene_of: dict[str, str]

    def scene_text(self, text: str) -> str:
        """Instance names (full or short) in an engine message, written as scene names."""
        return self.names.sub(lambda m: self.scene_of[m.group()], text) if text else text

    @property
    def goal_differs(self) -> bool:
        return self.eai_task is not self.task


@lru_cache(maxsize=256)
def session(demo_id: str, rules: str = "physics") -> DemoSession:
    demo = resolve_demo(demo_id)
    mapping = mapping_for(demo.demo_id)
    problem = load_problem(f"b100/{demo.activity}")
    task = compile_eai_task(problem, rules, mapping.to_scene)
    eai_problem = eai_task_problem(demo.demo_id)
    eai_task = task if eai_problem == problem else compile_eai_task(eai_problem, rules, mapping.to_scene)
    soaked_synset = SUBSTANCE_RULES["soaked"][1]
    water = next((o for o, t in task.world.objects.items() if t == soaked_synset and task.world.is_substance(o)),
                 None)
    scene_of = {}
    for inst, scene in mapping.to_scene.items():
        scene_of[inst] = scene
        scene_of[task.names.short(inst)] = scene
    keys = sorted(scene_of, key=len, reverse=True)
    names = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, keys)) + r")(?![\w.])")
    lines = goal_lines(eai_problem_of(demo.activity))
    return DemoSession(demo, mapping, task, eai_task, water, lines, names, scene_of)


def eai_kind(kind: ErrorKind) -> str:
    return GRAMMAR.get(kind.value, kind.value)


@dataclass
class EaiVerdict:
    demo_id: str
    auto_navigate: bool
    steps: int
    errors: list[dict]                 # every error, ours and the translation's, by EAI step
    warnings: list[dict]
    diagnostics: list[dict]
    navigates: list[dict]
    calls: list[dict]                  # the engine calls, in scene names, with their EAI step
    ours: dict                         # strict_pass, engine_pass, gcr against the B-100 task
    ours_eai_goal: dict                # the same against EAI's goal
    executable: bool                   # EAI's terms from here on
    goal_satisfied: bool
    first_failure: dict | None
    eai_errors: list[str]              # EAI error categories this plan has (at most one runtime error)
    goal_lines: list[dict]             # per EAI goal line: relation/state classes, satisfied
    rules: str = "physics"             # the rules profile: physics (the engine's) or eai (EAI's evaluator)

    @property
    def strict_pass(self) -> bool:
        return self.ours["strict_pass"]

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _record(err: Finding, step: int, action: str, call: str = "", names=lambda text: text) -> dict:
    """One finding as JSON; ``names`` rewrites an engine message into scene names (the
    translation's own messages are written in scene names already)."""
    return {"step": step, "action": action, "call": names(call), "kind": err.kind.value,
            "eai_kind": eai_kind(err.kind), "message": names(err.message), "hint": names(err.hint),
            "precondition": names(err.precondition)}


def _verdict_of(result) -> dict:
    return {"strict_pass": result.strict_pass, "engine_pass": result.engine_pass, "gcr": round(result.gcr, 6)}


def _engine_findings(session: DemoSession, tr: Translation, found: list[Finding],
                     actions: dict[int, str]) -> list[dict]:
    return [_record(e, tr.origin[e.step], actions.get(tr.origin[e.step], ""), e.call, session.scene_text)
            for e in found]


def verify_entries(demo_id: str, entries: list, auto_navigate: bool = False, rules: str = "physics") -> EaiVerdict:
    """Verify an EAI plan given as its JSON entries, under a rules profile (:data:`RULES`)."""
    s = session(demo_id, rules)
    steps, grammar = steps_of(entries)
    actions = {st.index: st.text for st in steps} | {e.step: e.call for e in grammar}
    tr = translate(s.task, s.mapping, s.water, steps, auto_navigate)
    start = start_state(s.task, auto_navigate)
    full = verify(s.task, ParsedPlan(list(tr.calls), format_ok=True), state=start)
    full_eai = full if not s.goal_differs else verify(s.eai_task, ParsedPlan(list(tr.calls), format_ok=True),
                                                       state=start)
    errors = [_record(e, e.step, e.call) for e in grammar + tr.errors]
    errors += _engine_findings(s, tr, full.errors, actions)
    errors.sort(key=lambda r: r["step"])
    warnings = sorted([_record(w, w.step, w.call) for w in tr.warnings]
                      + _engine_findings(s, tr, full.warnings, actions), key=lambda r: r["step"])
    diagnostics = _engine_findings(s, tr, full.diagnostics, actions)
    clean = not errors
    ours = {**_verdict_of(full), "strict_pass": full.engine_pass and clean}
    ours_eai = {**_verdict_of(full_eai), "strict_pass": full_eai.engine_pass and clean}

    # EAI's terms: grammar errors stop the plan before it runs; else the first runtime error.
    stop_kinds = [r for r in errors if r["eai_kind"] in GRAMMAR.values()]
    stop: int | None
    first: dict | None
    if stop_kinds:
        order = ("parsing", "hallucination", "arguments")
        first = min(stop_kinds, key=lambda r: (order.index(r["eai_kind"]), r["step"]))
        stop = -1
    else:
        runtime = [r for r in errors if r["eai_kind"] in RUNTIME]
        stop = runtime[0]["step"] if runtime else None
        at_stop = [r for r in runtime if r["step"] == stop]
        first = min(at_stop, key=lambda r: RUNTIME.index(r["eai_kind"])) if at_stop else None
    if stop is None:
        reached = full_eai
    else:
        prefix: list[Call | BadLine] = [c for c, origin in zip(tr.calls, tr.origin, strict=True) if origin < stop]
        reached = verify(s.eai_task, ParsedPlan(prefix, format_ok=True), state=start)
    additional = [w for w in warnings if stop is None or w["step"] < stop]
    eai_errors = ([first["eai_kind"]] if first else []) + (["ADDITIONAL_STEP"] if additional else [])
    lines = []
    for line, satisfied in zip(s.goal_lines, reached.goal_conjuncts, strict=True):
        tokens = set(line)
        lines.append({"relation": bool(tokens & EDGE_PREDICATES), "state": bool(tokens & NODE_PREDICATES),
                      "satisfied": satisfied})
    calls = [{"step": origin, "call": s.scene_text(c.text)} for c, origin in zip(tr.calls, tr.origin, strict=True)]
    return EaiVerdict(
        demo_id=s.demo.demo_id, auto_navigate=auto_navigate, steps=len(entries), errors=errors,
        warnings=warnings, diagnostics=diagnostics, navigates=tr.navigates, calls=calls, ours=ours,
        ours_eai_goal=ours_eai, executable=first is None, goal_satisfied=reached.engine_pass,
        first_failure=first, eai_errors=eai_errors, goal_lines=lines, rules=rules,
    )


def verify_text(demo_id: str, text: str, auto_navigate: bool = False, rules: str = "physics") -> EaiVerdict:
    """Verify an EAI response or JSON action list; text without a readable list is a
    plan with a parsing error (EAI's terms), not an exception."""
    try:
        entries = read_action_list(text)
    except EaiFormatError as exc:
        return verify_unreadable(demo_id, str(exc), auto_navigate, rules)
    return verify_entries(demo_id, entries, auto_navigate, rules)


def verify_unreadable(demo_id: str, reason: str, auto_navigate: bool = False, rules: str = "physics") -> EaiVerdict:
    """The verdict of a response with no readable action list: nothing runs."""
    verdict = verify_entries(demo_id, [], auto_navigate, rules)
    verdict.errors[0]["message"] = f"no action list could be read: {reason}"
    verdict.first_failure = verdict.errors[0]
    return verdict
