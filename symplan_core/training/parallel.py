"""Score a batch on several cores: one worker process per shard, tasks pinned to shards by hash.

Pinning means each worker compiles a task once and keeps it, so steady-state cost is the engine
runs alone. Each worker runs the very same :class:`~symplan_core.training.rewards.TaskScorer`
(hence :func:`symplan_core.eval.metrics.score`) as the in-process path.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from symplan_core.training.rewards import EngineVerdict, RewardDataError, TaskScorer, completion_text

_WORKER_SCORER: TaskScorer | None = None


def _score_shard(jobs: list[tuple[str, str, str | None, str, list[str]]]) -> list[list[EngineVerdict] | str]:
    global _WORKER_SCORER
    if _WORKER_SCORER is None:
        _WORKER_SCORER = TaskScorer()
    out: list[list[EngineVerdict] | str] = []
    for bddl, robot, actions, row_id, texts in jobs:
        try:
            out.append([_WORKER_SCORER.verdict(bddl, robot, actions, t, row_id) for t in texts])
        except RewardDataError as exc:  # re-raised in the parent with its message
            out.append(str(exc))
    return out


class ShardedScorer:
    """Drop-in for ``TaskScorer.batch`` that spreads distinct tasks over ``workers`` processes."""

    def __init__(self, workers: int = 2, start_method: str = "spawn"):
        if workers < 1:
            raise ValueError("workers must be >= 1")
        context = multiprocessing.get_context(start_method)
        self._pools = [ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(workers)]

    def close(self) -> None:
        for pool in self._pools:
            pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ShardedScorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def batch(self, completions: Sequence[Any], bddl: Sequence[str], robot: Sequence[str] | None = None,
              action_set: Sequence[str] | None = None, ids: Sequence[str] | None = None) -> list[EngineVerdict]:
        n = len(completions)
        if len(bddl) != n:
            raise RewardDataError(f"{n} completions but {len(bddl)} 'bddl' values")
        robots = list(robot) if robot is not None else ["single"] * n
        actions = list(action_set) if action_set is not None else [None] * n
        names = list(ids) if ids is not None else [str(i) for i in range(n)]
        # One job per distinct task: its BDDL travels once, with all of its completions.
        jobs: dict[tuple[str, str, str | None], tuple[list[int], list[str]]] = {}
        for i in range(n):
            key = (hashlib.sha1(bddl[i].encode()).hexdigest() if isinstance(bddl[i], str) else "", robots[i], actions[i])
            slots, texts = jobs.setdefault(key, ([], []))
            slots.append(i)
            texts.append(completion_text(completions[i]))
        shards: list[list[tuple[tuple, tuple]]] = [[] for _ in self._pools]
        for key, (slots, texts) in jobs.items():
            first = slots[0]
            pool_index = int(key[0][:8] or "0", 16) % len(self._pools)
            shards[pool_index].append((tuple(slots), (bddl[first], robots[first], actions[first], names[first], texts)))
        futures = [pool.submit(_score_shard, [job for _, job in shard]) if shard else None
                   for pool, shard in zip(self._pools, shards, strict=True)]
        out: list[EngineVerdict | None] = [None] * n
        for future, shard in zip(futures, shards, strict=True):
            if future is None:
                continue
            for (job_slots, _), result in zip(shard, future.result(), strict=True):
                if isinstance(result, str):
                    raise RewardDataError(result)
                for slot, verdict in zip(job_slots, result, strict=True):
                    out[slot] = verdict
        return [v for v in out if v is not None]
