"""``symplan demo``: the most complete end-to-end job available in this install."""

from __future__ import annotations

import typer
from rich.panel import Panel

from symplan_core.bddl.checks import check_problem
from symplan_core.bddl.environment import render_environment
from symplan_core.bddl.writer import write_formula
from symplan_core.cli.common import console, fail
from symplan_core.fetch import DataError


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the ``symplan`` app."""
    app.command("demo")(demo)


def demo(task: str = typer.Argument("b100/assembling_gift_baskets", help="Task to show.")) -> None:
    """Show one real task end to end: parse, check, environment view."""
    from symplan_core.tasks import load_problem

    try:
        problem = load_problem(task)
    except DataError as exc:
        fail(str(exc))
    console.print(Panel(render_environment(problem), title=f"{problem.name}: environment (planner view)"))
    console.print(Panel(write_formula(problem.goal), title="goal (never shown to the planner verbatim)"))
    diags = check_problem(problem)
    console.print(f"diagnostics: {len(diags)}" + "".join(f"\n  {d}" for d in diags))
