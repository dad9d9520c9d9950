"""Over real DDS: a plan that relies on an object whose synset is in no table (its abilities
are assumed: UNKNOWN_AFFORDANCE) is not verified by the planner node, so no subgoal of it is
published, unless `engine.allow_unknown_affordances` is set."""

from __future__ import annotations

import pytest
from symplan_ros_testkit import CONFIG

pytestmark = pytest.mark.needs_ros

# A real B-1K task whose plan must grasp tape_1 (tape.n.01 is in no BEHAVIOR table).
TASK, BENCH = "buying_office_supplies", "b1k"


@pytest.fixture(scope="module")
def clients(ros_context, spinner):
    from lifecycle_msgs.msg import Transition
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_tools.client import PlannerClient

    def planner(name: str, *overrides: Parameter) -> PlannerNode:
        return PlannerNode(name, context=ros_context, cli_args=["--ros-args", "--params-file", str(CONFIG)],
                           parameter_overrides=[Parameter("planner.backend", value="reference"),
                                                Parameter("planner.fallback", value="none"), *overrides])

    strict = spinner.add(planner("symplan_strict"))
    lenient = spinner.add(planner("symplan_lenient", Parameter("engine.allow_unknown_affordances", value=True)))
    node = spinner.add(Node("affordance_test_client", context=ros_context))
    out = {"strict": PlannerClient(node, "/symplan_strict"), "lenient": PlannerClient(node, "/symplan_lenient"),
           "nodes": (strict, lenient)}
    for name in ("strict", "lenient"):
        assert out[name].transition(Transition.TRANSITION_CONFIGURE)
        assert out[name].transition(Transition.TRANSITION_ACTIVATE)
    return out


def _goal(execute: bool):
    from symplan_interfaces.action import Plan

    return Plan.Goal(task_id=TASK, benchmark=BENCH, instruction="buy office supplies", execute=execute)


def test_parameter_defaults_to_false_in_planner_yaml(clients) -> None:
    strict, lenient = clients["nodes"]
    assert strict.get_parameter("engine.allow_unknown_affordances").value is False
    assert strict.describe_parameter("engine.allow_unknown_affordances").description
    assert lenient.get_parameter("engine.allow_unknown_affordances").value is True


def test_plan_relying_on_unknown_affordances_is_not_verified_and_nothing_is_published(clients) -> None:
    import time

    from action_msgs.msg import GoalStatus

    client = clients["strict"]
    client.subgoals.clear()
    result, status = client.run(_goal(execute=True))
    assert status == GoalStatus.STATUS_ABORTED
    assert not result.success and not result.strict_pass and list(result.subgoals) == []
    assert any("UNKNOWN_AFFORDANCE" in e and "tape_1" in e for e in result.errors), result.errors
    time.sleep(0.5)  # a subgoal published by mistake would have arrived by now
    assert client.subgoals == []


def test_with_the_parameter_set_the_same_plan_is_verified(clients) -> None:
    from action_msgs.msg import GoalStatus

    result, status = clients["lenient"].run(_goal(execute=False))
    assert status == GoalStatus.STATUS_SUCCEEDED, result.errors
    assert result.success and result.strict_pass
    assert any(s.action == "grasp" and s.args == ["tape.n.01_1"] for s in result.subgoals)


def test_the_verify_service_says_a_strict_pass_on_assumed_affordances_is_not_accepted(clients) -> None:
    from symplan_core.engine import compile_task
    from symplan_core.planners.reference import plan_task
    from symplan_core.tasks import load_problem

    plan = plan_task(compile_task(load_problem(TASK, BENCH))).response
    strict = clients["strict"].call_verify(task_id=TASK, benchmark=BENCH, plan_text=plan)
    lenient = clients["lenient"].call_verify(task_id=TASK, benchmark=BENCH, plan_text=plan)
    assert strict.ok and strict.strict_pass and not strict.accepted
    assert lenient.strict_pass and lenient.accepted
    assert any("UNKNOWN_AFFORDANCE" in d and "tape_1" in d for d in strict.diagnostics), strict.diagnostics
