"""`symplan-ros` and `symplan-skill-sim` as real processes (what users run without `launch`).

The planner is started with `--ros-args --params-file config/planner.yaml`, auto-configures and
activates, takes its scene from a parameter, and serves a Plan goal with the reference
backend while the simulator injects one failure; both exit cleanly on SIGINT. SIGUSR1 makes a
node print its threads' stacks and run on (asked of a node that does not stop).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from symplan_ros_testkit import CONFIG, domain_id_for
from symplan_tools.waits import wait_until

pytestmark = pytest.mark.needs_ros

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def processes(ros_context):
    if not (BIN / "symplan-ros").exists():
        pytest.fail("symplan-ros wrapper missing: run scripts/setup_ros.sh")
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id_for(__name__)),
               ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    planner = subprocess.Popen(
        [str(BIN / "symplan-ros"), "--ros-args", "--params-file", str(CONFIG),
         "-p", "scene.task_id:=bringing_in_wood", "-p", "scene.benchmark:=b100"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sim = subprocess.Popen([str(BIN / "symplan-skill-sim"), "--ros-args", "-p", "fail_at:=3"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    manual = subprocess.Popen([str(BIN / "symplan-ros"), "--no-autostart", "--ros-args", "-r", "__node:=manual"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    procs = {"planner": planner, "sim": sim, "manual": manual}
    yield procs
    for p in procs.values():
        if p.poll() is None:
            p.kill()
            p.wait()


def test_planner_process_serves_a_goal_with_a_replan_and_exits_cleanly_on_sigint(processes, spinner,
                                                                                 ros_context) -> None:
    from action_msgs.msg import GoalStatus
    from rclpy.node import Node
    from symplan_interfaces.action import Plan
    from symplan_tools.client import PlannerClient

    client = PlannerClient(spinner.add(Node("entry_point_client", context=ros_context)))
    # The lifecycle services appear before the entry point has configured and activated.
    wait_until(lambda: client.state() == "active")
    result, status = client.run(Plan.Goal(instruction="bring the wood to the kitchen"))  # scene from params
    assert status == GoalStatus.STATUS_SUCCEEDED, result.errors
    assert result.replans == 1 and result.strict_pass
    assert "(define (problem bringing_in_wood_0)" in result.final_bddl
    # --no-autostart (used by the launch file, which drives the lifecycle itself): the node
    # answers get_state only once spinning, which starts after any autostart transition.
    assert PlannerClient(client.node, "/manual").state() == "unconfigured"
    for name, proc in processes.items():
        if name == "manual":  # SIGUSR1 prints every thread's stack and the node runs on
            proc.send_signal(signal.SIGUSR1)
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(2)
            proc.kill()
            out, _ = proc.communicate()
            pytest.fail(f"{name} did not exit within 60 s of SIGINT; its output and threads' stacks:\n{out[-12000:]}")
        assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{out}"
        assert "Traceback" not in out, out
        if name == "manual":
            assert "Current thread" in out or "Thread 0x" in out, out  # faulthandler's dump
