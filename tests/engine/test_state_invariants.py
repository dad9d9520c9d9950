"""Physical consistency of the symbolic state under placement effects."""

from __future__ import annotations

from plans import kinds, plan_text

from symplan_core.engine import parse_plan, verify

GIFTS = "b100/assembling_gift_baskets"


def run(task, text: str):
    state = task.initial_state()
    outcomes = [task.apply(state, call) for call in parse_plan(text).calls]
    return state, outcomes


def supports_of(task, state, obj: str) -> list[tuple[str, str]]:
    return [(rel, tgt) for rel in ("ontop", "inside", "under") for tgt in task.world.objects
            if state.holds(rel, (obj, tgt))]


def test_moving_an_object_replaces_its_single_support(compiled):
    task = compiled(GIFTS, "dual")
    state, _ = run(task, plan_text("navigate(table_1)", "grasp(candle_1)", "navigate(basket_1)",
                                   "place_inside(candle_1, basket_1)", "grasp(candle_1)",
                                   "place_on_top(candle_1, basket_1)"))
    assert state.holds("ontop", ("candle.n.01_1", "basket.n.01_1"))
    assert not state.holds("inside", ("candle.n.01_1", "basket.n.01_1"))
    assert not state.holds("ontop", ("candle.n.01_1", "table.n.02_1"))
    assert supports_of(task, state, "candle.n.01_1") == [("ontop", "basket.n.01_1")]


def test_a_held_object_has_no_support(compiled):
    state, _ = run(compiled(GIFTS), "navigate(candle_1)\ngrasp(candle_1)")
    assert state.held == ["candle.n.01_1"] and "candle.n.01_1" not in state.support
    assert not state.holds("ontop", ("candle.n.01_1", "table.n.02_1"))
    assert state.holds("grasped", ("agent.n.01_1", "candle.n.01_1"))


def test_nextto_is_symmetric_and_shares_the_target_support(compiled):
    state, _ = run(compiled(GIFTS), plan_text("navigate(candle_1)", "grasp(candle_1)", "navigate(cookie_1)",
                                              "place_next_to(candle_1, cookie_1)"))
    assert state.holds("nextto", ("candle.n.01_1", "cookie.n.01_1"))
    assert state.holds("nextto", ("cookie.n.01_1", "candle.n.01_1"))
    assert state.holds("ontop", ("candle.n.01_1", "table.n.02_1"))  # cookie_1 is on table_1


def test_nextto_an_object_on_the_floor_stands_on_the_floor(compiled):
    state, _ = run(compiled(GIFTS), plan_text("navigate(candle_1)", "grasp(candle_1)", "navigate(basket_1)",
                                              "place_next_to(candle_1, basket_1)"))
    assert state.holds("ontop", ("candle.n.01_1", "floor.n.01_1"))


def test_touching_is_derived_from_support_and_never_stored(compiled):
    state, _ = run(compiled(GIFTS), plan_text("navigate(candle_1)", "grasp(candle_1)", "navigate(basket_1)",
                                              "place_on_top(candle_1, basket_1)"))
    assert state.holds("touching", ("candle.n.01_1", "basket.n.01_1"))
    assert state.holds("touching", ("basket.n.01_1", "candle.n.01_1"))
    assert not any(f[0] == "touching" for f in state.facts)
    again, _ = run(compiled(GIFTS), plan_text("navigate(candle_1)", "grasp(candle_1)"))
    assert not again.holds("touching", ("candle.n.01_1", "basket.n.01_1"))


def test_picking_up_drops_nextto_pairs(compiled):
    state, _ = run(compiled(GIFTS), plan_text("navigate(candle_1)", "grasp(candle_1)", "navigate(cookie_1)",
                                              "place_next_to(candle_1, cookie_1)", "grasp(candle_1)"))
    assert not state.holds("nextto", ("cookie.n.01_1", "candle.n.01_1"))


def test_placing_an_object_on_itself_is_rejected_and_skipped(compiled):
    result = verify(compiled(GIFTS), "navigate(candle_1)\ngrasp(candle_1)\nplace_on_top(candle_1, candle_1)",
                    trace=True)
    assert kinds(result) == ["AFFORDANCE"] and result.trace[2]["applied"] is False


def test_placing_a_container_inside_its_own_content_is_rejected(compiled):
    task = compiled(GIFTS, "dual")
    text = plan_text("navigate(basket_1)", "grasp(basket_1)", "navigate(candle_1)", "grasp(candle_1)",
                     "place_inside(candle_1, basket_1)", "place_inside(basket_1, candle_1)")
    state, outcomes = run(task, text)
    assert [e.kind.value for o in outcomes for e in o.errors] == ["AFFORDANCE"]
    assert "candle_1" in outcomes[-1].errors[0].message
    assert state.holds("inside", ("candle.n.01_1", "basket.n.01_1")) and state.held == ["basket.n.01_1"]


def test_navigate_reaches_what_is_on_or_in_the_target_but_a_floor_reaches_nothing(compiled):
    state, _ = run(compiled(GIFTS), "navigate(table_1)")
    assert {"candle.n.01_1", "cookie.n.01_4", "table.n.02_1"} <= state.near
    assert "cheese.n.01_1" not in state.near
    state, _ = run(compiled(GIFTS), "navigate(floor_1)")
    assert state.near == frozenset({"floor.n.01_1"})


def test_initial_state_is_not_mutated_by_verification(compiled):
    task = compiled(GIFTS)
    before = task.initial_state().literals()
    verify(task, "navigate(candle_1)\ngrasp(candle_1)")
    assert task.initial_state().literals() == before


class _Ordered(frozenset):
    """A frozenset that iterates in a chosen order (set order varies with PYTHONHASHSEED)."""

    def __new__(cls, items, reverse: bool):
        obj = super().__new__(cls, items)
        obj.reverse = reverse
        return obj

    def __iter__(self):
        return iter(sorted(frozenset.__iter__(self), reverse=self.reverse))


def test_floor_choice_does_not_depend_on_set_iteration_order(behavior_dir):
    """Regression: `place_next_to` a held object (no support, no room) picked the first floor in
    frozenset order, so GCR of b100/bringing_in_wood differed between processes."""
    from symplan_core.engine import compile_task
    from symplan_core.tasks import load_problem

    text = plan_text("navigate(plywood_1)", "grasp(plywood_1)", "grasp(plywood_2)",
                     "place_next_to(plywood_2, plywood_1)")
    results = []
    for reverse in (False, True):
        task = compile_task(load_problem("b100/bringing_in_wood"), robot="dual")
        task.world.floors = _Ordered(task.world.floors, reverse)
        assert len(task.world.floors) == 2
        results.append(verify(task, text, trace=True).to_json())
    assert results[0] == results[1]
    assert ["ontop", "plywood.n.01_2", "floor.n.01_1"] in results[0]["trace"][3]["added"]


def test_what_rests_on_something_inside_a_container_is_inside_it(compiled):
    task = compiled(GIFTS, "single")
    state, outcomes = run(task, plan_text(
        "navigate(candle_1)", "grasp(candle_1)", "navigate(basket_1)", "place_inside(candle_1, basket_1)",
        "navigate(cookie_1)", "grasp(cookie_1)", "navigate(basket_1)", "place_on_top(cookie_1, candle_1)"))
    assert not any(o.errors for o in outcomes)
    assert state.holds("inside", ("cookie.n.01_1", "basket.n.01_1"))  # derived through the candle
    assert not state.holds("ontop", ("cookie.n.01_1", "basket.n.01_1"))  # on top is direct contact only
    assert state.support["cookie.n.01_1"] == ("ontop", "candle.n.01_1")  # one stored support
    later, _ = run(task, plan_text("navigate(candle_1)", "grasp(candle_1)", "navigate(basket_1)",
                                   "place_on_top(candle_1, basket_1)", "navigate(cookie_1)", "grasp(cookie_1)",
                                   "navigate(candle_1)", "place_on_top(cookie_1, candle_1)"))
    assert not later.holds("inside", ("cookie.n.01_1", "basket.n.01_1"))  # on a candle ON the basket
