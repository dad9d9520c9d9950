"""Reference planner: sound means-ends planning over the engine's own action model.

Task-agnostic: it reads which spec effect achieves a literal and, for each
failed precondition check the engine reports, which action repairs it. Every
chosen action is executed in the engine, so a returned plan is re-verified by
construction (and again by :func:`solve`). When a task cannot be solved the
result says which literal or precondition blocked it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from symplan_core.bddl.writer import write_formula
from symplan_core.engine.checks import CUT_PRODUCTS, Failure, closed_container, is_on, processes_between
from symplan_core.engine.execute import check_preconditions, floor_of
from symplan_core.engine.plan_text import Call
from symplan_core.engine.predicates import (
    FILL_FAMILY,
    MADE_BY_EFFECT,
    PLACE_ACTIONS,
    SUBSTANCE_HOLDING,
    SUPPORT_RELATIONS,
)
from symplan_core.engine.verify import CompiledTask, verify
from symplan_core.planners.dependent import dependent_targets
from symplan_core.planners.grounding import Grounder, Target
from symplan_core.planners.ordering import PlanningFailed, achieve_in_order
from symplan_core.planners.phrases import render_response

# Goal literals are worked on in this order: make things exist, change their
# properties, fill/cover them, place them (into containers before stacking them there),
# attach them, then open/close/switch.
_PRIORITY = {"real": 0, "future": 0, "sliced": 1, "cooked": 1, "hot": 1, "frozen": 1, "folded": 1,
             "unfolded": 1, "broken": 1, "burnt": 1, "on_fire": 1, "filled": 2, "contains": 2,
             "covered": 2, "saturated": 2, "inside": 2.9, "ontop": 3, "under": 3.5, "nextto": 3.5,
             "touching": 3.5, "attached": 4, "draped": 4, "overlaid": 4, "open": 5, "toggled_on": 5}
_MAX_REPAIRS = 24


@dataclass
class PlanResult:
    task: str
    robot: str
    solved: bool
    calls: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0
    strict_pass: bool = False
    response: str = ""

    @property
    def commands(self) -> int:
        return len(self.calls)

    def to_json(self) -> dict:
        return {"task": self.task, "robot": self.robot, "solved": self.solved, "strict_pass": self.strict_pass,
                "commands": self.commands, "seconds": round(self.seconds, 4), "reason": self.reason}


class _Search:
    def __init__(self, task: CompiledTask, deadline: float):
        self.t = task
        self.w = task.world
        self.state = task.initial_state()
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.deadline = deadline
        self.pending: list[Target] = []
        self.depth = 0
        self.here: str | None = None  # floor of the room the robot last walked to

    # -- primitives -----------------------------------------------------
    def do(self, action: str, *args: str) -> None:
        if time.monotonic() > self.deadline:
            raise PlanningFailed("time budget exhausted")
        if action not in self.t.actions:
            raise PlanningFailed(f"action {action} is not in the {self.t.action_set_name} action set")
        if self.depth > 12:
            raise PlanningFailed(f"{action}({', '.join(args)}): preconditions recurse without end")
        self.depth += 1
        try:
            self.ensure(action, list(args))
        finally:
            self.depth -= 1
        outcome = self.t.apply(self.state, Call(len(self.calls), action, args, f"{action}()"), trace=False)
        if outcome.errors:
            raise PlanningFailed(f"{action}({', '.join(args)}): {outcome.errors[0].message}")
        self.calls.append((action, tuple(args)))
        if action == "navigate":
            self.here = self.floor_under(args[0])

    def floor_under(self, obj: str) -> str | None:
        """The floor ``obj`` ultimately rests on, else the floor of its room."""
        if obj in self.w.floors:
            return obj
        floors = [tgt for _rel, tgt in self.state.container_chain(obj) if tgt in self.w.floors]
        return floors[0] if floors else floor_of(self.w, obj)

    def holds(self, target: Target) -> bool:
        return self.state.holds(target.predicate, target.args) == target.positive

    def snapshot(self) -> tuple:
        return self.state.copy(), len(self.calls), self.here

    def restore(self, snap: tuple) -> None:
        state, n, self.here = snap
        self.state = state
        del self.calls[n:]

    def ensure(self, action: str, args: list[str]) -> None:
        """Repair failed preconditions of ``action(args)`` until none is left."""
        compiled = self.t.actions[action]
        for _ in range(_MAX_REPAIRS):
            failures = check_preconditions(compiled, self.w, self.state, args, self.t.capacity)
            if not failures:
                return
            self.repair(action, args, failures)
        raise PlanningFailed(f"{action}({', '.join(args)}): preconditions keep failing")

    def repair(self, action: str, args: list[str], failures: list[Failure]) -> None:
        """Make the most basic failed precondition true: the engine says which check failed
        and which literal would satisfy it."""
        call = f"{action}({', '.join(args)})"
        blocked = next((f for f in failures if not f.predicate), None)
        if blocked is not None:  # an affordance failure: no action can repair it
            raise PlanningFailed(f"{call}: {blocked.message}")
        # Containers and tools come before holding the object and walking to the target.
        f = min(failures, key=lambda f: _REPAIR_RANK.get(f.check, len(_REPAIR_RANK)))
        head, fargs = f.predicate, f.args
        if head == "real":
            self.do("make", fargs[0])
        elif head == "open":
            self.do("open", fargs[0])
        elif head == "holding" and fargs[0] in self.w.objects:
            self.do("grasp", fargs[0])
        elif head == "holding":  # a kind of tool: a slicer
            self.grasp_tool(fargs[0])
        elif f.check == "free_hand":
            self.stash(keep=set(args))
        elif head == "toggled_on":
            self.do("toggle_on", fargs[0])
        elif head == "saturated" and fargs[-1] in self.w.objects:  # a cleaning tool to soak first
            self.do("soak", *fargs)
        elif head in SUPPORT_RELATIONS and fargs[-1] in self.w.objects:  # onto/into a heat or cold source
            obj, source = fargs
            self.put_on_source(self.carry_substance(obj) if self.w.is_substance(obj) else obj, source)
        elif f.check == "away":
            self.take_away(*fargs)
        elif f.check == "source" and head == "near":
            self.bring_together(args[0], fargs[-1])
        elif f.check == "has_substance":
            self.fill_something(fargs[0])
        elif head == "near":
            self.do("navigate", self.destination(fargs[-1]))
        else:
            raise PlanningFailed(f"{call}: no action repairs {f.literal}: {f.message}")

    # -- helpers ----------------------------------------------------------
    def destination(self, obj: str) -> str:
        """Where to walk to reach ``obj``: its outermost support that is not a floor, so
        one trip reaches its neighbours too (what a second hand can then carry)."""
        best = obj
        for _rel, tgt in self.state.container_chain(obj):
            if tgt in self.w.floors:
                break
            best = tgt
        return best

    def grasp_tool(self, flag: str) -> None:
        tools = [o for o, a in self.w.affordances.items()
                 if a.known and flag in a.abilities and not self.w.is_fixture(o) and o not in self.state.future]
        if not tools:
            raise PlanningFailed(f"no {flag} object in the scene")
        self.do("grasp", tools[0])

    def stash(self, keep: set[str]) -> None:
        """Free a hand: put down a held object the current action does not need."""
        spare = [h for h in self.state.held if h not in keep] or list(self.state.held)
        obj = spare[0]
        surface = self.state.at if self.state.at not in (None, obj) else None
        # where the robot stands, if the engine lets it set things there (not a stain, not a wall
        # nail) and it is not shut away in a closed container
        if surface is not None and closed_container(self.w, self.state, surface) is None \
                and not check_preconditions(self.t.actions["place_on_top"], self.w, self.state, [obj, surface],
                                            self.t.capacity):
            self.do("place_on_top", obj, surface)
        else:
            floor = self.here or floor_of(self.w, obj)  # the room the robot is in, not another
            if floor is None:
                raise PlanningFailed(f"nowhere to put down {obj}")
            self.do("place_on_top", obj, floor)

    def put_on_floor(self, obj: str) -> None:
        """Take ``obj`` away from where it is and set it down on the floor of its room."""
        floor = floor_of(self.w, obj) or min(self.w.floors, default=None)
        if floor is None or self.state.support.get(obj) == ("ontop", floor):
            raise PlanningFailed(f"nowhere to move {obj} away to")
        self.do("grasp", obj)
        self.do("navigate", floor)
        self.do("place_on_top", obj, floor)

    def fill_something(self, container: str) -> None:
        subs = [t.args[1] for t in self.pending if t.predicate == "covered" and len(t.args) == 2]
        subs += [o for o in self.w.objects if self.w.is_substance(o)]
        if not subs:
            raise PlanningFailed(f"no substance to fill {container} with")
        self.do("fill", container, subs[0])

    def put_on_source(self, obj: str, source: str) -> None:
        """Put ``obj`` on/in a heat or cold source (inside when it opens: an oven, a fridge)."""
        self.do("grasp", obj)
        self.do("place_inside" if self.w.has(source, "openable") else "place_on_top", obj, source)
        if not is_on(self.w, self.state, source):
            self.do("toggle_on", source)

    def carry_substance(self, substance: str) -> str:
        """Fill a movable container with ``substance`` (one a goal wants filled with what is made
        from it, if any) and return the container."""
        wanted = [t.args[0] for t in self.pending if t.predicate in FILL_FAMILY and len(t.args) == 2
                  and substance in self.w.ingredients.get(t.args[1], ())]
        vessels = [o for o in wanted + list(self.w.objects) if self.movable(o) and self.w.has(o, "fillable")]
        if not vessels:
            raise PlanningFailed(f"no movable container to carry {substance} in")
        self.do("fill", vessels[0], substance)
        return vessels[0]

    def use_up(self, whole: str) -> None:
        """``(not (real whole))``: cut it up into what the task makes from it (a diced product)."""
        products = [p for p, sources in self.w.ingredients.items() if whole in sources
                    and CUT_PRODUCTS.intersection(processes_between(self.w.objects[whole], self.w.objects[p]))]
        if not products:
            raise PlanningFailed(f"nothing in this task is made by cutting up {whole}")
        self.do("navigate", self.destination(whole))
        self.do("make", products[0])

    def take_away(self, obj: str, source: str) -> None:
        """Get ``obj`` off/out of an active source: switch it off, or move ``obj`` away."""
        if self.w.has(source, "toggleable") and "toggle_off" in self.t.actions:
            self.do("toggle_off", source)
        else:
            self.put_on_floor(obj)

    def bring_together(self, obj: str, source: str) -> None:
        """Be near both ``obj`` and a source of a substance: carry whichever can be carried."""
        if obj not in self.state.held and self.movable(obj):
            self.do("grasp", obj)
            self.do("navigate", self.destination(source))
        elif source not in self.state.held and self.movable(source):
            self.do("grasp", source)
            self.do("navigate", self.destination(obj))
        else:
            self.do("navigate", self.destination(source))

    def movable(self, obj: str) -> bool:
        return not (self.w.is_fixture(obj) or self.w.is_substance(obj) or obj in self.state.future)

    # -- goal literals ----------------------------------------------------------
    def achieve(self, target: Target) -> None:
        if self.holds(target):
            return
        p, a = target.predicate, target.args
        if target.positive:
            if p == "ontop" and self.w.is_substance(a[0]):
                self.cover(a[1], a[0])
            elif p == "inside" and self.w.is_substance(a[0]):
                self.do("fill", a[1], a[0])
            elif p in PLACE_ACTIONS:
                self.place(PLACE_ACTIONS[p], a[0], a[1])
            elif p == "touching":
                self.place("place_next_to", a[0], a[1])
            elif p == "real":
                self.do("make", a[0])
            elif p == "grasped":
                self.do("grasp", a[-1])
            elif p == "covered":
                self.cover(a[0], a[1])
            elif p in FILL_FAMILY:
                self.do("fill", *a)
            else:
                self.apply_achiever(p, True, a)
        else:
            if p in PLACE_ACTIONS or p == "touching":
                self.put_on_floor(a[0])
            elif p == "real":
                self.use_up(a[0])
            elif p == "covered":
                self.do("clean", a[0])
            else:
                self.apply_achiever(p, False, a)
        if not self.holds(target):
            raise PlanningFailed(f"goal literal {target} still false after trying to achieve it")

    def ways(self, target: Target) -> list:
        """Ways to make ``target`` true, preferred first: a relation between two movable objects
        can be made by moving either (the one already placed for another goal stays put), and
        touching also by stacking one on the other."""
        a = target.args
        if not (target.positive and target.predicate in ("nextto", "touching") and len(a) == 2):
            return [lambda: self.achieve(target)]
        moves = [("place_next_to", a[0], a[1]), ("place_next_to", a[1], a[0])]
        if target.predicate == "touching":
            stack = [("place_on_top", a[0], a[1]), ("place_on_top", a[1], a[0])]
            # Next to something is on the floor beside it: what must not touch the floor rests on it.
            off_floor = any(not t.positive and t.predicate in ("touching", "ontop") and t.args[0] in a
                            and t.args[1] in self.w.floors for t in self.pending)
            moves = stack + moves if off_floor else moves + stack
        return [lambda m=m: self.place(*m) for m in moves if self.movable(m[1])]

    def apply_achiever(self, predicate: str, positive: bool, args: tuple[str, ...]) -> None:
        action = self.achiever(predicate, positive)
        self.do(action, *args[:len(self.t.specs[action].params)])

    def achiever(self, predicate: str, positive: bool) -> str:
        op = "add" if positive else "del"
        family = FILL_FAMILY if predicate in FILL_FAMILY else (predicate,)
        for name, spec in self.t.specs.items():
            if any(e.startswith(f"{op}:{p}:") or (positive and MADE_BY_EFFECT.get(e.split(":")[0]) == p)
                   for e in spec.effects for p in family):
                return name
        raise PlanningFailed(f"goal literal ({'' if positive else 'not '}{predicate} ...) has no achieving action"
                             f" in the {self.t.action_set_name} action set")

    def cover(self, obj: str, substance: str) -> None:
        sources = [f[1] for f in sorted(self.state.facts) if f[0] in SUBSTANCE_HOLDING
                   and f[2] == substance and not self.w.is_fixture(f[1]) and f[1] != obj]
        if not sources:
            containers = [o for o, a in self.w.affordances.items() if a.known and "fillable" in a.abilities
                          and not self.w.is_fixture(o) and o != obj and "fill" in self.t.actions]
            if not containers:
                raise PlanningFailed(f"no container of {substance} to pour onto {obj}")
            self.do("fill", containers[0], substance)
            sources = [containers[0]]
        self.do("grasp", sources[0])
        self.do("pour", sources[0], obj)

    def place(self, action: str, obj: str, target: str) -> None:
        # Open the destination first (a free hand is needed to open it).
        self.ensure_open(target)
        if obj not in self.state.held:
            self.do("grasp", obj)
        self.batch_grasp()
        self.do(action, obj, target)

    def ensure_open(self, target: str) -> None:
        aff = self.w.affordances[target]
        if aff.known and "openable" in aff.abilities and ("open", target) not in self.state.facts:
            self.do("open", target)
        box = closed_container(self.w, self.state, target)
        if box is not None:
            self.do("open", box)

    def batch_grasp(self) -> None:
        """Dual-arm: while here, also take another object that a pending goal moves."""
        while len(self.state.held) < self.t.capacity:
            extra = next((t.args[0] for t in self.pending if self._carry_candidate(t)), None)
            if extra is None:
                return
            self.do("grasp", extra)

    def _carry_candidate(self, t: Target) -> bool:
        if not (t.positive and t.predicate in PLACE_ACTIONS and len(t.args) == 2):
            return False
        obj, dest = t.args
        if obj in self.state.held or self.holds(t) or obj not in self.state.near or self.w.is_fixture(obj) \
                or self.w.is_substance(obj) or obj in self.state.future:
            return False
        if closed_container(self.w, self.state, obj) is not None:
            return False
        # A closed destination needs a free hand to open: do not arrive with both hands full.
        aff = self.w.affordances[dest]
        return not (aff.known and "openable" in aff.abilities and ("open", dest) not in self.state.facts)


#: Which failed check to repair first (the engine reports them all at once).
_REPAIR_RANK = {check: rank for rank, check in enumerate(
    ("exists", "accessible", "open_if_openable", "held", "holding", "held_substance", "flame", "free_hand",
     "has_substance", "heated", "cooled", "away", "ingredients", "source", "cleaner", "wet", "near"))}


def _still_false(task: CompiledTask, reached: list[bool], shown: int = 3) -> str:
    """The goal conjuncts the end state leaves false, one line each: which parts undo the others."""
    false = [" ".join(write_formula(c).split()) for c, ok in zip(task.conjuncts, reached, strict=True) if not ok]
    more = f" and {len(false) - shown} more" if len(false) > shown else ""
    return "still false at the end: " + "; ".join(false[:shown]) + more


def plan_task(task: CompiledTask, name: str = "", time_budget: float = 5.0) -> PlanResult:
    """Plan for a compiled task; the result is re-verified by the engine."""
    start = time.monotonic()
    search = _Search(task, start + time_budget)
    result = PlanResult(name or task.problem.name, task.robot, solved=False)
    try:
        for attempt in range(3):  # later goals can undo earlier ones: re-ground and retry
            targets = Grounder(task.evaluator, search.state, task.world).ground(task.problem.goal)
            targets += dependent_targets(targets, task.world)
            targets.sort(key=lambda t: _PRIORITY.get(t.predicate, 3) + (0 if t.positive else 0.5))
            achieve_in_order(search, targets)
            reached = task.goal_report(search.state)[0]
            if all(reached):
                break
            if attempt == 2:
                raise PlanningFailed("goal still unsatisfied after three passes (goals undo each other): "
                                     + _still_false(task, reached))
        result.solved = True
    except PlanningFailed as exc:
        result.reason = str(exc)
    result.calls = search.calls
    result.seconds = time.monotonic() - start
    if result.solved:
        result.response = render_response(task, search.calls)
        check = verify(task, result.response)
        result.strict_pass = check.strict_pass
        if not check.strict_pass:
            first = check.errors[0].message if check.errors else "goal not reached"
            result.reason = f"re-verification failed: {first}"
    return result

