"""Perception speed: a key-frame set (8 frames, 640 x 480) -> verified BDDL, on one CPU core.

    python bench/bench_perception.py [--json] [--tasks N] [--repeats R] [--noise default|none]
                                     [--grounding-dino] [--gdino-frames K]

For each B-1K test-split task: the scene is rendered (timed separately: render per frame), then
``perceive`` runs on its 8 noisy frames with the fiducial detector (detection, lifting, relations,
retrieval + re-grounding, and the verifier with the reference planner) and is timed end to end,
``repeats`` times. The process is pinned to one core and OpenCV to one thread. Wall time and the
process's CPU time are both reported: on a shared machine the wall time also counts the time
other processes held the core. One-time costs (the retrieval index over B-1K, imports) are
reported separately, not in the per-call numbers.

``--grounding-dino`` also measures the GroundingDINO path with the *tiny random* configuration
(``symplan_core.perception.rigs.tiny_gdino``: the real architecture at toy size, the only one that
can run here): model load, detection per frame, and ``perceive`` on ``--gdino-frames`` frames.
Its numbers say what the code path costs around a model, not what real GroundingDINO weights cost.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def pin_one_core() -> int:
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tasks", type=int, default=None, help="first N test-split tasks (default: all 48)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--noise", default="default", choices=["default", "none"])
    parser.add_argument("--grounding-dino", action="store_true")
    parser.add_argument("--gdino-frames", type=int, default=2)
    args = parser.parse_args(argv)

    cpu = pin_one_core()
    import cv2

    cv2.setNumThreads(1)
    from symplan_core.eval.splits import split_tasks
    from symplan_core.perception import PerceptionConfig, make_detector, perceive
    from symplan_core.perception.retrieval import activity_index
    from symplan_core.perception.rigs import NoiseConfig, render_task
    from symplan_core.perception.rigs.evaluation import instruction_for
    from symplan_core.tasks import load_problem

    noise = NoiseConfig.default() if args.noise == "default" else NoiseConfig()
    config = PerceptionConfig(benchmarks=("b1k",))
    started = time.perf_counter()
    activity_index(config.benchmarks)
    index_s = time.perf_counter() - started

    tasks = split_tasks("b1k", "test")[: args.tasks]
    totals, cpu_ms, render_ms, render_cpu_ms, stages, accepted = [], [], [], [], {}, 0
    for activity in tasks:
        problem = load_problem(f"b1k/{activity}")
        instruction = instruction_for(problem, activity, "goal")
        t0 = time.perf_counter()
        scene = render_task(problem, seed=0)
        t1, c1 = time.perf_counter(), time.process_time()
        frames = scene.frames(8, noise)
        t2 = time.perf_counter()
        render_ms.append((t2 - t1) * 1000 / 8)
        render_cpu_ms.append((time.process_time() - c1) * 1000 / 8)
        detector = make_detector("fiducial", fiducial_map=scene.fiducial_map)
        for _ in range(args.repeats):
            t3, c3 = time.perf_counter(), time.process_time()
            result = perceive(frames, instruction, detector, scene.intrinsics, config)
            totals.append((time.perf_counter() - t3) * 1000)
            cpu_ms.append((time.process_time() - c3) * 1000)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
        accepted += result.accepted
        del t0
    report = {
        "cpu": cpu, "tasks": len(tasks), "repeats": args.repeats, "noise": args.noise,
        "accepted": accepted, "index_build_s": round(index_s, 3),
        "perceive_ms": {"median": round(statistics.median(totals), 1), "p90": round(pct(totals, 0.9), 1),
                        "max": round(max(totals), 1)},
        "perceive_cpu_ms": {"median": round(statistics.median(cpu_ms), 1), "p90": round(pct(cpu_ms, 0.9), 1),
                            "max": round(max(cpu_ms), 1)},
        "stages_median_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "render_ms_per_frame": {"median": round(statistics.median(render_ms), 2), "p90": round(pct(render_ms, 0.9), 2)},
        "render_cpu_ms_per_frame": {"median": round(statistics.median(render_cpu_ms), 2),
                                    "p90": round(pct(render_cpu_ms, 0.9), 2)},
        "load_average": os.getloadavg(),
    }
    if args.grounding_dino:
        report["grounding_dino_tiny"] = bench_gdino(args.gdino_frames, noise, config)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"one core (cpu {cpu}); {len(tasks)} B-1K test scenes x {args.repeats}; noise {args.noise}; "
              f"load average {report['load_average']}")
        print(f"retrieval index build (once per process): {index_s:.2f} s")
        p = report["perceive_ms"]
        c = report["perceive_cpu_ms"]
        print(f"8 frames -> verified BDDL, wall: median {p['median']} ms, p90 {p['p90']} ms, max {p['max']} ms "
              f"({accepted}/{len(tasks)} accepted)")
        print(f"8 frames -> verified BDDL, CPU time of the process: median {c['median']} ms, p90 {c['p90']} ms, "
              f"max {c['max']} ms")
        print("stage medians (ms): " + ", ".join(f"{k} {v}" for k, v in report["stages_median_ms"].items()))
        r, rc = report["render_ms_per_frame"], report["render_cpu_ms_per_frame"]
        print(f"render 640x480 RGB-D + noise: wall median {r['median']} ms/frame, p90 {r['p90']} ms/frame; "
              f"CPU median {rc['median']} ms/frame, p90 {rc['p90']} ms/frame")
        if args.grounding_dino:
            g = report["grounding_dino_tiny"]
            print(f"GroundingDINO (TINY random config): load {g['load_s']} s, detect median {g['detect_ms_median']} "
                  f"ms/frame, perceive on {g['frames']} frames {g['perceive_ms']} ms ({g['outcome']})")
    return 0


def bench_gdino(n_frames: int, noise, config) -> dict:
    import torch

    torch.set_num_threads(1)
    from symplan_core.perception import PerceptionError, make_detector, perceive
    from symplan_core.perception.rigs import render_task
    from symplan_core.perception.rigs.tiny_gdino import build_tiny_grounding_dino
    from symplan_core.tasks import load_problem

    with tempfile.TemporaryDirectory() as tmp:
        build_tiny_grounding_dino(tmp)
        t0 = time.perf_counter()
        detector = make_detector(f"grounding-dino:{tmp}?threshold=0.2&text_threshold=0.2")
        load_s = time.perf_counter() - t0
        scene = render_task(load_problem("b1k/loading_the_car"), seed=0)
        frames = scene.frames(max(n_frames, 3), noise)
        prompt = ["car", "container", "tennis racket", "digital camera", "table", "floor"]
        detector.detect(frames[0], prompt)  # warm-up
        detect = []
        for frame in frames:
            t1 = time.perf_counter()
            detector.detect(frame, prompt)
            detect.append((time.perf_counter() - t1) * 1000)
        t2 = time.perf_counter()
        try:
            result = perceive(frames[:n_frames], "load the tennis racket and the camera into the car", detector,
                              scene.intrinsics, config)
            outcome = "accepted" if result.accepted else "rejected draft"
        except PerceptionError as exc:
            outcome = type(exc).__name__
        return {"config": "tiny random (8-dim Swin/BERT, d_model 32)", "load_s": round(load_s, 2),
                "detect_ms_median": round(statistics.median(detect), 1), "frames": n_frames,
                "perceive_ms": round((time.perf_counter() - t2) * 1000, 1), "outcome": outcome}


if __name__ == "__main__":
    raise SystemExit(main())
