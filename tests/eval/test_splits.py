"""The committed B-1K test split is the documented rule's draw."""

from __future__ import annotations

from symplan_core.eval.splits import (
    TEST_SIZE,
    draw_b1k_test_split,
    load_b1k_test_split,
    split_key,
    split_tasks,
)
from symplan_core.tasks import list_tasks


def test_committed_split_equals_the_rule_redrawn_from_the_data(behavior_dir) -> None:
    assert load_b1k_test_split() == draw_b1k_test_split(list_tasks("b1k"), list_tasks("b100"))


def test_split_is_held_out_from_b100_and_has_the_documented_size(behavior_dir) -> None:
    split = load_b1k_test_split()
    assert len(split.activities) == len(set(split.activities)) == TEST_SIZE
    assert not set(split.activities) & set(list_tasks("b100"))
    assert set(split.activities) <= set(list_tasks("b1k"))
    assert split.excluded_shared_with_b100 == len(set(list_tasks("b1k")) & set(list_tasks("b100")))


def test_draw_takes_the_smallest_hashes_whatever_the_input_order() -> None:
    names = [f"task_{i}" for i in range(20)]
    drawn = draw_b1k_test_split(names, ["task_3"], size=5)
    assert drawn.activities == draw_b1k_test_split(list(reversed(names)), ["task_3"], size=5).activities
    expected = sorted(sorted((n for n in names if n != "task_3"), key=split_key)[:5])
    assert drawn.activities == expected


def test_split_tasks_per_benchmark(behavior_dir) -> None:
    assert split_tasks("b100", "test") == split_tasks("b100", "all") == list_tasks("b100")
    assert split_tasks("b1k", "test") == load_b1k_test_split().activities
    assert split_tasks("b1k", "all") == list_tasks("b1k")
