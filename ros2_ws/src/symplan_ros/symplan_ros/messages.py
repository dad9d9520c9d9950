"""Conversion between ROS messages and the runtime's types (``symplan_core.runtime``).

Also the text form of ``~/task_bddl`` (a BDDL problem behind a comment line naming the goal and
the robot), which the skill simulator and the soak's audit read back.
"""

from __future__ import annotations

import json
import re

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from sensor_msgs.msg import CompressedImage, Image
from symplan_interfaces.action import Plan
from symplan_interfaces.msg import ClarificationCandidate
from symplan_interfaces.msg import Subgoal as SubgoalMsg
from symplan_interfaces.srv import VerifyPlan

from symplan_core.engine import VerifyResult
from symplan_core.runtime.health import Health
from symplan_core.runtime.session import SessionResult, Subgoal, call_text, error_lines
from symplan_core.runtime.sources import TaskRequest

# ~/task_bddl carries the problem behind this header line (a BDDL comment): which goal, which robot.
_HEADER = re.compile(r"^; symplan goal_id=(\S+)(?: robot=(\S+))?")


_MARKERS = re.compile(r" markers=(\S+)")


def task_message(bddl_text: str, goal_id: str, robot: str, markers: dict[str, int] | None = None) -> str:
    """The ~/task_bddl text of a goal's problem. ``markers``: for a perceived scene, the fiducial
    tag each instance was seen with (``markers=inst:id,...`` on the header line), so a simulator
    can draw each instance as the physical thing the planner took it to be."""
    tags = f" markers={','.join(f'{inst}:{tag}' for inst, tag in sorted(markers.items()))}" if markers else ""
    return f"; symplan goal_id={goal_id} robot={robot}{tags}\n{bddl_text}"


def read_markers(text: str) -> dict[str, int]:
    """The ``markers=`` of a ~/task_bddl (or simulator world) header line; {} without."""
    m = _MARKERS.search(text.split("\n", 1)[0])
    if not m:
        return {}
    out = {}
    for item in m.group(1).split(","):
        inst, _, tag = item.rpartition(":")
        if inst and tag.isdigit():
            out[inst] = int(tag)
    return out


def read_task_message(text: str) -> tuple[str, str | None]:
    """(goal id, robot or None) from a ~/task_bddl text; ("", None) without a header."""
    m = _HEADER.match(text)
    return (m.group(1), m.group(2)) if m else ("", None)


def task_request(goal: Plan.Goal) -> TaskRequest:
    return TaskRequest(goal.instruction, goal.bddl, goal.task_id, goal.benchmark, goal.robot, goal.execute,
                       goal.answer, goal.clarification_id)


def subgoal_msg(sub: Subgoal) -> SubgoalMsg:
    return SubgoalMsg(plan_id=sub.plan_id, index=sub.index, count=sub.count, action=sub.action,
                      args=list(sub.args), text=sub.text, expected_add=list(sub.expected_add),
                      expected_del=list(sub.expected_del))


def plan_result(result: SessionResult) -> Plan.Result:
    """The goal's result; a question (needs_clarification, or one an answer left open) with its candidates."""
    question = result.question
    return Plan.Result(
        success=result.success, plan_id=result.plan_id, final_bddl=result.bddl,
        subgoals=[subgoal_msg(s) for s in result.executed], gcr=result.gcr,
        strict_pass=result.strict_pass, replans=result.replans, errors=result.errors,
        message=result.message, scene_json=json.dumps(result.scene, default=str) if result.scene else "",
        outcome=result.outcome,
        clarification_id=question.clarification_id if question else "",
        question=question.question if question else "",
        candidates=[ClarificationCandidate(number=c.number, activity=c.activity, goal=c.goal, score=c.score)
                    for c in (question.candidates if question else ())])


def fill_verify_response(resp: VerifyPlan.Response, result: VerifyResult, accepted: bool) -> VerifyPlan.Response:
    resp.ok = True
    resp.format_ok, resp.engine_pass = bool(result.format_ok), bool(result.engine_pass)
    resp.strict_pass, resp.gcr = bool(result.strict_pass), float(result.gcr)
    resp.accepted = accepted
    resp.calls = [call_text(c) for c in result.calls]
    resp.errors = error_lines(result) if not result.strict_pass else []
    resp.warnings = [str(w) for w in (result.warnings or [])]
    resp.diagnostics = [d.line() for d in result.diagnostics]
    resp.result_json = json.dumps(result.to_json(), default=str)
    return resp


def image_type(topic: str) -> type[Image] | type[CompressedImage]:
    """image_transport naming: ``.../compressed`` and ``.../compressedDepth`` carry CompressedImage."""
    return CompressedImage if topic.rsplit("/", 1)[-1] in ("compressed", "compressedDepth") else Image


def diagnostic_array(node_name: str, stamp: Time, items: list[Health]) -> DiagnosticArray:
    """/diagnostics message of health records (diagnostic_updater is not on PyPI)."""
    arr = DiagnosticArray()
    arr.header.stamp = stamp
    for h in items:
        arr.status.append(DiagnosticStatus(
            level=bytes([h.level]), name=f"{node_name}: {h.name}", message=h.message,
            hardware_id=node_name,
            values=[KeyValue(key=k, value=v) for k, v in h.values.items()],
        ))
    return arr
