"""``symplan actions list|discover``: the action specs as a table, and action discovery."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from symplan_core.cli.common import ActionSetName, Benchmark, console, fail, print_json
from symplan_core.fetch import DataError

actions_app = typer.Typer(help="List, document and discover actions.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the ``actions`` group to the ``symplan`` app."""
    app.add_typer(actions_app, name="actions")


@actions_app.command("list")
def actions_list(
    action_set: ActionSetName = typer.Option(ActionSetName.full, "--set", help="Which action set."),
    markdown: bool = typer.Option(False, help="Print the Markdown table used in docs/actions.md."),
) -> None:
    """List actions with parameters, preconditions and effects (from the specs)."""
    from symplan_core.engine.actions import action_set as get_set
    from symplan_core.engine.docs import action_table_markdown

    name = "full" if action_set is ActionSetName.default else action_set.value
    if markdown:
        print(action_table_markdown(name))
        return
    for spec in get_set(name).values():
        print(f"{spec.signature:28s} [{spec.added_in}] {spec.doc}")


@actions_app.command("discover")
def actions_discover(
    benchmark: Benchmark = typer.Option(Benchmark.b1k, help="Benchmark whose goals drive discovery."),
    base: Benchmark = typer.Option(Benchmark.b100, help="Base action set."),
    json_out: bool = typer.Option(False, "--json", help="Print the JSON report."),
    emit: Path = typer.Option(None, help="Write accepted specs (library JSON format) to this file."),
) -> None:
    """Scan goals, classify predicates, infer/propose actions, validate in the engine, emit."""
    from symplan_core.discovery import discover, save
    from symplan_core.engine.actions import action_set as get_set
    from symplan_core.planners.discovery_solver import solve_with
    from symplan_core.tasks import list_tasks, load_problem

    try:
        problems = {n: load_problem(n, benchmark.value) for n in list_tasks(benchmark.value)}
    except DataError as exc:
        fail(str(exc))
    with console.status("discovering actions"):
        report = discover(problems, list(get_set(base.value).values()), base.value, solve_with)
    if emit:
        save(report.emitted, emit)
    if json_out:
        print_json(report.to_json())
        return
    table = Table("", base.value.upper(), benchmark.value.upper())
    t = report.table()
    for key in ("base_actions", "uncovered_goal_predicates", "reviewed_proposals", "accepted_additions",
                "total_actions"):
        table.add_row(key.replace("_", " "), "--" if key != "base_actions" and key != "total_actions"
                      else str(t["base_actions"]), str(t[key]))
    table.add_row("resolved coverage", "100%", f"{t['resolved_coverage']:.0%}")
    console.print(table)
    for p in report.to_json()["proposals"]:
        mark = "accepted" if p["accepted"] else f"rejected ({p['note']})"
        console.print(f"  {p['action']:28s} for {p['for']:18s} solves {p['newly_solved']:3d} tasks: {mark}")
