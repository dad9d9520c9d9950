"""Solvability census: run the reference planner on every task, in parallel processes."""

from __future__ import annotations

import os
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from symplan_core.engine import compile_task
from symplan_core.planners.reference import PlanResult, plan_task


@dataclass(frozen=True)
class CensusJob:
    benchmark: str
    task: str
    robot: str
    actions: str | None = None
    time_budget: float = 5.0


def run_job(job: CensusJob) -> dict:
    from symplan_core.tasks import load_problem

    task = compile_task(load_problem(job.task, job.benchmark), job.robot, actions_for(job))
    result: PlanResult = plan_task(task, job.task, job.time_budget)
    return {"benchmark": job.benchmark, **result.to_json()}


def actions_for(job: CensusJob) -> str | None:
    if job.actions in (None, "default"):
        return None
    return job.actions


def percentile(values: list[int], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize(rows: list[dict]) -> dict:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(f"{row['benchmark']}/{row['robot']}", []).append(row)
    out = {}
    for key, group in sorted(groups.items()):
        commands = [r["commands"] for r in group if r["strict_pass"]]
        out[key] = {"total": len(group), "solved": sum(r["solved"] for r in group),
                    "strict_pass": sum(r["strict_pass"] for r in group),
                    "median_commands": statistics.median(commands) if commands else 0,
                    "p90_commands": percentile(commands, 0.9),
                    "mean_commands": round(statistics.fmean(commands), 2) if commands else 0,
                    "median_seconds": round(statistics.median(r["seconds"] for r in group), 5)}
    return out


def run_census(jobs: list[CensusJob], workers: int | None = None, progress=None) -> list[dict]:
    workers = workers or os.cpu_count() or 1
    rows: list[dict] = []
    if workers == 1:
        for job in jobs:
            rows.append(run_job(job))
            if progress:
                progress()
        return rows
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for row in pool.map(run_job, jobs, chunksize=16):
            rows.append(row)
            if progress:
                progress()
    return rows
