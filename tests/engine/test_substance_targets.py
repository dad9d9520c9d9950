"""Targets that are not things: a substance has no surface to put something on, and a container
cannot be poured into itself. Found by engine-guided decoding, which offered both to Qwen 1.5B
(place_on_top(boot_2, dust_1), pour(bottle, bottle)) because the engine accepted them."""

from __future__ import annotations

import pytest

from symplan_core.engine.verify import compile_task, verify
from symplan_core.tasks import load_problem


def _errors(task_name: str, *calls: str) -> list[tuple[int, str, str]]:
    task = compile_task(load_problem(task_name), "single")
    result = verify(task, "<code>\n" + "\n".join(calls) + "\n</code>")
    return [(e.step, e.kind.value, e.message) for e in result.errors]


@pytest.mark.parametrize("action", ["place_on_top", "place_next_to", "place_under"])
def test_nothing_is_put_on_under_or_next_to_a_substance(action: str) -> None:
    errors = _errors("b1k/clean_leather_boots", "navigate(boot_2)", "grasp(boot_2)", "navigate(dust_1)",
                     f"{action}(boot_2, dust_1)")
    assert errors[:1] == [(3, "AFFORDANCE", "dust_1 is a substance, not a thing to put something on, under or next to")]


def test_the_same_placement_on_a_floor_is_fine() -> None:
    assert _errors("b1k/clean_leather_boots", "navigate(boot_2)", "grasp(boot_2)", "navigate(floor_1)",
                   "place_on_top(boot_2, floor_1)") == []


def test_a_held_bottle_is_not_poured_into_itself() -> None:
    errors = _errors("b1k/clean_copper_mugs", "navigate(liquid_soap__bottle_1)", "grasp(liquid_soap__bottle_1)",
                     "pour(liquid_soap__bottle_1, liquid_soap__bottle_1)")
    assert [(step, kind) for step, kind, _message in errors] == [(2, "AFFORDANCE")]
    assert _errors("b1k/clean_copper_mugs", "navigate(liquid_soap__bottle_1)", "grasp(liquid_soap__bottle_1)",
                   "navigate(mug_1)", "pour(liquid_soap__bottle_1, mug_1)") == []
