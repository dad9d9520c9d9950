"""Compile a task once, verify many plans; metrics of the paper (GCR, EP, SP).

``verify`` executes every call against the state: malformed calls are recorded
and skipped, failed preconditions are recorded and their effects still apply.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from symplan_core.bddl.checks import iter_atoms, undeclared_arguments
from symplan_core.bddl.environment import NameMap
from symplan_core.bddl.model import Atom, Literal, Problem
from symplan_core.bddl.normalize import SUBSTANCE_RULES, substance_instance, to_omnigibson
from symplan_core.engine.actions import ActionSpec, action_set
from symplan_core.engine.checks import Check
from symplan_core.engine.errors import SKIPPED_KINDS, ErrorKind, Finding
from symplan_core.engine.execute import (
    BoundCall,
    CompiledAction,
    already_holds,
    bind,
    compile_action,
    run_effects,
)
from symplan_core.engine.goals import GoalEvaluator, GoalTest
from symplan_core.engine.plan_text import BadLine, Call, ParsedPlan, format_call, parse_plan
from symplan_core.engine.state import SUPPORT_RELATIONS, State
from symplan_core.engine.world import WATER_TAPS, World, build_world
from symplan_core.errors import SymPlanError, TaskError

HAND_CAPACITY = {"single": 1, "dual": 2}
_RESOLVED_MAX = 50_000  # bound on the per-task cache of resolved calls
_STATIC = frozenset({"inroom"})


def with_tap_water(problem: Problem) -> Problem:
    """A task with stains and a sink gets the water its sink gives (to soak a cleaning
    tool in: a stain needs a soaked one). B-100 names water only where ``soaked`` appears; the
    literal added, ``(not (soaked o))``, is already true in the closed world, and normalization
    adds the substance. Not done when the task declares rigid ``water.n.06`` bottles (the
    substance would share their type)."""
    soaked, (_pred, water) = next((k, v) for k, v in SUBSTANCE_RULES.items() if v[0] == "saturated")
    if water in problem.objects.values() or not any(t in WATER_TAPS for t in problem.objects.values()):
        return problem
    atoms = [lit.atom for lit in problem.init] + list(iter_atoms(problem.goal))
    if problem.domain == "igibson":
        if any(a.predicate == soaked for a in atoms) or not any(a.predicate == "stained" for a in atoms):
            return problem
        first = next(i for i, t in problem.objects.items() if t != "agent.n.01")
        return replace(problem, init=problem.init + (Literal(Atom(soaked, (first,)), negated=True),))
    stain = {i for i, t in problem.objects.items() if t.split(".n.")[0] == "stain"}
    if not any(a.predicate == "covered" and a.args[-1] in stain for a in atoms):
        return problem
    return replace(problem, objects={**problem.objects, substance_instance(water, problem.objects): water})


@dataclass(slots=True)
class StepOutcome:
    """Result of applying one call: its errors/warnings and the literals it changed."""

    errors: list[Finding]
    warnings: list[Finding]
    #: filled when traced; a shared empty frozenset otherwise (no two sets per step)
    added: frozenset[tuple[str, ...]] | set[tuple[str, ...]] = frozenset()
    removed: frozenset[tuple[str, ...]] | set[tuple[str, ...]] = frozenset()
    applied: bool = True
    diagnostics: Sequence[Finding] = ()  # UNKNOWN_AFFORDANCE (a shared empty tuple: no list per step)


@dataclass
class VerifyResult:
    gcr: float
    grounded_fraction: float
    engine_pass: bool
    strict_pass: bool
    errors: list[Finding]
    warnings: list[Finding]
    goal_conjuncts: list[bool]
    format_ok: bool
    format_issues: list[str]
    calls: list[Call]
    commands: int
    executable_prefix: int
    trace: list[dict] = field(default_factory=list)
    #: UNKNOWN_AFFORDANCE: a call relied on an object whose synset is in no table (its
    #: abilities were assumed). Not an error: Strict-Pass ignores it; the runtime does not.
    diagnostics: list[Finding] = field(default_factory=list)

    @property
    def assumes_affordances(self) -> bool:
        return any(d.kind is ErrorKind.UNKNOWN_AFFORDANCE for d in self.diagnostics)

    def failure_lines(self) -> list[str]:
        """Why this is not a strict pass, one line each (empty for a strict pass): every engine
        error (:meth:`Finding.line`), then unmet goal requirements, then a missing plan."""
        lines = [e.line() for e in self.errors]
        unmet = self.goal_conjuncts.count(False)
        if unmet:
            lines.append(f"goal: {unmet} of {len(self.goal_conjuncts)} task requirements are not met")
        if not self.calls:
            lines.append("format: the response contains no action calls")
        return lines

    def to_json(self) -> dict:
        return {
            "gcr": self.gcr, "grounded_fraction": self.grounded_fraction,
            "engine_pass": self.engine_pass, "strict_pass": self.strict_pass,
            "errors": [e.to_json() for e in self.errors],
            "warnings": [w.to_json() for w in self.warnings],
            "goal_conjuncts": self.goal_conjuncts, "format_ok": self.format_ok,
            "format_issues": self.format_issues,
            "calls": [{"step": c.step, "action": c.action, "args": list(c.args), "text": c.text} for c in self.calls],
            "commands": self.commands, "executable_prefix": self.executable_prefix, "trace": self.trace,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


class CompiledTask:
    """A task ready for verification: world, initial state, goal and action set."""

    def __init__(self, problem: Problem, robot: str = "single", actions: str | None = None,
                 goal_evidence: bool = True, open_defaults: Mapping[str, bool] | None = None):
        if robot not in HAND_CAPACITY:
            raise ValueError(f"robot must be 'single' or 'dual', not {robot!r}")
        self.source_problem = problem
        self.problem = to_omnigibson(with_tap_water(problem))
        self.robot = robot
        self.capacity = HAND_CAPACITY[robot]
        self.action_set_name = actions or ("b100" if problem.domain == "igibson" else "b1k")
        self.specs: dict[str, ActionSpec] = action_set(self.action_set_name)
        self.actions: dict[str, CompiledAction] = {n: compile_action(s) for n, s in self.specs.items()}
        #: (action, raw args) -> the bound call, for well-formed calls already resolved (an RL
        #: batch scores the same calls many times); never mutated by a caller
        self._resolved: dict[tuple[str, tuple[str, ...]], BoundCall] = {}
        self._assumption_texts: dict[str, tuple[str, str, str]] = {}
        undeclared = sorted({arg for atom in iter_atoms(self.problem.goal)
                             for arg in undeclared_arguments(atom, self.problem.objects)})
        if undeclared:  # else the goal asks of nothing, and planners fail far from the cause
            raise TaskError(f"the goal names {', '.join(map(repr, undeclared))}, which is neither a declared "
                            "object nor a variable a quantifier binds")
        added = frozenset(self.problem.objects) - frozenset(problem.objects)  # substances from normalization
        self.goal_evidence = goal_evidence
        self.world: World = build_world(self.problem, problem.domain, added, goal_evidence, open_defaults)
        self.names = NameMap.for_objects(self.world.objects)
        self.evaluator = GoalEvaluator(self.world.by_type)
        self.conjuncts = self.evaluator.conjuncts(self.problem.goal)
        # A conjunct is exactly the conjunction of its leaves (leaves() only splits and/forall),
        # so goal_report evaluates each leaf once and derives the conjunct from them.
        self._conjunct_leaves = [self.evaluator.leaves(c) for c in self.conjuncts]
        self._leaves = [leaf for leaves in self._conjunct_leaves for leaf in leaves]
        # Per conjunct, its leaves: ground atoms (most of them) looked up directly as (predicate,
        # ground args), the others compiled once per task (quantifiers expanded, see
        # GoalEvaluator.compile). Order does not matter: a conjunct counts its true leaves.
        self._leaf_tests: list[tuple[list[tuple[str, tuple[str, ...]]], list[GoalTest]]] = [
            ([(f.predicate, tuple(env.get(a, a) for a in f.args)) for f, env in leaves if isinstance(f, Atom)],
             [self.evaluator.compile(f, env) for f, env in leaves if not isinstance(f, Atom)])
            for leaves in self._conjunct_leaves]
        self._initial = self._build_initial()
        longest_first = sorted(self.names.to_short, key=len, reverse=True)
        self._full_name = re.compile("|".join(map(re.escape, longest_first))) if longest_first else None

    def shorten_text(self, text: str) -> str:
        """Rewrite full instance names in a message to the short names planners see."""
        if self._full_name is None:
            return text
        return self._full_name.sub(lambda m: self.names.short(m.group()), text)

    def add_actions(self, specs: Iterable[ActionSpec], checks: Mapping[str, Check] | None = None) -> None:
        """Extend (or, for a name already there, replace) the action set: action discovery's
        validation, EAI's own actions and its rules profile (``checks``: the checks those specs
        name beyond the engine's own)."""
        for spec in specs:
            self.specs[spec.name] = spec
            self.actions[spec.name] = compile_action(spec, checks)
        self._resolved.clear()

    def world_changed(self) -> None:
        """Call after editing this compiled task's world (the EAI profile's grasping): bound calls
        ran its static checks once, and ``World.having`` caches its answers."""
        self._resolved.clear()
        self.world._having.clear()
        self.world._flag_facts.clear()

    def _build_initial(self) -> State:
        state = State(substances=frozenset(o for o in self.world.objects if self.world.is_substance(o)))
        agent = self.world.agent
        for lit in self.problem.init:
            if lit.negated or lit.predicate in _STATIC or (agent and agent in lit.args):
                continue
            pred, args = lit.predicate, lit.args
            if pred in SUPPORT_RELATIONS and len(args) == 2 and args[0] in state.substances:
                state.facts.add((pred, *args))
            elif pred in SUPPORT_RELATIONS and len(args) == 2:
                state.support.setdefault(args[0], (pred, args[1]))  # first support wins
            elif pred == "nextto" and len(args) == 2:
                state.nextto.add(frozenset(args))
            elif pred == "future":
                state.future.add(args[0])
            elif pred == "real":
                state.future.discard(args[0])
            else:
                state.facts.add((pred, *args))
        state.facts.update(("open", o) for o, (is_open, _why) in self.world.assumed_open.items() if is_open)
        return state

    def initial_state(self) -> State:
        return self._initial.copy()

    def at_state(self, state: State) -> CompiledTask:
        """The same task starting from ``state`` (replanning after partial execution)."""
        clone = copy.copy(self)
        clone._initial = state.copy()
        return clone

    # -- calls ------------------------------------------------------------
    def resolve(self, call: Call) -> tuple[CompiledAction | None, list[str], Finding | None]:
        """Check a call is well-formed: known action, arity, known objects."""
        bound = self.bind(call)
        if isinstance(bound, Finding):
            return None, [], bound
        return bound.action, bound.args, None

    def bind(self, call: Call) -> BoundCall | Finding:
        """The call bound to this task's objects (cached per distinct call), or why it is malformed."""
        known = self._resolved.get((call.action, call.args))
        if known is not None:  # the same well-formed call, seen before on this task
            return known
        action = self.actions.get(call.action)
        if action is None:
            allowed = ", ".join(sorted(self.actions))
            return Finding(call.step, call.text, ErrorKind.UNKNOWN_ACTION,
                           f"unknown action {call.action!r}", f"use one of: {allowed}")
        want = len(action.spec.params)
        if len(call.args) != want:
            return Finding(call.step, call.text, ErrorKind.ARITY,
                           f"{call.action} takes {want} argument(s), got {len(call.args)}",
                           f"call it as {action.spec.signature}")
        args = []
        for raw in call.args:
            full = self.names.full(raw)
            if full is None:
                return Finding(call.step, call.text, ErrorKind.UNKNOWN_OBJECT,
                               f"no object {raw!r} in this scene",
                               "use only objects listed in the environment")
            args.append(full)
        bound = bind(action, args, self.world)
        if len(self._resolved) < _RESOLVED_MAX:
            self._resolved[(call.action, call.args)] = bound
        return bound

    def apply(self, state: State, call: Call, trace: bool = True, reported: set[str] | None = None) -> StepOutcome:
        """Execute one call on ``state`` (mutated). Malformed calls change nothing. ``reported``:
        objects whose ASSUMED_STATE diagnostic was already given (updated; see ``verify``)."""
        errors: list[Finding] = []
        warnings: list[Finding] = []
        diagnostics: list[Finding] = []
        before = state.literals() if trace else None
        if not self.step(state, call, errors, warnings, diagnostics, reported):
            return StepOutcome(errors, [], applied=False)
        outcome = StepOutcome(errors, warnings, diagnostics=diagnostics if diagnostics or self.world.unknown else ())
        if before is not None:
            after = state.literals()
            outcome.added, outcome.removed = after - before, before - after
        return outcome

    def step(self, state: State, call: Call, errors: list[Finding], warnings: list[Finding],
             diagnostics: list[Finding], reported: set[str] | None = None) -> bool:
        """:meth:`apply` without building a :class:`StepOutcome` (``verify``'s loop): the call's
        findings are appended to the three lists. Returns whether its effects were applied."""
        bound = self.bind(call)
        if isinstance(bound, Finding):
            errors.append(bound)
            return False
        world, first = self.world, len(errors)
        for check, values in bound.checks:
            failure = check(world, state, values, self.capacity)
            if failure is None:
                continue
            err = Finding(call.step, call.text, failure.kind, self.shorten_text(failure.message),
                          self.shorten_text(failure.hint), self.shorten_text(failure.literal))
            if failure.kind in SKIPPED_KINDS:  # malformed for these objects: only this error counts
                del errors[first:]
                errors.append(err)
                return False
            errors.append(err)
        action = bound.action
        if world.unknown:
            diagnostics.extend(self._assumed_affordances(call, action, bound.args))
        if world.assumed_open and action.reads_open:
            diagnostics.extend(self._assumed_states(state, call, bound.args, reported))
        if bound.redundant:
            redundant = already_holds(bound.redundant, state)
            if redundant is not None:
                redundant = self.shorten_text(redundant)
                warnings.append(Finding(call.step, call.text, ErrorKind.ADDITIONAL_STEP,
                                        f"{redundant} already holds", "drop this step", redundant))
        run_effects(bound.effects, world, state)
        return True

    def _assumed_affordances(self, call: Call, action: CompiledAction, args: list[str]) -> list[Finding]:
        """One UNKNOWN_AFFORDANCE diagnostic per argument whose abilities a check assumed."""
        out = []
        for i in action.affordance_args:
            typ = self.world.unknown.get(args[i])
            if typ is not None:
                name = self.names.short(args[i])
                out.append(Finding(
                    call.step, call.text, ErrorKind.UNKNOWN_AFFORDANCE,
                    f"{name} ({typ}) is in no BEHAVIOR synset table: that it can take part in "
                    f"{action.spec.name} is assumed, not checked",
                    f"use an object of a known type, or have a person confirm {call.action} on {name}",
                    ""))
        return out

    def _assumed_states(self, state: State, call: Call, args: list[str],
                        reported: set[str] | None = None) -> list[Finding]:
        """One ASSUMED_STATE diagnostic per unstated ``open`` this call reads: an argument's own,
        or that of a container an argument is (transitively) inside; none for an object in
        ``reported`` (``verify`` passes the objects it has reported, so each comes once per plan)."""
        assumed, ever = self.world.assumed_open, state.ever
        seen = []
        for arg in args:
            for rel, obj in (("inside", arg), *state.container_chain(arg)):
                if rel == "inside" and obj in assumed and obj not in seen and ("open", obj) not in ever:
                    seen.append(obj)  # (not opened by the plan)
        if not seen:
            return []
        out = []
        for obj in seen:
            if reported is not None:
                if obj in reported:
                    continue
                reported.add(obj)
            message, hint, literal = self._assumption_text(obj)
            out.append(Finding(call.step, call.text, ErrorKind.ASSUMED_STATE, message, hint, literal))
        return out

    def _assumption_text(self, obj: str) -> tuple[str, str, str]:
        """(message, hint, literal) of the ASSUMED_STATE diagnostic about ``obj`` (built once)."""
        text = self._assumption_texts.get(obj)
        if text is None:
            is_open, why = self.world.assumed_open[obj]
            name = self.names.short(obj)
            text = self._assumption_texts[obj] = (
                f"the task does not state whether {name} is open; assumed {'open' if is_open else 'closed'} ({why})",
                f"state (open {name}) or (not (open {name})) in the task to decide it",
                f"(open {name})" if is_open else f"(not (open {name}))")
        return text

    # -- goal ---------------------------------------------------------------
    def goal_report(self, state: State) -> tuple[list[bool], float]:
        holds = state.holds
        per_conjunct, true_leaves, n_leaves = [], 0, 0
        for atoms, tests in self._leaf_tests:
            values = [holds(pred, args) for pred, args in atoms]
            if tests:
                values += [test(holds) for test in tests]
            per_conjunct.append(all(values))
            true_leaves += sum(values)
            n_leaves += len(values)
        return per_conjunct, (true_leaves / n_leaves if n_leaves else 1.0)

    def call_text(self, action: str, args: Iterable[str]) -> str:
        """A call written with the task's short names (what planners see)."""
        return format_call(action, [self.names.short(a) for a in args])


def compile_task(problem: Problem, robot: str = "single", actions: str | None = None,
                 goal_evidence: bool = True, open_defaults: Mapping[str, bool] | None = None) -> CompiledTask:
    """Compile ``problem`` for ``robot`` with an action set (default: its benchmark's).
    ``goal_evidence=False`` for drafts whose goal is under judgement (see ``build_world``).
    ``open_defaults`` (synset -> open?) overrides, for this task, whether an openable object
    whose ``open`` the file does not state starts open (``world.open_defaults``).
    Raises :class:`~symplan_core.errors.TaskError` (a ValueError) for a problem it cannot compile."""
    try:
        return CompiledTask(problem, robot, actions, goal_evidence, open_defaults)
    except SymPlanError:
        raise
    except (ValueError, KeyError) as exc:  # a name or value the world builder cannot place
        detail = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        raise TaskError(detail) from exc


def verify(task: CompiledTask, plan: str | ParsedPlan, state: State | None = None,
           trace: bool = False) -> VerifyResult:
    """Execute a plan (response text or parsed) from ``state`` (default: the initial state)."""
    parsed = parse_plan(plan) if isinstance(plan, str) else plan
    state = task.initial_state() if state is None else state.copy()
    errors: list[Finding] = []
    warnings: list[Finding] = []
    diagnostics: list[Finding] = []
    assumed_seen: set[str] = set()  # objects whose ASSUMED_STATE was reported (once per plan)
    steps: list[dict] = []
    prefix = None
    step = task.step
    for item in parsed.items:
        first = len(errors)
        if isinstance(item, BadLine):
            errors.append(Finding(item.step, item.text, ErrorKind.PARSE, item.reason,
                                  "write one call per line as action(arg, ...)"))
        elif not trace:
            step(state, item, errors, warnings, diagnostics, assumed_seen)
        else:
            outcome = task.apply(state, item, trace=True, reported=assumed_seen)
            errors.extend(outcome.errors)
            warnings.extend(outcome.warnings)
            diagnostics.extend(outcome.diagnostics)
            steps.append({"step": item.step, "call": item.text, "applied": outcome.applied,
                          "errors": [e.kind.value for e in outcome.errors],
                          "added": sorted(map(list, outcome.added)),
                          "removed": sorted(map(list, outcome.removed))})
        if prefix is None and len(errors) > first:
            prefix = item.step
    conjuncts, grounded = task.goal_report(state)
    gcr = sum(conjuncts) / len(conjuncts) if conjuncts else 1.0
    engine_pass = all(conjuncts)
    return VerifyResult(
        gcr=gcr, grounded_fraction=grounded, engine_pass=engine_pass,
        strict_pass=engine_pass and not errors, errors=errors, warnings=warnings,
        goal_conjuncts=conjuncts, format_ok=parsed.format_ok, format_issues=parsed.format_issues,
        calls=parsed.calls, commands=len(parsed.items),
        executable_prefix=len(parsed.items) if prefix is None else prefix, trace=steps,
        diagnostics=diagnostics,
    )
