"""Throughput of a planner backend: tokens/s, latency per request, and client overhead.

    python bench/bench_backends.py --spec transformers:smollm2 --requests 3 --max-tokens 32
    python bench/bench_backends.py --spec openai:http://127.0.0.1:8000/v1 --requests 8 --n 2

`--spec function` runs a `FunctionBackend` (no model) and so measures the interface's own
overhead per prompt; compare a server's median sample latency with its ms/prompt to see what
the client adds.

`--task b1k/ACTIVITY --decoding free|grammar|guided` sends that task's real planner prompt (with the
compiled task, which grammar and guided decoding need) instead of the toy prompt, so the cost of
constrained decoding can be compared on one server:

    python bench/bench_backends.py --spec "openai:http://127.0.0.1:8000/v1?concurrency=1" \
        --task b1k/buy_dog_food --decoding guided --requests 2 --max-tokens 256 --temperature 0
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from symplan_core.llm import FunctionBackend, PlannerBackend, Sampling, make_backend, with_decoding

PROMPT = [
    {"role": "system", "content": "You are a household robot planner."},
    {"role": "user", "content": "List the steps to put a candle in each basket."},
]


def build_backend(spec: str) -> PlannerBackend:
    if spec == "function":
        return FunctionBackend(lambda _prompt: "<answer><steps>1. grasp(candle)</steps></answer>")
    return make_backend(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--requests", type=int, default=4, help="prompts per batch")
    parser.add_argument("--n", type=int, default=1, help="samples per prompt")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("--task", help="a task name: send its planner prompt (carrying the compiled task)")
    parser.add_argument("--decoding", choices=("free", "grammar", "guided"), help="sets the spec's decoding=")
    parser.add_argument("--think", help="think budget under grammar/guided: keep, skip or N characters")
    arguments = parser.parse_args()

    prompt = PROMPT
    if arguments.task:
        from symplan_core.engine.verify import compile_task
        from symplan_core.prompts import build_prompt
        from symplan_core.runtime.repair import as_prompt
        from symplan_core.tasks import load_problem

        task = compile_task(load_problem(arguments.task))
        prompt = as_prompt(build_prompt(task), task, arguments.task)
    spec = arguments.spec if arguments.spec == "function" else with_decoding(arguments.spec, arguments.decoding,
                                                                            arguments.think)
    started = time.perf_counter()
    backend = build_backend(spec)
    print(f"backend ready in {time.perf_counter() - started:.2f}s ({type(backend).__name__})")
    sampling = Sampling(max_tokens=arguments.max_tokens, temperature=arguments.temperature, seed=0)
    with backend:
        backend.plan(prompt, sampling=Sampling(max_tokens=2 if not arguments.decoding else 64, seed=0))  # warm-up
        started = time.perf_counter()
        rows = backend.plan_many([prompt] * arguments.requests, n=arguments.n, sampling=sampling)
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
    guided = [c.metadata for c in completions if c.ok and c.metadata.get("decoding") == "guided"]
    if guided:
        requests = statistics.mean(m["requests"] for m in guided)
        engine_ms = 1000 * statistics.mean(m["engine_s"] for m in guided)
        print(f"guided: {requests:.1f} requests per answer, engine {engine_ms:.1f} ms per answer")
    if failures:
        print(f"first error: {failures[0]}")


if __name__ == "__main__":
    main()
