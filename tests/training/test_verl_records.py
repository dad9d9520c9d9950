"""Sample rows become verl records whose fields give compute_score exactly the TRL rewards."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from plans import STOVE_PLAN
from rl_rows import columns, wrap

from symplan_core.training import answer_reward, format_reward
from symplan_core.training.verl_hooks import compute_score, strict_pass_of

ROOT = Path(__file__).resolve().parents[2]


def test_verl_record_fields_score_like_the_trl_reward_functions(stove) -> None:
    spec = importlib.util.spec_from_file_location("make_parquet", ROOT / "training/verl/make_parquet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    record = module.verl_record(stove)
    assert record["prompt"] == stove.messages() and record["reward_model"]["ground_truth"] == stove.bddl
    for text in (wrap(STOVE_PLAN), "\n".join(STOVE_PLAN), wrap(STOVE_PLAN[:7]), "nonsense"):
        result = compute_score(record["data_source"], text, record["reward_model"]["ground_truth"],
                               record["extra_info"])
        cols = columns([stove])
        expected = format_reward(completions=[text], **cols)[0] + answer_reward(completions=[text], **cols)[0]
        assert result["score"] == expected
        assert strict_pass_of(result["score"])[0] == result["strict_pass"]
        assert strict_pass_of(result["score"])[1] == (result["strict_pass"] and result["format_ok"])
