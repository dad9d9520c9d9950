"""Planner-facing views: reversible short names (NameMap) and the environment block."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from symplan_core.bddl import Problem, parse_problem
from symplan_core.bddl.environment import NameMap, render_environment, shorten

STEMS = ["table", "cup", "a", "table_1", "b_2"]
# Small alphabets make collisions (table.n.01_1 vs table.n.02_1 vs a literal table_1) likely.
instance_names = st.builds(
    lambda stem, sense, k: f"{stem}.n.0{sense}_{k}" if sense else f"{stem}_{k}",
    st.sampled_from(STEMS), st.integers(0, 2), st.sampled_from(["1", "2", "*"]),
) | st.sampled_from(["table_1", "a.n.01_b.n.01_1", "a_b.n.01_1", "a_b_1", "floor"])


def test_shorten_drops_the_sense_only() -> None:
    assert shorten("candle.n.01_1") == "candle_1"
    assert shorten("bottle__of__champagne.n.01_1") == "bottle__of__champagne_1"
    assert shorten("hard-boiled_egg.n.01_*") == "hard-boiled_egg_*"
    assert shorten("kitchen") == "kitchen"


def test_colliding_short_names_keep_their_full_names() -> None:
    names = NameMap.for_objects(["table.n.01_1", "table.n.02_1", "candle.n.01_1"])
    assert names.short("table.n.01_1") == "table.n.01_1" and names.short("table.n.02_1") == "table.n.02_1"
    assert names.short("candle.n.01_1") == "candle_1"
    assert names.full("candle_1") == "candle.n.01_1" and names.full("candle.n.01_1") == "candle.n.01_1"
    assert names.full("table_1") is None


def test_short_name_equal_to_another_full_name_is_not_used() -> None:
    names = NameMap.for_objects(["table.n.02_1", "table_1"])
    assert names.full("table_1") == "table_1"
    assert names.short("table.n.02_1") == "table.n.02_1"


@settings(max_examples=300, deadline=None)
@given(st.lists(instance_names, unique=True, max_size=12))
def test_name_map_is_reversible_and_never_ambiguous(instances: list[str]) -> None:
    names = NameMap.for_objects(instances)
    shown = [names.short(i) for i in instances]
    assert len(set(shown)) == len(instances)  # injective: no two instances look alike
    for inst, name in zip(instances, shown, strict=True):
        assert names.full(name) == inst  # the shown name resolves back
        assert names.full(inst) == inst  # full names always work too
        # A shown name is never some *other* instance's full name.
        assert name == inst or name not in instances
    assert names.full("no_such_instance_xyz") is None


def test_real_tasks_get_short_names_that_resolve(corpus: dict[Path, Problem]) -> None:
    shortened = 0
    for problem in corpus.values():
        names = NameMap.for_objects(problem.objects)
        for inst in problem.objects:
            assert names.full(names.short(inst)) == inst
            shortened += names.short(inst) != inst
    assert shortened > 10000


SAMPLE = """(define (problem p) (:domain omnigibson)
  (:objects candle.n.01_1 candle.n.01_2 - candle.n.01 table.n.02_1 - table.n.02 agent.n.01_1 - agent.n.01)
  (:init (ontop candle.n.01_1 table.n.02_1) (not (toggled_on candle.n.01_2)) (inroom table.n.02_1 kitchen)
         (ontop agent.n.01_1 table.n.02_1))
  (:goal (and (toggled_on ?candle.n.01_1) (inside ?candle.n.01_2 ?table.n.02_1))))"""


def test_environment_has_objects_and_init_but_no_goal() -> None:
    text = render_environment(parse_problem(SAMPLE))
    assert text.splitlines() == [
        "(define (environment)",
        "    (:objects",
        "        candle_1 candle_2 - candle.n.01",
        "        table_1 - table.n.02",
        "    )",
        "    (:init",
        "        (ontop candle_1 table_1)",
        "        (not (toggled_on candle_2))",
        "        (inroom table_1 kitchen)",
        "    )",
        ")",
    ]


def test_environment_of_every_real_task_omits_goal_and_agent(corpus: dict[Path, Problem]) -> None:
    for problem in list(corpus.values())[::25]:
        text = render_environment(problem)
        assert ":goal" not in text and " - agent.n.01" not in text and "agent_1" not in text.split()
        assert text.startswith("(define (environment)") and text.count("(") == text.count(")")
