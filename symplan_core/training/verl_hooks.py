"""The engine's rewards and GroupAdapt inside verl 0.9.1 (the cluster path; docs/rl.md).

Two verl extension points, both checked against verl 0.9.1's source:

* **custom reward function** (``reward.custom_reward_function.{path,name}``, loaded by
  ``verl.trainer.ppo.reward.get_custom_reward_fn`` and called per rollout by the reward-loop
  managers, e.g. ``verl.experimental.reward_loop.reward_manager.dapo.DAPORewardManager.run_single``
  as ``compute_score(data_source=, solution_str=, ground_truth=, extra_info=)``):
  :func:`compute_score` returns ``R_fmt + R_ans`` from the same engine verdict ``symplan eval``
  records. ``ground_truth`` is the row's BDDL; ``extra_info`` carries ``robot``, ``action_set``, ``id``.
* **registered advantage estimator** (``verl.trainer.ppo.core_algos.register_adv_est``; the
  trainer calls it from ``ray_trainer.compute_advantage`` with ``token_level_rewards``,
  ``response_mask``, ``index`` (the prompt-group uid) and ``config``, on the whole batch in the
  driver): :func:`groupadapt_advantage` adds the gated R_len with GroupAdapt budgets and DAPO's
  overlong shaping, then hands the totals to verl's own ``compute_grpo_outcome_advantage``.

What the estimator can see is only those tensors, so two things are carried by construction:
strict pass is read from the score (``R_fmt + R_ans >= 2.0`` exactly when the rollout strictly
passed, ``== 2.5`` when it is also well-formed; see ``FORMAT_PENALTY``), which is why the
overlong shaping is applied here and not by verl's ``dapo`` manager (it would blur the score);
and the per-task references are keyed by the group uid, which verl draws afresh every step, so in
verl ``l_min, l_max`` come from the prompt's own group in the current step (the TRL path keeps them
per task across steps). The gate's running best ``a*`` persists: it is saved to
``$SYMPLAN_REWARD_STATE_DIR`` after every batch and loaded from there on start.
"""

from __future__ import annotations

import os
from typing import Any

from symplan_core.training.batch import overlong_penalty
from symplan_core.training.length import LengthConfig, LengthShaper, length_mode
from symplan_core.training.rewards import ANSWER_BASE, ANSWER_GCR_WEIGHT, EP_BONUS, FORMAT_PENALTY, SCORER

ESTIMATOR_NAME = "symplan_groupadapt"
_SP_MIN = ANSWER_BASE + ANSWER_GCR_WEIGHT + EP_BONUS + FORMAT_PENALTY  # 2.0: a malformed strict pass
_SP_WELL_FORMED = ANSWER_BASE + ANSWER_GCR_WEIGHT + EP_BONUS  # 2.5
_TOL = 1e-4


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  **_: Any) -> dict[str, Any]:
    """verl custom reward: R_fmt + R_ans of one rollout, plus the verdict for logging/filtering."""
    info = extra_info or {}
    verdict = SCORER.verdict(ground_truth, info.get("robot", "single"), info.get("action_set"), solution_str or "",
                             str(info.get("id", data_source)))
    return {"score": verdict.format_reward + verdict.answer_reward, "acc": float(verdict.strict_pass),
            "strict_pass": verdict.strict_pass, "engine_pass": verdict.engine_pass, "gcr": verdict.gcr,
            "format_ok": verdict.format_ok, "errors": verdict.errors}


def strict_pass_of(score: float) -> tuple[bool, bool]:
    """(strict pass, well-formed strict pass) of a ``compute_score`` score."""
    return score >= _SP_MIN - _TOL, abs(score - _SP_WELL_FORMED) < _TOL


class EstimatorSettings:
    """What the estimator needs beyond verl's arguments (set by :func:`configure` or env vars)."""

    def __init__(self) -> None:
        env = os.environ.get
        self.shaper = LengthShaper(LengthConfig(
            mode=length_mode(env("SYMPLAN_LENGTH_MODE", "group_adapt")),
            delta_base=int(env("SYMPLAN_DELTA_BASE", "200")), tau=float(env("SYMPLAN_TAU", "0.5")),
            eps_acc=float(env("SYMPLAN_EPS_ACC", "0.05")), eps=float(env("SYMPLAN_EPS", "1.0"))))
        self.max_length = int(env("SYMPLAN_MAX_RESPONSE", "8192"))
        self.overlong_buffer = int(env("SYMPLAN_OVERLONG_BUFFER", "1048"))
        self.overlong_factor = float(env("SYMPLAN_OVERLONG_FACTOR", "1.0"))
        self.state_dir = env("SYMPLAN_REWARD_STATE_DIR")
        if self.state_dir:
            self.shaper.load(self.state_dir)
        self.last_metrics: dict[str, float] = {}


_SETTINGS: EstimatorSettings | None = None


def configure(settings: EstimatorSettings | None = None) -> EstimatorSettings:
    """(Re)build the estimator's settings, by default from the environment."""
    global _SETTINGS
    _SETTINGS = settings or EstimatorSettings()
    return _SETTINGS


def groupadapt_advantage(token_level_rewards, response_mask, index, epsilon: float = 1e-6,
                         norm_adv_by_std_in_grpo: bool = True, config: Any = None, **_: Any):
    """GRPO advantages of ``R_fmt + R_ans + R_len + overlong`` (registered as ``symplan_groupadapt``)."""
    import torch
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    settings = _SETTINGS or configure()
    scores = token_level_rewards.sum(dim=-1).tolist()
    lengths = [int(n) for n in response_mask.sum(dim=-1).tolist()]
    flags = [strict_pass_of(s) for s in scores]
    groups = [str(uid) for uid in index]
    shaped = settings.shaper.rewards(lengths, [sp for sp, _ in flags], [ok for _, ok in flags], groups, groups)
    totals = [s + r + overlong_penalty(n, settings.max_length, settings.overlong_buffer, settings.overlong_factor)
              for s, r, n in zip(scores, shaped.rewards, lengths, strict=True)]
    rewards = torch.zeros_like(token_level_rewards)
    last = (response_mask.sum(dim=-1).long() - 1).clamp(min=0)
    rewards[torch.arange(rewards.shape[0]), last] = torch.tensor(totals, dtype=rewards.dtype)
    settings.last_metrics = shaped.metrics()
    # The per-task references are per step here (uids are new each step): keep only the gate.
    settings.shaper.references.table.clear()
    if settings.state_dir:
        settings.shaper.save(settings.state_dir)
    return compute_grpo_outcome_advantage(rewards, response_mask, index, epsilon, norm_adv_by_std_in_grpo, config)


def register() -> str:
    """Register the estimator in verl's registry (idempotent); returns its name."""
    from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY, register_adv_est

    if ADV_ESTIMATOR_REGISTRY.get(ESTIMATOR_NAME) is not groupadapt_advantage:
        register_adv_est(ESTIMATOR_NAME)(groupadapt_advantage)
    return ESTIMATOR_NAME
