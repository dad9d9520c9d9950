"""``symplan solve``: the reference planner on one task, or the census over whole benchmarks."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import typer
from rich.progress import Progress
from rich.table import Table

from symplan_core.cli.common import ActionSetName, BenchmarkOrAll, benchmarks_of, console, fail, print_json
from symplan_core.fetch import DataError


class Robot(str, Enum):
    single = "single"
    dual = "dual"
    both = "both"


def register(app: typer.Typer) -> None:
    """Add ``solve`` to the ``symplan`` app."""
    app.command("solve")(solve)


def solve(
    task: str = typer.Argument(None, help="One task (name, bench/name or .bddl); omit for the census."),
    benchmark: BenchmarkOrAll = typer.Option(BenchmarkOrAll.all, help="Benchmark(s) for the census."),
    robot: Robot = typer.Option(Robot.both, help="Embodiment(s)."),
    actions: ActionSetName = typer.Option(ActionSetName.default,
                                          help="Action set: default = b100 for B-100, b1k (paper's 34) for B-1K; "
                                               "full = 34 + discovered."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON (per-task rows and summary)."),
    workers: int = typer.Option(0, help="Processes (0 = one per core)."),
    out: Path = typer.Option(None, help="Also write the JSON report here."),
) -> None:
    """Solve one task and print its plan, or run the census over whole benchmarks."""
    from symplan_core.planners.census import CensusJob, run_census, summarize
    from symplan_core.tasks import list_tasks

    robots = ["single", "dual"] if robot is Robot.both else [robot.value]
    act = None if actions is ActionSetName.default else actions.value
    if task:
        _solve_one(task, robots, act, json_out)
        return
    try:
        jobs = [CensusJob(b, name, r, act) for b in benchmarks_of(benchmark) for name in list_tasks(b) for r in robots]
    except DataError as exc:
        fail(str(exc))
    with Progress(console=console, disable=json_out) as bar:
        progress = bar.add_task("census", total=len(jobs))
        rows = run_census(jobs, workers or None, lambda: bar.advance(progress))
    summary = summarize(rows)
    report = {"summary": summary, "tasks": rows}
    if out:
        out.write_text(json.dumps(report, indent=1) + "\n")
    if json_out:
        print_json(report)
        return
    table = Table("benchmark/robot", "total", "solved", "strict_pass", "median cmds", "p90 cmds", "median s")
    for key, s in summary.items():
        table.add_row(key, str(s["total"]), str(s["solved"]), str(s["strict_pass"]), str(s["median_commands"]),
                      f"{s['p90_commands']:.1f}", f"{s['median_seconds']:.4f}")
    console.print(table)
    for row in rows:
        if not row["strict_pass"]:
            console.print(f"  {row['benchmark']}/{row['task']} ({row['robot']}): {row['reason']}", highlight=False)


def _solve_one(task: str, robots: list[str], actions: str | None, json_out: bool) -> None:
    from symplan_core.engine import compile_task
    from symplan_core.planners.reference import plan_task
    from symplan_core.tasks import load_problem

    try:
        problem = load_problem(task)
    except DataError as exc:
        fail(str(exc))
    results = [plan_task(compile_task(problem, r, actions), task) for r in robots]
    if json_out:
        print_json([{**r.to_json(), "response": r.response} for r in results])
        return
    for r in results:
        status = "strict-pass" if r.strict_pass else f"UNSOLVED: {r.reason}"
        console.print(f"[bold]{task}[/] ({r.robot}-arm): {r.commands} commands, {status}")
        if r.response:
            print(r.response)
