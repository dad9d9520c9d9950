"""training/rl.py's inputs: one-line config and data errors, the prompt-length cap."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from rl_rows import prompt_row

from symplan_core.data.samples import write_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rl():
    spec = importlib.util.spec_from_file_location("symplan_training_rl", ROOT / "training" / "rl.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_config_errors_are_one_line(rl, tmp_path) -> None:
    config = ROOT / "training/configs/rl_smoke.yaml"
    with pytest.raises(rl.ConfigError, match=r"length.mode"):
        rl.load_config(str(config), ["length.mode=fastest"])
    with pytest.raises(rl.ConfigError, match="key=value"):
        rl.load_config(str(config), ["grpo.max_steps"])
    with pytest.raises(rl.ConfigError, match="cannot read"):
        rl.load_config(str(tmp_path / "missing.yaml"), [])
    assert rl.load_config(str(config), ["grpo.max_steps=7", "train_file=x"]).grpo["max_steps"] == 7


def test_lora_keys_are_checked_when_the_config_loads(rl) -> None:
    config = ROOT / "training/configs/rl_smoke.yaml"
    with pytest.raises(rl.ConfigError, match="train_top_layers needs a lora section"):
        rl.load_config(str(config), ["train_top_layers=2"])
    with pytest.raises(rl.ConfigError, match=r"lora.rank"):
        rl.load_config(str(config), ["lora={rank: 4}"])
    loaded = rl.load_config(str(config), ["lora={r: 4}", "train_top_layers=2"])
    assert loaded.lora.r == 4 and loaded.lora.target_modules == "all-linear" and loaded.train_top_layers == 2


def test_rows_with_bddl_that_does_not_compile_fail_before_training(rl, tmp_path, behavior_dir) -> None:
    good = prompt_row("b100/cleaning_bathtub")
    path = tmp_path / "rows.jsonl"
    write_rows(path, [good, good.model_copy(update={"id": "bad/0", "bddl": "(define (problem x"})])
    with pytest.raises(rl.ConfigError, match="row bad/0"):
        rl.load_rows(str(path))
    path.write_text(json.dumps({"id": "x"}) + "\n")
    with pytest.raises(rl.ConfigError, match="not a sample row"):
        rl.load_rows(str(path))


@pytest.mark.slow  # loads the SmolLM2 tokenizer
def test_prompts_over_the_token_cap_are_dropped(rl, tmp_path, behavior_dir) -> None:
    from transformers import AutoTokenizer

    from symplan_core.llm.transformers_backend import hf_model_directory

    tokenizer = AutoTokenizer.from_pretrained(hf_model_directory("smollm2"), local_files_only=True)
    path = tmp_path / "rows.jsonl"
    write_rows(path, [prompt_row("b100/cleaning_bathtub"), prompt_row("b100/assembling_gift_baskets")])
    rows = rl.load_rows(str(path))
    sizes = [len(tokenizer.apply_chat_template(r["prompt"], add_generation_prompt=True, tokenize=True,
                                               return_dict=True)["input_ids"]) for r in rows]
    kept = rl.drop_long_prompts(rows, tokenizer, min(sizes))
    assert [r["id"] for r in kept] == [rows[sizes.index(min(sizes))]["id"]]
    assert rl.drop_long_prompts(rows, tokenizer, None) == rows
    with pytest.raises(rl.ConfigError, match="every prompt"):
        rl.drop_long_prompts(rows, tokenizer, 10)


def test_the_qwen_cpu_rl_config_puts_lora_where_the_sft_config_does_and_keeps_the_smoke_algorithm(rl) -> None:
    import dataclasses

    import yaml
    from trl import GRPOConfig

    qwen = rl.load_config(str(ROOT / "training/configs/rl_qwen0.5b_cpu.yaml"), [])
    smoke = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [])
    sft = yaml.safe_load((ROOT / "training/configs/sft_qwen0.5b_cpu.yaml").read_text())
    assert qwen.train_top_layers == sft["train_top_layers"]
    assert (qwen.lora.r, qwen.lora.alpha, qwen.lora.target_modules) == (
        sft["lora"]["r"], sft["lora"]["alpha"], sft["lora"]["target_modules"])
    assert not set(qwen.grpo) - {field.name for field in dataclasses.fields(GRPOConfig)}
    for key in ("loss_type", "epsilon", "epsilon_high", "delta", "beta", "scale_rewards", "num_generations"):
        assert qwen.grpo[key] == smoke.grpo[key], key
    assert qwen.length == smoke.length and qwen.dynamic_sampling.enable
