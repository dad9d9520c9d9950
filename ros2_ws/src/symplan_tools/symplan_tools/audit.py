"""Re-check the runtime's safety invariant from what went over DDS, independently of the node.

:class:`DdsAudit` listens to a planner's ``~/task_bddl`` and ``~/subgoal`` like any controller
would, and after each goal re-verifies with the engine: the subgoals published for a goal form
plans (contiguous runs of one plan id, indices 0..k-1); a plan published in full strict-passes
from the symbolic state its first subgoal ran on; a plan cut short (failure, timeout, cancel)
is at least executable up to where it stopped; the state advances only by the subgoals the
goal's result reports as executed. Goals with ``execute=false`` publish nothing, and no subgoal
goes out for a goal whose problem was never published. Used by the soak suite over thousands of
goals; usable as a watchdog. Goals are settled one at a time (the node runs one at a time).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from std_msgs.msg import String
from symplan_interfaces.msg import Subgoal
from symplan_ros.messages import read_task_message
from symplan_ros.plumbing import LATCHED, RELIABLE

from symplan_core.bddl import parse_problem
from symplan_core.engine import CompiledTask, State, compile_task, verify
from symplan_core.runtime.session import apply_effects, error_lines


@dataclass
class AuditCounts:
    goals: int = 0
    plans: int = 0
    subgoals: int = 0
    violations: list[str] = field(default_factory=list)


class DdsAudit:
    def __init__(self, node: Any, planner: str = "/symplan_planner", default_robot: str = "single") -> None:
        self.default_robot = default_robot
        self.counts = AuditCounts()
        self._lock = threading.Lock()
        self._problems: dict[str, tuple[str, str]] = {}  # goal id -> (robot, bddl text)
        self._subgoals: list[Any] = []  # since the last settle, in arrival order
        self._contexts: dict[str, _GoalContext] = {}  # the newest goal's, for its stragglers
        planner = planner.rstrip("/")
        node.create_subscription(String, f"{planner}/task_bddl", self._on_problem, LATCHED)
        node.create_subscription(Subgoal, f"{planner}/subgoal", self._on_subgoal, RELIABLE)

    def _on_problem(self, msg: String) -> None:
        goal_id, robot = read_task_message(msg.data)
        with self._lock:
            self._problems[goal_id] = (robot or self.default_robot, msg.data)

    def _on_subgoal(self, msg: Any) -> None:
        with self._lock:
            self._subgoals.append(msg)

    def settle(self, result: Any, executed: bool = True, timeout: float = 10.0) -> list[str]:
        """Check what went out since the last call; ``result`` is the Plan.Result of the goal that
        just ended (``executed``: it had ``execute=true``). Returns this goal's violations."""
        applied = [(s.plan_id, s.index) for s in result.subgoals] if executed else []
        deadline = time.monotonic() + timeout
        while True:  # topics are not ordered with the action result: wait for the stragglers
            with self._lock:
                seen = {(s.plan_id, s.index) for s in self._subgoals}
                unknown = {key[0].split("-", 1)[0] for key in seen} - self._problems.keys()
            missing = [key for key in applied if key not in seen]
            if (not missing and not unknown) or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        with self._lock:
            subgoals, self._subgoals = self._subgoals, []
            problems = dict(self._problems)
            # Keep only the newest problem: a later goal's subgoals never refer to older ones.
            newest = list(self._problems.items())[-1:]
            self._problems = dict(newest)
        violations = [f"result lists subgoal {key} that never went over ~/subgoal" for key in missing]
        if not executed and subgoals:
            violations.append(f"{len(subgoals)} subgoals published for an execute=false goal")
        by_goal: dict[str, list[Any]] = {}
        for sub in subgoals:
            by_goal.setdefault(sub.plan_id.split("-", 1)[0], []).append(sub)
        for goal_id, subs in by_goal.items():
            violations += self._check_goal(goal_id, subs, problems.get(goal_id), set(applied))
        self.counts.goals += 1
        self.counts.subgoals += len(subgoals)
        self.counts.violations += violations
        return violations

    def _check_goal(self, goal_id: str, subs: list[Any], problem: tuple[str, str] | None,
                    applied: set[tuple[str, int]]) -> list[str]:
        """Check ``subs`` (arrival order) against the goal's problem, continuing where an earlier
        settle stopped: a subgoal that failed as a goal's last dispatch may arrive after the goal's
        result (a topic is not ordered with the action result), in the next settle."""
        ctx = self._contexts.get(goal_id)
        if ctx is None:
            if problem is None:
                return [f"goal {goal_id}: {len(subs)} subgoals published, but its problem never was"]
            robot, text = problem
            task = compile_task(parse_problem(text, filename="<task_bddl>"), robot=robot)
            ctx = _GoalContext(task, task.initial_state())
        self._contexts = {goal_id: ctx}  # only the newest goal can still have stragglers
        out: list[str] = []
        for sub in subs:
            if sub.plan_id != ctx.plan_id:
                out += ctx.close()
                if sub.index != 0:
                    out.append(f"plan {sub.plan_id}: starts at index {sub.index}")
                    continue
                ctx.open(sub)
                self.counts.plans += 1
            elif sub.index != len(ctx.texts) or sub.count != ctx.count:
                out.append(f"plan {sub.plan_id}: index {sub.index} of {sub.count} after {len(ctx.texts)} subgoals")
                continue
            ctx.texts.append(sub.text)
            if len(ctx.texts) == ctx.count:
                out += ctx.close()
            if (sub.plan_id, sub.index) in applied:
                step = verify(ctx.task, sub.text, state=ctx.state)
                errors = apply_effects(ctx.task, ctx.state, step.calls[0]) if step.calls else ["no call"]
                if errors:
                    out.append(f"plan {sub.plan_id} step {sub.index}: executed but not applicable: {errors}")
        return out + ctx.check_prefix()


@dataclass
class _GoalContext:
    """One goal's audit state: its task, the state after the executed subgoals, the open plan."""

    task: CompiledTask
    state: State
    plan_id: str = ""
    count: int = 0
    texts: list[str] = field(default_factory=list)
    plan_start: State | None = None  # the state the open plan's first subgoal ran on
    checked: bool = True  # the open plan's texts were verified as they are

    def open(self, sub: Any) -> None:
        self.plan_id, self.count, self.texts = sub.plan_id, sub.count, []
        self.plan_start, self.checked = self.state.copy(), False

    def close(self) -> list[str]:
        """Verify the open plan: in full, a strict pass from ``plan_start``; cut short, executable."""
        if self.checked or not self.texts:
            return []
        self.checked = True
        verdict = verify(self.task, "\n".join(self.texts), state=self.plan_start)
        if len(self.texts) == self.count and not verdict.strict_pass:
            return [f"plan {self.plan_id}: published in full but not a strict pass from the state it ran on: "
                    + "; ".join(error_lines(verdict))[:300]]
        if verdict.errors:
            return [f"plan {self.plan_id}: published prefix not executable: "
                    + "; ".join(error_lines(verdict))[:300]]
        return []

    def check_prefix(self) -> list[str]:
        """Check an open plan now (more of it may still come: then it is checked again)."""
        problems = self.close()
        self.checked = len(self.texts) == self.count
        return problems
