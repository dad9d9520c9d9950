"""Dynamic sampling's batch surgery: rows taken from several generation rounds are re-padded the
way TRL pads them (prompts on the left, completions on the right) and keep their values."""

from __future__ import annotations

import pytest
import torch

from symplan_core.training.grpo import _concat, _take

pytestmark = pytest.mark.slow  # imports TRL


def round_output(prompt_width: int, completion_width: int, rows: int, offset: int) -> dict:
    ids = torch.arange(rows)[:, None] + offset
    return {
        "prompt_ids": ids.repeat(1, prompt_width) + 100, "prompt_mask": torch.ones(rows, prompt_width, dtype=torch.long),
        "completion_ids": ids.repeat(1, completion_width) + 200,
        "completion_mask": torch.ones(rows, completion_width, dtype=torch.long),
        "advantages": ids[:, 0].float(), "num_items_in_batch": torch.tensor(rows * completion_width),
        "old_per_token_logps": None,
    }


def test_rows_from_two_rounds_merge_with_trl_padding_sides() -> None:
    first, second = round_output(3, 5, 4, 0), round_output(6, 2, 4, 10)
    merged = _concat([_take(first, [1, 2]), _take(second, [0])], pad_id=-1)
    assert merged["prompt_ids"].shape == (3, 6) and merged["completion_ids"].shape == (3, 5)
    assert merged["prompt_ids"][0].tolist() == [-1, -1, -1, 101, 101, 101]          # left-padded
    assert merged["prompt_mask"][0].tolist() == [0, 0, 0, 1, 1, 1]
    assert merged["completion_ids"][2].tolist() == [210, 210, -1, -1, -1]            # right-padded
    assert merged["completion_mask"][2].tolist() == [1, 1, 0, 0, 0]
    assert merged["advantages"].tolist() == [1.0, 2.0, 10.0]
    assert merged["old_per_token_logps"] is None


def test_unsupported_outputs_are_refused_not_mangled() -> None:

    out = round_output(2, 2, 2, 0)
    out["pixel_values"] = torch.zeros(2, 3)
    with pytest.raises(NotImplementedError, match="pixel_values"):
        _take(out, [0])
