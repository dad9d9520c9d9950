"""The ``symplan`` command line.

One module per top-level command, named after it (``symplan tasks`` -> ``tasks_cmd.py``), and
one way to register: each module's ``register(app)`` adds its command or its group to the app.
The order below is the order of ``symplan --help`` (Typer lists single commands before groups).
"""

from __future__ import annotations

import typer

from symplan_core.cli import (
    actions_cmd,
    bddl_cmd,
    data_cmd,
    demo_cmd,
    eai_cmd,
    eval_cmd,
    models_cmd,
    perceive_cmd,
    replay_cmd,
    solve_cmd,
    tasks_cmd,
    verify_cmd,
)
from symplan_core.cli.common import OneLineUsageErrors

app = typer.Typer(
    help="SymPlan: verifiable LLM task planning (BDDL, symbolic engine, planners, evaluation).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=OneLineUsageErrors,
)
COMMANDS = (verify_cmd, solve_cmd, replay_cmd, demo_cmd,
            data_cmd, tasks_cmd, bddl_cmd, actions_cmd, models_cmd, eval_cmd, perceive_cmd, eai_cmd)
for command in COMMANDS:
    command.register(app)


if __name__ == "__main__":  # pragma: no cover
    app()
