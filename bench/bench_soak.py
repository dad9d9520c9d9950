#!/usr/bin/env python
"""Soak and fault-injection run of the ROS planner node (real processes, real DDS, real LLM server).

    nice -n 10 .venv/bin/python bench/bench_soak.py --goals 1000 --out runs/soak     # `make soak`
    .venv/bin/python bench/bench_soak.py --runs fuzz --fuzz-cases 500

Runs (each in its own processes and DDS domain; figures in OUT/report.json, docs/reliability.md):
  endurance    --goals Plan goals, reference backend, --b100/--b1k varied real tasks x both robots,
               every 5th execute=false, the skill simulator failing every --fail-every-th subgoal;
               planner RSS/threads/fds/DDS entities every --sample-every goals; success rate, latency
  llm          --llm-goals goals with the OpenAI backend against llama.cpp serving SmolLM2 (its plans
               fail, the verified reference fallback serves them); the server killed mid-request and
               restarted; cancels at planning/repairing; a deactivate while an LLM call is in flight
  camera       frame delivery and --camera-goals goals perceiving the camera simulator's stream across
               processes (config/fastdds_large_frames.xml); camera silenced and back; cancels
  camera_default_transport  the same delivery and goals with Fast DDS's default transports
  concurrency  --clients threads x --rate Hz on ~/verify_plan while a goal executes; every response vs
               `symplan verify`; subgoal round trips with and without the calls
  faults       cancel at every stage, --cycles lifecycle cycles idle and during a goal, simulator killed
  fuzz         --fuzz-cases bad Plan goals / VerifyPlan requests, garbage on the subscribed topics
Every goal is audited: what went over ~/subgoal is re-verified with the engine (symplan_tools.audit).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), *(str(ROOT / "ros2_ws" / "src" / name) for name in ("symplan_ros", "symplan_sim", "symplan_tools")), str(ROOT)]

RUNS = ("endurance", "llm", "camera", "camera_default_transport", "concurrency", "faults", "fuzz")


def main() -> int:
    ap = argparse.ArgumentParser(description="soak and fault-injection run of the ROS planner node")
    ap.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated subset of {','.join(RUNS)}")
    ap.add_argument("--goals", type=int, default=1000)
    ap.add_argument("--b100", type=int, default=30, help="B-100 tasks in the endurance pool (x 2 robots)")
    ap.add_argument("--b1k", type=int, default=30, help="B-1K tasks in the endurance pool (x 2 robots)")
    ap.add_argument("--fail-every", type=int, default=23)
    ap.add_argument("--sample-every", type=int, default=50)
    ap.add_argument("--llm-goals", type=int, default=12)
    ap.add_argument("--camera-goals", type=int, default=300)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--rate", type=float, default=5.0, help="calls per second per client")
    ap.add_argument("--cycles", type=int, default=20)
    ap.add_argument("--fuzz-cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "soak")
    args = ap.parse_args()
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    unknown = sorted(set(runs) - set(RUNS))
    if unknown:
        print(f"unknown run(s) {unknown}; choose from {', '.join(RUNS)}", file=sys.stderr)
        return 2

    from soakkit import suite
    from symplan_ros.workspace import ensure_workspace

    # A SIGTERM (a CI timeout, `kill`) unwinds like Ctrl-C: each run's rig stops its processes.
    signal.signal(signal.SIGTERM, lambda _sig, _frame: sys.exit(143))

    if not ensure_workspace():
        print("ros2_ws/install missing: run scripts/setup_ros.sh first", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report: dict = {"command": " ".join(sys.argv), "machine_at_start": suite.machine(), "runs": {}}
    calls = {
        "endurance": lambda: suite.endurance_reference(args.out, args.goals, args.b100, args.b1k, args.fail_every,
                                                       args.sample_every, args.seed, progress),
        "llm": lambda: suite.llm_soak(args.out, args.llm_goals, max(1, args.llm_goals // 4), args.cycles // 4 or 1,
                                      progress=progress),
        "camera": lambda: suite.camera_soak(args.out, args.camera_goals, max(1, args.camera_goals // 12),
                                            progress=progress),
        "camera_default_transport": lambda: suite.camera_soak(args.out, max(1, args.camera_goals // 10), 5,
                                                              large_frames=False, faults_too=False),
        "concurrency": lambda: suite.concurrency_run(args.out, args.clients, args.rate),
        "faults": lambda: suite.faults_reference(args.out, args.cycles),
        "fuzz": lambda: suite.fuzz_run(args.out, args.fuzz_cases, args.seed),
    }
    for name in runs:
        progress(f"[{name}] starting")
        started = time.perf_counter()
        try:
            report["runs"][name] = calls[name]()
        except Exception as exc:  # noqa: BLE001 - one broken run is reported, the others still run
            report["runs"][name] = {"error": f"{type(exc).__name__}: {exc}"}
        report["runs"][name]["wall_s"] = round(time.perf_counter() - started, 1)
        progress(f"[{name}] done in {report['runs'][name]['wall_s']} s")
        (args.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    report["machine_at_end"] = suite.machine()
    (args.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(json.dumps(summary(report), indent=2))
    return 0


def summary(report: dict) -> dict:
    """The headline figures of each run (the full report has every sample)."""
    out: dict = {"machine_at_start": report["machine_at_start"], "machine_at_end": report.get("machine_at_end")}
    for name, run in report["runs"].items():
        if "error" in run:
            out[name] = run
            continue
        line = {k: run[k] for k in ("delivery", "goals", "success_rate", "outcomes", "rss_growth_after_warmup_mb", "rss_max_mb",
                                    "threads_range", "fds_range", "entities_range", "goal_latency_s",
                                    "first_subgoal_ms", "calls", "mismatches", "verify_latency_ms",
                                    "planner_alive_at_end", "exit_codes", "planner_tracebacks", "wall_s")
                if k in run}
        line["violations"] = len(run.get("violations", []))
        for key, sub in run.items():
            if isinstance(sub, dict) and "survived" in sub:
                line[f"{key}_survived"] = sub["survived"]
            if isinstance(sub, dict) and "success_rate" in sub:
                line[f"{key}_success_rate"] = sub["success_rate"]
                line[f"{key}_rss_growth_after_warmup_mb"] = sub["rss_growth_after_warmup_mb"]
            if isinstance(sub, dict) and "outcomes" in sub and name == "fuzz":
                line[f"{key}_outcomes"] = sub["outcomes"]
        out[name] = line
    return out


if __name__ == "__main__":
    sys.exit(main())
