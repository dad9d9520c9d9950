"""Whole-batch rewards: R = R_fmt + R_ans + R_len (+ DAPO overlong shaping), and DAPO's group filter.

:class:`BatchRewarder` is what every trainer calls once per generation batch, *after* rollouts of
all processes are together (the length reward needs the batch SP rate, each group's SP rate and
the per-task references): the TRL trainer (``symplan_core.training.grpo``), the verl advantage
estimator (``symplan_core.training.verl_hooks``) and ``bench/bench_rewards.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from symplan_core.training.length import LengthBatch, LengthConfig, LengthShaper
from symplan_core.training.rewards import SCORER, EngineVerdict, TaskScorer, completion_text

#: The paper's overlong shaping: a 1048-token buffer below an 8192-token maximum, factor 1.0.
PAPER_MAX_RESPONSE, PAPER_OVERLONG_BUFFER = 8192, 1048


def scaled_overlong_buffer(max_length: int) -> int:
    """The paper's overlong buffer scaled to another maximum response length (same fraction)."""
    return max(1, round(PAPER_OVERLONG_BUFFER * max_length / PAPER_MAX_RESPONSE))


def overlong_penalty(length: int, max_length: int | None, buffer: int | None, factor: float = 1.0) -> float:
    """DAPO's soft overlong punishment: 0 up to ``max_length - buffer``, then linear down to -factor."""
    if not max_length or not buffer:
        return 0.0
    exceed = length - (max_length - buffer)
    return min(-exceed / buffer * factor, 0.0)


def informative_groups(rewards: Sequence[float], group_size: int, tol: float = 1e-6) -> list[bool]:
    """DAPO dynamic sampling: per consecutive group of ``group_size``, whether its rewards differ."""
    if group_size < 1 or len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} rewards do not split into groups of {group_size}")
    return [statistics.pstdev(rewards[i:i + group_size]) > tol for i in range(0, len(rewards), group_size)]


@dataclass
class ScoredBatch:
    verdicts: list[EngineVerdict]
    format: list[float]
    answer: list[float]
    length: LengthBatch
    overlong: list[float]

    @property
    def total(self) -> list[float]:
        return [f + a + ln + o for f, a, ln, o in
                zip(self.format, self.answer, self.length.rewards, self.overlong, strict=True)]

    def metrics(self) -> dict[str, float]:
        n = len(self.verdicts) or 1
        return {
            "symplan/strict_pass": sum(v.strict_pass for v in self.verdicts) / n,
            "symplan/engine_pass": sum(v.engine_pass for v in self.verdicts) / n,
            "symplan/gcr": sum(v.gcr for v in self.verdicts) / n,
            "symplan/format_ok": sum(v.format_ok for v in self.verdicts) / n,
            "symplan/overlong": sum(o < 0 for o in self.overlong) / n,
            **self.length.metrics(),
        }


class BatchRewarder:
    """The full reward of a generation batch, with the length state it carries across batches."""

    def __init__(self, length: LengthConfig | None = None, max_length: int | None = None,
                 overlong_buffer: int | None = None, overlong_factor: float = 1.0,
                 scorer: TaskScorer | None = None):
        self.shaper = LengthShaper(length)
        self.max_length, self.overlong_buffer, self.overlong_factor = max_length, overlong_buffer, overlong_factor
        self.scorer = scorer or SCORER

    def score(self, completions: Sequence[Any], lengths: Sequence[int], group_ids: Sequence[Hashable],
              bddl: Sequence[str], robot: Sequence[str] | None = None, action_set: Sequence[str] | None = None,
              ids: Sequence[str] | None = None, task_keys: Sequence[str] | None = None,
              verdicts: Sequence[EngineVerdict] | None = None) -> ScoredBatch:
        """Score a whole batch; ``verdicts`` may be passed when already computed (same order)."""
        texts = [completion_text(c) for c in completions]
        found = list(verdicts) if verdicts is not None else self.scorer.batch(texts, bddl, robot, action_set, ids)
        keys = list(task_keys) if task_keys is not None else list(ids) if ids is not None else list(bddl)
        length = self.shaper.rewards(lengths, [v.strict_pass for v in found], [v.format_ok for v in found],
                                     keys, group_ids)
        overlong = [overlong_penalty(n, self.max_length, self.overlong_buffer, self.overlong_factor)
                    for n in lengths]
        return ScoredBatch(found, [v.format_reward for v in found], [v.answer_reward for v in found],
                           length, overlong)
