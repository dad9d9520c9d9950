"""Task registry: which tasks exist, resolving names to problems, synset abilities."""

from __future__ import annotations

from pathlib import Path

import pytest

from symplan_core.bddl import Problem
from symplan_core.tasks import (
    TaskNotFound,
    list_tasks,
    load_problem,
    problem_path,
    synset_info,
    synset_table,
    task_benchmark,
)


def test_list_counts(behavior_dir: Path) -> None:
    assert (len(list_tasks("b100")), len(list_tasks("b1k"))) == (100, 1016)
    assert list_tasks("b100") == sorted(list_tasks("b100"))


def test_tasks_in_both_benchmarks_are_ambiguous_without_one(behavior_dir: Path) -> None:
    both = sorted(set(list_tasks("b100")) & set(list_tasks("b1k")))
    assert len(both) == 65 and "assembling_gift_baskets" in both
    with pytest.raises(TaskNotFound, match="exists in both b100 and b1k"):
        problem_path("assembling_gift_baskets")
    assert problem_path("assembling_gift_baskets", "b100")[0] == "b100"
    assert problem_path("b1k/assembling_gift_baskets")[0] == "b1k"


def test_name_resolution(behavior_dir: Path) -> None:
    only_b1k = sorted(set(list_tasks("b1k")) - set(list_tasks("b100")))[0]
    bench, path = problem_path(only_b1k)
    assert bench == "b1k" and path == behavior_dir / "b1k" / "problems" / f"{only_b1k}.bddl"
    assert task_benchmark(only_b1k) == "b1k"
    assert problem_path(str(path)) == ("file", path)


@pytest.mark.parametrize(("name", "message"), [
    ("no_such_activity", "no task 'no_such_activity' in b100 or b1k"),
    ("b100/loading_the_car", "no task 'loading_the_car' in b100"),
    ("missing.bddl", "no such BDDL file"),
    ("b2k/loading_the_car", "unknown benchmark 'b2k'"),
])
def test_unknown_tasks_raise_task_not_found(behavior_dir: Path, name: str, message: str) -> None:
    with pytest.raises(TaskNotFound, match=message):
        problem_path(name)


def test_load_problem_gives_the_parsed_problem(behavior_dir: Path) -> None:
    problem = load_problem("b100/assembling_gift_baskets")
    assert isinstance(problem, Problem) and problem.domain == "igibson"
    assert problem.name == "assembling_gift_baskets_0"
    assert load_problem("assembling_gift_baskets", "b1k").domain == "omnigibson"
    assert load_problem("b100/assembling_gift_baskets") is problem  # cached


def test_synset_with_its_own_row(behavior_dir: Path) -> None:
    cabinet = synset_info("cabinet.n.01")
    assert cabinet is not None and cabinet.synset == "cabinet.n.01"
    assert {"openable", "fillable"} <= cabinet.abilities and not cabinet.is_substance
    water = synset_info("water.n.06")
    assert water is not None and water.object_type == "liquid" and water.is_substance


def test_b100_synset_without_a_row_falls_back_to_its_kinds(behavior_dir: Path) -> None:
    # B-100 says basket.n.01; B-1K's table only has its kinds (hamper, wicker_basket ...).
    assert "basket.n.01" not in synset_table()
    basket = synset_info("basket.n.01")
    assert basket is not None and "fillable" in basket.abilities
    kinds = [info for info in synset_table().values() if "basket.n.01" in info.hypernyms]
    assert len(kinds) >= 2 and all(basket.abilities <= k.abilities for k in kinds)


def test_unknown_synset_is_none(behavior_dir: Path) -> None:
    assert synset_info("no_such_thing.n.01") is None


def test_object_types_without_any_synset_knowledge_are_few_and_known(behavior_dir: Path) -> None:
    # These fall through all three rules (callers use a permissive default); the list is
    # pinned so a change in the table or the fallback shows up here.
    unknown = {b: sorted({t for task in list_tasks(b) for t in load_problem(task, b).objects.values()
                          if synset_info(t) is None}) for b in ("b100", "b1k")}
    assert unknown == {
        "b100": ["apparel.n.01", "cereal.n.03", "earphone.n.01", "highlighter.n.02", "saw.n.02",
                 "sunglass.n.01", "vehicle.n.01"],
        "b1k": ["boat.n.01", "computer.n.01", "plastic_art.n.01", "saw.n.02", "tape.n.01"],
    }
