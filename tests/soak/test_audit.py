"""The DDS audit that re-verifies what the planner published (the soak's invariant check) must
catch an unverified plan and must not flag a failed last subgoal that arrives after the result."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from runtime_testkit import BENCH, GOOD_PLAN, TASK

from symplan_core.bddl.writer import write_problem
from symplan_core.tasks import load_problem

pytestmark = pytest.mark.needs_ros


@pytest.fixture()
def audit(ros_context, spinner):
    from rclpy.node import Node
    from std_msgs.msg import String
    from symplan_ros.messages import task_message
    from symplan_tools.audit import DdsAudit

    node = spinner.add(Node("audit_test", context=ros_context))
    audit = DdsAudit(node, "/nobody")  # fed directly below: the logic, not the transport
    bddl = write_problem(load_problem(TASK, BENCH))
    for goal in ("g1", "g2"):
        audit._on_problem(String(data=task_message(bddl, goal, "single")))
    return audit


def _publish(audit, plan_id: str, lines: list[str], indices: range | None = None) -> list:
    from symplan_interfaces.msg import Subgoal

    subs = [Subgoal(plan_id=plan_id, index=i, count=len(lines), text=lines[i])
            for i in (indices if indices is not None else range(len(lines)))]
    for sub in subs:
        audit._on_subgoal(sub)
    return subs


def _result(subs: list) -> SimpleNamespace:
    return SimpleNamespace(subgoals=subs)


def test_a_verified_plan_executed_in_full_passes(audit) -> None:
    subs = _publish(audit, "g1-0-0", GOOD_PLAN.splitlines())
    assert audit.settle(_result(subs), timeout=1) == []
    assert audit.counts.subgoals == 12 and audit.counts.plans == 1


def test_a_plan_that_is_not_a_strict_pass_is_a_violation(audit) -> None:
    lines = GOOD_PLAN.splitlines()[:-1]  # the last plywood never reaches the floor
    subs = _publish(audit, "g1-0-0", lines)
    violations = audit.settle(_result(subs), timeout=1)
    assert len(violations) == 1 and "not a strict pass" in violations[0]


def test_subgoals_of_a_goal_whose_problem_never_went_out_are_a_violation(audit) -> None:
    subs = _publish(audit, "zz-0-0", GOOD_PLAN.splitlines()[:2])
    assert "its problem never was" in audit.settle(_result(subs), timeout=0.2)[0]


def test_a_failed_last_subgoal_arriving_after_the_result_is_no_violation(audit) -> None:
    lines = GOOD_PLAN.splitlines()
    done = _publish(audit, "g1-0-0", lines, range(0, 7))  # 0..6 succeeded; 7 failed, still in flight
    assert audit.settle(_result(done), timeout=1) == []
    _publish(audit, "g1-0-0", lines, range(7, 8))  # the straggler, in the next goal's batch
    nxt = _publish(audit, "g2-0-1", lines)
    assert audit.settle(_result(nxt), timeout=1) == []
