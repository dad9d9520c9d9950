"""A cancel (or a deactivate) during LLM planning ends the goal before the next backend call:
found by the soak, where a cancel at `planning` waited for every repair round and the fallback."""

from __future__ import annotations

from runtime_testkit import BENCH, TASK

from symplan_core.llm.base import FunctionBackend
from symplan_core.planners.reference_backend import make_planner_backend
from symplan_core.runtime.config import PlannerSection
from symplan_core.runtime.session import Outcome, PlanningSession
from symplan_core.runtime.sources import BddlSceneSource, TaskRequest


def test_cancel_between_repair_rounds_stops_asking_the_backend() -> None:
    calls: list[int] = []
    cancel = {"now": False}

    def confused_llm(_prompt) -> str:
        calls.append(1)
        cancel["now"] = True  # the operator cancels while this answer is being generated
        return "Sure! Let me think about the wood."

    session = PlanningSession(FunctionBackend(confused_llm, name="confused"),
                              planner=PlannerSection(repair_rounds=5, fallback="reference"))
    dispatched: list = []
    result = session.run(TaskRequest(task_id=TASK, benchmark=BENCH), BddlSceneSource(),
                         lambda sub: (dispatched.append(sub), (Outcome.SUCCEEDED, "done"))[1],
                         lambda *_a, **_k: None, lambda: cancel["now"])
    assert result.canceled and result.message == "canceled"
    assert len(calls) == 1 and dispatched == []  # before: 6 model calls, then the fallback's plan


def test_the_reference_planner_is_asked_once_per_plan_not_once_per_repair_round() -> None:
    """Found by fuzzing with large valid problems: a failing reference search ran up to its time
    budget once per repair round (3x with the default 2 rounds), the same deterministic search."""
    reference = make_planner_backend("reference")
    calls: list[int] = []

    def counted(prompt):
        calls.append(1)
        return reference.plan(prompt, 1)[0].text

    session = PlanningSession(FunctionBackend(counted, name="reference"),
                              planner=PlannerSection(repair_rounds=2, fallback="reference"))
    # preserving_food is unsolved by the reference planner with the B-100 actions (docs/results.md).
    result = session.run(TaskRequest(task_id="preserving_food", benchmark="b100", execute=False),
                         BddlSceneSource(), lambda _sub: (Outcome.SUCCEEDED, "done"), lambda *_a, **_k: None)
    assert not result.success and result.message.startswith("no plan strict-passed")
    assert len(calls) == 1  # before: 3
