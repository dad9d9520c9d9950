"""Accuracy gate, per-task references, Short-RL and GroupAdapt budgets, state save/restore."""

from __future__ import annotations

import json

import pytest

from symplan_core.training import (
    BatchRewarder,
    LengthConfig,
    LengthShaper,
    informative_groups,
    overlong_penalty,
    scaled_overlong_buffer,
)


def one_group(shaper: LengthShaper, lengths, sp, key="t"):
    return shaper.rewards(lengths, sp, [True] * len(sp), [key] * len(sp), [0] * len(sp))


@pytest.mark.parametrize(("passes", "budget"), [(8, 200), (4, 200), (3, 400), (0, 400)])
def test_groupadapt_gives_easy_groups_200_and_hard_groups_400_tokens(passes, budget) -> None:
    shaper = LengthShaper(LengthConfig("group_adapt", tau=0.5))
    batch = one_group(shaper, [100] * 8, [i < passes for i in range(8)])
    assert batch.group_budgets == {0: budget}
    assert batch.hard_groups == (budget == 400)


def test_short_rl_uses_200_tokens_for_every_group() -> None:
    shaper = LengthShaper(LengthConfig("short_rl"))
    batch = shaper.rewards([10] * 16, [True] * 8 + [True] + [False] * 7, [True] * 16, ["a"] * 8 + ["b"] * 8,
                           [0] * 8 + [1] * 8)
    assert batch.group_budgets == {0: 200, 1: 200}


def test_a_hard_prompt_moves_to_the_easy_budget_when_its_pass_rate_reaches_tau() -> None:
    shaper = LengthShaper(LengthConfig("group_adapt", eps_acc=1.0))
    budgets = [one_group(shaper, [300] * 8, [i < passes for i in range(8)]).group_budgets[0]
               for passes in (1, 2, 3, 4, 6)]
    assert budgets == [400, 400, 400, 200, 200]


def test_length_reward_is_half_inside_the_budget_and_decays_linearly_beyond() -> None:
    shaper = LengthShaper(LengthConfig("short_rl", delta_base=200, eps=1.0, eps_acc=1.0))
    lengths = [100, 300, 301, 700, 1100]
    batch = one_group(shaper, lengths, [True] * 5)
    low, high = 100, 1100
    expected = [0.5, 0.5] + [0.5 - (n - low) / (high - low + 1.0) for n in lengths[2:]]
    assert batch.rewards == pytest.approx(expected)
    assert all(-0.5 < r <= 0.5 for r in batch.rewards)


def test_only_well_formed_strict_passes_earn_length_reward_and_set_references() -> None:
    shaper = LengthShaper(LengthConfig("group_adapt", eps_acc=1.0))
    batch = shaper.rewards([50, 900, 40], [True, True, False], [True, False, True], ["t"] * 3, [0] * 3)
    assert batch.rewards[1] == 0.0 and batch.rewards[2] == 0.0  # malformed SP; failure
    assert shaper.references.get("t") == (50, 900)  # failures never set a reference


def test_the_gate_closes_when_batch_sp_falls_more_than_eps_acc_below_the_best() -> None:
    shaper = LengthShaper(LengthConfig("short_rl", eps_acc=0.05))
    first = one_group(shaper, [10] * 10, [True] * 9 + [False])        # a_b = 0.9 = a*
    drop = one_group(shaper, [10] * 10, [True] * 8 + [False] * 2)     # 0.8 < 0.9 - 0.05
    near = one_group(shaper, [10] * 20, [True] * 17 + [False] * 3)    # 0.85 >= 0.85
    assert first.gate_open and not drop.gate_open and near.gate_open
    assert drop.rewards == [0.0] * 10 and shaper.gate.best == pytest.approx(0.9)


def test_plain_dapo_mode_never_rewards_length() -> None:
    shaper = LengthShaper(LengthConfig("none"))
    assert one_group(shaper, [10, 5000], [True, True]).rewards == [0.0, 0.0]


def test_state_saved_with_a_checkpoint_restores_gate_and_references(tmp_path) -> None:
    shaper = LengthShaper(LengthConfig("group_adapt"))
    one_group(shaper, [120, 80, 400], [True, True, False], key="b100/x/single")
    path = shaper.save(tmp_path / "checkpoint-3")
    restored = LengthShaper(LengthConfig("group_adapt"))
    assert restored.load(tmp_path / "checkpoint-3")
    assert restored.state_dict() == shaper.state_dict()
    assert json.loads(path.read_text())["references"] == {"b100/x/single": [80, 120]}
    assert not LengthShaper().load(tmp_path / "nowhere")
    path.write_text("{\"version\": 1}")
    with pytest.raises(ValueError, match="not a reward state"):
        LengthShaper().load(path.parent)


def test_overlong_shaping_matches_dapo_and_scales_with_max_length() -> None:
    assert scaled_overlong_buffer(8192) == 1048 and scaled_overlong_buffer(1024) == 131
    assert overlong_penalty(7144, 8192, 1048) == 0.0
    assert overlong_penalty(8192, 8192, 1048) == pytest.approx(-1.0)
    assert overlong_penalty(7668, 8192, 1048) == pytest.approx(-0.5)
    assert overlong_penalty(10, None, None) == 0.0


def test_dynamic_sampling_keeps_only_groups_whose_rewards_differ() -> None:
    assert informative_groups([1, 1, 1, 1, 2.5, 1, 1, 1, -0.5, -0.5, -0.5, -0.5], 4) == [False, True, False]
    with pytest.raises(ValueError):
        informative_groups([1, 2, 3], 2)


def test_batch_rewarder_sums_format_answer_length_and_overlong(bathtub) -> None:
    from plans import BATHTUB_PLAN
    from rl_rows import wrap

    texts = [wrap(BATHTUB_PLAN), wrap(BATHTUB_PLAN, think="x" * 4000), "\n".join(BATHTUB_PLAN), "junk"]
    rewarder = BatchRewarder(LengthConfig("group_adapt", delta_base=10), max_length=1000, overlong_buffer=100)
    scored = rewarder.score(texts, [20, 960, 15, 5], [0] * 4, [bathtub.bddl] * 4, [bathtub.robot] * 4,
                            [bathtub.action_set] * 4, [bathtub.id] * 4)
    assert scored.answer == pytest.approx([2.5, 2.5, 2.5, -1.5])  # "junk" is a PARSE error line
    assert scored.format == [0.0, 0.0, -0.5, -0.5]
    assert scored.length.rewards[0] == 0.5 and scored.length.rewards[1] < 0 and scored.length.rewards[2] == 0
    assert scored.overlong == pytest.approx([0.0, -0.6, 0.0, 0.0])
    assert scored.total[0] > scored.total[1] and scored.total[0] > scored.total[2] > scored.total[3]
    assert scored.metrics()["symplan/strict_pass"] == 0.75
