"""The ``symplan`` command line."""

from __future__ import annotations

import typer

from symplan_core.cli import (
    eai_cmd,
    eval_cmd,
    factory_cmd,
    models_cmd,
    perceive_cmd,
    replay_cmd,
    solve_cmd,
    verify_cmd,
)
from symplan_core.cli.bddl_cmd import bddl_app
from symplan_core.cli.common import OneLineUsageErrors
from symplan_core.cli.data_cmd import data_app, tasks_app

app = typer.Typer(
    help="SymPlan: verifiable LLM task planning (BDDL, symbolic engine, planners, evaluation).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=OneLineUsageErrors,
)
app.add_typer(data_app, name="data")
factory_cmd.register(data_app)
app.add_typer(tasks_app, name="tasks")
app.add_typer(bddl_app, name="bddl")
verify_cmd.register(app)
solve_cmd.register(app)
models_cmd.register(app)
eval_cmd.register(app)
perceive_cmd.register(app)
eai_cmd.register(app)
replay_cmd.register(app)


@app.command("demo")
def demo(task: str = typer.Argument("b100/assembling_gift_baskets", help="Task to show.")) -> None:
    """Show one real task end to end: parse, check, environment view."""
    from symplan_core.cli.demo import run_demo

    run_demo(task)


if __name__ == "__main__":  # pragma: no cover
    app()
