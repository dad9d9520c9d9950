"""pass@k against values computed by hand from 1 - C(n-c, k) / C(n, k)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from symplan_core.eval.passk import (
    SampleCounts,
    consistency_buckets,
    mean_pass_at_k,
    pass_at_k,
    pass_at_k_table,
)


@pytest.mark.parametrize(
    ("samples", "passed", "k", "expected"),
    [
        (5, 0, 1, 0.0),  # nothing passes
        (5, 5, 3, 1.0),  # everything passes
        (5, 2, 1, 0.4),  # pass@1 is the pass rate c/n
        (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        (4, 1, 3, 0.75),  # 1 - C(3,3)/C(4,3) = 1 - 1/4
        (10, 3, 5, 11 / 12),  # 1 - C(7,5)/C(10,5) = 1 - 21/252
        (10, 1, 10, 1.0),  # drawing all samples always includes the passing one
        (3, 1, 2, 2 / 3),  # 1 - C(2,2)/C(3,2) = 1 - 1/3
    ],
)
def test_pass_at_k_matches_hand_computed_values(samples: int, passed: int, k: int, expected: float) -> None:
    assert pass_at_k(samples, passed, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_product_form_equals_exact_binomial_ratio_for_many_samples() -> None:
    samples, passed, k = 200, 7, 10
    exact = 1 - Fraction(math.comb(samples - passed, k), math.comb(samples, k))
    assert pass_at_k(samples, passed, k) == pytest.approx(float(exact), rel=1e-12)


def test_pass_at_k_stays_finite_where_binomials_overflow_floats() -> None:
    # C(5000, 2500) has ~1500 digits: the naive float ratio would overflow.
    samples, passed, k = 5000, 10, 2500
    exact = 1 - Fraction(math.comb(samples - passed, k), math.comb(samples, k))
    assert pass_at_k(samples, passed, k) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize(("samples", "passed", "k"), [(3, 1, 4), (3, 1, 0), (3, 4, 1), (0, 0, 1), (3, -1, 1)])
def test_pass_at_k_rejects_impossible_counts(samples: int, passed: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(samples, passed, k)


def test_mean_pass_at_k_averages_tasks() -> None:
    tasks = [SampleCounts(5, 2), SampleCounts(5, 0), SampleCounts(5, 5)]
    assert mean_pass_at_k(tasks, 2) == pytest.approx((0.7 + 0.0 + 1.0) / 3)


def test_mean_pass_at_k_refuses_an_empty_run() -> None:
    with pytest.raises(ValueError):
        mean_pass_at_k([], 1)


def test_table_leaves_out_k_larger_than_the_fewest_samples() -> None:
    tasks = [SampleCounts(5, 2), SampleCounts(3, 1)]
    table = pass_at_k_table(tasks, ks=(1, 2, 3, 5, 10))
    assert sorted(table) == [1, 2, 3]
    assert table[1] == pytest.approx((0.4 + 1 / 3) / 2)
    assert table[2] == pytest.approx((0.7 + 2 / 3) / 2)
    assert table[3] == pytest.approx((0.9 + 1.0) / 2)  # 1 - C(3,3)/C(5,3) = 0.9


def test_buckets_split_always_sometimes_never() -> None:
    tasks = [
        SampleCounts(4, 4),
        SampleCounts(4, 0),
        SampleCounts(4, 1),
        SampleCounts(4, 3),
        SampleCounts(1, 1),
    ]
    buckets = consistency_buckets(tasks)
    assert (buckets.always, buckets.sometimes, buckets.never) == (2, 2, 1)
    assert buckets.fractions() == {"always": 0.4, "sometimes": 0.4, "never": 0.2}


def test_buckets_of_no_tasks_are_all_zero() -> None:
    assert consistency_buckets([]).fractions() == {"always": 0.0, "sometimes": 0.0, "never": 0.0}
