"""The derived scene-name mapping, checked against EAI's own behavior_bddl_info for all 100 demos."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from symplan_core.eai.data import bddl_info, demo_ids, eai_problem, resolve_demo
from symplan_core.eai.mapping import MappingError, derive_mapping, goal_lines, mapping_for
from symplan_core.tasks import load_problem


def _names(line) -> list[str]:
    return [t for t in line if t != "-"]


def test_mapping_round_trips_for_all_100_demos(eai_dir: Path) -> None:
    """behavior_bddl_info prints the same states in instance names, line for line: the derived
    mapping must turn the prompt's lines into those, and its inverse must turn them back."""
    for demo_id in demo_ids():
        demo, info, mapping = resolve_demo(demo_id), bddl_info(demo_id), mapping_for(demo_id)
        as_bddl = [[mapping.to_bddl.get(t, t) for t in line] for line in demo.init]
        assert as_bddl == info["initial_condition"], demo_id
        assert [[mapping.to_bddl.get(t, t) for t in _names(line)] for line in demo.goal] == \
            [_names(line) for line in info["goal_condition"]], demo_id
        back = [tuple(mapping.scene(t) for t in line) for line in info["initial_condition"]]
        assert back == list(demo.init), demo_id


def test_mapping_is_one_to_one_within_each_synset(eai_dir: Path) -> None:
    for demo_id in demo_ids():
        mapping, problem = mapping_for(demo_id), load_problem(f"b100/{resolve_demo(demo_id).activity}")
        assert len(set(mapping.to_bddl.values())) == len(mapping.to_bddl) == len(mapping.categories)
        assert all(problem.objects[inst] == mapping.categories[scene] for scene, inst in mapping.to_bddl.items())


def _gift_baskets():
    demo = resolve_demo("assembling_gift_baskets")
    return demo, load_problem("b100/assembling_gift_baskets"), eai_problem("assembling_gift_baskets")


def test_an_extra_scene_object_is_an_error_naming_the_demo_and_the_name(eai_dir: Path) -> None:
    demo, problem, eai_task = _gift_baskets()
    extra = replace(demo, objects={**demo.objects, "candle_99": "candle.n.01"})
    with pytest.raises(MappingError, match=rf"{demo.demo_id}: .*candle_99"):
        derive_mapping(extra, problem, eai_task)


def test_a_fact_without_counterpart_is_an_error_naming_the_demo_and_the_name(eai_dir: Path) -> None:
    demo, problem, eai_task = _gift_baskets()
    moved = tuple(("ontop", "bow_3", "breakfast_table_13") if fact[1] == "bow_3" else fact for fact in demo.init)
    with pytest.raises(MappingError, match=rf"{demo.demo_id}: .*bow_3"):
        derive_mapping(replace(demo, init=moved), problem, eai_task)


def test_interchangeable_objects_pair_in_order_of_appearance(eai_dir: Path) -> None:
    """Four baskets on one floor: any pairing is a symmetry of the task; the derived one is
    the order in which the prompt lists them (EAI's own)."""
    mapping = mapping_for(resolve_demo("assembling_gift_baskets").demo_id)
    assert [mapping.to_bddl[f"basket_{k}"] for k in range(4)] == [f"basket.n.01_{k}" for k in range(1, 5)]
    assert mapping.to_bddl["breakfast_table_13"] == "table.n.02_1"  # the table with candles and cookies


def test_only_sorting_mail_prompt_asks_for_another_predicate_than_eai_task_file(eai_dir: Path) -> None:
    """The mapping aligns goal lines by their names only; their predicates agree with EAI's
    task file everywhere but in sorting_mail, whose prompt says ontop and whose file nextto."""
    differ = {}
    for demo_id in demo_ids():
        demo, mapping = resolve_demo(demo_id), mapping_for(demo_id)
        prompt = [[mapping.to_bddl.get(t, t) for t in _names(line)] for line in demo.goal]
        if prompt != goal_lines(eai_problem(demo.activity)):
            differ[demo.activity] = {t for line in prompt for t in line} - \
                {t for line in goal_lines(eai_problem(demo.activity)) for t in line}
    assert differ == {"sorting_mail": {"ontop"}}
