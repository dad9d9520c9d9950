"""Unbiased pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code").

For a task with ``n`` samples of which ``c`` pass, the probability that at least one of ``k``
samples drawn without replacement passes is ``1 - C(n-c, k) / C(n, k)``. The binomials
overflow for large ``n``, so it is computed as the product
``1 - prod_{i=n-c+1}^{n} (1 - k / i)``, which stays within [0, 1] in floating point.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

DEFAULT_KS = (1, 2, 3, 5, 10)


@dataclass(frozen=True)
class SampleCounts:
    """Outcome of sampling one task: ``passed`` of ``samples`` responses succeeded."""

    samples: int
    passed: int

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"need at least one sample, got {self.samples}")
        if not 0 <= self.passed <= self.samples:
            raise ValueError(f"passed={self.passed} is outside 0..{self.samples}")


def pass_at_k(samples: int, passed: int, k: int) -> float:
    """Unbiased estimate of pass@k for one task; ``k`` must not exceed ``samples``."""
    SampleCounts(samples, passed)  # validates the counts
    if not 1 <= k <= samples:
        raise ValueError(f"k={k} must be between 1 and the number of samples ({samples})")
    failed = samples - passed
    if failed < k:
        return 1.0  # every draw of k samples contains a passing one
    return 1.0 - math.prod(1.0 - k / i for i in range(failed + 1, samples + 1))


def mean_pass_at_k(tasks: Iterable[SampleCounts], k: int) -> float:
    """pass@k averaged over tasks (the benchmark-level number reported in tables)."""
    estimates = [pass_at_k(task.samples, task.passed, k) for task in tasks]
    if not estimates:
        raise ValueError("no tasks to average over")
    return math.fsum(estimates) / len(estimates)


def pass_at_k_table(tasks: Sequence[SampleCounts], ks: Iterable[int] = DEFAULT_KS) -> dict[int, float]:
    """Mean pass@k for each ``k`` that every task has enough samples for; larger k are left out."""
    if not tasks:
        return {}
    fewest_samples = min(task.samples for task in tasks)
    return {k: mean_pass_at_k(tasks, k) for k in sorted(set(ks)) if 1 <= k <= fewest_samples}


@dataclass(frozen=True)
class ConsistencyBuckets:
    """How many tasks always, sometimes or never pass across their samples."""

    always: int
    sometimes: int
    never: int

    @property
    def total(self) -> int:
        return self.always + self.sometimes + self.never

    def fractions(self) -> Mapping[str, float]:
        total = self.total or 1  # an empty run has all-zero fractions, not a division error
        return {
            "always": self.always / total,
            "sometimes": self.sometimes / total,
            "never": self.never / total,
        }


def consistency_buckets(tasks: Iterable[SampleCounts]) -> ConsistencyBuckets:
    always = sometimes = never = 0
    for task in tasks:
        if task.passed == task.samples:
            always += 1
        elif task.passed == 0:
            never += 1
        else:
            sometimes += 1
    return ConsistencyBuckets(always=always, sometimes=sometimes, never=never)
