"""The camera path over real DDS: a rendered BEHAVIOR scene streamed by the camera simulator is
perceived by the planner node (scene.source: camera), verified, planned and executed; a silent
camera, corrupt frames and a rejected scene each fail the goal with their reason and publish no
subgoal; a bag recorded from the live stream replays (`symplan replay`) to the BDDL the node saw.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import WAIT_S, wait_until

pytestmark = pytest.mark.needs_ros

TASK = "b1k/attach_a_camera_to_a_tripod"
INSTRUCTION = "attach the camera to the tripod"
RGB, DEPTH, INFO = "/camera/color/image_raw", "/camera/depth/image_raw", "/camera/color/camera_info"


def _camera_params(prefix: str, detector: str, wait_s: float):
    from rclpy.parameter import Parameter

    return [Parameter("scene.source", value="camera"), Parameter("camera.rgb_topic", value=f"{prefix}{RGB}"),
            Parameter("camera.depth_topic", value=f"{prefix}{DEPTH}"),
            Parameter("camera.info_topic", value=f"{prefix}{INFO}"),
            Parameter("camera.wait_s", value=wait_s), Parameter("perception.detector", value=detector),
            Parameter("planner.backend", value="reference"), Parameter("planner.fallback", value="none"),
            # This camera shows the task's :init throughout (no world_topic): checking execution on it
            # would contradict every move. Monitoring over DDS is test_ros_monitor.py's.
            Parameter("execution.monitor", value="off")]


@pytest.fixture(scope="module")
def rig(ros_context, spinner, tmp_path_factory):
    from lifecycle_msgs.msg import Transition
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_sim.camera_sim import CameraSimNode
    from symplan_sim.skill_sim import SkillSimNode
    from symplan_tools.client import PlannerClient

    map_file = tmp_path_factory.mktemp("camera") / "fiducials.yaml"
    camera = spinner.add(CameraSimNode(context=ros_context, parameter_overrides=[
        Parameter("task", value=TASK), Parameter("map_file", value=str(map_file)),
        Parameter("rate_hz", value=5.0), Parameter("frames", value=2)]))
    detector = f"fiducial:{map_file}"

    def planner(name: str, prefix: str, wait_s: float = 20.0, detector: str = detector) -> PlannerNode:
        return spinner.add(PlannerNode(name, context=ros_context,
                                       cli_args=["--ros-args", "--params-file", str(CONFIG)],
                                       parameter_overrides=_camera_params(prefix, detector, wait_s)))

    nodes = {"camera": planner("symplan_planner", ""), "silent": planner("silent_planner", "/silent", 1.0),
             "corrupt": planner("corrupt_planner", "/corrupt", 1.0),
             "no_detector": planner("nodetector_planner", "", 1.0, "fiducial:/nonexistent/map.yaml")}
    spinner.add(SkillSimNode(context=ros_context))
    client_node = spinner.add(Node("camera_test_client", context=ros_context))
    clients = {name: PlannerClient(client_node, f"/{node.get_name()}") for name, node in nodes.items()}
    for client in clients.values():
        assert client.transition(Transition.TRANSITION_CONFIGURE)
        assert client.transition(Transition.TRANSITION_ACTIVATE)
    return {"nodes": nodes, "clients": clients, "camera": camera, "client_node": client_node,
            "map_file": map_file}


def _goal(instruction: str = INSTRUCTION):
    from symplan_interfaces.action import Plan

    return Plan.Goal(instruction=instruction)


def _latched_bddl(node, topic: str) -> list[str]:
    from std_msgs.msg import String
    from symplan_ros.plumbing import LATCHED

    seen: list[str] = []
    node.create_subscription(String, topic, lambda m: seen.append(m.data), LATCHED)
    return seen


def test_camera_frames_become_a_verified_scene_and_validated_subgoals(rig) -> None:
    from action_msgs.msg import GoalStatus

    from symplan_core.bddl import parse_problem
    from symplan_core.engine import compile_task, verify

    client = rig["clients"]["camera"]
    published = _latched_bddl(rig["client_node"], "/symplan_planner/task_bddl")
    client.subgoals.clear()
    feedback: list = []
    result, status = client.run(_goal(), feedback.append)
    assert status == GoalStatus.STATUS_SUCCEEDED, (result.message, result.errors)
    stages = list(dict.fromkeys(f.stage for f in feedback))
    assert stages[:4] == ["scene", "perceiving", "checking_scene", "bddl_check"]
    checking = next(f.message for f in feedback if f.stage == "checking_scene")
    assert checking.startswith("syntax ok; objects ok; init ok; goal ok")
    scene = json.loads(result.scene_json)
    assert scene["accepted"] and [v["axis"] for v in scene["verdicts"]] == ["syntax", "objects", "init", "goal"]
    assert scene["provenance"]["objects"]  # which frame and detection backs each object
    wait_until(lambda: len(client.subgoals) == len(result.subgoals) and published)
    # The invariant, re-checked from what went over DDS: the subgoals strict-pass the published scene.
    bddl = published[-1].split("\n", 1)[1]
    assert bddl == result.final_bddl
    task = compile_task(parse_problem(bddl), "single")
    assert verify(task, "\n".join(s.text for s in client.subgoals)).strict_pass
    assert [s.action for s in client.subgoals][-1] == "attach"


def test_no_camera_frames_fail_the_goal_with_a_camera_reason_within_the_wait(rig) -> None:
    from action_msgs.msg import GoalStatus

    client = rig["clients"]["silent"]
    started = time.monotonic()
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_ABORTED and not client.subgoals
    assert result.message.startswith("scene: camera: no frames on /silent/camera/color/image_raw within 1 s")
    assert time.monotonic() - started < 1.0 + 10.0  # the wait, plus DDS round trips on a loaded machine


def test_corrupt_frames_warn_and_the_node_keeps_serving(rig) -> None:
    from action_msgs.msg import GoalStatus
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    from symplan_tools.client import PlannerClient  # noqa: F401 - the client below is one

    client = rig["clients"]["corrupt"]
    pub = rig["client_node"].create_publisher(Image, f"/corrupt{RGB}", qos_profile_sensor_data)
    wait_until(lambda: pub.get_subscription_count() >= 1)
    bad = Image(height=480, width=640, encoding="rgb8", step=1920, data=bytes(1000))  # truncated data

    def warned() -> bool:
        return any(s.name.endswith("corrupt_planner: camera") and s.level == b"\x01" and "short_data" in s.message
                   for arr in list(client.diagnostics) for s in arr.status)

    deadline = time.monotonic() + WAIT_S
    while not warned():  # best-effort QoS: keep sending until the node has seen one
        assert time.monotonic() < deadline, "no camera WARN for corrupt frames"
        pub.publish(bad)
        time.sleep(0.1)
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_ABORTED and "short_data" in result.message and not client.subgoals
    # Still serving: a goal with a task id does not need the camera.
    from symplan_interfaces.action import Plan

    result, status = client.run(Plan.Goal(task_id=TASK, instruction=INSTRUCTION, execute=False))
    assert status == GoalStatus.STATUS_SUCCEEDED and result.strict_pass


def test_a_rejected_scene_fails_with_the_verifier_reasons_and_publishes_nothing(rig) -> None:
    from action_msgs.msg import GoalStatus

    client = rig["clients"]["camera"]
    client.subgoals.clear()
    result, status = client.run(_goal("put the pizza and the wine bottle in the fridge"))
    assert status == GoalStatus.STATUS_ABORTED and "scene rejected" in result.message
    scene = json.loads(result.scene_json)
    assert scene["accepted"] is False and any(v["passed"] is False for v in scene["verdicts"])
    time.sleep(0.5)
    assert client.subgoals == []


def test_an_unavailable_detector_is_a_diagnostic_error_and_fails_camera_goals(rig) -> None:
    from action_msgs.msg import GoalStatus

    client = rig["clients"]["no_detector"]

    def errored() -> bool:
        return any(s.name.endswith("nodetector_planner: camera") and s.level == b"\x02"
                   and "detector unavailable" in s.message for arr in list(client.diagnostics) for s in arr.status)

    wait_until(errored)
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_ABORTED and "detector unavailable" in result.message


def test_a_bag_recorded_from_the_live_camera_replays_to_the_bddl_the_node_saw(rig, tmp_path: Path) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_tools.recorder import BagRecorder, topic_types

    from symplan_core.runtime.replay import ReplayConfig, replay

    node = rig["client_node"]
    recorder = BagRecorder(node, tmp_path / "live", topic_types(node, [RGB, DEPTH, INFO]), "mcap")
    try:
        wait_until(lambda: min(recorder.counts.values()) >= 4)
    finally:
        recorder.close()
    client = rig["clients"]["camera"]
    result, status = client.run(_goal())
    assert status == GoalStatus.STATUS_SUCCEEDED, result.message
    outcome = replay(ReplayConfig(bag=tmp_path / "live", instruction=INSTRUCTION, out=tmp_path / "out",
                                  detector=f"fiducial:{rig['map_file']}"))
    assert outcome.ok, outcome.reasons
    assert (tmp_path / "out" / "task.bddl").read_text() == result.final_bddl
