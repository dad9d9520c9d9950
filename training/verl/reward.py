"""verl custom reward entry point: ``reward.custom_reward_function.path=training/verl/reward.py``,
``name=compute_score``. The scoring lives in ``symplan_core.training.verl_hooks`` (one engine)."""

from symplan_core.training.verl_hooks import compute_score

__all__ = ["compute_score"]
