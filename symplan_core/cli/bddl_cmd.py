"""``symplan bddl parse|check``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import track

from symplan_core.bddl import BDDLSyntaxError, parse_file
from symplan_core.bddl.checks import check_problem
from symplan_core.cli.common import (
    Benchmark,
    BenchmarkOrAll,
    OneLineUsageErrors,
    benchmarks_of,
    console,
    fail,
    print_json,
)
from symplan_core.fetch import DataError

bddl_app = typer.Typer(help="Parse, check and print BDDL problems.", no_args_is_help=True,
                       cls=OneLineUsageErrors)


def register(app: typer.Typer) -> None:
    """Add the ``bddl`` group to the ``symplan`` app."""
    app.add_typer(bddl_app, name="bddl")


@bddl_app.command("parse")
def bddl_parse(
    task: str = typer.Argument(..., help="Activity name, BENCH/activity, or a .bddl file path."),
    benchmark: Benchmark | None = typer.Option(None, help="Benchmark to look the activity up in."),
    json_out: bool = typer.Option(False, "--json", help="Print the problem as JSON."),
    canonical: bool = typer.Option(False, "--canonical", help="Print canonical BDDL text."),
) -> None:
    """Parse one problem; print JSON (name, domain, objects, init, goal) or canonical BDDL."""
    from symplan_core.bddl.writer import write_problem
    from symplan_core.tasks import problem_path

    if json_out and canonical:
        fail("--json and --canonical exclude each other; pick one")
    try:
        _bench, path = problem_path(task, benchmark.value if benchmark else None)
        problem = parse_file(path)
    except (DataError, BDDLSyntaxError, OSError, UnicodeDecodeError) as exc:
        fail(str(exc))
    if json_out:
        data = problem.to_json()
        data["diagnostics"] = [d.to_json() for d in check_problem(problem)]
        print_json(data)
    elif canonical:
        print(write_problem(problem), end="")
    else:
        console.print(f"{problem.name} ({problem.domain}): {len(problem.objects)} objects, "
                      f"{len(problem.init)} init literals", markup=False, soft_wrap=True)
        for diag in check_problem(problem):
            console.print(str(diag), markup=False, highlight=False, soft_wrap=True)


@bddl_app.command("check")
def bddl_check(
    benchmark: BenchmarkOrAll = typer.Option(BenchmarkOrAll.all, help="Which benchmark's files."),
    files: list[Path] = typer.Argument(None, help="Check these files instead of a benchmark."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON report."),
) -> None:
    """Parse and check every problem; report totals, syntax failures and diagnostics."""
    from symplan_core.tasks import benchmark_dir

    missing = [str(f) for f in files or [] if not f.is_file()]
    if missing:
        fail(f"no such BDDL file: {', '.join(missing)}")
    try:
        paths = list(files) if files else [
            p for b in benchmarks_of(benchmark) for p in sorted((benchmark_dir(b) / "problems").glob("*.bddl"))
        ]
    except DataError as exc:
        fail(str(exc))
    failures, listed = [], []
    counts: dict[str, int] = {}
    parsed = 0
    for path in track(paths, description="checking", console=console, disable=json_out or len(paths) < 50):
        try:
            problem = parse_file(path)
        except BDDLSyntaxError as exc:
            failures.append({"file": str(path), "line": exc.pos.line, "col": exc.pos.col, "message": exc.message})
            continue
        except (OSError, UnicodeDecodeError) as exc:
            failures.append({"file": str(path), "line": 0, "col": 0, "message": str(exc)})
            continue
        parsed += 1
        for diag in check_problem(problem):
            key = f"{diag.severity}:{diag.code}"
            counts[key] = counts.get(key, 0) + 1
            listed.append(diag.to_json())
    report = {"total": len(paths), "parsed": parsed, "failures": failures, "diagnostics": counts,
              "diagnostic_list": listed}
    if json_out:
        print_json(report)
    else:
        console.print(f"{parsed}/{len(paths)} parsed; diagnostics: {counts or 'none'}", markup=False, soft_wrap=True)
        for f in failures:
            console.print(f"{f['file']}:{f['line']}:{f['col']}: {f['message']}", markup=False, highlight=False,
                          soft_wrap=True)
    if failures:
        raise typer.Exit(1)
