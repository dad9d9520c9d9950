"""What the guide offers a model, line by line (``GuidePolicy``), on real BEHAVIOR tasks.

The model is replaced here by a chooser that reads the per-line grammar it is given and picks
from its alternatives, so the tests see exactly what was offered; the real tiny model runs the
same loop in test_decoding_live.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from symplan_core.engine.verify import compile_task, verify
from symplan_core.llm.decoding import EXECUTABLE_ONLY, GuidePolicy, Step, close_header, guided_decode
from symplan_core.llm.grammar import END, HEAD, TextBudget, literal
from symplan_core.planners.reference import plan_task
from symplan_core.tasks import load_problem

_CALL = re.compile(r'"((?:[^"\\]|\\.)*)" "\\n"')

Chooser = Callable[[list[str], bool], str]


def _decoder(choose: Chooser, offers: list[tuple[list[str], bool]]):
    def continue_text(prefix: str, grammar: str, max_tokens: int) -> Step:
        if not prefix:  # the header request
            return Step(close_header(HEAD), completion_tokens=4, finish_reason="stop")
        calls = [m.replace('\\"', '"') for m in _CALL.findall(grammar)]
        end_offered = literal(END) in grammar
        offers.append((calls, end_offered))
        pick = choose(calls, end_offered)
        return Step(pick if pick == END else pick + "\n", completion_tokens=8, finish_reason="stop")
    return continue_text


def _signatures(task, text: str) -> list:
    state = task.initial_state()
    seen = [state.signature()]
    for call in verify(task, text).calls:
        task.apply(state, call, trace=False)
        seen.append(state.signature())
    return seen


@pytest.fixture(scope="module")
def task():
    return compile_task(load_problem("b1k/attach_a_camera_to_a_tripod"), "single")


def test_a_guided_plan_never_returns_to_a_state_it_was_in(task) -> None:
    # Always taking the first offer walks navigate_to(a) -> navigate_to(b) -> navigate_to(a) ...
    # when cycles are offered; the default guide never offers the call that closes the cycle.
    first = lambda calls, _end: calls[0]  # noqa: E731
    looping = guided_decode(task, _decoder(first, []), max_tokens=200, think=TextBudget.parse("skip"),
                            max_calls=12, policy=EXECUTABLE_ONLY)
    cycle_free = guided_decode(task, _decoder(first, []), max_tokens=200, think=TextBudget.parse("skip"),
                               max_calls=12)
    assert len(set(_signatures(task, looping.text))) < len(_signatures(task, looping.text))
    seen = _signatures(task, cycle_free.text)
    assert len(set(seen)) == len(seen), cycle_free.text
    assert cycle_free.metadata["pruned_cycles"] > 0
    assert verify(task, cycle_free.text).errors == []


def test_a_guided_plan_makes_no_detour_while_another_call_is_executable(task) -> None:
    # navigate(a) navigate(b) reaches a state that was one call away before: the first navigate
    # was wasted. Always taking the first offer makes that detour unless the guide removes it.
    def first_navigate(calls: list[str], _end: bool) -> str:
        return next((c for c in calls if c.startswith("navigate")), calls[0])

    def actions(policy: GuidePolicy) -> list[str]:
        completion = guided_decode(task, _decoder(first_navigate, []), max_tokens=200,
                                   think=TextBudget.parse("skip"), max_calls=6, policy=policy)
        return [call.action for call in verify(task, completion.text).calls]

    wandering = actions(GuidePolicy(prune_detours=False))
    direct = actions(GuidePolicy())
    assert wandering[:2] == ["navigate", "navigate"], wandering
    assert not any(a == b == "navigate" for a, b in zip(direct, direct[1:], strict=False)), direct


def test_the_end_is_offered_only_once_the_goal_holds_and_the_plan_stops_there(task) -> None:
    reference = [task.call_text(action, args) for action, args in plan_task(task).calls]
    offers: list[tuple[list[str], bool]] = []

    def follow_reference(calls: list[str], _end: bool) -> str:
        wanted = reference[len(offers) - 1]
        assert wanted in calls, (wanted, calls)  # every executable, cycle-free call is offered
        return wanted

    completion = guided_decode(task, _decoder(follow_reference, offers), max_tokens=400,
                               think=TextBudget.parse("skip"))
    result = verify(task, completion.text)
    assert result.strict_pass, result.failure_lines()
    assert completion.metadata["goal_reached"] and not completion.metadata["forced_end"]
    assert [task.call_text(c.action, [task.names.full(a) for a in c.args]) for c in result.calls] \
        == reference[: len(result.calls)]
    assert not any(end for _calls, end in offers)


def test_without_stop_at_goal_the_model_may_end_early(task) -> None:
    offers: list[tuple[list[str], bool]] = []
    completion = guided_decode(task, _decoder(lambda calls, end: END if end else calls[0], offers),
                               max_tokens=200, think=TextBudget.parse("skip"),
                               policy=GuidePolicy(stop_at_goal=False))
    assert [end for _calls, end in offers] == [False, True]  # a plan has at least one call
    assert len(verify(task, completion.text).calls) == 1
    assert not completion.metadata["goal_reached"]


def _lines_offering_a_regression_beside_progress(name: str, policy: GuidePolicy) -> int:
    """Follow the reference plan; count the lines whose offers mix calls that undo a met goal
    literal with calls that do not."""
    task = compile_task(load_problem(name), "single")
    reference = [task.call_text(action, args) for action, args in plan_task(task).calls]
    offers: list[tuple[list[str], bool]] = []
    guided_decode(task, _decoder(lambda _calls, _end: reference[len(offers) - 1], offers), max_tokens=2000,
                  think=TextBudget.parse("skip"), policy=policy)
    state, mixed = task.initial_state(), 0
    for index, (calls, _end) in enumerate(offers):
        met = task.goal_report(state)[1]
        undoes = []
        for text in calls:
            after = state.copy()
            task.apply(after, verify(task, f"<code>\n{text}\n</code>").calls[0], trace=False)
            undoes.append(task.goal_report(after)[1] < met)
        mixed += any(undoes) and not all(undoes)
        task.apply(state, verify(task, f"<code>\n{reference[index]}\n</code>").calls[0], trace=False)
    return mixed


def test_a_call_that_undoes_a_met_goal_literal_is_offered_only_when_nothing_else_is() -> None:
    # picking_up_trash: once a can is in the bin, grasping it again is executable and undoes it.
    assert _lines_offering_a_regression_beside_progress("b1k/picking_up_trash", GuidePolicy(keep_progress=False)) > 0
    assert _lines_offering_a_regression_beside_progress("b1k/picking_up_trash", GuidePolicy()) == 0
