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
from itertools import groupby
from typing import Any

from std_msgs.msg import String
from symplan_interfaces.msg import Subgoal

from symplan_ros import core_adapter as core
from symplan_ros.runtime import LATCHED, RELIABLE
from symplan_ros.scene import read_task_message


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
        from symplan_core.bddl import parse_problem

        if problem is None:
            return [f"goal {goal_id}: {len(subs)} subgoals published, but its problem never was"]
        robot, text = problem
        task = core.compile_task(parse_problem(text, filename="<task_bddl>"), robot)
        state = task.initial_state()
        out: list[str] = []
        for plan_id, run in groupby(subs, key=lambda s: s.plan_id):
            plan = list(run)
            self.counts.plans += 1
            if [s.index for s in plan] != list(range(len(plan))) or any(s.count != plan[0].count for s in plan):
                out.append(f"plan {plan_id}: indices {[s.index for s in plan]} of {plan[0].count} out of order")
                continue
            verdict = core.verify(task, "\n".join(s.text for s in plan), state)
            if len(plan) == plan[0].count and not verdict.strict_pass:
                out.append(f"plan {plan_id}: published in full but not a strict pass from the state it ran on: "
                           + "; ".join(core.error_lines(verdict))[:300])
            elif verdict.errors:
                out.append(f"plan {plan_id}: published prefix not executable: "
                           + "; ".join(core.error_lines(verdict))[:300])
            for sub in plan:
                if (sub.plan_id, sub.index) in applied:
                    step = core.verify(task, sub.text, state)
                    errors = core.apply(task, state, step.calls[0]) if step.calls else ["no call"]
                    if errors:
                        out.append(f"plan {plan_id} step {sub.index}: executed but not applicable: {errors}")
        return out
