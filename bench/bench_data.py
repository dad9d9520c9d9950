"""Data-factory throughput: sample rows built per second over the whole B-1K train split.

    python bench/bench_data.py [--limit N] [--seed S] [--json]

Times ``Factory.rows()`` with the default settings of ``symplan data build`` (3 distractors,
one init-aug and one object-aug definition wanted per activity, 4 drafts per wanted one, one
robot per training definition): loading each task, drafting, validating every draft with the
parser, checks, engine and reference planner, adding and re-validating distractors, and building
the dialogue prompt. Building the room co-occurrence model (read once per run) is timed apart.
Wall and CPU time are both given: on a shared machine the wall time includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import time

from symplan_core.data.factory import Factory, FactoryConfig
from symplan_core.eval.splits import split_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N activities only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    factory = Factory(FactoryConfig(splits=("b1k/train",), seed=args.seed, limit=args.limit),
                      split_tasks("b1k", "test"))
    started = time.perf_counter()
    placement_problems = factory.placements.problems
    placement_seconds = time.perf_counter() - started
    started, cpu_started = time.perf_counter(), time.process_time()
    rows = sum(1 for _ in factory.rows())
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    counts = factory.counts["b1k/train"]
    result = {
        "activities": counts.activities, "definitions": counts.total, "rows": rows,
        "rows_per_second": round(rows / seconds, 1), "cpu_rows_per_second": round(rows / cpu_seconds, 1),
        "ms_per_row": round(1000 * seconds / rows, 2), "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu_seconds, 2), "placement_model_seconds": round(placement_seconds, 2),
        "placement_model_problems": placement_problems, "table": counts.to_json(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{rows} rows ({counts.total} definitions, {counts.activities} activities) in {seconds:.1f} s wall / "
              f"{cpu_seconds:.1f} s CPU: {result['rows_per_second']} rows/s wall, "
              f"{result['cpu_rows_per_second']} rows/s CPU; room model {placement_seconds:.1f} s")


if __name__ == "__main__":
    main()
