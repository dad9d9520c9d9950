"""Full, correct hand-written plans on real B-100 and B-1K tasks strict-pass."""

from __future__ import annotations

import pytest
from plans import CORRECT_PLANS, gift_baskets_single, plan_text

from symplan_core.engine import verify


@pytest.mark.parametrize(("task", "robot", "lines"), CORRECT_PLANS,
                         ids=[f"{t}-{r}" for t, r, _ in CORRECT_PLANS])
def test_correct_plan_strict_passes(compiled, task, robot, lines):
    result = verify(compiled(task, robot), plan_text(*lines))
    assert [e.to_json() for e in result.errors] == []
    assert result.gcr == 1.0 and result.grounded_fraction == 1.0
    assert result.engine_pass and result.strict_pass
    assert result.executable_prefix == result.commands == len(lines)


@pytest.mark.parametrize(("task", "robot", "lines"), CORRECT_PLANS,
                         ids=[f"{t}-{r}" for t, r, _ in CORRECT_PLANS])
def test_initial_state_does_not_satisfy_the_goal(compiled, task, robot, lines):
    result = verify(compiled(task, robot), "")
    assert not result.engine_pass and result.gcr < 1.0


def test_full_and_short_instance_names_are_interchangeable(compiled):
    task = compiled("b100/assembling_gift_baskets")
    full = [line.replace("basket_", "basket.n.01_").replace("candle_", "candle.n.01_")
            for line in gift_baskets_single()]
    assert full != gift_baskets_single()
    short_json = verify(task, plan_text(*gift_baskets_single())).to_json()
    full_result = verify(task, plan_text(*full))
    assert full_result.strict_pass
    assert full_result.goal_conjuncts == short_json["goal_conjuncts"]


def test_response_format_plan_strict_passes_with_format_ok(compiled):
    response = ("<think>one item per basket</think><answer><steps>1. fill the baskets</steps><code>\n"
                + plan_text(*gift_baskets_single()) + "\n</code></answer>")
    result = verify(compiled("b100/assembling_gift_baskets"), response)
    assert result.format_ok and result.format_issues == []
    assert result.strict_pass


def test_compiled_task_is_reusable_across_plans(compiled):
    task = compiled("b100/assembling_gift_baskets")
    first = verify(task, plan_text(*gift_baskets_single())).to_json()
    verify(task, "navigate(candle_1)\ngrasp(candle_1)\ngrasp(floor_1)")
    assert verify(task, plan_text(*gift_baskets_single())).to_json() == first
