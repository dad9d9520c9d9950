"""The generated symplan_interfaces types import and survive a CDR round trip."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.needs_ros


def test_subgoal_round_trips_through_cdr_serialization() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.msg import Subgoal

    msg = Subgoal(
        plan_id="p-1", index=2, count=5, action="grasp", args=["apple.n.01_1"],
        text="grasp(apple.n.01_1)", expected_add=["(holding apple.n.01_1)"], expected_del=[],
    )
    back = deserialize_message(serialize_message(msg), Subgoal)
    assert back == msg
    assert back.args == ["apple.n.01_1"]


def test_skill_status_constants_and_round_trip() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.msg import SkillStatus

    assert (SkillStatus.RUNNING, SkillStatus.SUCCEEDED, SkillStatus.FAILED) == (0, 1, 2)
    msg = SkillStatus(plan_id="p", index=3, status=SkillStatus.FAILED, message="slipped")
    assert deserialize_message(serialize_message(msg), SkillStatus) == msg


def test_plan_action_has_goal_result_feedback_with_stage_names() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.action import Plan
    from symplan_interfaces.msg import Subgoal

    stages = {
        Plan.Feedback.STAGE_SCENE, Plan.Feedback.STAGE_BDDL_CHECK, Plan.Feedback.STAGE_PLANNING,
        Plan.Feedback.STAGE_VERIFYING, Plan.Feedback.STAGE_REPAIRING,
        Plan.Feedback.STAGE_EXECUTING,
    }
    assert stages == {"scene", "bddl_check", "planning", "verifying", "repairing", "executing"}
    assert Plan.Goal().execute is True  # default from the .action file
    result = Plan.Result(success=True, subgoals=[Subgoal(index=0), Subgoal(index=1)], gcr=1.0)
    back = deserialize_message(serialize_message(result), Plan.Result)
    assert [s.index for s in back.subgoals] == [0, 1]
    assert back.gcr == 1.0


def test_verify_plan_service_request_and_response_round_trip() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.srv import VerifyPlan

    req = VerifyPlan.Request(task_id="x", plan_text="grasp(a)")
    assert deserialize_message(serialize_message(req), VerifyPlan.Request) == req
    resp = VerifyPlan.Response(ok=True, strict_pass=False, errors=["step 1: precondition"])
    assert deserialize_message(serialize_message(resp), VerifyPlan.Response).errors == [
        "step 1: precondition"
    ]
