"""The one validation every task definition passes before it becomes a sample.

A definition (an original task, an augmentation draft or a task extended with distractors) is
valid when all of these hold, checked in this order; the first failure is its reason:

``parse``       our writer's text parses with our parser, to the same problem;
``check``       the semantic checks (:func:`symplan_core.bddl.checks.check_problem`) find no error;
``compile``     the engine compiles it for each robot;
``goal_changed``  the goal is the expected one (extended and init-augmented tasks keep theirs);
``goal_holds_initially``  (drafts only) the goal is not already met in the initial state;
``unsolved``    the reference planner strict-passes it for each robot;
``distractor_used``  the reference plan never touches an object that must stay irrelevant.

Engine and planner are called, never copied: when they change, validation follows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from symplan_core.bddl import BDDLSyntaxError, Formula, Problem, parse_problem
from symplan_core.bddl.checks import check_problem
from symplan_core.bddl.writer import write_problem
from symplan_core.engine.verify import CompiledTask, compile_task
from symplan_core.errors import SymPlanError
from symplan_core.planners.reference import plan_task

REASONS = ("parse", "check", "compile", "goal_changed", "goal_holds_initially", "unsolved", "distractor_used")


@dataclass
class Validation:
    """Outcome of :func:`validate_definition`: the canonical text, and per robot its compiled
    task and the reference plan's response and length."""

    ok: bool
    reason: str | None = None
    detail: str = ""
    bddl: str = ""
    tasks: dict[str, CompiledTask] = field(default_factory=dict)
    responses: dict[str, str] = field(default_factory=dict)
    commands: dict[str, int] = field(default_factory=dict)

    @classmethod
    def failed(cls, reason: str, detail: str, bddl: str = "") -> Validation:
        return cls(False, reason, detail, bddl)


def validate_definition(
    problem: Problem,
    robots: Sequence[str],
    expect_goal: Formula | None = None,
    require_open_goal: bool = False,
    irrelevant: Collection[str] = (),
    time_budget: float = 5.0,
) -> Validation:
    """Validate ``problem`` for every robot in ``robots`` (see the module docstring)."""
    text = write_problem(problem)
    try:
        parsed = parse_problem(text, f"<{problem.name}>")
    except BDDLSyntaxError as exc:
        return Validation.failed("parse", str(exc), text)
    if parsed != problem:
        return Validation.failed("parse", "the written text parses to a different problem", text)
    errors = [d for d in check_problem(parsed) if d.severity == "error"]
    if errors:
        return Validation.failed("check", errors[0].message, text)
    if expect_goal is not None and parsed.goal != expect_goal:
        return Validation.failed("goal_changed", "the goal differs from the definition's", text)
    result = Validation(True, bddl=text)
    for robot in robots:
        try:
            task = compile_task(parsed, robot)
        except SymPlanError as exc:  # the engine cannot compile this draft: its reason
            return Validation.failed("compile", f"{robot}: {type(exc).__name__}: {exc}", text)
        if require_open_goal and all(task.goal_report(task.initial_state())[0]):
            return Validation.failed("goal_holds_initially", "every goal conjunct already holds", text)
        plan = plan_task(task, problem.name, time_budget=time_budget)
        if not plan.strict_pass:
            return Validation.failed("unsolved", f"{robot}: {plan.reason or 'no strict-pass plan'}", text)
        touched = sorted({arg for _, args in plan.calls for arg in args} & set(irrelevant))
        if touched:
            return Validation.failed("distractor_used", f"{robot}: the plan uses {', '.join(touched)}", text)
        result.tasks[robot] = task
        result.responses[robot] = plan.response
        result.commands[robot] = plan.commands
    return result
