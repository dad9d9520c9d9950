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


def test_plan_action_carries_a_question_and_its_answer() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.action import Plan
    from symplan_interfaces.msg import ClarificationCandidate, PlanStatus

    assert (Plan.Result.OUTCOME_SUCCEEDED, Plan.Result.OUTCOME_FAILED, Plan.Result.OUTCOME_CANCELED,
            Plan.Result.OUTCOME_NEEDS_CLARIFICATION, Plan.Result.OUTCOME_ANSWER_REJECTED) == (
        "succeeded", "failed", "canceled", "needs_clarification", "answer_rejected")
    assert PlanStatus.STATE_NEEDS_CLARIFICATION == "needs_clarification"
    asked = Plan.Result(outcome=Plan.Result.OUTCOME_NEEDS_CLARIFICATION, clarification_id="q1",
                        question="Which do you mean? (1) ... Or (2) ...",
                        candidates=[ClarificationCandidate(number=1, activity="b1k/a", goal="g", score=0.9),
                                    ClarificationCandidate(number=2, activity="b1k/b", goal="h", score=0.8)])
    back = deserialize_message(serialize_message(asked), Plan.Result)
    assert back == asked and [c.activity for c in back.candidates] == ["b1k/a", "b1k/b"]
    assert Plan.Goal().answer == "" and Plan.Goal().clarification_id == ""  # a plain goal answers nothing
    answer = Plan.Goal(answer="2", clarification_id="q1")
    assert deserialize_message(serialize_message(answer), Plan.Goal) == answer


def test_verify_plan_service_request_and_response_round_trip() -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from symplan_interfaces.srv import VerifyPlan

    req = VerifyPlan.Request(task_id="x", plan_text="grasp(a)")
    assert deserialize_message(serialize_message(req), VerifyPlan.Request) == req
    resp = VerifyPlan.Response(ok=True, strict_pass=False, errors=["step 1: precondition"])
    assert deserialize_message(serialize_message(resp), VerifyPlan.Response).errors == [
        "step 1: precondition"
    ]
