"""Execution monitoring over real DDS: the skill simulator claims success on a grasp that moved
nothing; the camera simulator (showing the skill simulator's world) still shows the object where it
was; the planner does not apply the effect, says why (~/execution_check, feedback, /diagnostics),
replans from the perceived state and reaches the goal; the DDS audit finds no unverified subgoal.
The same goal's ~/scene_markers: one box and label per perceived object in the images' frame, ids
stable across updates, the running subgoal's objects highlighted.
"""

from __future__ import annotations

import threading

import pytest
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import wait_until

pytestmark = pytest.mark.needs_ros

TASK = "b1k/attach_a_camera_to_a_tripod"
INSTRUCTION = "attach the camera to the tripod"
RGB, DEPTH, INFO = "/camera/color/image_raw", "/camera/depth/image_raw", "/camera/color/camera_info"
SKILL = "monitor_skill_sim"


@pytest.fixture(scope="module")
def rig(ros_context, spinner, tmp_path_factory):
    from lifecycle_msgs.msg import Transition
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_sim.camera_sim import CameraSimNode
    from symplan_sim.skill_sim import SkillSimNode
    from symplan_tools.audit import DdsAudit
    from symplan_tools.client import PlannerClient

    map_file = tmp_path_factory.mktemp("monitor") / "fiducials.yaml"
    camera = spinner.add(CameraSimNode(context=ros_context, parameter_overrides=[
        Parameter("task", value=TASK), Parameter("map_file", value=str(map_file)), Parameter("noise", value="default"),
        Parameter("rate_hz", value=5.0), Parameter("frames", value=2), Parameter("world_topic", value=f"/{SKILL}/world")]))
    planner = spinner.add(PlannerNode(context=ros_context, cli_args=["--ros-args", "--params-file", str(CONFIG)],
                                      parameter_overrides=[
        Parameter("scene.source", value="camera"), Parameter("camera.rgb_topic", value=RGB),
        Parameter("camera.depth_topic", value=DEPTH), Parameter("camera.info_topic", value=INFO),
        Parameter("camera.wait_s", value=30.0), Parameter("perception.detector", value=f"fiducial:{map_file}"),
        Parameter("execution.monitor_wait_s", value=30.0),  # a loaded machine: a condition, not a sleep
        Parameter("planner.backend", value="reference"), Parameter("planner.fallback", value="none")]))
    skill = spinner.add(SkillSimNode(SKILL, context=ros_context, parameter_overrides=[
        Parameter("silent_fault", value="nothing"), Parameter("silent_fault_at", value=1),  # the grasp
        Parameter("camera_sync_topic", value="/symplan_camera_sim/rendered"), Parameter("camera_sync_s", value=30.0)]))
    client_node = spinner.add(Node("monitor_test_client", context=ros_context))
    client = PlannerClient(client_node, "/symplan_planner")
    audit = DdsAudit(client_node, "/symplan_planner")
    checks: list = []
    diagnostics: list = []
    markers: list = []
    lock = threading.Lock()
    from diagnostic_msgs.msg import DiagnosticArray
    from symplan_interfaces.msg import ExecutionCheck
    from symplan_ros.plumbing import LATCHED, RELIABLE
    from visualization_msgs.msg import MarkerArray

    def keep(store):
        def cb(msg):
            with lock:
                store.append(msg)
        return cb

    client_node.create_subscription(ExecutionCheck, "/symplan_planner/execution_check", keep(checks), RELIABLE)
    client_node.create_subscription(DiagnosticArray, "/diagnostics", keep(diagnostics), 10)
    client_node.create_subscription(MarkerArray, "/symplan_planner/scene_markers", keep(markers), LATCHED)
    assert client.transition(Transition.TRANSITION_CONFIGURE)
    assert client.transition(Transition.TRANSITION_ACTIVATE)
    return {"client": client, "audit": audit, "checks": checks, "diagnostics": diagnostics, "skill": skill,
            "camera": camera, "planner": planner, "markers": markers, "results": []}


def test_a_grasp_that_moved_nothing_is_caught_replanned_from_the_camera_and_the_goal_reached(rig) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan

    client, skill = rig["client"], rig["skill"]
    feedback: list = []
    result, status = client.run(Plan.Goal(instruction=INSTRUCTION), feedback.append)
    rig["results"].append(result)
    assert status == GoalStatus.STATUS_SUCCEEDED, (result.message, result.errors)
    assert skill.silent_faults == 1
    assert skill._markers  # the planner told the simulators which tag each instance was seen with
    assert result.replans == 1
    # The silent failure: reported SUCCEEDED, contradicted by the camera, not applied.
    wait_until(lambda: any(c.verdict == "contradicted" for c in rig["checks"]))
    contradicted = [c for c in rig["checks"] if c.verdict == "contradicted"]
    assert [c.text for c in contradicted] == ["grasp(digital_camera_1)"]
    assert "digital_camera.n.01_1 still seen ontop floor.n.01_1" in contradicted[0].reason
    assert any("camera contradicts it" in e for e in result.errors)
    wait_until(lambda: any(f.stage == "monitoring" and "CONTRADICTED" in f.message for f in feedback))
    executed = [s.text for s in result.subgoals]
    assert executed.count("grasp(digital_camera_1)") == 1 and executed[-1].startswith("attach(")
    # The replan's grasp and the attach were confirmed by the camera.
    wait_until(lambda: len(rig["checks"]) >= len(executed) + 1)
    verdicts = {(c.text, c.verdict) for c in rig["checks"]}
    assert ("grasp(digital_camera_1)", "confirmed") in verdicts
    assert ("attach(digital_camera_1, camera_tripod_1)", "confirmed") in verdicts
    # /diagnostics carries the monitor's counts.
    wait_until(lambda: any(s.name.endswith("execution monitor") and
                           any(v.key == "contradicted" and v.value == "1" for v in s.values)
                           for d in list(rig["diagnostics"]) for s in d.status))
    # Every subgoal that went over DDS belongs to a plan that strict-passed from its state.
    assert rig["audit"].settle(result) == []
    assert rig["audit"].counts.subgoals >= len(result.subgoals) + 1  # the contradicted grasp went out too


def test_scene_markers_show_each_perceived_object_in_the_camera_frame_with_stable_ids(rig) -> None:
    import json

    from visualization_msgs.msg import Marker

    assert rig["results"], "runs after the monitored goal"
    scene = json.loads(rig["results"][0].scene_json)
    perceived = {inst for inst, e in scene["provenance"]["objects"].items() if e["source"] == "detection"}
    # The topic is a state (latched, depth 1): a late or slow subscriber gets the newest array, so
    # the test waits for what must have been shown, not for a count of arrays.

    def shown(name: str) -> bool:
        return any(m.ns == "labels" and m.text == f"{name}  [subgoal]" for a in list(rig["markers"]) for m in a.markers)

    wait_until(lambda: shown("camera_tripod.n.01_1") and len(rig["markers"]) >= 2)
    arrays = list(rig["markers"])
    frame = rig["camera"].get_parameter("frame_id").value
    ids: dict[str, int] = {}
    highlighted = set()
    for array in arrays:
        added = [m for m in array.markers if m.action == Marker.ADD]
        assert added and all(m.header.frame_id == frame for m in array.markers)
        labels = {m.text.split()[0]: m for m in added if m.ns == "labels"}
        boxes = {m.id for m in added if m.ns == "objects" and m.type == Marker.CUBE}
        assert {m.id for m in labels.values()} == boxes  # a label per box, same id
        for name, m in labels.items():
            assert ids.setdefault(name, m.id) == m.id, f"{name} changed its marker id"
            if m.text.endswith("[subgoal]"):
                highlighted.add(name)
        assert all(m.points and len(m.points) == 2 for m in added if m.ns == "relations")
    seen = {m.text.split()[0] for a in arrays for m in a.markers if m.ns == "labels" and m.action == Marker.ADD}
    assert seen == perceived  # every object perceived, nothing else
    assert len(set(ids.values())) == len(ids)  # distinct objects, distinct ids
    assert "camera_tripod.n.01_1" in highlighted
    assert any(m.ns == "relations" for a in arrays for m in a.markers)
