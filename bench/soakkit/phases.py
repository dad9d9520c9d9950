"""Soak phases over a running :class:`~soakkit.rig.Rig`: endurance, concurrency on ~/verify_plan,
and faults injected mid-request. Each returns a JSON-able dict of figures; nothing here asserts
(tests/soak asserts, bench/bench_soak.py reports)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from soakkit.rig import PLANNER, GoalRecord, Rig

SYMPLAN = Path(sys.executable).with_name("symplan")


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def pct(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)

    return {"n": len(values), "p50": round(statistics.median(values), 2), "p99": pct(0.99), "max": round(ordered[-1], 2)}


def _alive(rig: Rig) -> bool:
    return rig.children["planner"].alive()


# ---- endurance ---------------------------------------------------------------------------------
def task_pool(rig: Rig, candidates: list[tuple[str, str]], robots: tuple[str, ...] = ("single", "dual")
              ) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """Warm-up pass: each (benchmark, task) x robot once with execute=false; the ones the node plans
    (reference planner, engine-verified) form the pool. Fills the node's caches."""
    pool, failed = [], Counter()
    started = time.perf_counter()
    for bench, task in candidates:
        for robot in robots:
            rec = rig.goal(task_id=task, benchmark=bench, robot=robot, execute=False)
            if rec.success:
                pool.append({"task_id": task, "benchmark": bench, "robot": robot})
            else:
                failed[rec.message[:60]] += 1
    return pool, {"tried": len(candidates) * len(robots), "plannable": len(pool), "not_plannable": dict(failed),
                  "seconds": round(time.perf_counter() - started, 1)}


def endurance(rig: Rig, pool: list[dict[str, str]], goals: int, sample_every: int = 25,
              dry_every: int = 5, warmup_goals: int | None = None,
              progress: Any = None) -> dict[str, Any]:
    """``goals`` consecutive Plan goals cycling over ``pool`` (every ``dry_every``-th with
    execute=false); process and DDS samples every ``sample_every`` goals. Memory growth is
    measured from the sample after ``warmup_goals`` goals (default: one pass over the pool)."""
    warmup = len(pool) if warmup_goals is None else warmup_goals
    records: list[GoalRecord] = []
    samples: list[dict[str, Any]] = [{"goal": 0, **rig.sample()}]
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    for i in range(goals):
        spec = pool[i % len(pool)]
        execute = dry_every <= 0 or i % dry_every != dry_every - 1
        rec = rig.goal(execute=execute, **spec)
        records.append(rec)
        outcomes["succeeded" if rec.success else rec.message.split(":", 1)[0][:40]] += 1
        if (i + 1) % sample_every == 0 or i + 1 == goals or i + 1 == warmup:
            samples.append({"goal": i + 1, **rig.sample()})
        if progress and (i + 1) % sample_every == 0:
            progress(f"  {i + 1}/{goals} goals, rss {samples[-1]['rss_mb']} MB, "
                     f"{sum(r.success for r in records)} succeeded")
        if not _alive(rig):
            break
    base = next((s for s in samples if s["goal"] >= warmup), samples[0])
    last = samples[-1]
    executed = [r for r in records if r.subgoals or r.first_subgoal_ms is not None]
    return {
        "goals": len(records), "seconds": round(time.perf_counter() - started, 1),
        "planner_alive": _alive(rig), "planner_starts": rig.children["planner"].starts,
        "succeeded": sum(r.success for r in records), "success_rate": round(
            sum(r.success for r in records) / max(1, len(records)), 4),
        "outcomes": dict(outcomes), "replans": sum(r.replans for r in records),
        "subgoals": sum(r.subgoals for r in records), "violations": [v for r in records for v in r.violations],
        "audited": {"goals": rig.audit.counts.goals, "plans": rig.audit.counts.plans,
                    "subgoals": rig.audit.counts.subgoals},
        "goal_latency_s": percentiles([r.latency_s for r in records]),
        "slowest": [{"latency_s": round(r.latency_s, 2), "message": r.message[:120], "errors": r.errors[:3]}
                    for r in sorted(records, key=lambda r: -r.latency_s)[:3]],
        "first_subgoal_ms": percentiles([r.first_subgoal_ms for r in executed if r.first_subgoal_ms is not None]),
        "warmup_goals": warmup, "baseline": base, "last": last,
        "rss_growth_after_warmup_mb": round(last["rss_mb"] - base["rss_mb"], 2),
        "rss_max_mb": max(s["rss_mb"] for s in samples),
        "threads_range": [min(s["threads"] for s in samples), max(s["threads"] for s in samples)],
        "fds_range": [min(s["fds"] for s in samples), max(s["fds"] for s in samples)],
        "entities_range": {k: [min(s[k] for s in samples), max(s[k] for s in samples)]
                           for k in ("publishers", "subscriptions", "services", "clients")},
        "samples": samples,
    }


def camera_delivery(rig: Rig, seconds: float = 10.0) -> dict[str, float]:
    """Colour and depth frames per second the planner decoded (its camera diagnostic's counters)."""
    def counts() -> tuple[float, int, int]:
        for arr in reversed(list(rig.client.diagnostics)):
            for status in arr.status:
                if status.name.endswith(": camera"):
                    values = {kv.key: kv.value for kv in status.values}
                    return time.monotonic(), int(values.get("frames", 0)), int(values.get("depth_frames", 0))
        return time.monotonic(), 0, 0

    t0, rgb0, depth0 = counts()
    time.sleep(seconds)
    t1, rgb1, depth1 = counts()
    span = max(t1 - t0, 1e-6)
    return {"rgb_hz": round((rgb1 - rgb0) / span, 2), "depth_hz": round((depth1 - depth0) / span, 2)}


# ---- concurrency -------------------------------------------------------------------------------
def cli_verdict(task: str, plan_text: str, robot: str, workdir: Path, benchmark: str = "") -> dict[str, Any]:
    """``symplan verify TASK PLAN --robot R --json``: the reference every response is compared with."""
    workdir.mkdir(parents=True, exist_ok=True)
    plan_file = workdir / f"plan_{abs(hash((task, plan_text, robot)))}.txt"
    plan_file.write_text(plan_text)
    command = [str(SYMPLAN), "verify", task, str(plan_file), "--robot", robot, "--json"]
    if benchmark:
        command[3:3] = ["--benchmark", benchmark]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"symplan verify failed: {done.stderr.strip()}")
    verdict = json.loads(done.stdout)
    for key in ("task", "robot"):  # the CLI's labels; the rest is the engine's VerifyResult
        verdict.pop(key, None)
    return verdict


def verify_cases(rig: Rig, workdir: Path) -> list[dict[str, Any]]:
    """Requests for ~/verify_plan with their expected verdicts (from the CLI): real tasks of both
    benchmarks, both robots, plans the node validated (execute=false goals), broken ones, a request
    carrying BDDL text instead of a task id."""
    from symplan_core.tasks import problem_path

    def planned(task: str, bench: str, robot: str) -> str:
        return rig.goal(task_id=task, benchmark=bench, robot=robot, execute=False).plan_text

    cases = [
        {"task_id": "bringing_in_wood", "benchmark": "b100", "robot": "single",
         "plan_text": planned("bringing_in_wood", "b100", "single")},
        {"task_id": "make_a_sandwich", "benchmark": "b1k", "robot": "dual",
         "plan_text": planned("make_a_sandwich", "b1k", "dual")},
        {"task_id": "bringing_in_wood", "benchmark": "b100", "robot": "single",
         "plan_text": "grasp(plywood_1)\nfly(plywood_2)\nnavigate(floor_2)"},
        {"task_id": "make_a_sandwich", "benchmark": "b1k", "robot": "single",
         "plan_text": "import os\nos.system('rm -rf /')\n((((navigate(x"},
    ]
    bddl_path = problem_path("picking_up_trash", "b1k")[1]
    cases.append({"bddl": bddl_path.read_text(), "robot": "dual",
                  "plan_text": planned("picking_up_trash", "b1k", "dual"), "_cli_task": str(bddl_path)})
    for case in cases:
        task = case.get("_cli_task") or f"{case['benchmark']}/{case['task_id']}"
        case["expected"] = cli_verdict(task, case["plan_text"], case["robot"], workdir)
    return cases


def concurrency(rig: Rig, cases: list[dict[str, Any]], goal: dict[str, Any], clients: int = 4,
                rate_hz: float = 5.0, sim_delay_s: float = 0.05) -> dict[str, Any]:
    """``clients`` threads call ~/verify_plan at ``rate_hz`` each while a Plan goal executes; every
    response is compared with the CLI verdict of the same input; subgoal round trips (skill
    status -> next subgoal) are compared with the same goal run without the calls."""
    from symplan_interfaces.srv import VerifyPlan
    from symplan_tools.waits import wait_future

    rig.set_sim(delay_s=sim_delay_s)
    try:
        baseline = _roundtrips(rig, goal)
        stop = threading.Event()
        lock = threading.Lock()
        latencies: list[float] = []
        mismatches: list[str] = []
        errors: list[str] = []
        service = f"/{PLANNER}/verify_plan"

        def caller(k: int) -> None:
            cli = rig.node.create_client(VerifyPlan, service)
            cli.wait_for_service(timeout_sec=30)
            period, next_at, n = 1.0 / rate_hz, time.monotonic(), 0
            while not stop.is_set():
                case = cases[(k + n) % len(cases)]
                n += 1
                fields = {key: value for key, value in case.items() if not key.startswith("_") and key != "expected"}
                t0 = time.perf_counter()
                try:
                    resp = wait_future(cli.call_async(VerifyPlan.Request(**fields)), 60)
                except Exception as exc:  # noqa: BLE001 - counted, the phase goes on
                    with lock:
                        errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                dt = (time.perf_counter() - t0) * 1000
                problem = _compare(resp, case["expected"])
                with lock:
                    latencies.append(dt)
                    if problem:
                        mismatches.append(problem)
                next_at += period
                time.sleep(max(0.0, next_at - time.monotonic()))

        threads = [threading.Thread(target=caller, args=(k,), daemon=True) for k in range(clients)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # the callers are at their rate before the goal starts
        loaded = _roundtrips(rig, goal)
        stop.set()
        for t in threads:
            t.join(timeout=90)
    finally:
        rig.set_sim(delay_s=0.0)
    return {"clients": clients, "rate_hz_each": rate_hz, "calls": len(latencies), "call_errors": errors[:5],
            "mismatches": len(mismatches), "mismatch_examples": mismatches[:3],
            "verify_latency_ms": percentiles(latencies),
            "goal_without_calls": baseline, "goal_with_calls": loaded, "planner_alive": _alive(rig)}


def _roundtrips(rig: Rig, goal: dict[str, Any]) -> dict[str, Any]:
    rec = rig.goal(**goal)
    times = list(rig._arrivals)
    gaps = [(b - a) * 1000 for a, b in zip(times, times[1:], strict=False)]
    return {"success": rec.success, "message": rec.message, "replans": rec.replans, "violations": rec.violations,
            "subgoal_roundtrip_ms": percentiles(gaps),
            "timeouts": sum("timeout" in e for e in rec.errors)}


def _compare(resp: Any, expected: dict[str, Any]) -> str:
    if not resp.ok:
        return f"ok=false: {list(resp.errors)[:2]}"
    got = json.loads(resp.result_json)
    if got != expected:
        diff = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
        return f"result_json differs from `symplan verify` in {diff}"
    if (resp.strict_pass, resp.engine_pass, resp.format_ok) != (
            expected["strict_pass"], expected["engine_pass"], expected["format_ok"]) or abs(
            resp.gcr - expected["gcr"]) > 1e-9 or list(resp.calls) != [c["text"] for c in expected["calls"]]:
        return "summary fields differ from `symplan verify`"
    return ""
