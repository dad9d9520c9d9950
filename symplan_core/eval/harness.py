"""The evaluation harness: episodes -> prompts -> planner -> engine -> JSONL + summary.

An *episode* is one activity on one embodiment (``b100/assembling_gift_baskets/single``), or,
with ``dataset``, one sample row of the data factory (its id, its extended task and its prompt).
A run directory holds ``run.json`` (the settings), ``samples.jsonl`` (one record per sampled
response, written an episode at a time and flushed), ``summary.json`` and the report.

Re-running into the same directory skips episodes whose samples are all in the JSONL (a torn
last line from a crash is ignored), so a run can be resumed after Ctrl-C, a crash or a dead
server. Ctrl-C (or SIGTERM) stops after flushing what is done and still writes the summary. A backend
failure (server down, timeout, garbage) is recorded on its sample and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from symplan_core.bddl import parse_problem
from symplan_core.data.samples import SampleRow, read_rows
from symplan_core.engine.verify import CompiledTask, compile_task
from symplan_core.errors import SymPlanError
from symplan_core.eval.metrics import Record, failed_verdict, score, summarize
from symplan_core.eval.splits import split_tasks
from symplan_core.llm import Completion, PlannerBackend, Sampling
from symplan_core.llm.decoding import DecodingError
from symplan_core.planners.reference_backend import make_planner_backend
from symplan_core.prompts import Variant, build_prompt
from symplan_core.runtime.repair import as_prompt, completion_fields, repair_sample
from symplan_core.tasks import load_problem

SAMPLES_FILE = "samples.jsonl"
SUMMARY_FILE = "summary.json"
RUN_FILE = "run.json"
# Settings that may change between a run and its resumption (they do not change any sample).
_RESUMABLE = frozenset({"limit", "out", "concurrency", "progress"})


class EvalConfig(BaseModel):
    """Settings of one evaluation run (``run.json``)."""

    model_config = ConfigDict(extra="forbid")

    benchmark: Literal["b100", "b1k"] | None = Field(default="b100", description="None for a dataset run: "
                                                     "its rows name their own benchmarks")
    split: Literal["test", "train", "all"] = "test"
    dataset: str | None = Field(default=None, description="sample-row JSONL (docs/data.md): its rows' prompts and "
                                "tasks instead of a benchmark's; split/robots filter the rows")
    robots: tuple[Literal["single", "dual"], ...] = ("single", "dual")
    planner: str = "reference"
    variant: Literal["guided", "forbid"] = "guided"
    samples: int = Field(default=1, ge=1)
    repair: int = Field(default=0, ge=0)
    fallback: bool = False
    temperature: float = Field(default=0.6, ge=0.0)
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    max_tokens: int = Field(default=2048, ge=1)
    seed: int | None = None
    limit: int | None = Field(default=None, ge=1, description="first N episodes only")
    concurrency: int = Field(default=8, ge=1, description="episodes sent to the backend at once")
    out: str = "runs/eval"

    def sampling(self) -> Sampling:
        return Sampling(temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens,
                        seed=self.seed)

    @model_validator(mode="after")
    def _dataset_has_no_benchmark(self) -> EvalConfig:
        if self.dataset is not None:
            self.benchmark = None
        return self


@dataclass(frozen=True)
class Episode:
    benchmark: str
    task: str
    robot: str
    row: SampleRow | None = field(default=None, compare=False, hash=False, repr=False)  # from --dataset

    @property
    def id(self) -> str:
        return self.row.id if self.row is not None else f"{self.benchmark}/{self.task}/{self.robot}"


@dataclass
class RunOutcome:
    out: Path
    summary: dict[str, Any]
    episodes_done: int
    episodes_skipped: int
    interrupted: bool


def episodes_for(config: EvalConfig) -> list[Episode]:
    if config.dataset is not None:
        if config.variant != "guided":
            raise ValueError("a dataset's rows carry their own prompts; --variant applies to benchmarks only")
        episodes = [Episode(row.benchmark, row.task, row.robot, row) for row in read_rows(Path(config.dataset))
                    if row.robot in config.robots and config.split in ("all", row.split)]
        return episodes[: config.limit] if config.limit else episodes
    if config.split == "train":
        raise ValueError("--split train needs --dataset (benchmarks have test and all)")
    assert config.benchmark is not None, "EvalConfig sets benchmark to None only for a dataset run"
    tasks = split_tasks(config.benchmark, config.split)
    episodes = [Episode(config.benchmark, task, robot) for task in tasks for robot in config.robots]
    return episodes[: config.limit] if config.limit else episodes


def read_records(path: Path) -> list[Record]:
    """Records of a JSONL file; unparsable lines (a torn write) are skipped."""
    if not path.is_file():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "episode" in record and "sample" in record:
            records.append(record)
    return records


def finished_episodes(records: Sequence[Record], samples: int) -> set[str]:
    seen: dict[str, set[int]] = {}
    for record in records:
        seen.setdefault(record["episode"], set()).add(int(record["sample"]))
    return {episode for episode, done in seen.items() if done >= set(range(samples))}


def prompt_id(episode: Episode, variant: str, messages: Sequence[dict[str, str]]) -> str:
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:12]
    return f"{episode.id}/{variant}#{digest}"


def _check_settings(out: Path, config: EvalConfig) -> None:
    path = out / RUN_FILE
    current = config.model_dump(mode="json")
    if path.is_file():
        previous = json.loads(path.read_text())
        changed = sorted(k for k in current if k not in _RESUMABLE and previous.get(k) != current[k])
        if changed:
            raise ValueError(f"{out} holds a run with different settings ({', '.join(changed)}); "
                             "use another --out directory")
    path.write_text(json.dumps(current, indent=2) + "\n")


@dataclass
class _Prepared:
    episode: Episode
    task: CompiledTask | None
    messages: list[dict[str, str]]
    prompt_id: str
    error: str | None = None


def _prepare(episode: Episode, variant: Variant) -> _Prepared:
    try:
        if episode.row is not None:  # a dataset row: its own task (extended BDDL) and prompt
            task = compile_task(parse_problem(episode.row.bddl, episode.id), episode.robot, episode.row.action_set)
            messages = episode.row.messages()
        else:
            task = compile_task(load_problem(f"{episode.benchmark}/{episode.task}"), episode.robot)
            messages = build_prompt(task, variant=variant)
    except SymPlanError as exc:  # a task that cannot be loaded or compiled is a recorded failure
        return _Prepared(episode, None, [], f"{episode.id}/{variant}", f"task: {type(exc).__name__}: {exc}")
    return _Prepared(episode, task, messages, prompt_id(episode, variant, messages))


def _records(prepared: _Prepared, completions: Sequence[Completion], config: EvalConfig,
             backend: PlannerBackend) -> list[Record]:
    ep = prepared.episode
    out = []
    for index, completion in enumerate(completions):
        record: Record = {"episode": ep.id, "prompt_id": prepared.prompt_id, "benchmark": ep.benchmark,
                          "task": ep.task, "robot": ep.robot, "variant": config.variant, "sample": index,
                          "planner": config.planner, **completion_fields(completion)}
        result = None
        if prepared.task is None or not completion.ok:
            record["verdict"], record["errors"] = failed_verdict(), []
        else:
            result, record["verdict"], record["errors"] = score(prepared.task, completion.text)
        if config.repair and prepared.task is not None:
            trace = repair_sample(backend, prepared.task, prepared.messages, completion, result, config.repair,
                                  config.sampling(), prepared.prompt_id, config.fallback)
            record["repair"] = trace.to_json()
        out.append(record)
    return out


def _plan(backend: PlannerBackend, batch: Sequence[_Prepared], config: EvalConfig) -> list[list[Completion]]:
    n = config.samples
    ready = [p for p in batch if p.task is not None]
    results: dict[int, list[Completion]] = {}
    if ready:
        prompts = [as_prompt(p.messages, p.task, p.prompt_id) for p in ready if p.task is not None]
        started = time.perf_counter()
        try:
            answers = backend.plan_many(prompts, n, config.sampling())
        except DecodingError:
            raise  # constrained decoding cannot be done as asked: stop, never decode freely instead
        except Exception as exc:  # noqa: BLE001 - backends should not raise; if one does, record it
            failed = Completion.failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
            answers = [[failed] * n for _ in ready]
        for prepared, completions in zip(ready, answers, strict=True):
            results[id(prepared)] = list(completions)
    return [results.get(id(p)) or [Completion.failed(p.error or "no response")] * n for p in batch]


def _chunks(items: Sequence[Episode], size: int) -> Iterator[Sequence[Episode]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def run_eval(
    config: EvalConfig,
    backend: PlannerBackend | None = None,
    progress: bool = True,
    on_episode: Callable[[Episode], None] | None = None,
    report: bool = True,
) -> RunOutcome:
    """Run (or resume) an evaluation; returns the summary over everything in the JSONL."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    _check_settings(out, config)
    samples_path = out / SAMPLES_FILE
    done = finished_episodes(read_records(samples_path), config.samples)
    episodes = episodes_for(config)
    todo = [e for e in episodes if e.id not in done]
    skipped = len(episodes) - len(todo)
    owns_backend = backend is None
    interrupted, finished = False, 0
    bar = _progress(progress)
    restore = _stop_on_sigterm()
    try:
        if todo and backend is None:
            backend = make_planner_backend(config.planner)
        with bar, samples_path.open("a") as fh:
            if samples_path.stat().st_size and not samples_path.read_bytes().endswith(b"\n"):
                fh.write("\n")  # end a torn last line so the next record starts on its own
            job = bar.add_task(f"{config.benchmark or Path(config.dataset or '').name} {config.planner}", total=len(episodes), completed=skipped)
            for chunk in _chunks(todo, config.concurrency):
                prepared = [_prepare(e, config.variant) for e in chunk]
                assert backend is not None
                for prep, completions in zip(prepared, _plan(backend, prepared, config), strict=True):
                    lines = "".join(json.dumps(r) + "\n" for r in _records(prep, completions, config, backend))
                    fh.write(lines)
                    fh.flush()
                    finished += 1
                    bar.advance(job)
                    if on_episode:
                        on_episode(prep.episode)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        restore()
        if owns_backend and backend is not None:
            backend.close()
    summary = write_summary(out, config, report)
    return RunOutcome(out, summary, finished, skipped, interrupted)


def write_summary(out: Path, config: EvalConfig, report: bool = True) -> dict[str, Any]:
    """Summary (and, with ``report``, the Markdown report and plots) of the run's episodes."""
    wanted = {e.id for e in episodes_for(config)}
    records = [r for r in read_records(out / SAMPLES_FILE) if r["episode"] in wanted]
    latest: dict[tuple[str, int], Record] = {(r["episode"], int(r["sample"])): r for r in records}
    summary = {"config": config.model_dump(mode="json"), "episodes_planned": len(wanted),
               **summarize(list(latest.values()), repair_rounds=config.repair)}
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    if report and latest:
        from symplan_core.eval.report import write_report

        write_report(out, list(latest.values()), summary)
    return summary


def _stop_on_sigterm() -> Callable[[], None]:
    """Treat SIGTERM like Ctrl-C while a run is going (schedulers, ``kill``, background jobs
    whose SIGINT the shell ignores); returns the function that restores the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _progress(enabled: bool):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    disable=not enabled, transient=False)
