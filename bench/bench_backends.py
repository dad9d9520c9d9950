"""Throughput of a planner backend: tokens/s, latency per request, and client overhead.

    python bench/bench_backends.py --spec transformers:smollm2 --requests 3 --max-tokens 32
    python bench/bench_backends.py --spec openai:http://127.0.0.1:8000/v1 --requests 8 --n 2

`--spec function` runs a `FunctionBackend` (no model) and so measures the interface's own
overhead per prompt; compare a server's median sample latency with its ms/prompt to see what
the client adds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from symplan_core.llm import FunctionBackend, PlannerBackend, Sampling, make_backend

PROMPT = [
    {"role": "system", "content": "You are a household robot planner."},
    {"role": "user", "content": "List the steps to put a candle in each basket."},
]


def build_backend(spec: str) -> PlannerBackend:
    if spec == "function":
        return FunctionBackend(lambda prompt: "<answer><steps>1. grasp(candle)</steps></answer>")
    return make_backend(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--requests", type=int, default=4, help="prompts per batch")
    parser.add_argument("--n", type=int, default=1, help="samples per prompt")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--temperature", type=float, default=0.6)
    arguments = parser.parse_args()

    started = time.perf_counter()
    backend = build_backend(arguments.spec)
    print(f"backend ready in {time.perf_counter() - started:.2f}s ({type(backend).__name__})")
    sampling = Sampling(max_tokens=arguments.max_tokens, temperature=arguments.temperature, seed=0)
    with backend:
        backend.plan(PROMPT, sampling=Sampling(max_tokens=2, seed=0))  # warm-up
        started = time.perf_counter()
        rows = backend.plan_many([PROMPT] * arguments.requests, n=arguments.n, sampling=sampling)
        wall = time.perf_counter() - started
    completions = [c for row in rows for c in row]
    failures = [c.error for c in completions if not c.ok]
    tokens = sum(c.completion_tokens or 0 for c in completions)
    latencies = [c.latency_s for c in completions if c.ok]
    per_prompt_ms = 1000 * wall / arguments.requests
    print(f"samples: {len(completions)}  failed: {len(failures)}  wall: {wall:.3f}s ({per_prompt_ms:.3f} ms/prompt)")
    print(f"completion tokens: {tokens}  throughput: {tokens / wall:.1f} tok/s")
    if latencies:
        print(f"latency per sample: median {statistics.median(latencies):.3f}s  max {max(latencies):.3f}s")
    if failures:
        print(f"first error: {failures[0]}")


if __name__ == "__main__":
    main()
