"""The answer and format rewards: the paper's landscape, one engine with eval, typed data errors."""

from __future__ import annotations

import pytest
from plans import BATHTUB_PLAN, STOVE_PLAN, gift_baskets_single
from rl_rows import columns, prompt_row, wrap

from symplan_core.bddl import parse_problem
from symplan_core.engine import compile_task
from symplan_core.eval.metrics import score
from symplan_core.training import (
    FORMAT_PENALTY,
    RewardDataError,
    answer_reward,
    answer_reward_value,
    format_reward,
    strict_pass_reward,
)


@pytest.mark.parametrize(("gcr", "errors", "ep", "expected"), [
    (1.0, False, True, 2.5),     # strict pass
    (1.0, True, True, 1.5),      # engine pass only
    (0.8, False, False, 1.5),    # near miss
    (0.6, False, False, 1.0),    # near miss
    (0.5, True, False, -0.25),   # partial with errors
    (0.0, False, False, -0.5),   # failure
])
def test_answer_reward_reproduces_the_papers_reward_landscape(gcr, errors, ep, expected) -> None:
    assert answer_reward_value(gcr, errors, ep) == pytest.approx(expected, abs=1e-12)


def test_engine_outcomes_land_on_the_landscape(bathtub, stove) -> None:
    responses = [
        (bathtub, wrap(BATHTUB_PLAN), 2.5),                  # strict pass
        (bathtub, wrap(["clean(bathtub_1)"]), 1.5),          # goal reached without navigating: EP only
        (bathtub, wrap([]), -0.5),                           # nothing done
    ]
    rows = [r for r, _, _ in responses]
    got = answer_reward(completions=[t for _, t, _ in responses], **columns(rows))
    assert got == pytest.approx([e for _, _, e in responses])
    assert strict_pass_reward(completions=[wrap(STOVE_PLAN)], **columns([stove])) == [1.0]


def test_reward_equals_the_eval_verdict_for_the_same_response(behavior_dir, stove) -> None:
    gift = prompt_row("b100/assembling_gift_baskets")
    cases = [(stove, wrap(STOVE_PLAN)), (stove, wrap(STOVE_PLAN[:9])), (stove, wrap(STOVE_PLAN[2:])),
             (gift, wrap(gift_baskets_single())), (gift, wrap(gift_baskets_single()[:20])),
             (gift, "grasp(candle_1)\nplace_inside(candle_1, basket_1)"), (stove, "no plan at all")]
    rows = [r for r, _ in cases]
    texts = [t for _, t in cases]
    rewards = answer_reward(completions=texts, **columns(rows))
    formats = format_reward(completions=texts, **columns(rows))
    for (row, text), reward, fmt in zip(cases, rewards, formats, strict=True):
        task = compile_task(parse_problem(row.bddl, row.id), row.robot, row.action_set)
        _, verdict, _ = score(task, text)  # exactly what `symplan eval` records
        assert reward == pytest.approx(answer_reward_value(verdict["gcr"], verdict["error_count"] > 0,
                                                           verdict["engine_pass"]))
        assert fmt == (0.0 if verdict["format_ok"] else FORMAT_PENALTY)
    assert len(set(rewards)) >= 4  # the cases really differ


def test_chat_message_completions_score_like_plain_text(stove) -> None:
    text = wrap(STOVE_PLAN)
    as_messages = [[{"role": "assistant", "content": text}]]
    assert answer_reward(completions=as_messages, **columns([stove])) == \
        answer_reward(completions=[text], **columns([stove])) == [2.5]


@pytest.mark.parametrize("garbage", [
    "", "<think>", "</answer></code>", "<think><think></think>", "\x00\x01\x02 binary",
    "navigate(" * 500, "<answer><code>eval('1')\n__import__('os')</code></answer>", "🤖" * 100,
    [{"role": "assistant", "content": None}], [], None,
])
def test_malformed_completions_get_the_format_penalty_never_an_exception(bathtub, garbage) -> None:
    assert format_reward(completions=[garbage], **columns([bathtub])) == [FORMAT_PENALTY]
    (reward,) = answer_reward(completions=[garbage], **columns([bathtub]))
    assert reward <= 0.0


def test_a_row_whose_bddl_does_not_compile_is_a_typed_error_naming_the_row(bathtub) -> None:
    with pytest.raises(RewardDataError, match="row broken/0"):
        answer_reward(completions=["x"], bddl=["(define (problem"], robot=["single"], action_set=["b100"],
                      id=["broken/0"])
    with pytest.raises(RewardDataError, match="no 'bddl' column"):
        answer_reward(completions=["x"], robot=["single"])
