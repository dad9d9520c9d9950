#!/usr/bin/env python
"""ROS 2 runtime latencies over real DDS (localhost, one isolated domain).

    scripts/setup_ros.sh && .venv/bin/python bench/bench_ros.py [--goals 20] [--task T] [--json out.json]

Measures, as seen by a client node:
  * first_subgoal_ms: Plan goal sent -> first validated Subgoal received (scene, compile,
    plan with the `reference` backend, engine verification, publish). Target p50 < 200 ms.
  * subgoal_roundtrip_ms: Subgoal i received -> Subgoal i+1 received, i.e. publish -> skill
    simulator (engine check + SUCCEEDED) -> planner applies effects -> next publish.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "ros2_ws" / "src" / "symplan_ros"), str(ROOT)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50": round(statistics.median(values), 2), "p90": round(pct(values, 0.9), 2),
            "max": round(max(values), 2), "mean": round(statistics.fmean(values), 2)}


def wait(future: object, timeout: float) -> object:
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout):
        raise TimeoutError("ROS future not done")
    return future


def main() -> int:
    ap = argparse.ArgumentParser(description="ROS 2 runtime latency benchmark")
    ap.add_argument("--goals", type=int, default=20)
    ap.add_argument("--task", default="bringing_in_wood")
    ap.add_argument("--benchmark", default="b100")
    ap.add_argument("--backend", default="reference")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args()

    from symplan_ros.workspace import ensure_workspace

    if not ensure_workspace():
        print("ros2_ws/install missing: run scripts/setup_ros.sh first", file=sys.stderr)
        return 2
    import rclpy
    from rclpy.action import ActionClient
    from rclpy.context import Context
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_interfaces.action import Plan
    from symplan_interfaces.msg import Subgoal
    from symplan_ros.planner_node import RELIABLE, PlannerNode
    from symplan_ros.skill_sim import SkillSimNode

    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=random.randint(10, 99))
    planner = PlannerNode(context=ctx, parameter_overrides=[Parameter("planner.backend", value=args.backend)])
    sim = SkillSimNode(context=ctx)
    client = Node("bench_client", context=ctx)
    executor = MultiThreadedExecutor(num_threads=6, context=ctx)
    for node in (planner, sim, client):
        executor.add_node(node)
    spin = threading.Thread(target=executor.spin, daemon=True)
    spin.start()

    arrivals: list[tuple[float, Subgoal]] = []
    lock = threading.Lock()

    def on_subgoal(msg: Subgoal) -> None:
        with lock:
            arrivals.append((time.perf_counter(), msg))

    client.create_subscription(Subgoal, "/symplan_planner/subgoal", on_subgoal, RELIABLE)
    first_ms: list[float] = []
    roundtrip_ms: list[float] = []
    try:
        assert planner.trigger_configure().name == "SUCCESS" and planner.trigger_activate().name == "SUCCESS"
        action = ActionClient(client, Plan, "/symplan_planner/plan")
        assert action.wait_for_server(timeout_sec=30)
        goal = Plan.Goal(task_id=args.task, benchmark=args.benchmark)
        for i in range(args.goals + 1):  # goal 0 warms caches (task parse, DDS discovery)
            with lock:
                arrivals.clear()
            t0 = time.perf_counter()
            fut = wait(action.send_goal_async(goal), 60)
            res_fut = wait(fut.result().get_result_async(), 600)
            if not res_fut.result().result.success:
                print(f"goal {i} failed: {res_fut.result().result.message}", file=sys.stderr)
                return 1
            time.sleep(0.05)  # the last Subgoal may still be in flight on its own topic
            with lock:
                times = [t for t, _ in arrivals]
            if i == 0 or not times:
                continue
            first_ms.append((times[0] - t0) * 1000)
            roundtrip_ms.extend((b - a) * 1000 for a, b in zip(times, times[1:], strict=False))
    finally:
        executor.shutdown()
        spin.join()
        for node in (client, sim, planner):
            node.destroy_node()
        ctx.try_shutdown()

    report = {
        "task": args.task, "backend": args.backend, "goals": args.goals, "cpu_count": os.cpu_count(),
        "first_subgoal_ms": summary(first_ms), "subgoal_roundtrip_ms": summary(roundtrip_ms),
        "target_first_subgoal_p50_ms": 200,
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
