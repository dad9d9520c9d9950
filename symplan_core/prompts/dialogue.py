"""The request as a short clarification dialogue, derived from the goal (the paper's data format).

The user asks for the activity in everyday words, the assistant clarifies, the user confirms or
spells out the end state. The end state is always the deterministic goal-to-English rewrite
(:func:`symplan_core.prompts.goal_text.goal_instructions`), so the dialogue says exactly what the
goal requires and the formula itself never appears. The template is drawn from a seed, so the
same seed gives the same dialogue. :func:`paraphrase_dialogue` optionally rewrites the turn that
carries the requirements with any planner backend and keeps the rewrite only when it still
names every object and number of the original and contains no formula syntax.

Turns are chat messages (``{"role", "content"}``), starting and ending with the user; pass them
as ``build_prompt(task, dialogue=turns)``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from symplan_core.prompts.goal_text import goal_instructions, plural, type_word

Turn = dict[str, str]
GENERIC_ACTIVITY = "a task around the house"

# (opening request, clarifying reply, closing user turn). {ask} is the activity as a request,
# {bullets} the requirements one per line, {inline} the requirements as one sentence.
_TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("{ask}", "Sure. Just to be sure, should I do the following?\n{bullets}", "Yes, exactly. Please write the plan."),
    ("{ask}", "Of course. To make sure I understand: {inline}. Is that right?", "Yes. Write the plan, please."),
    ("{ask}", "Happy to help. What exactly should be done?", "{bullets}\nPlease write the plan."),
    ("{ask}", "Okay. What should be true when I am done?", "{bullets}\nWrite the plan."),
)
_ASKS_GERUND = ("Could you help me with {activity}?", "I need some help with {activity}.",
                "Can you take care of {activity} for me?")
_ASKS_VERB = ("Could you help me {activity}?", "Please {activity} for me.", "I need you to {activity}.")
_BDDL_SYNTAX = re.compile(r"\?[A-Za-z]|\((?:and|or|not|imply|forall|exists|forn|forpairs|fornpairs|"
                          r"ontop|inside|inroom|:goal|:init|define)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9.\-]*_\d+\b")
_NUMBER = re.compile(r"(?<![A-Za-z_])\d+(?![A-Za-z_\d])")


def activity_phrase(activity: str, renames: Mapping[str, str] | None = None) -> str:
    """``assembling_gift_baskets`` -> ``assembling gift baskets``. With ``renames`` (synset swaps
    of an object augmentation) the swapped type's word is replaced; a phrase that would still
    name the old type becomes :data:`GENERIC_ACTIVITY`."""
    phrase = " ".join(activity.replace("_", " ").split())
    for old, new in (renames or {}).items():
        old_word, new_word = type_word(old), type_word(new)
        for a, b in ((plural(old_word), plural(new_word)), (old_word, new_word)):
            phrase = re.sub(rf"\b{re.escape(a)}\b", b, phrase, flags=re.IGNORECASE)
        stale = [w for w in re.split(r"[ -]", old_word) if len(w) > 2 and w not in new_word.split()]
        if any(re.search(rf"\b{re.escape(w)}", phrase, re.IGNORECASE) for w in stale):
            return GENERIC_ACTIVITY
    return phrase


def _request(phrase: str, rng: random.Random) -> str:
    first = phrase.split()[0] if phrase.split() else ""
    if phrase == GENERIC_ACTIVITY or first.lower().endswith("ing"):
        return rng.choice(_ASKS_GERUND).format(activity=phrase)
    return rng.choice(_ASKS_VERB).format(activity=phrase)


def build_dialogue(task, activity: str, seed: int | str = 0,
                   renames: Mapping[str, str] | None = None) -> list[Turn]:
    """User request, assistant clarification, user answer, for a compiled task.

    ``activity`` is the activity name; ``seed`` picks the template (same seed, same dialogue)."""
    rng = random.Random(f"symplan/dialogue/{seed}/{activity}")
    sentences = [s[0].upper() + s[1:] for s in goal_instructions(task)]
    bullets = "\n".join(f"- {s}." for s in sentences)
    inline = "; ".join(s[0].lower() + s[1:] for s in sentences)
    opening, reply, closing = rng.choice(_TEMPLATES)
    ask = _request(activity_phrase(activity, renames), rng)
    values = {"ask": ask, "bullets": bullets, "inline": inline}
    return [{"role": "user", "content": opening.format(**values)},
            {"role": "assistant", "content": reply.format(**values)},
            {"role": "user", "content": closing.format(**values)}]


def requirement_turn(turns: Sequence[Mapping[str, str]]) -> int:
    """Index of the turn that lists the requirements (the longest one)."""
    return max(range(len(turns)), key=lambda k: len(turns[k]["content"]))


def paraphrase_problem(original: str, paraphrase: str) -> str | None:
    """Why a paraphrase cannot replace ``original`` (None when it can)."""
    text = paraphrase.strip()
    if not text:
        return "empty"
    if len(text) > 3 * len(original) + 80:
        return "too_long"
    if _BDDL_SYNTAX.search(text):
        return "formula_syntax"
    if not set(_NAME.findall(original)) <= set(_NAME.findall(text)):
        return "names_lost"
    if sorted(_NUMBER.findall(_NAME.sub(" ", original))) != sorted(_NUMBER.findall(_NAME.sub(" ", text))):
        return "numbers_changed"
    return None


_PARAPHRASE_SYSTEM = (
    "Rewrite the message below in different, natural words. Keep its meaning exactly. Keep every "
    "object name (words with an underscore and a number, such as apple_1) and every number exactly as "
    "written. Answer with the rewritten message only.")


@dataclass(frozen=True)
class Paraphrased:
    turns: list[Turn]
    accepted: bool
    reason: str | None  # why the template turn was kept (backend error, names lost, ...)


def paraphrase_dialogue(turns: Sequence[Mapping[str, str]], backend, sampling=None) -> Paraphrased:
    """Rewrite the requirement turn with ``backend`` (any :class:`~symplan_core.llm.PlannerBackend`).

    Never raises for a bad answer: a failed call or an unusable rewrite keeps the template turn
    and says why."""
    index = requirement_turn(turns)
    original = turns[index]["content"]
    prompt = [{"role": "system", "content": _PARAPHRASE_SYSTEM}, {"role": "user", "content": original}]
    completion = backend.plan(prompt, 1, sampling)[0]
    kept = [dict(t) for t in turns]
    if not completion.ok:
        return Paraphrased(kept, False, "backend_error")
    problem = paraphrase_problem(original, completion.text)
    if problem is not None:
        return Paraphrased(kept, False, problem)
    kept[index]["content"] = completion.text.strip()
    return Paraphrased(kept, True, None)
