"""Verification speed of the symbolic engine on real B-100 tasks (one core).

    python bench/bench_engine.py [--json] [--tasks N] [--profile] [--parts] [--save-corpus F | --corpus F] [--code DIR]

Plans: a greedy pick-and-place generator walks each B-100 task's goal (placements
it can ground: ontop/inside/nextto/under, opening closed containers on the way) and
keeps only calls the engine accepts without error; tasks whose plan reaches 20 calls
give a valid 20-call prefix. Timings cover ``verify(task, text)`` end to end (parse,
execute, goal evaluation; no trace), the path the RL reward and eval use. Each plan is
verified ``--reps`` times on its compiled task, so the task's per-call bindings and compiled
goal are warm, as in an RL batch (a plan's first verification also binds its calls).

Reported: median/p90 us per 20-step plan, us per step, plans/s on one core, and the
time to score a 768-plan batch (RL group size) for one compiled task.

Comparing two engine versions on a loaded machine: save the plan texts once
(``--save-corpus c.json``), then time both on the same texts, alternating runs, with
``--corpus c.json`` and ``--code DIR`` (a checkout of the other version, e.g.
``git archive REV | tar -x -C DIR``; its ``symplan_core`` is imported instead of this one's).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

_CODE = sys.argv[sys.argv.index("--code") + 1] if "--code" in sys.argv[:-1] else None
sys.path.insert(0, _CODE or str(Path(__file__).resolve().parents[1]))

from symplan_core.bddl.model import And, Atom, Or, Quantifier  # noqa: E402
from symplan_core.engine import compile_task, parse_plan, verify  # noqa: E402
from symplan_core.tasks import list_tasks, load_problem  # noqa: E402

PLAN_LEN = 20
BATCH = 768


def placement_targets(task, formula, env=None) -> list[tuple[str, str, str]]:
    """(relation, obj, target) groundings of the goal's placement atoms (one choice per quantifier)."""
    env = env or {}
    by_type = task.world.by_type
    if isinstance(formula, Atom):
        args = tuple(env.get(a, a) for a in formula.args)
        from symplan_core.engine.predicates import PLACE_ACTIONS

        return [(formula.predicate, *args)] if formula.predicate in PLACE_ACTIONS and len(args) == 2 else []
    if isinstance(formula, And):
        return [t for p in formula.parts for t in placement_targets(task, p, env)]
    if isinstance(formula, Or):
        return placement_targets(task, formula.parts[0], env)
    if isinstance(formula, Quantifier):
        first = by_type.get(formula.params[0].type, [])
        if formula.kind in ("forpairs", "fornpairs"):
            second = by_type.get(formula.params[1].type, [])
            pairs = list(zip(first, second, strict=False))[: formula.count or None]
            return [t for a, b in pairs for t in placement_targets(
                task, formula.body, {**env, formula.params[0].var: a, formula.params[1].var: b})]
        chosen = {"forall": first, "exists": first[:1], "forn": first[: formula.count or 0]}[formula.kind]
        return [t for x in chosen for t in placement_targets(task, formula.body, {**env, formula.params[0].var: x})]
    return []  # not / imply: nothing to place


def greedy_plan(task, limit: int = 60) -> list[str]:
    """Error-free calls achieving the goal's placements one by one, skipping what fails."""
    # Imported here: only generating needs them, and an older engine (--code) may lack them.
    from symplan_core.engine.checks import closed_container
    from symplan_core.engine.predicates import PLACE_ACTIONS as PLACE

    state = task.initial_state()
    lines: list[str] = []
    short = task.names.short
    for rel, obj, tgt in placement_targets(task, task.problem.goal):
        if obj not in task.world.objects or tgt not in task.world.objects:
            continue
        seq = []
        box = closed_container(task.world, state, obj)
        if box is not None:
            seq += [("navigate", box), ("open", box)]
        aff = task.world.affordances[tgt]
        if rel == "inside" and aff.known and "openable" in aff.abilities and ("open", tgt) not in state.facts:
            seq += [("navigate", tgt), ("open", tgt)]
        seq += [("navigate", obj), ("grasp", obj), ("navigate", tgt), (PLACE[rel], obj, tgt)]
        trial = state.copy()
        texts = [task.call_text(a, [short(x) for x in args]) for a, *args in seq]
        if all(not task.apply(trial, call, trace=False).errors for call in parse_plan("\n".join(texts)).calls):
            state = trial
            lines += texts
        if len(lines) >= limit:
            break
    return lines


def batch_plans(lines: list[str], n: int, seed: int = 0) -> list[str]:
    """n rollout-like variants of one plan: the plan itself, shuffled, truncated, with a bad line."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        variant = list(lines)
        mode = k % 4
        if mode == 1:
            i, j = rng.randrange(len(variant)), rng.randrange(len(variant))
            variant[i], variant[j] = variant[j], variant[i]
        elif mode == 2:
            variant = variant[: rng.randrange(1, len(variant) + 1)]
        elif mode == 3:
            variant.insert(rng.randrange(len(variant) + 1), "grasp(unicorn_1)")
        out.append("\n".join(variant))
    return out


def time_per_plan(task, text: str, reps: int, clock=time.process_time) -> float:
    """Seconds per verification. The default clock is this process's CPU time, which a
    busy machine inflates far less than wall time; ``--wall`` switches to wall time."""
    start = clock()
    for _ in range(reps):
        verify(task, text)
    return (clock() - start) / reps


def build_corpus(n_tasks: int) -> list[tuple[str, str]]:
    """(B-100 activity, 20-call plan text) for the first ``n_tasks`` tasks with such a plan."""
    corpus = []
    for name in list_tasks("b100"):
        lines = greedy_plan(compile_task(load_problem(f"b100/{name}")))
        if len(lines) >= PLAN_LEN:
            corpus.append((name, "\n".join(lines[:PLAN_LEN])))
        if len(corpus) >= n_tasks:
            break
    return corpus


def parts(corpus: list, reps: int, clock) -> dict[str, float]:
    """Median us per plan of the parts of ``verify``: the text parse, the initial state, the goal
    report on the initial state; the steps are the whole less these."""
    def median_us(fn) -> float:
        times = []
        for _n, task, text in corpus:
            start = clock()
            for _ in range(reps):
                fn(task, text)
            times.append((clock() - start) / reps * 1e6)
        return round(statistics.median(times), 1)

    out = {"verify": median_us(verify), "parse_plan": median_us(lambda _t, text: parse_plan(text)),
           "initial_state": median_us(lambda task, _x: task.initial_state()),
           "goal_report": median_us(lambda task, _x: task.goal_report(task.initial_state()))}
    out["steps (the rest)"] = round(out["verify"] - out["parse_plan"] - out["initial_state"] - out["goal_report"], 1)
    return out


def run(n_tasks: int, reps: int, profile: bool, wall: bool = False,
        texts: list[tuple[str, str]] | None = None, split: bool = False) -> dict:
    clock = time.perf_counter if wall else time.process_time
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    corpus = [(name, compile_task(load_problem(f"b100/{name}")), text)
              for name, text in (texts or build_corpus(n_tasks))]
    for _name, task, text in corpus:  # every prefix must be a valid, error-free plan
        assert not verify(task, text).errors, _name
        time_per_plan(task, text, 20)  # warm-up
    per_plan = sorted(time_per_plan(task, text, reps, clock) for _n, task, text in corpus)
    median = statistics.median(per_plan)
    name, task, text = corpus[0]
    plans = batch_plans(text.splitlines(), BATCH)
    batch_times = []
    for _ in range(5):
        start = clock()
        for plan in plans:
            verify(task, plan)
        batch_times.append(clock() - start)
    report = {
        "clock": "wall" if wall else "process_cpu", "load_avg_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(), "tasks": len(corpus), "plan_len": PLAN_LEN, "reps_per_plan": reps,
        "median_us_per_plan": round(median * 1e6, 1),
        "p90_us_per_plan": round(per_plan[int(0.9 * (len(per_plan) - 1))] * 1e6, 1),
        "us_per_step": round(median / PLAN_LEN * 1e6, 2),
        "plans_per_s_one_core": round(len(per_plan) / sum(per_plan)),
        "batch_task": f"b100/{name}", "batch_size": BATCH,
        "batch_s_median": round(statistics.median(batch_times), 4),
        "targets": {"us_per_step": 5, "median_us_per_plan": 100, "plans_per_s_one_core": 10000, "batch_s": 0.2},
    }
    if split:
        report["us_per_plan_by_part"] = parts(corpus, reps, clock)
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(10):
            for _n, t, txt in corpus:
                verify(t, txt)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
        report["profile_top"] = buf.getvalue()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--tasks", type=int, default=40, help="how many B-100 tasks with a 20-call plan")
    parser.add_argument("--reps", type=int, default=200, help="verifications per plan for its timing")
    parser.add_argument("--profile", action="store_true", help="add a cProfile top-15 (by own time)")
    parser.add_argument("--parts", action="store_true",
                        help="add the median us per plan of verify's parts (text parse, initial state, goal report)")
    parser.add_argument("--wall", action="store_true", help="time with the wall clock instead of CPU time")
    parser.add_argument("--save-corpus", type=Path, help="write the generated plan texts (JSON) here")
    parser.add_argument("--corpus", type=Path, help="time these plan texts instead of generating them")
    parser.add_argument("--code", help="import symplan_core from this directory (another engine version)")
    args = parser.parse_args()
    texts = [tuple(row) for row in json.loads(args.corpus.read_text())] if args.corpus else None
    if args.save_corpus:
        texts = build_corpus(args.tasks)
        args.save_corpus.write_text(json.dumps(texts))
    report = run(args.tasks, args.reps, args.profile, args.wall, texts, args.parts)
    report["code"] = _CODE or "this checkout"
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        if key != "profile_top":
            print(f"{key:>22}: {value}")
    if "profile_top" in report:
        print(report["profile_top"])


if __name__ == "__main__":
    main()
