"""Training-side use of the engine: rewards, length shaping, GroupAdapt, dynamic sampling helpers.

Light on import (no torch, no trl, no verl): the TRL trainer is ``symplan_core.training.grpo`` and
the verl hooks are ``symplan_core.training.verl_hooks``; import those only where they run.
"""

from symplan_core.training.batch import (
    BatchRewarder,
    ScoredBatch,
    informative_groups,
    overlong_penalty,
    scaled_overlong_buffer,
)
from symplan_core.training.length import LengthBatch, LengthConfig, LengthShaper
from symplan_core.training.rewards import (
    FORMAT_PENALTY,
    EngineVerdict,
    RewardDataError,
    TaskScorer,
    answer_reward,
    answer_reward_value,
    format_reward,
    strict_pass_reward,
)

__all__ = [
    "FORMAT_PENALTY", "BatchRewarder", "EngineVerdict", "LengthBatch", "LengthConfig", "LengthShaper",
    "RewardDataError", "ScoredBatch", "TaskScorer", "answer_reward", "answer_reward_value", "format_reward",
    "informative_groups", "overlong_penalty", "scaled_overlong_buffer", "strict_pass_reward",
]
