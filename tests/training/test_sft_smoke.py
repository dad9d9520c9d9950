"""training/sft.py end to end on CPU: real gold rows, a few LoRA steps of SmolLM2-135M, and the merged
checkpoint loaded by the transformers backend (and accepted by the vllm backend's checkpoint check)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symplan_core.data.dataset import build_dataset
from symplan_core.data.factory import FactoryConfig
from symplan_core.data.samples import read_rows
from symplan_core.eval.rejection import RejectionConfig, run_rejection
from symplan_core.eval.splits import split_tasks
from symplan_core.llm import Sampling, make_backend
from symplan_core.llm.checkpoint import local_checkpoint

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "sft.py"
LORA_CONFIG = ROOT / "training" / "configs" / "sft_smollm2_lora_cpu.yaml"


def run_sft(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


@pytest.fixture(scope="module")
def gold_rows(tmp_path_factory, behavior_dir) -> Path:
    out = tmp_path_factory.mktemp("sft_data")
    build_dataset(FactoryConfig(splits=("b1k/train",), tasks=("turning_on_radio",), init_aug=0, object_aug=0,
                                train_robots="both", distractors=1), split_tasks("b1k", "test"), out)
    run_rejection(RejectionConfig(prompts=str(out / "prompts.jsonl"), teacher="reference", k=1,
                                  out=str(out / "gold")), progress=False)
    return out / "gold" / "sft.jsonl"


@pytest.mark.slow
def test_a_few_lora_steps_give_a_checkpoint_that_symplan_eval_loads(tmp_path, gold_rows) -> None:
    from symplan_core.llm.models import locate_model

    if locate_model("smollm2") is None:
        pytest.fail("SmolLM2 is not installed; run `make model`")
    result = run_sft("--config", str(LORA_CONFIG), "--set", f"train_file={gold_rows}",
                     "--set", f"output_dir={tmp_path / 'run'}", "--set", "max_steps=2", "--set", "max_length=1536")
    assert result.returncode == 0, result.stderr[-3000:]
    final = tmp_path / "run" / "final"
    report = json.loads((final / "symplan-sft.json").read_text())
    assert report["steps"] == 2 and report["train_rows"] == 2 and report["train_loss"] > 0
    assert report["trainable_parameters"] > 0 and report["config"]["lora"]["r"] == 8
    assert not (final / "adapter_config.json").exists()  # merged: a plain model directory
    assert local_checkpoint(str(final)) == final.resolve()  # what the vllm backend checks before loading
    row = read_rows(gold_rows)[0]
    with make_backend(f"transformers:{final}?device=cpu&threads=1") as backend:
        (answer,) = backend.plan(row.messages(), 1, Sampling(temperature=0.0, max_tokens=4))
    assert answer.ok and answer.completion_tokens and answer.prompt_tokens > 500


def test_bad_configs_and_missing_data_are_one_line_errors(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: smollm2\ntrain_file: x.jsonl\noutput_dir: o\nepochs: -1\n")
    result = run_sft("--config", str(bad))
    assert result.returncode == 2 and result.stderr.startswith("error: bad config") and "epochs" in result.stderr
    assert "Traceback" not in result.stderr
    missing = run_sft("--config", str(LORA_CONFIG), "--set", f"train_file={tmp_path / 'none.jsonl'}")
    assert missing.returncode == 2 and "no data file" in missing.stderr and "Traceback" not in missing.stderr
