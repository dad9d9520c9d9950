"""The clarification dialogue derived from the goal, and the checked paraphrase."""

from __future__ import annotations

import pytest
from typing_extensions import override

from symplan_core.engine import compile_task
from symplan_core.llm import Completion, FunctionBackend, LocalPlannerBackend
from symplan_core.prompts import build_prompt, goal_instructions
from symplan_core.prompts.dialogue import (
    GENERIC_ACTIVITY,
    activity_phrase,
    build_dialogue,
    paraphrase_dialogue,
    paraphrase_problem,
)
from symplan_core.tasks import load_problem


@pytest.fixture(scope="module")
def baskets(behavior_dir):
    return compile_task(load_problem("b100/assembling_gift_baskets"), "single")


def test_dialogue_asks_clarifies_and_carries_every_requirement(baskets) -> None:
    for seed in range(8):
        turns = build_dialogue(baskets, "assembling_gift_baskets", seed)
        assert [t["role"] for t in turns] == ["user", "assistant", "user"]
        text = "\n".join(t["content"] for t in turns).lower()
        assert "assembling gift baskets" in text
        assert all(sentence.lower() in text for sentence in goal_instructions(baskets))
        assert "?basket" not in text and "forpairs" not in text
    styles = {build_dialogue(baskets, "assembling_gift_baskets", s)[1]["content"][:12] for s in range(8)}
    assert len(styles) > 1  # the seed picks among templates
    assert build_dialogue(baskets, "assembling_gift_baskets", 3) == build_dialogue(baskets, "assembling_gift_baskets", 3)


def test_build_prompt_puts_the_first_turn_after_the_environment(baskets) -> None:
    turns = build_dialogue(baskets, "assembling_gift_baskets", 0)
    messages = build_prompt(baskets, dialogue=turns)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"].startswith("Environment (objects and their initial state):")
    assert messages[1]["content"].endswith(turns[0]["content"]) and messages[2:] == turns[1:]
    assert build_prompt(baskets)[1]["content"].endswith("Write the plan.")  # the default prompt is unchanged
    with pytest.raises(ValueError, match="starts and ends with a user turn"):
        build_prompt(baskets, dialogue=turns[:2])


def test_activity_phrase_follows_a_type_swap_or_becomes_generic() -> None:
    assert activity_phrase("assembling_gift_baskets") == "assembling gift baskets"
    assert activity_phrase("assembling_gift_baskets", {"basket.n.01": "hamper.n.02"}) == "assembling gift hampers"
    assert activity_phrase("turning_on_radio", {"radio_receiver.n.01": "walkie-talkie.n.01"}) == GENERIC_ACTIVITY


def test_paraphrase_is_kept_only_when_it_keeps_names_and_numbers(baskets) -> None:
    turns = build_dialogue(baskets, "assembling_gift_baskets", 0)
    original = max((t["content"] for t in turns), key=len)
    assert paraphrase_problem(original, "Put a candle in every basket.") is None  # no names to keep here
    named = "- Make sure that at least 3 apples are on top of table_1."
    assert paraphrase_problem(named, "Place three apples on the table.") == "names_lost"
    assert paraphrase_problem(named, "Put at least 4 apples onto table_1.") == "numbers_changed"
    assert paraphrase_problem(named, "(ontop ?apple table_1) at least 3") == "formula_syntax"
    assert paraphrase_problem(named, "") == "empty"
    assert paraphrase_problem(named, "Put at least 3 apples onto table_1, please.") is None

    good = paraphrase_dialogue(turns, FunctionBackend(lambda _p: "Please give each basket a candle, a cheese, "
                                                      "a cookie and a bow."))
    changed = [k for k in range(len(turns)) if good.turns[k] != turns[k]]
    assert good.accepted and good.reason is None and len(changed) == 1
    bad = paraphrase_dialogue(turns, FunctionBackend(lambda _p: "(forpairs (?b - basket))"))
    assert not bad.accepted and bad.reason == "formula_syntax" and bad.turns == turns


def test_a_failing_paraphrase_backend_keeps_the_template() -> None:
    class Down(LocalPlannerBackend):
        @override  # always down: the prompt and sampling do not matter
        def generate(self, prompt, n, sampling):
            return [Completion.failed("ConnectError: refused")] * n

    turns = [{"role": "user", "content": "Help?"}, {"role": "assistant", "content": "Sure."},
             {"role": "user", "content": "- Make sure that radio_1 is switched on."}]
    result = paraphrase_dialogue(turns, Down())
    assert not result.accepted and result.reason == "backend_error" and result.turns == turns
