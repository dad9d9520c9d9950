"""Shared set-up for the ROS 2 tests: real rclpy over DDS, one isolated domain per module.

The tests need the wheels and the colcon-built workspace from `scripts/setup_ros.sh`.
Without them the tests skip, unless SYMPLAN_REQUIRE_ROS=1 (set by `make test`), where a
missing or broken ROS set-up is an error instead of a silent skip.
"""

from __future__ import annotations

import os
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG_SRC = ROOT / "ros2_ws" / "src" / "symplan_ros"
# Tests exercise the source tree of symplan_ros (no rebuild needed after an edit).
for p in (str(PKG_SRC), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


def _ros_available() -> str | None:
    try:
        from symplan_ros.workspace import ensure_workspace

        if not ensure_workspace():
            return "ros2_ws/install missing: run scripts/setup_ros.sh"
        import rclpy  # noqa: F401
        import symplan_interfaces.msg  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the machine
        return f"ROS 2 not set up ({exc}): run scripts/setup_ros.sh"
    return None


_MISSING = _ros_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _MISSING is None:
        return
    if os.environ.get("SYMPLAN_REQUIRE_ROS") == "1":
        raise pytest.UsageError(f"SYMPLAN_REQUIRE_ROS=1 but {_MISSING}")
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.skip(reason=_MISSING))


def domain_id_for(name: str) -> int:
    """A DDS domain per test module (and per process), so parallel runs do not cross-talk."""
    return 10 + (zlib.crc32(name.encode()) + os.getpid()) % 90


@pytest.fixture(scope="module")
def ros_context(request: pytest.FixtureRequest) -> Iterator[object]:
    import rclpy
    from rclpy.context import Context

    ctx = Context()
    rclpy.init(context=ctx, domain_id=domain_id_for(request.module.__name__))
    yield ctx
    ctx.try_shutdown()


class Spinner:
    """A MultiThreadedExecutor spinning in a background thread, torn down in the safe order."""

    def __init__(self, context: object) -> None:
        from rclpy.executors import MultiThreadedExecutor

        self.executor = MultiThreadedExecutor(num_threads=4, context=context)
        self.nodes: list[object] = []
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def add(self, node: object) -> object:
        self.executor.add_node(node)
        self.nodes.append(node)
        return node

    def close(self) -> None:
        # shutdown -> join -> destroy avoids "terminate called without an active exception".
        self.executor.shutdown()
        self.thread.join()
        for node in self.nodes:
            node.destroy_node()


@pytest.fixture(scope="module")
def spinner(ros_context: object) -> Iterator[Spinner]:
    s = Spinner(ros_context)
    yield s
    s.close()


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
