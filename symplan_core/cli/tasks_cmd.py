"""``symplan tasks list|synset``: the task names of B-100 / B-1K and synset abilities."""

from __future__ import annotations

import typer
from rich.table import Table

from symplan_core.cli.common import Benchmark, OneLineUsageErrors, console, fail, print_json
from symplan_core.fetch import BENCHMARKS, DataError

tasks_app = typer.Typer(help="List and inspect tasks.", no_args_is_help=True, cls=OneLineUsageErrors)


def register(app: typer.Typer) -> None:
    """Add the ``tasks`` group to the ``symplan`` app."""
    app.add_typer(tasks_app, name="tasks")


@tasks_app.command("list")
def tasks_list(
    benchmark: Benchmark | None = typer.Option(None, help="Only this benchmark (default: both)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the task (activity) names of B-100 and/or B-1K."""
    from symplan_core.tasks import list_tasks

    benches = [benchmark.value] if benchmark else list(BENCHMARKS)
    try:
        listing = {b: list_tasks(b) for b in benches}
    except DataError as exc:
        fail(str(exc))
    if json_out:
        print_json(listing)
        return
    for bench, names in listing.items():
        for name in names:
            print(f"{bench}\t{name}")


@tasks_app.command("synset")
def tasks_synset(synset: str = typer.Argument(..., help="e.g. cabinet.n.01")) -> None:
    """Show the ability flags of a synset (with the hierarchy fallback)."""
    from symplan_core.tasks import synset_info

    try:
        info = synset_info(synset)
    except DataError as exc:
        fail(str(exc))
    if info is None:
        fail(f"synset {synset!r} is unknown to BEHAVIOR's table and hierarchy")
    table = Table("synset", "resolved from", "object type", "abilities")
    table.add_row(synset, info.synset, info.object_type, ", ".join(sorted(info.abilities)) or "-")
    console.print(table)
