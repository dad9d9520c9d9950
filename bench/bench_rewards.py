"""Reward scoring throughput: one DAPO generation batch of 96 prompts x 8 rollouts (target < 0.2 s wall).

    python bench/bench_rewards.py [--groups 96] [--group-size 8] [--workers 2] [--repeats 5] [--json]

Prompts: the B-1K test split (48 activities x 2 embodiments = 96 episodes). Rollouts per prompt:
the reference planner's response, and variants of it (a no-op appended, the plan cut short, the
tags dropped, garbage), so the batch mixes strict passes, partial plans and malformed text.
Timed: the full batch reward (engine verdicts, R_fmt, R_ans, GroupAdapt R_len, overlong) with
tasks already compiled (steady state of a training run, where prompts recur), in-process and
with ``--workers`` shard processes; the one-off compile of the 96 tasks is reported apart.
Wall and CPU time are both given: on a shared machine wall time includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from symplan_core.bddl.writer import write_problem
from symplan_core.engine import compile_task
from symplan_core.eval.splits import split_tasks
from symplan_core.planners.reference_backend import reference_response
from symplan_core.tasks import load_problem
from symplan_core.training import BatchRewarder, LengthConfig, TaskScorer
from symplan_core.training.parallel import ShardedScorer


def rollouts(reference: str, group_size: int) -> list[str]:
    code = reference.split("<code>")[-1].split("</code>")[0].strip().splitlines()
    variants = [
        reference,
        reference.replace("</code>", "navigate(floor_1)\n</code>"),
        f"<think>t</think><answer><steps>1. go</steps><code>\n{chr(10).join(code[: len(code) // 2])}\n</code></answer>",
        "\n".join(code),
        "I would pick things up and put them away.",
    ]
    # Trailing newlines make every rollout distinct text (so none is a verdict-cache hit) without
    # changing what the engine parses.
    return [variants[i % len(variants)] + "\n" * (i // len(variants)) for i in range(group_size)]


def build_batch(groups: int, group_size: int) -> tuple[dict, float]:
    episodes = [(task, robot) for task in split_tasks("b1k") for robot in ("single", "dual")][:groups]
    columns: dict[str, list] = {"completions": [], "bddl": [], "robot": [], "action_set": [], "ids": [],
                                "lengths": [], "group_ids": []}
    started = time.perf_counter()
    for g, (task, robot) in enumerate(episodes):
        problem = load_problem(f"b1k/{task}")
        compiled = compile_task(problem, robot)
        bddl = write_problem(problem)
        for text in rollouts(reference_response(compiled), group_size):
            columns["completions"].append(text)
            columns["bddl"].append(bddl)
            columns["robot"].append(robot)
            columns["action_set"].append(compiled.action_set_name)
            columns["ids"].append(f"b1k/{task}/{robot}")
            columns["lengths"].append(len(text) // 4)  # a token-count stand-in; R_len only needs integers
            columns["group_ids"].append(g)
    return columns, time.perf_counter() - started


def timed(fn, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=96)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    batch, prep_s = build_batch(args.groups, args.group_size)
    n = len(batch["completions"])
    texts_per_repeat = [[t + " " * r for t in batch["completions"]] for r in range(args.repeats + 1)]
    scorer = TaskScorer()
    compile_wall = time.perf_counter()
    for b, r, a in zip(batch["bddl"], batch["robot"], batch["action_set"], strict=True):
        scorer.task(b, r, a)
    compile_wall = time.perf_counter() - compile_wall

    def run(score_batch, repeat: list[int]) -> None:
        # Fresh text each repeat (a trailing space per repeat), so no verdict comes from the cache.
        texts = texts_per_repeat[repeat[0] % len(texts_per_repeat)]
        repeat[0] += 1
        verdicts = score_batch(texts, batch["bddl"], batch["robot"], batch["action_set"], batch["ids"])
        rewarder = BatchRewarder(LengthConfig("group_adapt"), max_length=8192, overlong_buffer=1048)
        rewarder.score(texts, batch["lengths"], batch["group_ids"], batch["bddl"], ids=batch["ids"],
                       verdicts=verdicts)

    in_wall, in_cpu = timed(lambda c=[0]: run(scorer.batch, c), args.repeats)
    with ShardedScorer(args.workers) as sharded:
        run(sharded.batch, [args.repeats])  # warm-up: each worker compiles its tasks once
        sh_wall, _ = timed(lambda c=[0]: run(sharded.batch, c), args.repeats)
    result = {
        "rollouts": n, "groups": args.groups, "group_size": args.group_size, "cpus": os.cpu_count(),
        "compile_96_tasks_s": round(compile_wall, 3), "build_batch_s": round(prep_s, 2),
        "in_process_wall_s": round(in_wall, 4), "in_process_cpu_s": round(in_cpu, 4),
        "rollouts_per_s_per_core": round(n / in_cpu, 1),
        f"sharded_{args.workers}_workers_wall_s": round(sh_wall, 4),
        "target_wall_s": 0.2,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
