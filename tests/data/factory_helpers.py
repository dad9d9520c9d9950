"""Shared by the data-factory tests: the real activities they build from and a scripted teacher."""

from __future__ import annotations

from collections.abc import Callable

from typing_extensions import override

from symplan_core.llm import Completion, LocalPlannerBackend, PlannerPrompt, Sampling

# Real activities with movable objects on fixtures, siblings to swap and countable types; two of
# the held-out B-1K test split; one B-100 task.
TRAIN = ("adding_fabric_softener", "turning_on_radio", "cleaning_up_after_a_meal", "putting_shoes_on_rack")
HELD_OUT = ("buy_eggs", "clean_a_guitar")
SMALL = (*(f"b1k/{t}" for t in TRAIN + HELD_OUT), "b100/cleaning_high_chair")


class ScriptedTeacher(LocalPlannerBackend):
    """A real backend whose answers are ``script(prompt, sample_index)`` (text or a Completion)."""

    name = "scripted"

    def __init__(self, script: Callable[[PlannerPrompt, int], str | Completion]) -> None:
        super().__init__()
        self.script = script
        self.calls = 0

    @override  # scripted answers: no sampling settings to apply
    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        self.calls += 1
        out = []
        for k in range(n):
            answer = self.script(prompt, k)
            out.append(answer if isinstance(answer, Completion)
                       else Completion(text=answer, completion_tokens=len(answer.split()), finish_reason="stop"))
        return out
