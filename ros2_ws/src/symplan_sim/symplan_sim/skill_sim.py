"""`symplan_skill_sim`: a skill-controller stand-in that executes subgoals against the engine.

It keeps its own symbolic world, built from the planner's ~/task_bddl, and for each Subgoal:
reports RUNNING, checks the step with the engine from its world state, applies it and reports
SUCCEEDED, or reports FAILED when the engine rejects it or when the subgoal is the one chosen
by ``fail_at`` (the N-th subgoal received, 0-based, failed ``fail_times`` times) or by
``fail_every`` (every N-th subgoal received, for long runs). A failed step leaves the world
unchanged, as a real failed grasp would. ``silent_at`` never answers one subgoal, to exercise the
planner's skill timeout. The world uses the robot named in the problem's header line
(``; symplan goal_id=ID robot=R``), else the ``robot`` parameter.

Silent faults (what execution monitoring is for): ``silent_fault`` ``nothing`` reports SUCCEEDED
and changes nothing; ``other`` does the same action on other objects (the wrong mug, the wrong
table) and reports SUCCEEDED (``symplan_core.sim.world.execute``). They hit the subgoal
received ``silent_fault_at`` (0-based, ``silent_fault_times`` in a row) or every
``silent_fault_every``-th one. After each change the world is published on ``~/world`` (latched
BDDL of the simulator's state, first line ``; symplan world goal_id=ID version=N``) for the camera
simulator; with ``camera_sync_topic`` set (its ``~/rendered``) a SUCCEEDED is reported only once
the camera shows that version (up to ``camera_sync_s``).
"""

from __future__ import annotations

import random
import sys
import threading
import time
from typing import Any

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String
from symplan_interfaces.msg import SkillStatus, Subgoal
from symplan_ros.messages import read_markers, read_task_message
from symplan_ros.plumbing import LATCHED, RELIABLE, spin_until_shutdown

from symplan_core.bddl import parse_problem
from symplan_core.bddl.writer import write_problem
from symplan_core.engine import compile_task, verify
from symplan_core.errors import SymPlanError
from symplan_core.runtime.session import error_lines
from symplan_core.sim.world import FAULTS, Fault, execute, world_problem

#: Longest wait for the planner's status reader to match before a status is sent anyway.
STATUS_MATCH_WAIT_S = 10.0


class SkillSimNode(Node):
    def __init__(self, node_name: str = "symplan_skill_sim", **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        p("planner", "/symplan_planner", ParameterDescriptor(description="planner node path (topic prefix)"))
        p("robot", "single", ParameterDescriptor(description="robot type for the engine"))
        p("fail_at", -1, ParameterDescriptor(description="0-based count of the subgoal to fail (-1: none)"))
        p("fail_times", 1, ParameterDescriptor(description="how many times the chosen subgoal fails"))
        p("fail_every", 0, ParameterDescriptor(description="fail every N-th subgoal received (0: never)"))
        p("delay_s", 0.0, ParameterDescriptor(description="simulated execution time per subgoal"))
        p("silent_at", -1, ParameterDescriptor(
            description="0-based count of a subgoal never answered (a hung controller; -1: none)"))
        p("silent_fault", "nothing", ParameterDescriptor(
            description="what a silent fault does: nothing (report SUCCEEDED, change nothing) or other "
                        "(the same action on other objects, reported SUCCEEDED)"))
        p("silent_fault_at", -1, ParameterDescriptor(description="0-based count of the subgoal that fails silently"))
        p("silent_fault_times", 1, ParameterDescriptor(description="how many subgoals in a row fail silently"))
        p("silent_fault_every", 0, ParameterDescriptor(description="every N-th subgoal fails silently (0: never)"))
        p("camera_sync_topic", "", ParameterDescriptor(
            description="the camera simulator's ~/rendered: report SUCCEEDED once it shows the world (empty: off)"))
        p("camera_sync_s", 5.0, ParameterDescriptor(description="longest wait for the camera to show a change"))
        if self.get_parameter("silent_fault").value not in FAULTS[1:]:
            raise ValueError(f"silent_fault must be one of {FAULTS[1:]}")
        planner = self.get_parameter("planner").value.rstrip("/")
        self._lock = threading.Lock()
        self._world: tuple[str, Any, Any] | None = None  # (goal_id, compiled task, state)
        self._problem: Any = None  # the goal's problem (what the world is drawn from)
        self._markers: dict[str, int] = {}  # instance -> the tag the planner saw it with (task_bddl header)
        self._version = 0
        self._shown = threading.Condition()
        self._shown_version = ""
        self.silent_faults = 0
        self._world_pub = self.create_publisher(String, "~/world", LATCHED)
        sync = self.get_parameter("camera_sync_topic").value
        if sync:
            self.create_subscription(String, sync, self._on_rendered, LATCHED,
                                     callback_group=MutuallyExclusiveCallbackGroup())
        self._world_cv = threading.Condition(self._lock)
        self.received = 0
        self.failures_injected = 0
        self.log: list[tuple[str, int, str, int]] = []  # (plan_id, index, text, status)
        self._pub = self.create_publisher(SkillStatus, f"{planner}/skill_status", RELIABLE)
        # Problems are built one at a time, in arrival order: built concurrently, an older goal's
        # slower problem could replace the newer world (its subgoals then wait for a world that
        # never comes). Subgoal callbacks wait for the world, so they run in their own group.
        self.create_subscription(String, f"{planner}/task_bddl", self._on_bddl, LATCHED,
                                 callback_group=MutuallyExclusiveCallbackGroup())
        self.create_subscription(Subgoal, f"{planner}/subgoal", self._on_subgoal, RELIABLE,
                                 callback_group=ReentrantCallbackGroup())

    def _on_bddl(self, msg: String) -> None:
        goal_id, robot = read_task_message(msg.data)
        robot = robot or self.get_parameter("robot").value
        try:
            task = compile_task(parse_problem(msg.data, filename="<task_bddl>"), robot=robot)
        except SymPlanError as exc:  # a bad problem only disables the simulator world
            self.get_logger().error(f"cannot build world from task_bddl: {exc}")
            return
        with self._world_cv:
            self._world = (goal_id, task, task.initial_state())
            self._problem = parse_problem(msg.data, filename="<task_bddl>")
            self._markers = read_markers(msg.data)
            self._world_cv.notify_all()
        self._publish_world()

    def _publish_world(self) -> str:
        """Publish the world on ~/world; its version line (what ~/rendered echoes)."""
        with self._lock:
            if self._world is None or self._problem is None:
                return ""
            goal_id, task, state = self._world
            self._version += 1
            header = f"; symplan world goal_id={goal_id} version={self._version}"
            if self._markers:
                header += " markers=" + ",".join(f"{inst}:{tag}" for inst, tag in sorted(self._markers.items()))
            text = header + "\n" + write_problem(world_problem(self._problem, task, state))
        self._world_pub.publish(String(data=text))
        return header

    def _on_rendered(self, msg: String) -> None:
        with self._shown:
            self._shown_version = msg.data
            self._shown.notify_all()

    def _wait_shown(self, header: str) -> None:
        if not header or not self.get_parameter("camera_sync_topic").value:
            return
        with self._shown:
            self._shown.wait_for(lambda: self._shown_version == header,
                                 timeout=float(self.get_parameter("camera_sync_s").value))

    def _report(self, sub: Subgoal, status: int, message: str) -> None:
        # The planner publishes a subgoal once its reader has matched our writer, but discovery
        # is not symmetric: our writer may not have matched its reader yet, and DDS drops a status
        # sent before (seen once with the planner pinned to one busy CPU: a lost status, then the
        # skill timeout). Wait, bounded, for the match.
        deadline = time.monotonic() + STATUS_MATCH_WAIT_S
        while self._pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        self._pub.publish(SkillStatus(plan_id=sub.plan_id, index=sub.index, status=status, message=message))

    def _on_subgoal(self, sub: Subgoal) -> None:
        goal_id = sub.plan_id.split("-", 1)[0]
        with self._world_cv:
            # task_bddl and subgoal are different topics: wait briefly for this goal's world.
            self._world_cv.wait_for(lambda: self._world is not None and self._world[0] == goal_id, timeout=5.0)
            world = self._world
            count = self.received
            self.received += 1
        if count == int(self.get_parameter("silent_at").value):
            self.log.append((sub.plan_id, sub.index, sub.text, SkillStatus.RUNNING))
            return None  # no report at all: the planner's skill timeout must handle it
        self._report(sub, SkillStatus.RUNNING, "started")
        delay = float(self.get_parameter("delay_s").value)
        if delay > 0:
            time.sleep(delay)
        if world is None or world[0] != goal_id:
            return self._finish(sub, SkillStatus.FAILED, "simulator has no world for this goal")
        fail_at = int(self.get_parameter("fail_at").value)
        fail_times = int(self.get_parameter("fail_times").value)
        fail_every = int(self.get_parameter("fail_every").value)
        # Consecutive receptions fail, so with fail_times > 1 the replanned step fails too.
        if 0 <= fail_at <= count < fail_at + fail_times or (fail_every > 0 and count % fail_every == fail_every - 1):
            self.failures_injected += 1
            return self._finish(sub, SkillStatus.FAILED, f"injected failure at subgoal #{count}")
        _, task, state = world
        at, times = int(self.get_parameter("silent_fault_at").value), int(self.get_parameter("silent_fault_times").value)
        every = int(self.get_parameter("silent_fault_every").value)
        silent = 0 <= at <= count < at + times or (every > 0 and count % every == every - 1)
        fault: Fault = self.get_parameter("silent_fault").value if silent else "none"
        with self._lock:
            result = verify(task, sub.text, state=state)
            if result.errors or not result.calls:
                return self._finish(sub, SkillStatus.FAILED, "; ".join(error_lines(result)) or "no call")
            ok, message = execute(task, state, sub.text, fault, random.Random(count))
        if not ok:
            return self._finish(sub, SkillStatus.FAILED, message)
        if silent:
            self.silent_faults += 1
            self.get_logger().info(f"silent fault '{fault}' at subgoal #{count}: {sub.text} reported SUCCEEDED")
        self._wait_shown(self._publish_world())
        return self._finish(sub, SkillStatus.SUCCEEDED, "done")

    def _finish(self, sub: Subgoal, status: int, message: str) -> None:
        self.log.append((sub.plan_id, sub.index, sub.text, status))
        self._report(sub, status, message)


def main(argv: list[str] | None = None) -> int:
    rclpy.init(args=argv if argv is not None else sys.argv)
    spin_until_shutdown(SkillSimNode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
