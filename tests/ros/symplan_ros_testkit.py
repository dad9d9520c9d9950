"""Test backends and checks shared by the ROS tests (real symplan_core classes, no mocks).

`suffix_backend` is a tiny planner for one real BEHAVIOR task: from the task it is given
(``PlannerPrompt.task`` starts at the live state on a replan) it returns the shortest suffix of
a known-good plan that strict-passes the engine. It stands in for the reference planner where
a test needs a deterministic plan.
"""

from __future__ import annotations

import os
import threading
import zlib
from pathlib import Path

from symplan_core.engine import compile_task, verify
from symplan_core.llm.base import FunctionBackend, PlannerPrompt
from symplan_core.tasks import load_problem

ROOT = Path(__file__).resolve().parents[2]
TASK, BENCH = "bringing_in_wood", "b100"
GOOD_PLAN = "\n".join(
    f"navigate(plywood_{i})\ngrasp(plywood_{i})\nnavigate(floor_2)\nplace_on_top(plywood_{i}, floor_2)"
    for i in (1, 2, 3)
)


def _suffix(prompt: PlannerPrompt) -> str:
    task = prompt.task
    lines = GOOD_PLAN.splitlines()
    state = task.initial_state()
    for start in range(len(lines) + 1):
        text = "\n".join(lines[start:])
        if verify(task, text, state).strict_pass:
            return text
    return "give_up()"


def suffix_backend() -> FunctionBackend:
    return FunctionBackend(_suffix, name="suffix")


def garbage_backend() -> FunctionBackend:
    # What a confused LLM might return: prose, code-ish text, and an unknown action.
    return FunctionBackend(lambda _p: "Sure! import os; os.system('x')\nteleport(plywood_1)\n((", name="garbage")


def replay(dispatched: list, failed: set[int] = frozenset()) -> None:
    """Re-check the invariant independently: group dispatched subgoals by plan, and verify each
    plan's full text strict-passes from the symbolic state in which its first subgoal ran."""
    task = compile_task(load_problem(TASK, BENCH))
    state = task.initial_state()
    plans: dict[str, list] = {}
    for sub in dispatched:
        plans.setdefault(sub.plan_id, []).append(sub)
    position = 0
    for plan_id, subs in plans.items():
        count = subs[0].count
        assert [s.index for s in subs] == list(range(len(subs))), f"{plan_id} out of order"
        # The full plan (all `count` steps) must strict-pass from here; rebuild it from the
        # subgoals that ran plus nothing else only when the plan completed.
        texts = [s.text for s in subs]
        if len(subs) == count:
            assert verify(task, "\n".join(texts), state).strict_pass, f"{plan_id} not strict-pass"
        for s in subs:
            if position not in failed:
                from symplan_core.engine import parse_plan

                (call,) = parse_plan(s.text).calls
                assert not task.apply(state, call).errors
            position += 1


def domain_id_for(name: str) -> int:
    """A DDS domain per test module (and per process), so parallel runs do not cross-talk."""
    return 10 + (zlib.crc32(name.encode()) + os.getpid()) % 90


# ---- a real client of the planner node (action, services, topics over DDS) -----------------
WAIT_S = 120.0  # safety net against hangs only; nothing asserts on durations


def wait_future(future: object, timeout: float = WAIT_S) -> object:
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout):
        raise TimeoutError(f"future not done within {timeout}s")
    return future.result()


def wait_until(predicate: object, timeout: float = WAIT_S, poll: float = 0.01) -> None:
    import time

    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("condition not met")
        time.sleep(poll)


class PlannerClient:
    """Drives one planner node the way an operator's tools would: lifecycle, Plan, VerifyPlan."""

    def __init__(self, node: object, planner: str = "/symplan_planner") -> None:
        from diagnostic_msgs.msg import DiagnosticArray
        from lifecycle_msgs.srv import ChangeState, GetState
        from rclpy.action import ActionClient
        from symplan_interfaces.action import Plan
        from symplan_interfaces.msg import Subgoal
        from symplan_interfaces.srv import VerifyPlan
        from symplan_ros.planner_node import RELIABLE

        self.node = node
        self.plan_client = ActionClient(node, Plan, f"{planner}/plan")
        self.change_state = node.create_client(ChangeState, f"{planner}/change_state")
        self.get_state = node.create_client(GetState, f"{planner}/get_state")
        self.verify = node.create_client(VerifyPlan, f"{planner}/verify_plan")
        self.subgoals: list = []
        self.diagnostics: list = []
        node.create_subscription(Subgoal, f"{planner}/subgoal", self.subgoals.append, RELIABLE)
        node.create_subscription(DiagnosticArray, "/diagnostics", self.diagnostics.append, 50)

    def state(self) -> str:
        from lifecycle_msgs.srv import GetState

        assert self.get_state.wait_for_service(timeout_sec=WAIT_S)
        return wait_future(self.get_state.call_async(GetState.Request())).current_state.label

    def transition(self, transition_id: int) -> bool:
        from lifecycle_msgs.srv import ChangeState

        assert self.change_state.wait_for_service(timeout_sec=WAIT_S)
        req = ChangeState.Request()
        req.transition.id = transition_id
        return wait_future(self.change_state.call_async(req)).success

    def send(self, goal: object, feedback: list | None = None) -> object:
        """Send a goal; return its accepted goal handle (or None if rejected)."""
        assert self.plan_client.wait_for_server(timeout_sec=WAIT_S)
        cb = feedback.append if feedback is not None else None
        handle = wait_future(self.plan_client.send_goal_async(
            goal, feedback_callback=(lambda m: cb(m.feedback)) if cb else None))
        return handle if handle.accepted else None

    def run(self, goal: object, feedback: list | None = None) -> tuple[object, int]:
        """Send a goal and wait for (result, status)."""
        handle = self.send(goal, feedback)
        assert handle is not None, "goal rejected"
        res = wait_future(handle.get_result_async())
        return res.result, res.status

    def call_verify(self, **fields: object) -> object:
        from symplan_interfaces.srv import VerifyPlan

        assert self.verify.wait_for_service(timeout_sec=WAIT_S)
        return wait_future(self.verify.call_async(VerifyPlan.Request(**fields)))
