"""PlanningSession without DDS: the verify-before-publish invariant, replanning, limits."""

from __future__ import annotations

from runtime_testkit import (
    BENCH,
    TASK,
    garbage_backend,
    replay,
    suffix_backend,
)

from symplan_core.runtime.config import ExecutionSection, PlannerSection
from symplan_core.runtime.session import Outcome, PlanningSession, Subgoal
from symplan_core.runtime.sources import BddlSceneSource, TaskRequest

NO_FALLBACK = PlannerSection(fallback="none")


def _source() -> BddlSceneSource:
    return BddlSceneSource()


def _run(session: PlanningSession, outcomes: dict[int, Outcome] | None = None):
    """Run one goal; the n-th dispatched subgoal gets outcomes[n] (default SUCCEEDED)."""
    dispatched: list[Subgoal] = []
    stages: list[str] = []

    def dispatch(sub: Subgoal) -> tuple[Outcome, str]:
        dispatched.append(sub)
        return (outcomes or {}).get(len(dispatched) - 1, Outcome.SUCCEEDED), "sim"

    result = session.run(TaskRequest(task_id=TASK, benchmark=BENCH), _source(), dispatch,
                         lambda stage, *_: stages.append(stage))
    return result, dispatched, stages


def test_every_dispatched_subgoal_belongs_to_a_plan_that_strict_passes_from_the_state_it_ran_on() -> None:
    session = PlanningSession(suffix_backend(), planner=NO_FALLBACK)
    result, dispatched, stages = _run(session, {2: Outcome.FAILED})
    assert result.success and result.replans == 1
    assert len({s.plan_id for s in dispatched}) == 2
    # Re-verifies each plan, the aborted first one included, from the state it started on.
    replay(dispatched, failed={2}, plans={p.plan_id: p.text for p in result.plans})


def test_timeout_is_treated_like_a_failure_and_replanned() -> None:
    session = PlanningSession(suffix_backend(), planner=NO_FALLBACK)
    result, dispatched, _ = _run(session, {0: Outcome.TIMEOUT})
    assert result.success and result.replans == 1
    assert "timeout" in result.errors[0]
    replay(dispatched, failed={0}, plans={p.plan_id: p.text for p in result.plans})


def test_garbage_backend_dispatches_nothing_and_returns_the_engine_errors() -> None:
    session = PlanningSession(garbage_backend(), planner=PlannerSection(repair_rounds=1, fallback="none"))
    result, dispatched, stages = _run(session)
    assert dispatched == []
    assert not result.success and not result.strict_pass
    assert any("PARSE" in e for e in result.errors)
    assert stages.count("repairing") == 1  # one repair round was tried


def test_replan_limit_bounds_the_number_of_replans() -> None:
    session = PlanningSession(suffix_backend(), planner=NO_FALLBACK, execution=ExecutionSection(replan_limit=2))
    result, dispatched, _ = _run(session, {i: Outcome.FAILED for i in range(100)})
    assert not result.success
    assert result.replans == 2
    assert len(dispatched) == 3  # first plan + two replans, each failing at its first subgoal
    assert "replan limit" in result.message
    # Every plan was aborted at its first subgoal; each must still have strict-passed from there.
    replay(dispatched, failed={0, 1, 2}, plans={p.plan_id: p.text for p in result.plans})


def test_execute_false_validates_without_dispatching() -> None:
    session = PlanningSession(suffix_backend(), planner=NO_FALLBACK)
    dispatched: list[Subgoal] = []
    result = session.run(TaskRequest(task_id=TASK, benchmark=BENCH, execute=False), _source(),
                         lambda s: (dispatched.append(s), (Outcome.SUCCEEDED, ""))[1], lambda *_a: None)
    assert result.success and result.strict_pass and dispatched == []
    assert len(result.executed) == 12


def test_unknown_task_is_a_typed_failure_not_an_exception() -> None:
    session = PlanningSession(suffix_backend(), planner=NO_FALLBACK)
    result = session.run(TaskRequest(task_id="no_such_activity_xyz"), _source(),
                         lambda _s: (Outcome.SUCCEEDED, ""), lambda *_a: None)
    assert not result.success
    assert result.errors and result.errors[0].startswith("scene:")


def test_goal_robot_overrides_the_session_robot_for_engine_and_prompt() -> None:
    from symplan_core.llm.base import FunctionBackend

    two_at_once = ("navigate(plywood_1)\ngrasp(plywood_1)\nnavigate(plywood_2)\ngrasp(plywood_2)\n"
                   "navigate(floor_2)\nplace_on_top(plywood_1, floor_2)\nplace_on_top(plywood_2, floor_2)\n"
                   "navigate(plywood_3)\ngrasp(plywood_3)\nnavigate(floor_2)\nplace_on_top(plywood_3, floor_2)")
    session = PlanningSession(FunctionBackend(lambda _p: two_at_once, name="fixed"), robot="single",
                              planner=PlannerSection(repair_rounds=0, fallback="none"))

    def run(robot: str):
        return session.run(TaskRequest(task_id=TASK, benchmark=BENCH, robot=robot, execute=False), _source(),
                           lambda _s: (Outcome.SUCCEEDED, ""), lambda *_a: None)

    assert run("dual").success  # two hands: carrying two planks at once is valid
    single = run("")  # the session's robot: one hand
    assert not single.success and any("free" in e.lower() or "hand" in e.lower() for e in single.errors)


def test_goal_bddl_text_is_planned_for_and_malformed_bddl_is_a_typed_failure() -> None:
    from symplan_core.bddl.writer import write_problem
    from symplan_core.planners.reference_backend import make_planner_backend
    from symplan_core.tasks import load_problem

    session = PlanningSession(make_planner_backend("reference"), planner=NO_FALLBACK)
    # A variant of the real task, given as text: only two planks to bring in.
    text = write_problem(load_problem(TASK, BENCH)).replace(" plywood.n.01_3 - plywood.n.01", " - plywood.n.01")
    text = "\n".join(line for line in text.splitlines() if "plywood.n.01_3" not in line)
    ok = session.run(TaskRequest(bddl=text, execute=False), _source(), lambda _s: (Outcome.SUCCEEDED, ""),
                     lambda *_a: None)
    assert ok.success, ok.errors
    assert ok.executed and not any("plywood.n.01_3" in a for s in ok.executed for a in s.args)
    bad = session.run(TaskRequest(bddl="(define (problem x) (:objects a - b"), _source(),
                      lambda _s: (Outcome.SUCCEEDED, ""), lambda *_a: None)
    assert not bad.success and bad.errors[0].startswith("scene:")


def test_the_task_at_a_state_starts_at_that_state_and_leaves_the_task_alone() -> None:
    # Replans hand the planner a task that starts "now" (CompiledTask.at_state).
    from symplan_core.engine import compile_task, parse_plan
    from symplan_core.tasks import load_problem

    task = compile_task(load_problem(TASK, BENCH))
    state = task.initial_state()
    for call in parse_plan("navigate(plywood_1)\ngrasp(plywood_1)").calls:
        assert not task.apply(state, call).errors
    later = task.at_state(state)
    assert later.initial_state().literals() == state.literals()
    assert ("holding", "plywood.n.01_1") in later.initial_state().literals()
    assert ("holding", "plywood.n.01_1") not in task.initial_state().literals()


def test_replan_prompt_shows_the_live_state_and_returns_the_task_at_that_state() -> None:
    from symplan_core.engine import compile_task, parse_plan
    from symplan_core.runtime.session import prompt_messages
    from symplan_core.tasks import load_problem

    task = compile_task(load_problem(TASK, BENCH))
    state = task.initial_state()
    done = ["navigate(plywood_1)", "grasp(plywood_1)"]
    for call in parse_plan("\n".join(done)).calls:
        assert not task.apply(state, call).errors
    first, first_task = prompt_messages(task, state, "guided", [])
    replan, replan_task = prompt_messages(task, state, "guided", done)
    assert first_task is task and "(holding plywood_1)" not in first[1]["content"]
    assert "(holding plywood_1)" in replan[1]["content"]
    assert "- navigate(plywood_1)\n- grasp(plywood_1)" in replan[1]["content"]
    assert replan_task.initial_state().literals() == state.literals()


def test_engine_errors_read_the_same_in_prompts_cli_and_ros(tmp_path) -> None:
    # One formatter (Finding.line, 1-based steps): the repair prompt, the CLI summary and the
    # ROS error lines number a failing step identically.
    from typer.testing import CliRunner

    from symplan_core.cli.main import app
    from symplan_core.engine import compile_task, verify
    from symplan_core.prompts import repair_message
    from symplan_core.runtime.session import error_lines
    from symplan_core.tasks import load_problem

    plan = "navigate(plywood_1)\ngrasp(plywood_1)\nplace_on_top(plywood_1, floor_2)"  # not near floor_2
    result = verify(compile_task(load_problem(TASK, BENCH)), plan)
    [error] = result.errors
    assert error.step == 2 and error.line().startswith("step 3 `place_on_top(plywood_1, floor_2)`: MISSING_STEP:")
    assert error_lines(result) == [error.line()]
    assert f"- {error.line()}" in repair_message(result)["content"]
    (tmp_path / "plan.txt").write_text(plan)
    cli = CliRunner().invoke(app, ["verify", f"{BENCH}/{TASK}", str(tmp_path / "plan.txt")], env={"COLUMNS": "200"})
    row = next(line for line in cli.output.splitlines() if "place_on_top(plywood_1" in line)
    assert row.split("│")[1].strip() == "3"
