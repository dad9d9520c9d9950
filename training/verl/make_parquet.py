"""Sample rows (JSONL, docs/data.md) -> verl's RL parquet: ``prompt`` (chat), ``data_source``,
``reward_model.ground_truth`` (the BDDL the engine verifies against), ``extra_info`` (robot,
action set, row id) -- the fields ``compute_score`` reads.

    python training/verl/make_parquet.py rows.jsonl data/verl/train.parquet
"""

from __future__ import annotations

import sys
from pathlib import Path

from symplan_core.data.samples import SampleFileError, iter_rows


def verl_record(row) -> dict:
    return {"data_source": f"symplan/{row.benchmark}", "prompt": row.messages(), "ability": "planning",
            "reward_model": {"style": "rule", "ground_truth": row.bddl},
            "extra_info": {"id": row.id, "robot": row.robot, "action_set": row.action_set, "task": row.task}}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: make_parquet.py ROWS.jsonl OUT.parquet", file=sys.stderr)
        return 2
    import pandas as pd

    try:
        records = [verl_record(row) for row in iter_rows(Path(argv[0]))]
    except SampleFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    Path(argv[1]).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(records).to_parquet(argv[1])
    print(f"{len(records)} rows -> {argv[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
