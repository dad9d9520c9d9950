"""``symplan eval run`` and ``symplan eval compare``: the evaluation harness on the command line.

Register with ``eval_cmd.register(app)`` in ``symplan_core/cli/main.py``.
"""

from __future__ import annotations

from pathlib import Path

import typer

from symplan_core.cli.common import Benchmark, console, fail, with_decoding_flags

eval_app = typer.Typer(help="Evaluate a planner on B-100 / B-1K (SP, EP, GCR, Err, pass@k).",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("run")
def run(
    benchmark: Benchmark = typer.Option(Benchmark.b100, "--benchmark", help="b100 or b1k."),
    split: str | None = typer.Option(None, "--split", help="test (B-1K: committed held-out split) or all "
                                     "(default test); with --dataset: the rows' split, train, test or all (default all)."),
    dataset: Path | None = typer.Option(None, "--dataset", help="Sample-row JSONL from `symplan data build`: "
                                        "evaluate its rows (their prompts and extended tasks) instead of --benchmark."),
    robot: str = typer.Option("single,dual", "--robot", help="Comma-separated embodiments."),
    planner: str = typer.Option("reference", "--planner", help="Backend spec, e.g. transformers:smollm2."),
    decoding: str | None = typer.Option(None, "--decoding", help="free, grammar (answer format, the task's actions "
                                        "and fitting objects) or guided (each call executable in the engine's "
                                        "state); sets the spec's decoding= key (docs/models.md)."),
    think: str | None = typer.Option(None, "--think", help="Under grammar/guided: keep, skip, or a cap in characters "
                                     "for <think>."),
    steps: str | None = typer.Option(None, "--steps", help="Under grammar/guided: keep (at most 1200 characters), "
                                     "skip, or a cap in characters for <steps> (the plan written as text)."),
    samples: int = typer.Option(1, "--samples", min=1, help="Samples per episode (pass@k when > 1)."),
    repair: int = typer.Option(0, "--repair", min=0, help="Verifier-in-the-loop repair rounds."),
    fallback: bool = typer.Option(False, "--fallback", help="After failed repair, use the reference planner."),
    variant: str = typer.Option("guided", "--variant", help="Prompt variant: guided or forbid."),
    temperature: float = typer.Option(0.6, "--temperature"),
    top_p: float = typer.Option(0.9, "--top-p"),
    max_tokens: int = typer.Option(2048, "--max-tokens", min=1),
    seed: int | None = typer.Option(None, "--seed"),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Episodes sent to the backend at once."),
    out: Path = typer.Option(Path("runs/eval"), "--out", help="Run directory (re-use it to resume)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="First N episodes only."),
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """Run (or resume) an evaluation; writes samples.jsonl, summary.json, report.md and plots."""
    from pydantic import ValidationError

    from symplan_core.eval.harness import EvalConfig, run_eval
    from symplan_core.eval.report import markdown
    from symplan_core.llm import BackendSpecError, BackendUnavailableError

    robots = tuple(r.strip() for r in robot.split(",") if r.strip())
    planner = with_decoding_flags(planner, decoding, think, steps)
    try:
        config = EvalConfig(benchmark=benchmark.value, split=split or ("all" if dataset else "test"),
                            dataset=str(dataset) if dataset else None, robots=robots, planner=planner,
                            variant=variant, samples=samples, repair=repair, fallback=fallback,
                            temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                            limit=limit, concurrency=concurrency, out=str(out))
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    from symplan_core.llm.decoding import DecodingError

    try:
        outcome = run_eval(config, progress=not no_progress)
    except (BackendSpecError, BackendUnavailableError, DecodingError, ValueError) as exc:
        fail(str(exc))
    typer.echo(markdown(outcome.summary, title=f"Evaluation: {out}"))
    console.print(f"{outcome.episodes_done} episodes run, {outcome.episodes_skipped} already done; "
                  f"results in {out}", highlight=False)
    if outcome.interrupted:
        console.print("interrupted: finished episodes are saved; re-run the same command to resume")
        raise typer.Exit(130)


@eval_app.command("compare")
def compare(
    run_a: Path = typer.Argument(..., help="Run directory (or its summary.json)."),
    run_b: Path = typer.Argument(..., help="Run directory (or its summary.json)."),
) -> None:
    """Print two runs' metrics side by side."""
    from rich.console import Console
    from rich.table import Table

    from symplan_core.eval.report import compare_rows, load_summary

    summaries = []
    for run_dir in (run_a, run_b):
        try:
            summaries.append(load_summary(run_dir))
        except (OSError, ValueError) as exc:
            fail(f"cannot read a summary from {run_dir}: {exc}")
    table = Table("metric", str(run_a), str(run_b))
    for name, a, b in compare_rows(*summaries):
        table.add_row(name, a, b)
    Console().print(table)


if __name__ == "__main__":  # pragma: no cover - `python -m symplan_core.cli.eval_cmd run ...`
    eval_app()
