"""Execution monitoring: how many silent failures the camera catches, how often it cries wolf, and
what it adds per subgoal.

    python bench/bench_monitor.py [--subgoals 200] [--fault-rate 0.25] [--noise default] [--json]

Each episode is a B-1K test-split task rendered for the simulated camera (``symplan_core.sim.world``:
the world the simulated controller changes is what the camera renders, every thing keeping its
fiducial tag), perceived by the real camera scene source (fiducial detector, retrieval goal,
verifier), planned by the reference planner and executed by :class:`PlanningSession` with the
camera execution monitor, exactly as the node runs it. The simulated controller executes each
subgoal with the engine; with probability ``--fault-rate`` it fails *silently* instead (reports
SUCCEEDED): ``nothing`` (nothing moved) or ``other`` (the same action on other objects), half each.
After each report the monitor perceives ``execution.monitor_frames`` fresh noisy frames of the
world as it now is.

Reported:

* detection rate: silent failures judged CONTRADICTED, over the *visible* ones (the world then
  differs from the expected one in where an object the camera tracks rests or what covers it: a
  ``nothing`` on a navigate changes nothing a camera could see, nor does one on an object made
  during the task, which has no tag in the map printed before) and over all of them;
* false-alarm rate: true successes judged CONTRADICTED;
* verdicts on true successes (confirmed / unobservable);
* latency per checked subgoal: the monitor's perception and check (wall and CPU ms; rendering the
  simulated frames is excluded). On a robot the check also waits ``monitor_settle_s`` plus the
  time the camera takes to deliver ``monitor_frames`` frames (0.2 s + 3 frames: 0.8 s at 5 Hz,
  0.3 s at 30 Hz), which is configuration, not computation;
* goals reached: the session succeeded and the simulated world satisfies the goal
  (``execution.replan_limit`` 50: at a 25% fault rate a 40-step task needs about ten replans for
  the failures it catches alone).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


class BenchFeed:
    """Stands in for the node's CameraFeed: serves frames rendered from the simulated world."""

    def __init__(self, camera: Any, noise: Any) -> None:
        from symplan_core.runtime.config import CameraSection

        self.config = CameraSection()
        self.camera, self.noise = camera, noise
        self.draws = 0
        self.render_s = 0.0  # time spent rendering in the last frames_after

    def wait_for_frames(self, window_s: float, timeout_s: float, should_cancel: Any = None,
                        min_frames: int = 1) -> tuple[list[Any], Any]:
        del window_s, timeout_s, should_cancel
        return self.camera.frames(max(min_frames, 3), self.noise), self.camera.shown.intrinsics

    def frames_after(self, since: float, min_frames: int, timeout_s: float, should_cancel: Any = None):
        del since, timeout_s, should_cancel
        started = time.perf_counter()
        self.draws += 1
        frames = self.camera.frames(min_frames, self.noise, draw=self.draws)
        self.render_s = time.perf_counter() - started
        return frames, self.camera.shown.intrinsics


def _visible(task: Any, state: Any, tracked: set[str]) -> dict[str, Any]:
    """What a camera could tell apart about the objects it tracks: where each rests, what covers it."""
    agent = task.world.agent
    out: dict[str, Any] = {obj: link for obj, link in state.support.items() if obj != agent and obj in tracked}
    out.update({obj: ("held", agent) for obj in state.held if obj in tracked})
    out["substances"] = sorted(f for f in state.facts if f[0] in ("covered", "filled") and f[1] in tracked)
    return out


def run_episode(activity: str, fault_rate: float, noise: Any, rng: random.Random, stats: dict[str, Any]) -> None:
    import tempfile

    from symplan_core.bddl import parse_problem
    from symplan_core.engine import compile_task
    from symplan_core.perception import make_detector
    from symplan_core.perception.rigs.evaluation import instruction_for
    from symplan_core.planners.reference_backend import make_planner_backend
    from symplan_core.runtime.config import ExecutionSection, PerceptionSection, RuntimeConfig
    from symplan_core.runtime.monitor import EffectVerdict, monitor_for
    from symplan_core.runtime.session import Outcome, PlanningSession
    from symplan_core.runtime.sources import BddlSceneSource, CameraSceneSource, TaskRequest, write_problem
    from symplan_core.sim.world import WorldCamera, execute, world_problem
    from symplan_core.tasks import load_problem

    problem = load_problem(f"b1k/{activity}")
    camera = WorldCamera(problem, seed=rng.randrange(1000))
    with tempfile.TemporaryDirectory() as tmp:
        camera.shown.fiducial_map.dump(f"{tmp}/map.yaml")
        detector = make_detector(f"fiducial:{tmp}/map.yaml")
    feed = BenchFeed(camera, noise)
    execution = ExecutionSection(replan_limit=50, monitor="camera", monitor_settle_s=0.0)
    config = RuntimeConfig(scene={"source": "camera"}, execution=execution)
    monitor = monitor_for(config, feed, detector)  # type: ignore[arg-type]
    assert monitor is not None
    source = CameraSceneSource(BddlSceneSource(), feed, PerceptionSection(), detector)  # type: ignore[arg-type]
    session = PlanningSession(make_planner_backend("reference"), monitor=monitor, execution=execution)
    sim: dict[str, Any] = {}
    faults: dict[tuple[str, int], tuple[str, bool]] = {}  # (plan, index) -> (fault, visible)

    def on_scene(scene: Any, *_args: Any) -> None:
        text = write_problem(scene.problem)
        sim["problem"] = parse_problem(text)
        sim["task"] = compile_task(sim["problem"])
        sim["world"] = sim["task"].initial_state()
        # Which tag the planner's perception took each instance to be (its provenance): the world is
        # drawn with those, as the physical objects they are.
        sim["markers"] = {inst: e["marker_id"] for inst, e in scene.details["provenance"]["objects"].items()
                          if e.get("marker_id") is not None}

    def dispatch(sub: Any) -> tuple[Outcome, str]:
        task, world = sim["task"], sim["world"]
        fault = rng.choice(["nothing", "other"]) if rng.random() < fault_rate else "none"
        expected = world.copy()
        execute(task, expected, sub.text, "none")
        ok, message = execute(task, world, sub.text, fault, rng)  # type: ignore[arg-type]
        if not ok:
            return Outcome.FAILED, message
        tracked = set(monitor.identities.markers.values())  # objects with a tag the map knows
        visible = _visible(task, world, tracked) != _visible(task, expected, tracked)
        faults[(sub.plan_id, sub.index)] = (fault, visible)
        camera.show(world_problem(sim["problem"], task, world), sim["markers"])
        return Outcome.SUCCEEDED, message

    def on_check(sub: Any, check: Any) -> None:
        fault, visible = faults[(sub.plan_id, sub.index)]
        caught = check.verdict is EffectVerdict.CONTRADICTED
        stats["latency_ms"].append((check.latency_s - feed.render_s) * 1000)
        if fault == "none":
            stats["true"][check.verdict.value] += 1
            if caught:
                stats["false_alarms"].append(f"{activity}: {sub.text}: {check.reason}")
        else:
            key = "visible" if visible else "invisible"
            stats["silent"][key]["n"] += 1
            stats["silent"][key]["caught"] += caught
            stats["silent"][fault]["n"] += 1
            stats["silent"][fault]["caught"] += caught
            if visible and not caught:
                stats["missed"].append(f"{activity}: {sub.text} ({fault}): {check.verdict.value}: {check.reason}")

    instruction = instruction_for(problem, activity, "goal")
    cpu0 = time.process_time()
    result = session.run(TaskRequest(instruction=instruction), source, dispatch, lambda *_a: None,
                         on_scene=on_scene, on_check=on_check)
    stats["cpu_s"] += time.process_time() - cpu0
    if "task" not in sim:
        stats["scene_rejected"] += 1
        return
    per_conjunct, _gcr = sim["task"].goal_report(sim["world"])
    stats["episodes"] += 1
    reached = bool(result.success and all(per_conjunct))
    stats["reached"] += reached
    if not reached:
        stats["not_reached"].append(f"{activity}: {result.message[:300]}")
    stats["replans"] += result.replans
    stats["checked"] += len(result.checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subgoals", type=int, default=200, help="stop once this many subgoals were checked")
    parser.add_argument("--fault-rate", type=float, default=0.25)
    parser.add_argument("--noise", default="default", help="none, default, or a factor of the default noise")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import cv2

    cv2.setNumThreads(1)
    from symplan_core.eval.splits import split_tasks
    from symplan_core.perception.rigs import NoiseConfig

    noise = (None if args.noise == "none" else NoiseConfig.default() if args.noise == "default"
             else NoiseConfig.default().scaled(float(args.noise)))
    rng = random.Random(args.seed)
    stats: dict[str, Any] = {
        "episodes": 0, "reached": 0, "replans": 0, "checked": 0, "scene_rejected": 0, "cpu_s": 0.0,
        "true": {"confirmed": 0, "contradicted": 0, "unobservable": 0},
        "silent": {k: {"n": 0, "caught": 0} for k in ("visible", "invisible", "nothing", "other")},
        "latency_ms": [], "false_alarms": [], "missed": [], "not_reached": []}
    tasks = split_tasks("b1k", "test")
    started = time.perf_counter()
    k = 0
    while stats["checked"] < args.subgoals and k < 20 * len(tasks):
        run_episode(tasks[k % len(tasks)], args.fault_rate, noise, rng, stats)
        k += 1
    wall = time.perf_counter() - started
    silent, true = stats["silent"], stats["true"]
    n_true = sum(true.values())
    vis = silent["visible"]
    n_all = vis["n"] + silent["invisible"]["n"]
    report = {
        "command": "python bench/bench_monitor.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "noise": args.noise, "fault_rate": args.fault_rate, "episodes": stats["episodes"],
        "scenes_rejected": stats["scene_rejected"], "subgoals_checked": stats["checked"],
        "silent_failures": n_all, "silent_visible": vis["n"],
        "detection_rate_visible": round(vis["caught"] / vis["n"], 4) if vis["n"] else None,
        "detection_rate_all": round((vis["caught"] + silent["invisible"]["caught"]) / n_all, 4) if n_all else None,
        "by_fault": {k: silent[k] for k in ("nothing", "other")},
        "true_successes": n_true, "true_verdicts": true,
        "false_alarm_rate": round(true["contradicted"] / n_true, 4) if n_true else None,
        "latency_ms": {"median": round(statistics.median(stats["latency_ms"]), 1),
                       "p90": round(pct(stats["latency_ms"], 0.9), 1),
                       "max": round(max(stats["latency_ms"]), 1)} if stats["latency_ms"] else None,
        "goals_reached": f"{stats['reached']}/{stats['episodes']}", "replans": stats["replans"],
        "wall_s": round(wall, 1), "cpu_s": round(stats["cpu_s"], 1), "load_average": os.getloadavg(),
        "false_alarms": stats["false_alarms"][:10], "missed": stats["missed"][:10],
        "not_reached": stats["not_reached"][:10],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
