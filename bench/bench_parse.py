"""Parse every BEHAVIOR problem (B-100 + B-1K) with SymPlan's parser and with bddl's.

Both parsers get the same in-memory texts (read once up front, so file I/O is excluded
for both) in the same process, interleaved repeat by repeat so that machine load hits
both alike. Reports per-file median and min of wall time and of process CPU time, and
the ratio ours / bddl (target <= 1.0). Usage::

    .venv/bin/python bench/bench_parse.py [--repeats 21] [--json]

bddl's ``parse_problem`` returns raw nested lists; ours returns the typed model (with
lazily resolved positions and declarations, see docs/bddl.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable

from bddl.parsing import parse_problem as bddl_parse_problem

from symplan_core.bddl import parse_problem
from symplan_core.fetch import BENCHMARKS, data_dir


def load_texts() -> list[tuple[str, str]]:
    files = [p for b in BENCHMARKS for p in sorted((data_dir() / b / "problems").glob("*.bddl"))]
    if not files:
        sys.exit(f"no BEHAVIOR files under {data_dir()}; run `symplan data fetch`")
    return [(str(p), p.read_text(encoding="utf-8")) for p in files]


def time_pass(fn: Callable[[], None]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args()

    texts = load_texts()
    domains = [parse_problem(text, name).domain for name, text in texts]
    n = len(texts)

    def ours() -> None:
        for name, text in texts:
            parse_problem(text, name)

    def theirs() -> None:
        # bddl prints unrecognized sections (wash_a_baseball_cap's stray '\') to stdout.
        with contextlib.redirect_stdout(io.StringIO()):
            for (_, text), domain in zip(texts, domains, strict=True):
                bddl_parse_problem(None, None, domain, predefined_problem=text)

    for fn in (ours, theirs):  # warm-up: imports, regex compilation, caches
        fn()
    samples: dict[str, list[tuple[float, float]]] = {"symplan": [], "bddl": []}
    for _ in range(args.repeats):
        samples["symplan"].append(time_pass(ours))
        samples["bddl"].append(time_pass(theirs))

    def per_file_ms(values: list[float]) -> dict[str, float]:
        return {"median": statistics.median(values) / n * 1e3, "min": min(values) / n * 1e3}

    summary: dict = {"files": n, "repeats": args.repeats, "python": platform.python_version(),
                     "machine": platform.machine(), "ms_per_file": {}}
    for who, runs in samples.items():
        summary["ms_per_file"][who] = {"wall": per_file_ms([w for w, _ in runs]),
                                       "cpu": per_file_ms([c for _, c in runs])}
    ms = summary["ms_per_file"]
    summary["ratio"] = {kind: round(ms["symplan"][kind]["median"] / ms["bddl"][kind]["median"], 3)
                        for kind in ("wall", "cpu")}
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{n} files, {args.repeats} repeats, Python {summary['python']} ({summary['machine']})")
    for who in ("symplan", "bddl"):
        w, c = ms[who]["wall"], ms[who]["cpu"]
        print(f"  {who:8s} wall median {w['median']:.4f} ms/file (min {w['min']:.4f})   "
              f"cpu median {c['median']:.4f} ms/file (min {c['min']:.4f})")
    print(f"  ratio symplan/bddl (medians): wall {summary['ratio']['wall']:.2f}, cpu {summary['ratio']['cpu']:.2f}"
          f"  -> {1 / summary['ratio']['cpu']:.2f}x")


if __name__ == "__main__":
    main()
