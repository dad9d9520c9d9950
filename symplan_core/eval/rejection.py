"""Symbolic rejection sampling: K teacher samples per prompt row, keep the shortest strict pass.

Sampling *is* an evaluation run over the prompt rows (``run_eval`` with ``dataset=`` and
``samples=K``), so it is resumable and interruptible exactly like ``symplan eval``: the teacher's
answers land in ``OUT/samples.jsonl`` an episode at a time, a re-run skips finished rows, Ctrl-C
keeps what is done, and a failed teacher call is recorded on its sample. Every answer is scored
by the same call ``symplan eval`` uses. Selection then reads that log and writes

* ``OUT/sft.jsonl``: one SFT row per prompt with a strict pass (the prompt row plus its
  ``completion``: the shortest strict-pass answer, fewest commands first, then fewest tokens);
* ``OUT/sft_summary.json``: prompts, kept, yield, prompts without a pass by reason, and every
  answer's outcome by reason (backend errors by kind, format, engine error kind, goal unmet).

``teacher="reference"`` gives teacher-free gold data (the reference planner answers).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from symplan_core.data.samples import ChatTurn, SampleRow, read_rows, write_rows
from symplan_core.eval.harness import SAMPLES_FILE, EvalConfig, RunOutcome, read_records, run_eval
from symplan_core.eval.metrics import Record
from symplan_core.llm import PlannerBackend

SFT_FILE = "sft.jsonl"
SFT_SUMMARY_FILE = "sft_summary.json"


class RejectionConfig(BaseModel):
    """Settings of ``symplan data sft`` (the sampling part is recorded in ``OUT/run.json``)."""

    model_config = ConfigDict(extra="forbid")

    prompts: str = Field(description="prompt rows (JSONL) from `symplan data build`")
    teacher: str = "reference"
    k: int = Field(default=4, ge=1, description="samples per prompt")
    temperature: float = Field(default=0.6, ge=0.0)
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    max_tokens: int = Field(default=2048, ge=1)
    seed: int | None = None
    concurrency: int = Field(default=8, ge=1)
    limit: int | None = Field(default=None, ge=1, description="first N prompt rows only")
    out: str = "runs/sft-data"
    tokenizer: str | None = Field(default=None, description="count gold_tokens with this tokenizer "
                                  "(a transformers: target, e.g. smollm2); default: the teacher's counts")

    def eval_config(self) -> EvalConfig:
        return EvalConfig(dataset=self.prompts, split="all", planner=self.teacher, samples=self.k,
                          temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens, seed=self.seed,
                          concurrency=self.concurrency, limit=self.limit, out=self.out)


@dataclass
class RejectionOutcome:
    run: RunOutcome
    summary: dict[str, Any]


def attempt_outcome(record: Record) -> str:
    """Why one answer was (not) kept: ``strict_pass``, ``backend_error:<Kind>``, ``task_error``,
    ``format``, ``engine_error:<KIND>`` or ``goal_unmet``."""
    error = record.get("backend_error")
    if error is not None:
        return "task_error" if error.startswith("task:") else "backend_error:" + error.split(":", 1)[0].strip()
    verdict = record["verdict"]
    if verdict["strict_pass"]:
        return "strict_pass"
    if not verdict["format_ok"]:
        return "format"
    if record.get("errors"):
        return "engine_error:" + str(record["errors"][0].get("kind", "unknown"))
    return "goal_unmet"


def _length(record: Record) -> tuple[int, int]:
    tokens = record.get("completion_tokens")
    return record["verdict"]["commands"], tokens if tokens is not None else len(record["response"])


def shortest_pass(records: Sequence[Record]) -> Record | None:
    """The strict-pass answer with the fewest commands, then the fewest tokens (characters when the
    teacher reports none); ties keep the earlier sample."""
    passing = [r for r in records if r.get("backend_error") is None and r["verdict"]["strict_pass"]]
    return min(passing, key=lambda r: (*_length(r), int(r["sample"]))) if passing else None


def _prompt_outcome(records: Sequence[Record]) -> str:
    reasons = {attempt_outcome(r) for r in records}
    if reasons == {"task_error"}:
        return "task_error"
    if all(reason.startswith("backend_error") for reason in reasons):
        return "all_samples_backend_error"
    return "no_strict_pass"


def token_counter(spec: str | None):
    """``text -> token count`` with a transformers tokenizer (None: use the teacher's counts)."""
    if spec is None:
        return None
    from transformers import AutoTokenizer

    from symplan_core.llm.transformers_backend import hf_model_directory

    tokenizer = AutoTokenizer.from_pretrained(hf_model_directory(spec.removeprefix("transformers:")),
                                              local_files_only=True)
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def select(config: RejectionConfig) -> dict[str, Any]:
    """Write ``sft.jsonl`` and ``sft_summary.json`` from the sampling log; returns the summary."""
    out = Path(config.out)
    rows: list[SampleRow] = read_rows(Path(config.prompts))
    rows = rows[: config.limit] if config.limit else rows
    by_episode: dict[str, dict[int, Record]] = {}
    for record in read_records(out / SAMPLES_FILE):
        by_episode.setdefault(record["episode"], {})[int(record["sample"])] = record  # the latest wins
    count = token_counter(config.tokenizer)
    kept: list[SampleRow] = []
    missing: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    sampled = 0
    for row in rows:
        records = list(by_episode.get(row.id, {}).values())
        if len(records) < config.k:
            continue  # not sampled yet (an interrupted run): neither kept nor excluded
        sampled += 1
        answers.update(attempt_outcome(r) for r in records)
        best = shortest_pass(records)
        if best is None:
            missing[_prompt_outcome(records)] += 1
            continue
        tokens = count(best["response"]) if count else best.get("completion_tokens")
        kept.append(row.model_copy(update={
            "completion": [ChatTurn(role="assistant", content=best["response"])],
            "gold_tokens": tokens, "gold_commands": best["verdict"]["commands"]}))
    write_rows(out / SFT_FILE, kept)
    summary = {
        "prompts": len(rows), "sampled": sampled, "kept": len(kept),
        "yield": round(len(kept) / sampled, 4) if sampled else None,
        "excluded": dict(sorted(missing.items())), "answers": dict(sorted(answers.items())),
        "teacher": config.teacher, "k": config.k,
        "gold_tokens_tokenizer": config.tokenizer or "the teacher's reported completion tokens (null if none)",
        "config": config.model_dump(mode="json"),
    }
    (out / SFT_SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def run_rejection(config: RejectionConfig, backend: PlannerBackend | None = None,
                  progress: bool = True) -> RejectionOutcome:
    """Sample (or resume sampling), then select; selection also runs after an interruption."""
    run = run_eval(config.eval_config(), backend=backend, progress=progress, report=False)
    return RejectionOutcome(run, select(config))
