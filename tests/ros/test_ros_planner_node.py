"""The lifecycle planner node over real DDS: lifecycle, Plan action, subgoals, replans, cancel,
invalid plans, the verify service and bad camera images.

One isolated ROS domain for the module; the planner, the skill simulator and the client run in
one MultiThreadedExecutor (the planner's action callback blocks waiting for skill status).
"""

from __future__ import annotations

import time

import pytest
from runtime_testkit import (
    BENCH,
    GOOD_PLAN,
    TASK,
    garbage_backend,
    replay,
    suffix_backend,
)
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import WAIT_S, wait_future, wait_until

pytestmark = pytest.mark.needs_ros



def _factory(spec: str):
    from symplan_core.planners.reference_backend import make_planner_backend

    return {"test:suffix": suffix_backend, "test:garbage": garbage_backend}.get(
        spec, lambda: make_planner_backend(spec))()


@pytest.fixture(scope="module")
def rig(ros_context, spinner):
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_sim.skill_sim import SkillSimNode
    from symplan_tools.client import PlannerClient

    args = ["--ros-args", "--params-file", str(CONFIG)]

    def planner(name: str, backend: str) -> PlannerNode:
        return PlannerNode(name, backend_factory=_factory, context=ros_context, cli_args=args,
                           parameter_overrides=[Parameter("planner.backend", value=backend),
                                                Parameter("planner.fallback", value="none")])

    good = spinner.add(planner("symplan_planner", "test:suffix"))
    bad = spinner.add(planner("symplan_planner_bad", "test:garbage"))
    sim = spinner.add(SkillSimNode(context=ros_context))
    client_node = spinner.add(Node("test_client", context=ros_context))
    return {"good": good, "bad": bad, "sim": sim, "client": PlannerClient(client_node),
            "bad_client": PlannerClient(client_node, "/symplan_planner_bad")}


def _goal(**kw):
    from symplan_interfaces.action import Plan

    return Plan.Goal(task_id=TASK, benchmark=BENCH, instruction="bring in the wood", **kw)


def test_parameters_come_from_planner_yaml_with_descriptors(rig) -> None:
    node = rig["good"]
    assert node.get_parameter("execution.replan_limit").value == 3  # from config/planner.yaml
    desc = node.describe_parameter("planner.repair_rounds")
    assert desc.description and desc.integer_range[0].to_value == 10


def test_lifecycle_configure_then_activate_over_the_change_state_service(rig) -> None:
    from lifecycle_msgs.msg import Transition

    client = rig["client"]
    assert client.state() == "unconfigured"
    assert client.transition(Transition.TRANSITION_CONFIGURE)
    assert client.state() == "inactive"
    assert client.send(_goal()) is None  # goals are refused until the node is active
    assert client.transition(Transition.TRANSITION_ACTIVATE)
    assert client.state() == "active"
    bad = rig["bad_client"]
    assert bad.transition(Transition.TRANSITION_CONFIGURE) and bad.transition(Transition.TRANSITION_ACTIVATE)


def test_plan_goal_runs_validated_subgoals_in_order_and_succeeds(rig) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.msg import SkillStatus

    client, sim = rig["client"], rig["sim"]
    client.subgoals.clear()
    feedback: list = []
    result, status = client.run(_goal(), feedback.append)
    assert status == GoalStatus.STATUS_SUCCEEDED, result.errors
    assert result.success and result.strict_pass and result.gcr == 1.0 and result.replans == 0
    wait_until(lambda: len(client.subgoals) == 12)
    assert [s.index for s in client.subgoals] == list(range(12))
    assert "\n".join(s.text for s in client.subgoals) == GOOD_PLAN
    assert client.subgoals[1].args == ["plywood.n.01_1"] and "(holding plywood.n.01_1)" in client.subgoals[1].expected_add
    assert [s.text for s in result.subgoals] == [s.text for s in client.subgoals]
    assert all(entry[3] == SkillStatus.SUCCEEDED for entry in sim.log[-12:])
    first_seen = list(dict.fromkeys(f.stage for f in feedback))
    assert first_seen == ["scene", "bddl_check", "planning", "verifying", "executing"]
    assert "(define (problem bringing_in_wood_0)" in result.final_bddl


def test_injected_failure_triggers_a_replan_from_the_current_state_that_completes(rig) -> None:
    from action_msgs.msg import GoalStatus
    from rclpy.parameter import Parameter

    client, sim = rig["client"], rig["sim"]
    client.subgoals.clear()
    sim.set_parameters([Parameter("fail_at", value=sim.received + 5)])  # 6th subgoal of this goal
    try:
        feedback: list = []
        result, status = client.run(_goal(), feedback.append)
    finally:
        sim.set_parameters([Parameter("fail_at", value=-1)])
    assert status == GoalStatus.STATUS_SUCCEEDED, result.errors
    assert result.replans == 1
    assert any("injected failure" in e for e in result.errors)
    wait_until(lambda: any(f.attempt == 1 and f.stage == "planning" for f in feedback))
    # Published: the 5 that succeeded, the failed one, then the whole replanned plan.
    wait_until(lambda: len(client.subgoals) == len(result.subgoals) + 1)
    assert [s.index for s in client.subgoals[:6]] == list(range(6))
    assert client.subgoals[6].index == 0 and client.subgoals[6].plan_id != client.subgoals[5].plan_id
    plan_ids = list(dict.fromkeys(s.plan_id for s in client.subgoals))
    assert len(plan_ids) == 2
    replay(client.subgoals, failed={5})


def _reconfigure(client, node, **params) -> None:
    """Parameters are read on configure: cycle the node through cleanup -> configure -> activate."""
    from lifecycle_msgs.msg import Transition
    from rclpy.parameter import Parameter

    assert client.transition(Transition.TRANSITION_DEACTIVATE)
    assert client.transition(Transition.TRANSITION_CLEANUP) and client.state() == "unconfigured"
    node.set_parameters([Parameter(k.replace("__", "."), value=v) for k, v in params.items()])
    assert client.transition(Transition.TRANSITION_CONFIGURE)
    assert client.transition(Transition.TRANSITION_ACTIVATE)


def test_unanswered_subgoal_times_out_and_is_replanned(rig) -> None:
    from action_msgs.msg import GoalStatus
    from rclpy.parameter import Parameter

    client, sim, node = rig["client"], rig["sim"], rig["good"]
    _reconfigure(client, node, execution__skill_timeout_s=2.0)
    sim.set_parameters([Parameter("silent_at", value=sim.received + 1)])  # 2nd subgoal: no answer
    try:
        result, status = client.run(_goal())
    finally:
        sim.set_parameters([Parameter("silent_at", value=-1)])
        _reconfigure(client, node, execution__skill_timeout_s=30.0)
    assert status == GoalStatus.STATUS_SUCCEEDED, result.errors
    assert result.replans >= 1
    assert any("timeout" in e for e in result.errors), result.errors


def test_no_subgoal_is_published_until_a_skill_controller_is_connected(rig, ros_context, spinner) -> None:
    from action_msgs.msg import GoalStatus
    from lifecycle_msgs.msg import Transition
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_tools.client import PlannerClient

    # No simulator listens to this planner: its validated subgoal would be lost on the wire, so it
    # waits for a controller and, when none comes within the skill timeout, says so.
    alone = spinner.add(PlannerNode(
        "symplan_planner_alone", backend_factory=_factory, context=ros_context,
        cli_args=["--ros-args", "--params-file", str(CONFIG)],
        parameter_overrides=[Parameter("planner.backend", value="test:suffix"),
                             Parameter("planner.fallback", value="none"),
                             Parameter("execution.skill_timeout_s", value=1.0),
                             Parameter("execution.replan_limit", value=0)]))
    client = PlannerClient(rig["client"].node, "/symplan_planner_alone")
    assert client.transition(Transition.TRANSITION_CONFIGURE) and client.transition(Transition.TRANSITION_ACTIVATE)
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_ABORTED
    assert any("no skill controller connected within 1.0s" in e for e in result.errors), result.errors
    assert alone._skill_status_sub is not None and alone._skill_status_sub.get_publisher_count() == 0


def test_invalid_plans_publish_no_subgoal_and_fail_with_the_engine_errors(rig) -> None:
    from action_msgs.msg import GoalStatus

    bad = rig["bad_client"]
    result, status = bad.run(_goal())
    assert status == GoalStatus.STATUS_ABORTED
    assert not result.success and not result.strict_pass and list(result.subgoals) == []
    assert any("UNKNOWN_ACTION" in e or "PARSE" in e for e in result.errors)
    assert bad.subgoals == []
    # The node stays up: a second goal is accepted and fails the same way.
    result2, status2 = bad.run(_goal())
    assert status2 == GoalStatus.STATUS_ABORTED and result2.errors


def test_cancel_stops_execution_and_reports_canceled(rig) -> None:
    from action_msgs.msg import GoalStatus
    from rclpy.parameter import Parameter

    client, sim = rig["client"], rig["sim"]
    client.subgoals.clear()
    sim.set_parameters([Parameter("delay_s", value=0.5)])
    try:
        handle = client.send(_goal())
        wait_until(lambda: len(client.subgoals) >= 1)
        wait_future(handle.cancel_goal_async())
        res = wait_future(handle.get_result_async())
    finally:
        sim.set_parameters([Parameter("delay_s", value=0.0)])
    assert res.status == GoalStatus.STATUS_CANCELED
    assert not res.result.success and len(res.result.subgoals) < 12
    # The planner is free again: the next goal is accepted and succeeds.
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_SUCCEEDED


def test_verify_plan_service_reports_strict_pass_and_engine_errors(rig) -> None:
    client = rig["client"]
    ok = client.call_verify(task_id=TASK, benchmark=BENCH, plan_text=GOOD_PLAN)
    assert ok.ok and ok.strict_pass and ok.gcr == 1.0 and len(ok.calls) == 12 and ok.errors == []
    bad = client.call_verify(task_id=TASK, benchmark=BENCH, plan_text="grasp(plywood_1)\nfly(plywood_2)")
    assert bad.ok and not bad.strict_pass
    # The engine's kind and its repair hint, in the one error-line format (1-based steps).
    assert any(e.startswith("step 1 `grasp(plywood_1)`: MISSING_STEP:") and "navigate(plywood_1) first" in e
               for e in bad.errors), bad.errors
    assert any("UNKNOWN_ACTION" in e for e in bad.errors)
    missing = client.call_verify(task_id="no_such_task_xyz", plan_text="navigate(a)")
    assert not missing.ok and missing.errors


def test_bad_camera_image_is_rejected_with_a_diagnostic_and_the_node_keeps_running(rig) -> None:
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image

    client = rig["client"]
    pub = client.node.create_publisher(Image, "/camera/color/image_raw", qos_profile_sensor_data)
    wait_until(lambda: pub.get_subscription_count() >= 2)  # both planner nodes listen
    bad = Image(height=8, width=8, encoding="rgb8", step=5, data=bytes(40))  # step < 8 px * 3 bytes

    def camera_warning() -> bool:
        return any(s.name.endswith(": camera") and s.level == b"\x01" and "bad_step" in s.message
                   for arr in list(client.diagnostics) for s in arr.status)

    def publish_until(msg: Image, done) -> None:
        # Sensor-data QoS is best effort: a frame may be dropped under load, so keep sending.
        deadline = time.monotonic() + WAIT_S
        while not done():
            assert time.monotonic() < deadline, "the planner never reacted to the image"
            pub.publish(msg)
            time.sleep(0.1)

    publish_until(bad, camera_warning)
    publish_until(Image(height=8, width=8, encoding="rgb8", step=24, data=bytes(192)),
                  lambda: rig["good"].camera.color_frames >= 1)
    assert rig["good"].camera.rejected >= 1
    assert client.call_verify(task_id=TASK, benchmark=BENCH, plan_text=GOOD_PLAN).strict_pass


def test_deactivate_stops_a_running_goal_and_reconfigure_applies_new_parameters(rig) -> None:
    from action_msgs.msg import GoalStatus
    from lifecycle_msgs.msg import Transition
    from rclpy.parameter import Parameter

    client, sim, node = rig["client"], rig["sim"], rig["good"]
    client.subgoals.clear()
    sim.set_parameters([Parameter("delay_s", value=0.5)])
    try:
        handle = client.send(_goal())
        wait_until(lambda: len(client.subgoals) >= 1)
        assert client.transition(Transition.TRANSITION_DEACTIVATE)
        res = wait_future(handle.get_result_async())
    finally:
        sim.set_parameters([Parameter("delay_s", value=0.0)])
    assert res.status == GoalStatus.STATUS_ABORTED and res.result.message == "canceled"
    assert client.send(_goal()) is None  # inactive: refused
    assert client.transition(Transition.TRANSITION_ACTIVATE)  # (_reconfigure starts from active)
    _reconfigure(client, node, planner__backend="test:garbage")
    assert client.run(_goal())[1] == GoalStatus.STATUS_ABORTED  # the new backend is in use
    _reconfigure(client, node, planner__backend="test:suffix")
    assert client.run(_goal())[1] == GoalStatus.STATUS_SUCCEEDED


def test_planner_decoding_and_think_reach_the_backend_the_node_builds(ros_context) -> None:
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode

    node = PlannerNode("symplan_planner_guided", context=ros_context, parameter_overrides=[
        Parameter("planner.backend", value="openai:http://127.0.0.1:9/v1?model=m"),
        Parameter("planner.decoding", value="guided"), Parameter("planner.think", value="skip")])
    try:
        assert node.trigger_configure().name == "SUCCESS"
        config = node.session.backend.config
        assert (config.decoding, config.think) == ("guided", "skip")
    finally:
        node.destroy_node()
