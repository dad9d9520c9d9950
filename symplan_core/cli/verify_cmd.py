"""``symplan verify TASK PLAN_FILE``: score one plan against one task.

The verdict (pass or fail) is data: the command exits 0 whatever it is. Only
usage/input errors (unknown task, unreadable plan file, bad BDDL) exit non-zero
with one line on stderr.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from symplan_core.cli.common import Benchmark, fail, print_json


class Robot(str, Enum):
    single = "single"
    dual = "dual"


def read_plan(plan_file: str) -> str:
    """Plan text from a file, or stdin for ``-``; input errors end the command."""
    if plan_file == "-":
        return sys.stdin.read()
    path = Path(plan_file)
    if not path.is_file():
        fail(f"no such plan file: {plan_file}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read plan file {plan_file}: {exc}")


def _print_summary(task_name: str, robot: str, result) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console()
    verdict = ("[bold green]STRICT PASS[/]" if result.strict_pass else
               "[bold yellow]ENGINE PASS (with errors)[/]" if result.engine_pass else "[bold red]FAIL[/]")
    out.print(f"{task_name} ({robot}-arm): {verdict}")
    held = sum(result.goal_conjuncts)
    out.print(f"GCR {result.gcr:.3f} ({held}/{len(result.goal_conjuncts)} goal conjuncts), "
              f"grounded fraction {result.grounded_fraction:.3f}, {result.commands} commands, "
              f"executable prefix {result.executable_prefix}, format ok: {result.format_ok}")
    for issue in result.format_issues:
        out.print(f"  format: {issue}", highlight=False)
    for title, rows in (("Errors", result.errors), ("Warnings", result.warnings),
                        ("Diagnostics (abilities assumed, not checked)", result.diagnostics)):
        if not rows:
            continue
        table = Table(title=title, show_lines=False)
        for col in ("step", "call", "kind", "message", "hint"):
            table.add_column(col, overflow="fold")
        for e in rows:
            table.add_row(str(e.step_number), e.call, e.kind.value, e.message, e.hint)
        out.print(table)
    if result.trace:
        for step in result.trace:
            added = " ".join("(" + " ".join(lit) + ")" for lit in step["added"])
            removed = " ".join("(" + " ".join(lit) + ")" for lit in step["removed"])
            out.print(f"  [{step['step']}] {step['call']}  +{added or '-'}  -{removed or '-'}", highlight=False)


def verify_command(
    task: str = typer.Argument(..., help="Activity name, BENCH/activity, or a .bddl file path."),
    plan_file: str = typer.Argument(..., help="Plan file (response text or bare code); '-' reads stdin."),
    benchmark: Benchmark | None = typer.Option(None, help="Benchmark to look the activity up in."),
    robot: Robot = typer.Option(Robot.single, help="single-arm (1 hand) or dual-arm (2 hands)."),
    json_out: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    trace: bool = typer.Option(False, "--trace", help="Include the per-step trace with state deltas."),
) -> None:
    """Execute a plan against a task's initial state; report GCR, Engine-/Strict-Pass and errors."""
    from symplan_core.bddl import BDDLError
    from symplan_core.engine import compile_task, verify
    from symplan_core.errors import TaskError
    from symplan_core.fetch import DataError
    from symplan_core.tasks import load_problem

    try:
        problem = load_problem(task, benchmark.value if benchmark else None)
    except (DataError, BDDLError, OSError, UnicodeDecodeError) as exc:
        fail(str(exc))
    plan_text = read_plan(plan_file)
    try:
        compiled = compile_task(problem, robot=robot.value)
    except (TaskError, DataError) as exc:  # DataError: the packaged synset table is unreadable
        fail(f"cannot compile task {task}: {exc}")
    result = verify(compiled, plan_text, trace=trace)
    if json_out:
        data = result.to_json()
        data["task"] = problem.name
        data["robot"] = robot.value
        print_json(data)
    else:
        _print_summary(problem.name, robot.value, result)


def register(app: typer.Typer) -> None:
    """Add ``verify`` to the ``symplan`` app."""
    app.command("verify")(verify_command)
