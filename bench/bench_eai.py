"""Speed of scoring EAI plans: all 100 human gold plans, target < 1 s (one core).

    python bench/bench_eai.py [--json] [--repeat N] [--wall]

Two costs are reported apart:

* set-up, once per process: parse EAI's prompts, derive the 100 scene-name mappings,
  compile the 100 B-100 tasks (and EAI's three differing goals) for the dual-arm robot;
* verification of the 100 gold plans against warm sessions (read the JSON entries,
  translate with per-hand bookkeeping, run the engine on the full plan and, where EAI
  would stop early, on the prefix), without and with ``--auto-navigate``.

The default clock is the process's CPU time (time on one core); ``--wall`` uses wall time.
Each verification pass is repeated ``--repeat`` times and the median reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symplan_core.eai.data import demo_ids, gold_plan
from symplan_core.eai.verify import session, verify_entries

TARGET_S = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--repeat", type=int, default=5, help="verification passes (median reported)")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time

    start = clock()
    ids = demo_ids()
    for demo_id in ids:
        session(demo_id)
    setup_s = clock() - start
    plans = {d: gold_plan(d) for d in ids}

    result: dict = {"clock": "wall" if args.wall else "cpu", "plans": len(ids), "setup_s": round(setup_s, 3),
                    "eai_steps": sum(len(p) for p in plans.values())}
    for mode, auto in (("eai_reach", False), ("auto_navigate", True)):
        times, passed = [], 0
        for _ in range(args.repeat):
            t0 = clock()
            verdicts = [verify_entries(d, plans[d], auto) for d in ids]
            times.append(clock() - t0)
            passed = sum(v.ours["strict_pass"] for v in verdicts)
        result[mode] = {"median_s": round(statistics.median(times), 4), "max_s": round(max(times), 4),
                        "strict_pass": passed, "meets_target": statistics.median(times) < TARGET_S}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"set-up (mappings + compiled tasks, once): {result['setup_s']:.3f} s {result['clock']}")
        for mode in ("eai_reach", "auto_navigate"):
            r = result[mode]
            print(f"100 gold plans ({result['eai_steps']} EAI steps), {mode}: median {r['median_s']:.4f} s, "
                  f"max {r['max_s']:.4f} s ({result['clock']}), strict pass {r['strict_pass']}/100, "
                  f"target < {TARGET_S} s: {'met' if r['meets_target'] else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
