#!/usr/bin/env python
"""`symplan replay` throughput: a long camera bag of a rendered B-1K scene, read and perceived.

    .venv/bin/python bench/bench_replay.py [--frames 300] [--task b1k/T] [--json out.json]

Writes one bag per storage format (sqlite3 raw rgb8 + 16UC1, MCAP with JPEG CompressedImage) of
``--frames`` 640x480 RGB-D frames with the default noise, then times ``replay()`` on each:
``read_frames_per_s`` is synchronised frames decoded, paired and offered to the key-frame
selector per second of reading; ``total_s`` adds perception, verification and the atomic write.
The bag writing itself is not timed.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--task", default="b1k/picking_up_trash")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    from symplan_core.perception.rigs import NoiseConfig, render_task
    from symplan_core.rosio.bags import write_camera_bag
    from symplan_core.runtime.replay import ReplayConfig, replay
    from symplan_core.tasks import load_problem

    scene = render_task(load_problem(args.task), seed=0)
    distinct = scene.frames(10, NoiseConfig.default(), fps=30.0)
    frames = []
    for k in range(args.frames):  # 10 noisy renders cycled, restamped at 30 Hz
        frame = distinct[k % len(distinct)]
        frames.append(type(frame)(frame.rgb, frame.depth, stamp=k / 30.0, source=f"bench#{k}"))
    instruction = args.task.rsplit("/", 1)[-1].replace("_", " ")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scene.fiducial_map.dump(root / "map.yaml")
        for name, storage, compressed in (("sqlite3_raw", "sqlite3", False), ("mcap_jpeg", "mcap", True)):
            bag = write_camera_bag(root / name, frames, scene.intrinsics, storage, compressed=compressed)
            size_mb = sum(p.stat().st_size for p in bag.iterdir()) / 1e6
            reads, totals = [], []
            for k in range(args.repeats):
                outcome = replay(ReplayConfig(bag=bag, instruction=instruction, out=root / f"out-{name}-{k}",
                                              detector=f"fiducial:{root / 'map.yaml'}"))
                if not outcome.ok:
                    print(f"{name}: replay rejected the scene: {outcome.reasons}", file=sys.stderr)
                    return 1
                timings = outcome.report["timings_s"]
                reads.append(outcome.report["stream"]["frames"] / timings["read"])
                totals.append(timings["total"])
            results[name] = {"bag_mb": round(size_mb, 1), "read_frames_per_s": round(statistics.median(reads), 1),
                             "total_s": round(statistics.median(totals), 3),
                             "key_frames": len(outcome.report["key_frames"])}
    report = {"task": args.task, "frames": args.frames, "size": "640x480", "repeats": args.repeats,
              "cpu_count": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2), "bags": results}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    code = main()
    print(f"bench_replay: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    sys.exit(code)
