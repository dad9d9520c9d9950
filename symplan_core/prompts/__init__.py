"""Planner prompts: system/user messages per embodiment, goal-to-English, repair turns."""

from symplan_core.prompts.builder import (
    OUTPUT_FORMAT,
    VARIANTS,
    Variant,
    action_lines,
    build_prompt,
    environment_block,
    repair_conversation,
    repair_message,
    system_prompt,
    user_prompt,
)
from symplan_core.prompts.goal_text import GoalRewriter, goal_instructions, goal_to_english

__all__ = [
    "OUTPUT_FORMAT", "VARIANTS", "GoalRewriter", "Variant", "action_lines", "build_prompt",
    "environment_block", "goal_instructions", "goal_to_english", "repair_conversation",
    "repair_message", "system_prompt", "user_prompt",
]
