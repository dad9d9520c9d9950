"""An unreachable LLM endpoint: the goal fails with the error trace, /diagnostics reports the
endpoint as ERROR, and the node stays up (real OpenAI-compatible backend, real DDS)."""

from __future__ import annotations

import pytest
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import wait_until

pytestmark = pytest.mark.needs_ros

pytest.importorskip("httpx", reason="the openai backend needs the `llm` extra (httpx)")

DOWN = "openai:http://127.0.0.1:9/v1?model=none&max_retries=0&connect_timeout=2"  # port 9: discard, closed


@pytest.fixture(scope="module")
def client(ros_context, spinner):
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_tools.client import PlannerClient

    node = PlannerNode(context=ros_context, cli_args=["--ros-args", "--params-file", str(CONFIG)],
                       parameter_overrides=[Parameter("planner.backend", value=DOWN),
                                            Parameter("planner.fallback", value="none")])
    spinner.add(node)
    assert node.trigger_configure().name == "SUCCESS" and node.trigger_activate().name == "SUCCESS"
    return PlannerClient(spinner.add(Node("down_client", context=ros_context)))


def test_unreachable_endpoint_aborts_with_backend_error_and_diagnostic_error(client) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan

    goal = Plan.Goal(task_id="bringing_in_wood", benchmark="b100")
    result, status = client.run(goal)
    assert status == GoalStatus.STATUS_ABORTED
    assert client.subgoals == [] and list(result.subgoals) == []
    assert any("backend error" in e and "connect" in e.lower() for e in result.errors), result.errors

    def endpoint_error() -> bool:
        return any(s.name.endswith(": llm endpoint") and s.level == b"\x02"
                   for arr in list(client.diagnostics) for s in arr.status)

    wait_until(endpoint_error)
    # Still serving: the verify service answers and a new goal is accepted (and fails the same way).
    assert client.call_verify(task_id="bringing_in_wood", benchmark="b100", plan_text="navigate(plywood_1)").ok
    assert client.run(goal)[1] == GoalStatus.STATUS_ABORTED
