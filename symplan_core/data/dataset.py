"""A factory run written to disk: ``prompts.jsonl``, ``meta.json`` and a dataset card ``README.md``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from symplan_core.data.factory import Factory, FactoryConfig
from symplan_core.data.samples import write_rows

PROMPTS_FILE = "prompts.jsonl"
META_FILE = "meta.json"
CARD_FILE = "README.md"
PAPER_TABLE = (  # Table "Training and evaluation data statistics" of the paper (GPT-4o augmentation)
    {"split": "b1k/train", "original": 959, "init_aug": 376, "object_aug": 782, "total_defs": 2117, "episodes": 2117},
    {"split": "b1k/test", "original": 48, "init_aug": 9, "object_aug": 40, "total_defs": 97, "episodes": 194},
    {"split": "b100/test", "original": 100, "init_aug": 0, "object_aug": 0, "total_defs": 100, "episodes": 200},
)


def table_markdown(table: list[dict[str, Any]], paper: bool = True) -> str:
    """The split table (ours, and the paper's beside it)."""
    lines = ["| split | original | init aug | object aug | total defs | episodes |", "|---|---|---|---|---|---|"]
    rows = [("", table)] + ([(" (paper)", list(PAPER_TABLE))] if paper else [])
    for suffix, entries in rows:
        for r in entries:
            lines.append(f"| {r['split']}{suffix} | {r['original']} | {r['init_aug']} | {r['object_aug']} "
                         f"| {r['total_defs']} | {r['episodes']} |")
    return "\n".join(lines)


def build_dataset(config: FactoryConfig, test_activities: Collection[str], out: Path,
                  progress: Callable[[str], None] | None = None, command: str = "") -> dict[str, Any]:
    """Run the factory into ``out``; returns the metadata written to ``meta.json``. With
    ``config.paraphrase`` the dialogue's requirement turn is paraphrased through that backend."""
    if config.paraphrase:
        from symplan_core.planners.reference_backend import make_planner_backend

        with make_planner_backend(config.paraphrase) as backend:
            return _build(Factory(config, test_activities, paraphraser=backend), out, progress, command)
    return _build(Factory(config, test_activities), out, progress, command)


def _build(factory: Factory, out: Path, progress: Callable[[str], None] | None, command: str) -> dict[str, Any]:
    config = factory.config
    started = time.perf_counter()
    rows = write_rows(out / PROMPTS_FILE, factory.rows(progress))
    seconds = time.perf_counter() - started
    meta = {
        "config": config.model_dump(mode="json"), "command": command, "rows": rows,
        "seconds": round(seconds, 2), "rows_per_second": round(rows / seconds, 2) if seconds else None,
        "table": factory.table(), "placement_model_problems": factory.placements.problems,
        "test_activities": sorted(factory.test_activities),
        "gold_tokens": "null in prompt rows; `symplan data sft` fills it for kept rows",
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    (out / CARD_FILE).write_text(_card(meta))
    return meta


def _card(meta: dict[str, Any]) -> str:
    excluded = []
    for entry in meta["table"]:
        for reason, n in entry["excluded"].items():
            excluded.append(f"| {entry['split']} | {reason} | {n} |")
    return "\n".join([
        "# SymPlan planner samples", "",
        f"Built by `{meta['command'] or 'symplan data build'}` ({meta['rows']} rows, {meta['seconds']} s).",
        "Rows follow `docs/data.md` (the sample schema): load with",
        '`datasets.load_dataset("json", data_files="prompts.jsonl")`. Every task definition passed the',
        "factory's validation (parser round trip, checks, engine, reference planner strict-pass for each",
        "robot of its rows, goal unchanged where it must be). B-1K test activities (and everything",
        "derived from them) appear only with split `test`; distractors come from the room co-occurrence",
        f"of the {meta['placement_model_problems']} B-1K training activities only.", "",
        "## Split table", "", table_markdown(meta["table"]), "",
        "## Excluded (stage:reason)", "", "| split | reason | count |", "|---|---|---|", *excluded, "",
        "## Settings", "", "```json", json.dumps(meta["config"], indent=2), "```", "",
    ])
