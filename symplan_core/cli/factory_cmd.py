"""``symplan data build`` (the data factory) and ``symplan data sft`` (rejection sampling).

Registered on the ``symplan data`` group with ``factory_cmd.register(data_app)``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from symplan_core.cli.common import console, fail, print_json

SPLIT_CHOICES = "b1k/train, b1k/test, b100/test"


def register(data_app: typer.Typer) -> None:
    data_app.command("build")(build)
    data_app.command("sft")(sft)


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


def _tasks(value: str | None) -> tuple[str, ...] | None:
    """``a,b,c`` or ``@file`` (one activity per line, ``#`` comments)."""
    if value and value.startswith("@"):
        path = Path(value[1:])
        if not path.is_file():
            fail(f"no task list file {path}")
        lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
        return tuple(line for line in lines if line)
    return _csv(value)


def _errors(exc) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())


def build(
    out: Path = typer.Option(..., "--out", help="Output directory: prompts.jsonl, meta.json, README.md."),
    split: str = typer.Option("b1k/train,b1k/test,b100/test", "--split", help=f"Comma-separated: {SPLIT_CHOICES}."),
    tasks: str | None = typer.Option(None, "--tasks", help="Only these activities (name or bench/name): a,b,c or @file (one per line)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every draw (augmentation, distractors, dialogue)."),
    distractors: int = typer.Option(3, "--distractors", min=0, help="Scene distractors per definition."),
    init_aug: int = typer.Option(1, "--init-aug", min=0, help="Valid init-aug definitions wanted per activity."),
    object_aug: int = typer.Option(1, "--object-aug", min=0, help="Valid object-aug definitions wanted per activity."),
    attempts: int = typer.Option(4, "--attempts", min=1, help="Drafts tried per wanted augmentation."),
    augment: str = typer.Option("b1k/train,b1k/test", "--augment", help="Splits that are augmented ('' for none)."),
    train_robots: str = typer.Option("one", "--train-robots", help="one (the paper: one robot per training "
                                     "definition, drawn from its id) or both."),
    max_gold_commands: int | None = typer.Option(None, "--max-gold-commands", min=1,
                                                 help="Keep rows whose reference plan has at most N commands."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="First N activities per split."),
    paraphrase: str | None = typer.Option(None, "--paraphrase", help="Backend spec that paraphrases each "
                                          "dialogue's requirement turn (kept only if names and numbers survive)."),
    json_out: bool = typer.Option(False, "--json", help="Print the metadata as JSON."),
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """Build planner samples: validated originals, seeded augmentations, scene distractors, dialogue prompts.

    Every definition is validated by our parser, the engine and the reference planner; invalid
    drafts are excluded and counted per reason (meta.json, README.md).
    """
    from pydantic import ValidationError

    from symplan_core.data.dataset import build_dataset, table_markdown
    from symplan_core.data.factory import FactoryConfig
    from symplan_core.eval.splits import split_tasks
    from symplan_core.fetch import DataError
    from symplan_core.llm import BackendSpecError, BackendUnavailableError

    try:
        config = FactoryConfig(splits=_csv(split) or (), tasks=_tasks(tasks), seed=seed, distractors=distractors,
                               init_aug=init_aug, object_aug=object_aug, attempts=attempts,
                               augment=_csv(augment) or (), train_robots=train_robots,
                               max_gold_commands=max_gold_commands, limit=limit, paraphrase=paraphrase)
    except ValidationError as exc:
        fail(_errors(exc))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    try:
        test_activities = split_tasks("b1k", "test")
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      disable=no_progress, console=console) as bar:
            job = bar.add_task("activities", total=None)
            meta = build_dataset(config, test_activities, out, lambda _split: bar.advance(job),
                                 command="symplan data " + " ".join(sys.argv[2:]))
    except (DataError, OSError, BackendSpecError, BackendUnavailableError) as exc:
        fail(str(exc))
    if json_out:
        print_json(meta)
        return
    print(table_markdown(meta["table"]))
    console.print(f"{meta['rows']} rows in {meta['seconds']} s -> {out}", highlight=False)


def sft(
    teacher: str = typer.Option(..., "--teacher", help="Backend spec: reference, transformers:..., openai:..., vllm:..."),
    decoding: str | None = typer.Option(None, "--decoding", help="Teacher decoding: free, grammar or guided "
                                        "(sets the spec's decoding= key; docs/models.md)."),
    think: str | None = typer.Option(None, "--think", help="Under grammar/guided: keep, skip or a cap in characters."),
    k: int = typer.Option(4, "--k", min=1, help="Samples drawn per prompt."),
    out: Path = typer.Option(..., "--out", help="Run directory (re-use it to resume)."),
    prompts: Path | None = typer.Option(None, "--prompts", help="Prompt rows from `symplan data build` "
                                        "(default OUT/prompts.jsonl, built for b1k/train when missing)."),
    temperature: float = typer.Option(0.6, "--temperature"),
    top_p: float = typer.Option(0.9, "--top-p"),
    max_tokens: int = typer.Option(2048, "--max-tokens", min=1),
    seed: int | None = typer.Option(None, "--seed"),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Prompts sent to the teacher at once."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="First N prompt rows only."),
    tokenizer: str | None = typer.Option(None, "--tokenizer", help="Count gold_tokens with this tokenizer "
                                         "(e.g. smollm2); default: the teacher's own counts."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """Rejection sampling: K teacher answers per prompt, keep the shortest strict pass (OUT/sft.jsonl).

    Resumable and interruptible like `symplan eval run`; teacher failures are counted per reason.
    """
    from pydantic import ValidationError

    from symplan_core.data.samples import SampleFileError
    from symplan_core.eval.rejection import RejectionConfig, run_rejection
    from symplan_core.llm import BackendSpecError, BackendUnavailableError
    from symplan_core.llm.decoding import DecodingError
    from symplan_core.llm.spec import with_decoding

    try:
        teacher = with_decoding(teacher, decoding, think)
    except BackendSpecError as exc:
        fail(str(exc))
    if prompts is None:
        prompts = out / "prompts.jsonl"
        if not prompts.is_file():
            _default_prompts(out)
    try:
        config = RejectionConfig(prompts=str(prompts), teacher=teacher, k=k, temperature=temperature, top_p=top_p,
                                 max_tokens=max_tokens, seed=seed, concurrency=concurrency, limit=limit,
                                 out=str(out), tokenizer=tokenizer)
    except ValidationError as exc:
        fail(_errors(exc))
    try:
        outcome = run_rejection(config, progress=not no_progress)
    except (BackendSpecError, BackendUnavailableError, DecodingError, SampleFileError, ValueError, OSError) as exc:
        fail(str(exc))
    summary = outcome.summary
    if json_out:
        print_json(summary)
    else:
        share = f"{100 * summary['yield']:.1f}%" if summary["yield"] is not None else "n/a"
        console.print(f"kept {summary['kept']} of {summary['sampled']} sampled prompts (yield {share}); "
                      f"excluded: {summary['excluded'] or 'none'}; answers: {summary['answers']}; "
                      f"-> {out / 'sft.jsonl'}", highlight=False, soft_wrap=True)
    if outcome.run.interrupted:
        console.print("interrupted: finished prompts are saved; re-run the same command to resume")
        raise typer.Exit(130)


def _default_prompts(out: Path) -> None:
    from symplan_core.data.dataset import build_dataset
    from symplan_core.data.factory import FactoryConfig
    from symplan_core.eval.splits import split_tasks
    from symplan_core.fetch import DataError

    console.print(f"no {out / 'prompts.jsonl'}: building the b1k/train prompt rows first", highlight=False)
    try:
        build_dataset(FactoryConfig(splits=("b1k/train",)), split_tasks("b1k", "test"), out,
                      command=f"symplan data build --split b1k/train --out {out}")
    except (DataError, OSError) as exc:
        fail(str(exc))
