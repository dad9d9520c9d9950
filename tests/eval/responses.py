"""Hand-written responses for real tasks and a scripted backend (shared by the eval tests).

The scripted backend is a real :class:`LocalPlannerBackend` whose "model" is a fixed list of
hand-written responses, so the metrics of a run are known exactly in advance.
"""

from __future__ import annotations

from collections.abc import Callable

from plans import gift_baskets_single
from typing_extensions import override

from symplan_core.llm import Completion, LocalPlannerBackend, PlannerPrompt, Sampling


def wrap(lines: list[str]) -> str:
    code = "\n".join(lines)
    return f"<think>plan</think><answer><steps>\n1. do it\n</steps><code>\n{code}\n</code></answer>"


STRICT = wrap(gift_baskets_single())  # b100/assembling_gift_baskets, one hand
# Reaches the goal, but one call names an unknown action: engine pass, not strict pass.
ENGINE_ONLY = wrap([*gift_baskets_single(), "fly(candle_1)"])
# Not a plan at all: PARSE errors, format broken, goal not reached.
GARBAGE = "I am a helpful assistant. Baskets are nice!"


class ScriptedBackend(LocalPlannerBackend):
    """Answers each call with ``script(prompt, call_index)``; remembers every prompt."""

    name = "scripted"

    def __init__(self, script: Callable[[PlannerPrompt, int], str | Completion]) -> None:
        super().__init__()
        self.script = script
        self.prompts: list[PlannerPrompt] = []

    @override  # scripted answers: no sampling settings to apply
    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        out = []
        for _ in range(n):
            self.prompts.append(prompt)
            answer = self.script(prompt, len(self.prompts) - 1)
            out.append(answer if isinstance(answer, Completion) else
                       Completion(text=answer, completion_tokens=len(answer.split()), finish_reason="stop"))
        return out
