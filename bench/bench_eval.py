"""Evaluation-harness overhead per episode, excluding model time (target < 5 ms).

    python bench/bench_eval.py [--episodes 200] [--json]

The "model" is a lookup of precomputed reference-planner responses (computed before timing),
so what is timed is the harness itself: task loading and compilation, prompt building,
backend plumbing, engine verification, JSONL writing. The time spent inside the lookup is
measured and subtracted. Reported: ms per episode (mean over the run) for the episode loop,
and separately the one-off summary + report time per run. Wall and CPU time are both given:
on a shared machine the wall time includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from symplan_core.engine import compile_task
from symplan_core.eval.harness import EvalConfig, episodes_for, run_eval, write_summary
from symplan_core.llm import FunctionBackend, PlannerPrompt
from symplan_core.planners.reference_backend import reference_response
from symplan_core.tasks import load_problem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        config = EvalConfig(benchmark="b100", planner="lookup", limit=args.episodes, out=str(Path(tmp) / "run"))
        episodes = episodes_for(config)
        answers = {e.id: reference_response(compile_task(load_problem(f"b100/{e.task}"), e.robot))
                   for e in episodes}
        model_seconds = 0.0

        def respond(prompt: PlannerPrompt) -> str:
            nonlocal model_seconds
            started = time.perf_counter()
            episode = (prompt.prompt_id or "").split("/guided#")[0]
            text = answers[episode]
            model_seconds += time.perf_counter() - started
            return text

        backend = FunctionBackend(respond, name="lookup")
        started, cpu_started = time.perf_counter(), time.process_time()
        outcome = run_eval(config, backend=backend, progress=False, report=False)
        loop_seconds = time.perf_counter() - started - model_seconds
        cpu_seconds = time.process_time() - cpu_started - model_seconds
        started = time.perf_counter()
        write_summary(Path(config.out), config, report=True)
        report_seconds = time.perf_counter() - started
    n = outcome.episodes_done
    result = {"episodes": n, "ms_per_episode": round(1000 * loop_seconds / n, 3),
              "cpu_ms_per_episode": round(1000 * cpu_seconds / n, 3),
              "model_ms_total": round(1000 * model_seconds, 3), "summary_and_report_s": round(report_seconds, 3),
              "SP": outcome.summary["SP"], "target_ms": 5.0}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{n} episodes: {result['ms_per_episode']} ms/episode harness overhead, wall "
              f"({result['cpu_ms_per_episode']} ms CPU) "
              f"(target < 5 ms; model lookup {result['model_ms_total']} ms in total excluded); "
              f"summary + report {result['summary_and_report_s']} s per run; SP {result['SP']}%")


if __name__ == "__main__":
    main()
