"""CPU smoke of the TRL path: real GRPO steps of SmolLM2-135M (G = 4) on real prompts, rewards and
GroupAdapt budgets logged, checkpoint + reward state saved, then resumed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from rl_rows import prompt_row

from symplan_core.data.samples import write_rows
from symplan_core.llm.models import locate_model
from symplan_core.training.length import STATE_FILE

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _rl_module():
    spec = importlib.util.spec_from_file_location("symplan_training_rl", ROOT / "training" / "rl.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the config's annotations through it
    spec.loader.exec_module(module)
    return module


def test_grpo_steps_log_rewards_and_budgets_and_resume_with_reward_state(tmp_path, behavior_dir) -> None:
    if locate_model("smollm2") is None:
        pytest.fail("SmolLM2 is not installed; run `make model`")
    rl = _rl_module()
    rows = tmp_path / "rows.jsonl"
    write_rows(rows, [prompt_row("b100/vacuuming_floors"), prompt_row("b100/opening_packages")])
    out = tmp_path / "run"
    base = [f"train_file={rows}", f"output_dir={out}", "grpo.save_steps=1"]
    config = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [*base, "grpo.max_steps=1"])
    first = rl.run(config)
    assert first["global_step"] == 1
    state_path = out / "checkpoint-1" / STATE_FILE
    saved = json.loads(state_path.read_text())
    assert saved["batches"] >= 1 and saved["best_sp_rate"] is not None

    log = [json.loads(line) for line in (out / "reward_log.jsonl").read_text().splitlines()]
    assert log and all(rec["budgets"] and set(rec["budgets"]) <= {200, 400} for rec in log)
    assert all("mean_total_reward" in rec and "length/gate_open" in rec for rec in log)
    history = first["log_history"][0]
    for key in ("rewards/answer_reward/mean", "rewards/format_reward/mean", "rewards/length_reward/mean",
                "length/mean_budget", "symplan/strict_pass", "dynamic_sampling/regen_rounds"):
        assert key in history, key

    config = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [*base, "grpo.max_steps=2"])
    resumed = rl.run(config, resume="")
    assert resumed["global_step"] == 2 and resumed["resumed_from"].endswith("checkpoint-1")
    assert resumed["reward_state_restored"]
    assert resumed["reward_state"]["batches"] > saved["batches"]  # continued, not restarted
    assert (out / "checkpoint-2" / STATE_FILE).is_file() and (out / "final" / "config.json").is_file()


def test_lora_grpo_trains_only_top_layer_adapters_with_the_base_as_kl_reference_and_resumes(
        tmp_path, behavior_dir) -> None:
    """LoRA on the top 2 of SmolLM2's 30 layers: checkpoints hold the adapter, not the model; the KL
    reference is the policy with its adapter disabled (step 1: the adapter is still zero, so KL is 0);
    resuming restores adapter and reward state; final/ is a merged model whose lower layers are the
    base's bit for bit."""
    if locate_model("smollm2") is None:
        pytest.fail("SmolLM2 is not installed; run `make model`")
    from safetensors.torch import load_file

    from symplan_core.llm.transformers_backend import hf_model_directory

    rl = _rl_module()
    rows = tmp_path / "rows.jsonl"
    write_rows(rows, [prompt_row("b100/vacuuming_floors"), prompt_row("b100/opening_packages")])
    out = tmp_path / "run"
    base = [f"train_file={rows}", f"output_dir={out}", "grpo.save_steps=1", "grpo.beta=0.04",
            "grpo.learning_rate=1.0e-3", "lora={r: 4, alpha: 8, dropout: 0.0}", "train_top_layers=2"]
    config = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [*base, "grpo.max_steps=1"])
    first = rl.run(config)
    assert first["lora"] and first["global_step"] == 1
    # r 4 on the 7 projections of 2 layers: (in + out) x 4 per projection, far below the 135 M weights
    assert 0 < first["trainable_parameters"] < 1_000_000
    assert first["log_history"][0]["kl"] == pytest.approx(0.0, abs=1e-6)
    checkpoint = out / "checkpoint-1"
    assert (checkpoint / "adapter_model.safetensors").is_file() and not (checkpoint / "model.safetensors").exists()
    adapter = load_file(str(checkpoint / "adapter_model.safetensors"))
    layers = {int(name.split(".layers.")[1].split(".")[0]) for name in adapter}
    assert layers == {28, 29}

    config = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [*base, "grpo.max_steps=2"])
    resumed = rl.run(config, resume="")
    assert resumed["global_step"] == 2 and resumed["reward_state_restored"]
    final = out / "final"
    assert (final / "config.json").is_file() and not (final / "adapter_config.json").exists()
    merged = load_file(str(final / "model.safetensors"))
    original = load_file(str(hf_model_directory("smollm2") / "model.safetensors"))
    assert not any(".lora_" in name for name in merged)
    lower = [n for n in original if ".layers." in n and int(n.split(".layers.")[1].split(".")[0]) < 28]
    assert lower and all(merged[n].equal(original[n]) for n in lower)
