"""Ask instead of guessing, over real DDS: the camera simulator streams the rendered
`putting_up_Christmas_lights_outside` scene, where "hang the christmas lights" fits several BEHAVIOR
activities whose goals all pass the scene checks. The planner's Plan goal ends with the outcome
needs_clarification, the question and its candidates (nothing planned, nothing published); a
follow-up goal carrying the answer resumes the planning and reaches the goal, every published
subgoal strict-passing the published scene (DdsAudit). An answer naming no candidate or no open
question is rejected with its reason, and the node keeps serving.

The person's answer is simulated from the scene the simulator renders: they want the activity the
scene was set up for (its released goal), so they answer with the number of the candidate drafted
from that activity.
"""

from __future__ import annotations

import json

import pytest
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import wait_until

pytestmark = pytest.mark.needs_ros

TASK = "b1k/putting_up_Christmas_lights_outside"
INSTRUCTION = "hang the christmas lights"
RGB, DEPTH, INFO = "/camera/color/image_raw", "/camera/depth/image_raw", "/camera/color/camera_info"


@pytest.fixture(scope="module")
def rig(ros_context, spinner, tmp_path_factory):
    from lifecycle_msgs.msg import Transition
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
    from symplan_ros.planner_node import PlannerNode
    from symplan_ros.plumbing import LATCHED
    from symplan_sim.camera_sim import CameraSimNode
    from symplan_sim.skill_sim import SkillSimNode
    from symplan_tools.audit import DdsAudit
    from symplan_tools.client import PlannerClient

    map_file = tmp_path_factory.mktemp("clarify") / "fiducials.yaml"
    spinner.add(CameraSimNode(context=ros_context, parameter_overrides=[
        # No noise: with the default noise one frame can miss two of the four lights, and the scene's
        # own activity then fails its goal check (a "top-rejected" question without it).
        Parameter("task", value=TASK), Parameter("map_file", value=str(map_file)), Parameter("noise", value="none"),
        Parameter("rate_hz", value=5.0), Parameter("frames", value=2)]))
    planner = spinner.add(PlannerNode(context=ros_context, cli_args=["--ros-args", "--params-file", str(CONFIG)],
                                      parameter_overrides=[
        Parameter("scene.source", value="camera"), Parameter("camera.rgb_topic", value=RGB),
        Parameter("camera.depth_topic", value=DEPTH), Parameter("camera.info_topic", value=INFO),
        Parameter("camera.wait_s", value=30.0), Parameter("perception.detector", value=f"fiducial:{map_file}"),
        Parameter("planner.backend", value="reference"), Parameter("planner.fallback", value="none"),
        # The camera shows the task's :init throughout (no world_topic): monitoring would contradict
        # every move. Monitoring over DDS is test_ros_monitor.py's.
        Parameter("execution.monitor", value="off")]))
    spinner.add(SkillSimNode(context=ros_context))
    client_node = spinner.add(Node("clarify_test_client", context=ros_context))
    client = PlannerClient(client_node, "/symplan_planner")
    audit = DdsAudit(client_node, "/symplan_planner")
    problems: list[str] = []
    client_node.create_subscription(String, "/symplan_planner/task_bddl", lambda m: problems.append(m.data), LATCHED)
    assert client.transition(Transition.TRANSITION_CONFIGURE)
    assert client.transition(Transition.TRANSITION_ACTIVATE)
    return {"client": client, "audit": audit, "problems": problems, "planner": planner}


def _ask(rig):
    """Send the ambiguous instruction; the result must be a question, with nothing published."""
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan

    client, audit = rig["client"], rig["audit"]
    client.subgoals.clear()
    problems_before = len(rig["problems"])
    feedback: list = []
    result, status = client.run(Plan.Goal(instruction=INSTRUCTION), feedback.append)
    assert status == GoalStatus.STATUS_ABORTED and not result.success, (result.message, result.errors)
    assert result.outcome == Plan.Result.OUTCOME_NEEDS_CLARIFICATION, (result.outcome, result.message)
    assert result.question.startswith("Which do you mean?") and result.clarification_id
    assert result.message == f"needs clarification: {result.question}"
    assert [c.number for c in result.candidates] == list(range(1, len(result.candidates) + 1))
    assert len(result.candidates) >= 2 and all(c.activity and c.goal for c in result.candidates)
    assert all(f"({c.number}) {c.goal}" in result.question for c in result.candidates)
    # Feedback comes on a topic and the result through a service: the result may come first.
    wait_until(lambda: any(f.stage == "checking_scene" for f in feedback))
    # Nothing planned or published for a question: no problem on ~/task_bddl, no subgoal.
    assert not result.subgoals and not result.final_bddl and not result.plan_id
    assert audit.settle(result) == [] and not client.subgoals
    assert len(rig["problems"]) == problems_before
    # What perception saw comes with the question (verdicts and provenance of the first reading).
    assert json.loads(result.scene_json)["provenance"]["objects"]
    return result


def test_an_ambiguous_instruction_asks_and_the_answer_resumes_planning_to_the_goal(rig) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan
    from symplan_tools.client import answer_goal

    client, audit = rig["client"], rig["audit"]
    asked = _ask(rig)
    # The question is in the node's diagnostics too, while it is open.

    def diagnosed() -> bool:
        return any(s.name.endswith("symplan_planner: planner") and s.message.startswith("waiting for an answer")
                   and any(v.key == "clarification_id" and v.value == asked.clarification_id for v in s.values)
                   for arr in list(client.diagnostics) for s in arr.status)

    wait_until(diagnosed)
    # The simulated person wants the scene's own activity: they answer with its candidate's number.
    (wanted,) = [c for c in asked.candidates if c.activity == TASK]
    feedback: list = []
    result, status = client.run(answer_goal(asked, wanted.number), feedback.append)
    assert status == GoalStatus.STATUS_SUCCEEDED, (result.message, result.errors)
    assert result.outcome == Plan.Result.OUTCOME_SUCCEEDED and result.strict_pass and result.subgoals
    wait_until(lambda: any(f.stage == "scene" and asked.clarification_id in f.message for f in feedback))
    scene = json.loads(result.scene_json)
    assert scene["provenance"]["goal"]["activity"] == TASK  # the chosen reading was planned
    assert scene["clarification"]["clarification_id"] == asked.clarification_id
    assert scene["clarification"]["answer"] == str(wanted.number) and scene["clarification"]["chosen"] == TASK
    # The invariant from what went over DDS: the answered goal's problem was published, and every
    # subgoal belongs to a plan that strict-passed from the state it ran on.
    wait_until(lambda: len(client.subgoals) >= len(result.subgoals))
    assert audit.settle(result) == []
    wait_until(lambda: rig["problems"][-1].split("\n", 1)[1] == result.final_bddl)
    # The question was consumed: answering it again resumes nothing.
    again, status = client.run(answer_goal(asked, wanted.number))
    assert status == GoalStatus.STATUS_ABORTED and again.outcome == Plan.Result.OUTCOME_ANSWER_REJECTED
    assert "no question is open" in again.message and not again.question


def test_an_answer_that_names_no_candidate_is_rejected_and_the_question_stays_open(rig) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan
    from symplan_tools.client import answer_goal

    client, audit = rig["client"], rig["audit"]
    asked = _ask(rig)
    for answer, reason in (("9", "'9' is none of the candidates"),
                           ("b1k/bringing_in_wood", "'b1k/bringing_in_wood' is none of the candidates")):
        result, status = client.run(answer_goal(asked, answer))
        assert status == GoalStatus.STATUS_ABORTED and result.outcome == Plan.Result.OUTCOME_ANSWER_REJECTED
        assert result.message.startswith("answer: ") and reason in result.message, result.message
        assert result.errors == [result.message]
        # The open question is repeated so the client can ask the person again.
        assert result.clarification_id == asked.clarification_id and result.question == asked.question
        assert [c.activity for c in result.candidates] == [c.activity for c in asked.candidates]
        assert not result.subgoals and audit.settle(result) == []
    wrong_id = Plan.Goal(answer="1", clarification_id="not-the-question")
    result, status = client.run(wrong_id)
    assert status == GoalStatus.STATUS_ABORTED and result.outcome == Plan.Result.OUTCOME_ANSWER_REJECTED
    assert "is not the open question" in result.message
    mixed = answer_goal(asked, 1)
    mixed.task_id = TASK
    result, _status = client.run(mixed)
    assert result.outcome == Plan.Result.OUTCOME_ANSWER_REJECTED and "carries no bddl or task_id" in result.message
    assert not client.subgoals
    # The node kept serving and the question stayed open: a right answer (the activity) still resumes it.
    result, status = client.run(answer_goal(asked, TASK.split("/", 1)[1], execute=False))
    assert status == GoalStatus.STATUS_SUCCEEDED and result.strict_pass, (result.message, result.errors)
    assert json.loads(result.scene_json)["provenance"]["goal"]["activity"] == TASK
    assert audit.settle(result, executed=False) == []
    # A goal without an answer closes an open question.
    asked = _ask(rig)
    result, status = client.run(Plan.Goal(task_id="bringing_in_wood", benchmark="b100", execute=False))
    assert status == GoalStatus.STATUS_SUCCEEDED
    audit.settle(result, executed=False)
    result, status = client.run(answer_goal(asked, 1))
    assert result.outcome == Plan.Result.OUTCOME_ANSWER_REJECTED and "no question is open" in result.message
