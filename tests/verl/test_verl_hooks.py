"""Our verl reward and GroupAdapt estimator run through verl 0.9.1's own classes on CPU: the
reward-loop DAPORewardManager calls compute_score, verl's registry serves the estimator, whose
group normalisation is verl's compute_grpo_outcome_advantage; the launch configs pass verl's own
validation (``validate_config``) for the GPU counts they are launched with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from plans import STOVE_PLAN
from rl_rows import wrap

from symplan_core.training import answer_reward
from symplan_core.training.length import LengthConfig, LengthShaper
from symplan_core.training.verl_hooks import ESTIMATOR_NAME, EstimatorSettings, configure, register

pytestmark = pytest.mark.slow
verl = pytest.importorskip("verl", reason="verl is not installed (run these in .venv-verl: make test-verl)")
from omegaconf import OmegaConf  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.reward_loop.reward_manager.dapo import DAPORewardManager  # noqa: E402
from verl.trainer.ppo.core_algos import get_adv_estimator_fn  # noqa: E402


@pytest.fixture(scope="module")
def tokenizer():
    # Read from the GGUF itself: the de-quantised copy that hf_model_directory caches is stamped with
    # .venv's transformers version, and this environment's older one would convert it again each run.
    from transformers import AutoTokenizer

    from symplan_core.llm.transformers_backend import resolve_model_location

    location = resolve_model_location("smollm2")
    return AutoTokenizer.from_pretrained(location.directory, gguf_file=location.gguf_file, local_files_only=True)


def one_rollout(tokenizer, row, text: str, response_width: int) -> DataProto:
    prompt = tokenizer("plan please", return_tensors="pt")["input_ids"][0]
    response = tokenizer(text, return_tensors="pt")["input_ids"][0][:response_width]
    pad = torch.full((response_width - len(response),), tokenizer.eos_token_id)
    attention = torch.cat([torch.ones(len(prompt) + len(response)), torch.zeros(len(pad))]).long()
    batch = {"prompts": prompt[None], "responses": torch.cat([response, pad])[None], "attention_mask": attention[None]}
    extra = {"id": row.id, "robot": row.robot, "action_set": row.action_set}
    return DataProto.from_dict(batch, non_tensors={
        "data_source": np.array(["symplan/b100"], dtype=object),
        "reward_model": np.array([{"ground_truth": row.bddl}], dtype=object),
        "extra_info": np.array([extra], dtype=object)})


def test_verls_dapo_reward_manager_scores_rollouts_with_the_engine(tokenizer, stove) -> None:
    config = OmegaConf.create({"reward": {"reward_kwargs": {
        "max_resp_len": 512, "overlong_buffer_cfg": {"enable": True, "len": 64, "penalty_factor": 1.0, "log": True}}}})
    manager = DAPORewardManager(config, tokenizer, compute_score=__import__(
        "symplan_core.training.verl_hooks", fromlist=["compute_score"]).compute_score)
    for text in (wrap(STOVE_PLAN), wrap(STOVE_PLAN[:6]), "garbage"):
        out = manager.loop.run_until_complete(manager.run_single(one_rollout(tokenizer, stove, text, 512)))
        decoded = tokenizer.decode(tokenizer(text)["input_ids"], skip_special_tokens=True)
        (ours,) = answer_reward(completions=[decoded], bddl=[stove.bddl], robot=[stove.robot], action_set=[stove.action_set])
        fmt = 0.0 if out["reward_extra_info"]["format_ok"] else -0.5
        assert out["reward_score"] == pytest.approx(ours + fmt + out["reward_extra_info"]["overlong_reward"])
        assert out["reward_extra_info"]["strict_pass"] == (text == wrap(STOVE_PLAN))


def test_groupadapt_estimator_from_verls_registry_adds_the_length_reward(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SYMPLAN_REWARD_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("SYMPLAN_MAX_RESPONSE", "1000")
    monkeypatch.setenv("SYMPLAN_OVERLONG_BUFFER", "100")
    settings = configure(EstimatorSettings())
    assert register() == ESTIMATOR_NAME
    estimator = get_adv_estimator_fn(ESTIMATOR_NAME)
    # group a: 4 strict passes (easy, 200 tokens), group b: 1 strict pass of 4 (hard, 400 tokens)
    scores = [2.5, 2.5, 2.5, 2.5, 2.5, -0.5, 1.5, 1.0]
    lengths = [100, 350, 600, 950, 600, 40, 80, 30]
    index = np.array(["a"] * 4 + ["b"] * 4, dtype=object)
    width = 1000
    mask = torch.zeros(8, width)
    rewards = torch.zeros(8, width)
    for i, n in enumerate(lengths):
        mask[i, :n] = 1
        rewards[i, n - 1] = scores[i]
    advantages, _ = estimator(token_level_rewards=rewards, response_mask=mask, index=index, config=None)

    reference = LengthShaper(LengthConfig("group_adapt"))
    expected_len = reference.rewards(lengths, [s >= 2.0 for s in scores], [s == 2.5 for s in scores],
                                     list(index), list(index))
    assert expected_len.group_budgets == {"a": 200, "b": 400}
    totals = torch.tensor([s + r + min(-(n - 900) / 100, 0.0) for s, r, n in zip(scores, expected_len.rewards, lengths,
                                                                                 strict=True)])
    grouped = totals.view(2, 4)
    expected = ((grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-6)).view(-1)
    assert advantages[:, 0] == pytest.approx(expected.tolist(), abs=1e-5)
    assert (advantages[mask == 0] == 0).all()
    assert settings.last_metrics["length/hard_groups"] == 1.0
    assert (tmp_path / "symplan_reward_state.json").is_file()
    assert configure(EstimatorSettings()).shaper.gate.best == pytest.approx(5 / 8)  # a* survives a restart


def test_the_paper_config_composes_on_verls_own_schema() -> None:
    from hydra import compose, initialize_config_dir
    from verl.trainer.config import AlgoConfig
    from verl.utils.config import omega_conf_to_dataclass

    root = Path(__file__).resolve().parents[2]
    with initialize_config_dir(config_dir=str(root / "training" / "verl"), version_base=None):
        config = compose(config_name="dapo_groupadapt")
    actor = config.actor_rollout_ref.actor
    assert (actor.clip_ratio_low, actor.clip_ratio_high, actor.clip_ratio_c) == (0.2, 0.28, 10.0)
    assert (actor.optim.lr, actor.optim.lr_warmup_steps, actor.optim.weight_decay, actor.grad_clip) == (1e-6, 10, 0.1, 1.0)
    assert actor.loss_agg_mode == "token-mean" and not actor.use_kl_loss and not config.algorithm.use_kl_in_reward
    assert (config.data.train_batch_size, config.data.gen_batch_size, config.actor_rollout_ref.rollout.n) == (32, 96, 8)
    assert (config.data.max_prompt_length, config.data.max_response_length) == (6144, 8192)
    algorithm = omega_conf_to_dataclass(config.algorithm)
    assert isinstance(algorithm, AlgoConfig) and algorithm.adv_estimator == ESTIMATOR_NAME
    assert algorithm.filter_groups.enable and algorithm.filter_groups.metric == "reward"
    assert (root / config.reward.custom_reward_function.path).is_file()
