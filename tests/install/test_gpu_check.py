"""scripts/gpu_check.sh, the GPU sequence (vLLM eval per decoding mode, TRL GRPO, verl DAPO), stops
before doing anything when there is no GPU, with a message that says so; its TRL step's config is
the CPU smoke run's algorithm on CUDA, in keys TRL knows."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has nvidia-smi (a GPU machine)")
def test_gpu_check_refuses_to_run_without_a_gpu(tmp_path) -> None:
    out = tmp_path / "gpu"
    done = subprocess.run([str(ROOT / "scripts" / "gpu_check.sh"), "--out", str(out)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2
    assert "error: no NVIDIA GPU" in done.stderr
    assert not out.exists()  # nothing installed, nothing written


def test_gpu_check_rejects_unknown_arguments() -> None:
    done = subprocess.run([str(ROOT / "scripts" / "gpu_check.sh"), "--gpus", "8"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2 and "unknown argument --gpus" in done.stderr


def _rl_module():
    name = "symplan_training_rl"  # as tests/training/test_rl_config.py loads it
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "training" / "rl.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # pydantic resolves the config's annotations through it
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_trl_gpu_config_is_the_smoke_algorithm_on_cuda_and_every_key_is_trls() -> None:
    from trl import GRPOConfig

    rl = _rl_module()
    gpu = rl.load_config(str(ROOT / "training/configs/rl_gpu_check.yaml"), [])
    smoke = rl.load_config(str(ROOT / "training/configs/rl_smoke.yaml"), [])
    unknown = set(gpu.grpo) - {field.name for field in dataclasses.fields(GRPOConfig)}
    assert not unknown, f"not GRPOConfig fields in TRL {__import__('trl').__version__}: {unknown}"
    assert gpu.grpo["use_cpu"] is False and gpu.grpo["bf16"] is True and gpu.grpo["max_steps"] == 2
    for key in ("loss_type", "epsilon", "epsilon_high", "delta", "beta", "scale_rewards", "num_generations",
                "temperature", "top_p", "learning_rate", "weight_decay", "max_grad_norm"):
        assert gpu.grpo[key] == smoke.grpo[key], key
    assert (gpu.length, gpu.dynamic_sampling, gpu.overlong) == (smoke.length, smoke.dynamic_sampling, smoke.overlong)
