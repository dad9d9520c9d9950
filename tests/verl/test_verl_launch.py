"""The verl launch path as far as it goes without a GPU: this environment is one verl accepts
(pip check), both launch configs pass verl's own start-up validation for the GPU counts they are
launched with, and the launch script says plainly what is missing instead of failing inside Ray.
(The verl trainer itself needs GPUs: scripts/gpu_check.sh runs 2 steps where one is at hand.)"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
pytest.importorskip("verl", reason="verl is not installed (run these in .venv-verl: make test-verl)")
from hydra import compose, initialize_config_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VERL_DIR = ROOT / "training" / "verl"


def _main_symplan():
    spec = importlib.util.spec_from_file_location("main_symplan", VERL_DIR / "main_symplan.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compose(name: str, overrides: list[str] | None = None):
    with initialize_config_dir(config_dir=str(VERL_DIR), version_base=None):
        return compose(config_name=name, overrides=overrides or [])


def test_pip_check_passes_in_verls_environment() -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_paper_config_passes_verls_validation_on_8_gpus_and_not_on_a_wrong_count() -> None:
    check = _main_symplan().check_config
    config = _compose("dapo_groupadapt", ["trainer.n_gpus_per_node=8", "actor_rollout_ref.model.path=/m"])
    assert config.actor_rollout_ref.rollout.name == "vllm"
    check(config)
    # 32 prompts x 8 rollouts = 256 per step is not divisible over 3 x 5 GPUs: verl refuses it
    with pytest.raises(AssertionError, match="divisible"):
        check(_compose("dapo_groupadapt", ["trainer.n_gpus_per_node=5", "trainer.nnodes=3"]))


def test_the_gpu_check_config_is_the_paper_algorithm_shrunk_to_two_steps_on_one_gpu() -> None:
    config = _compose("dapo_groupadapt", ["+experiment=gpu_check", "trainer.n_gpus_per_node=1",
                                          "actor_rollout_ref.model.path=/m"])
    _main_symplan().check_config(config)
    paper = _compose("dapo_groupadapt")
    assert config.algorithm == paper.algorithm and config.reward == paper.reward
    actor, paper_actor = config.actor_rollout_ref.actor, paper.actor_rollout_ref.actor
    for key in ("clip_ratio_low", "clip_ratio_high", "clip_ratio_c", "loss_agg_mode", "use_kl_loss", "optim"):
        assert actor[key] == paper_actor[key], key
    assert config.trainer.total_training_steps == 2 and config.trainer.save_freq == -1
    assert config.actor_rollout_ref.rollout.tensor_model_parallel_size == 1


def test_the_launch_script_names_the_missing_environment() -> None:
    # This environment has verl but no vLLM (a CPU machine): the script stops before Ray starts.
    env = {**os.environ, "PYTHON": sys.executable, "MODEL": "/nonexistent"}
    done = subprocess.run([str(VERL_DIR / "run_single_node.sh")], env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 2
    assert 'pip install -c constraints/gpu-verl.txt -e ".[verl-gpu]"' in done.stderr
