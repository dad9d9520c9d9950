"""Guided decoding in-process (transformers): seconds per answer with and without the prefix KV cache.

    python bench/bench_prefix_cache.py --model smollm2
    python bench/bench_prefix_cache.py --model qwen2.5-coder-0.5b --tasks 3 --max-tokens 192 --max-calls 8

Loads the model twice in one process (``prefix_cache=true`` and ``=false``) and, task by task,
asks both for the same greedy guided answer (the order alternates per task, so both see the same
machine load); checks that the answers are identical and prints seconds per answer, requests,
and prompt tokens evaluated vs reused. Tasks: the first N of the B-1K test split, single arm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from symplan_core.engine.verify import compile_task, verify
from symplan_core.eval.splits import split_tasks
from symplan_core.llm import Sampling, make_backend
from symplan_core.prompts import build_prompt
from symplan_core.runtime.repair import as_prompt
from symplan_core.tasks import load_problem


def _load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="transformers: target (registry name or path)")
    parser.add_argument("--tasks", type=int, default=3, help="first N tasks of the B-1K test split")
    parser.add_argument("--max-tokens", type=int, default=192)
    parser.add_argument("--max-calls", type=int, default=8)
    parser.add_argument("--think", default="skip")
    parser.add_argument("--threads", type=int, default=1)
    arguments = parser.parse_args()

    spec = (f"transformers:{arguments.model}?device=cpu&threads={arguments.threads}&decoding=guided"
            f"&think={arguments.think}&max_calls={arguments.max_calls}")
    names = [f"b1k/{t}" for t in split_tasks("b1k", "test")[: arguments.tasks]]
    sampling = Sampling(temperature=0.0, max_tokens=arguments.max_tokens)
    print(f"spec: {spec}&prefix_cache=true|false  tasks: {names}  load at start: {_load()}", flush=True)
    started = time.perf_counter()
    backends = {mode: make_backend(f"{spec}&prefix_cache={mode}") for mode in ("true", "false")}
    print(f"both backends loaded in {time.perf_counter() - started:.1f}s", flush=True)
    seconds: dict[str, list[float]] = {"true": [], "false": []}
    wall = time.perf_counter()
    for position, name in enumerate(names):
        task = compile_task(load_problem(name), "single")
        prompt = as_prompt(build_prompt(task), task, name)
        texts = {}
        for mode in ("true", "false") if position % 2 == 0 else ("false", "true"):
            tick = time.perf_counter()
            [completion] = backends[mode].plan(prompt, n=1, sampling=sampling)
            elapsed = time.perf_counter() - tick
            if not completion.ok:
                raise SystemExit(f"{name} prefix_cache={mode}: {completion.error}")
            seconds[mode].append(elapsed)
            texts[mode] = completion.text
            meta = completion.metadata
            result = verify(task, completion.text)
            print(f"{name} prefix_cache={mode}: {elapsed:.1f}s, {meta['requests']} requests, "
                  f"{completion.completion_tokens} answer tokens, prompt tokens evaluated "
                  f"{meta['prompt_tokens_evaluated']} reused {meta['prompt_tokens_reused']}, "
                  f"engine errors {len(result.errors)}, load {_load()}", flush=True)
        print(f"{name}: answers identical: {texts['true'] == texts['false']}", flush=True)
    for backend in backends.values():
        backend.close()
    with_cache, without = statistics.mean(seconds["true"]), statistics.mean(seconds["false"])
    print(f"seconds per guided answer: with prefix cache {with_cache:.1f}, without {without:.1f} "
          f"({without / with_cache:.1f}x); wall {time.perf_counter() - wall:.0f}s; load at end: {_load()}")


if __name__ == "__main__":
    main()
