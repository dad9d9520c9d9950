"""Derive the engine's iGibson (BEHAVIOR-100) ability table from EAI's scene data.

BEHAVIOR-100 ran on iGibson, whose objects carry abilities that B-1K's synset table does
not have: ``soakable``, ``stainable``, ``dustyable``, ``freezable``. EAI's ``eai-eval``
wheel lists, for every object of its 100 sampled scenes, the node states the object has
in iGibson (``goal_interpretation/resources/data/all_objects.json``, e.g. ``"rag.n.01_1":
["Stained", "Soaked"]``; a state listed there is one the object *can* take, not its value:
every cabinet lists ``Open``). The engine reads the result,
``symplan_core/engine/igibson_abilities.json``, for B-100 tasks (``docs/engine.md``).

Regenerate (needs the wheel, ``pip download --no-deps eai-eval==1.0.5``)::

    python -m symplan_core.eai.igibson_table eai_eval-1.0.5-py3-none-any.whl
    python -m symplan_core.eai.igibson_table --open-defaults   # from the cached EAI data
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path

MEMBER = "behavior_eval/evaluation/goal_interpretation/resources/data/all_objects.json"
#: iGibson node state -> the ability it proves (iGibson's ability names)
STATE_ABILITY = {"Burnt": "burnable", "Cooked": "cookable", "Dusty": "dustyable", "Frozen": "freezable", "Open": "openable",
                 "Sliced": "sliceable", "Soaked": "soakable", "Stained": "stainable", "ToggledOn": "toggleable"}
OUT = Path(__file__).resolve().parent.parent / "engine" / "igibson_abilities.json"


def derive(all_objects: dict) -> dict[str, list[str]]:
    """Category (synset) -> sorted abilities: the union over every instance in every demo."""
    table: dict[str, set[str]] = {}
    for objects in all_objects.values():
        for inst, states in objects.items():
            synset = inst.rsplit("_", 1)[0]
            table.setdefault(synset, set()).update(STATE_ABILITY[s] for s in states)
    return {k: sorted(v) for k, v in sorted(table.items())}


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as zf:
        raw = zf.read(MEMBER)
    data = {"source": f"eai-eval==1.0.5 wheel: {MEMBER}",
            "source_sha256": hashlib.sha256(raw).hexdigest(),
            "generator": "python -m symplan_core.eai.igibson_table <wheel>",
            "meaning": "iGibson node states each object of EAI's 100 BEHAVIOR-100 scenes can take, as abilities",
            "abilities": derive(json.loads(raw))}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT}: {len(data['abilities'])} synsets")




# -- unstated ``open``: what EAI's human gold plans show about the sampled scenes ------------
OPEN_OUT = Path(__file__).resolve().parent.parent / "engine" / "open_defaults.json"


def open_evidence() -> dict[str, dict[str, int]]:
    """Per openable category (iGibson table) whose ``open`` a demo's initial state does not
    state: in how many of EAI's 100 human gold plans the first use of an instance's inside
    (PLACE_INSIDE it, GRASP what starts inside it) comes before any OPEN of it (``used_closed``),
    comes after one (``opened``), or never happens (``untouched``). The annotators worked in
    the sampled iGibson scenes and EAI's evaluator refuses PLACE_INSIDE into a closed object,
    so a category used without opening, and never opened first, is open in those scenes."""
    from symplan_core.eai.data import demos, gold_plan

    abilities = json.loads(OUT.read_text())["abilities"]
    stats: dict[str, dict[str, int]] = {}
    for demo_id, demo in sorted(demos().items()):
        inside = {f[1]: f[2] for f in demo.init if len(f) == 3 and f[0] == "inside"}
        stated = {f[-1] for f in demo.init if "open" in f}
        first: dict[str, str] = {}
        for step in gold_plan(demo_id):
            action, obj = step["action"], str(step["object"]).split(",")[0].strip()
            if action == "OPEN":
                first.setdefault(obj, "opened")
            elif action.endswith("PLACE_INSIDE"):
                first.setdefault(obj, "used_closed")
            elif action.endswith("GRASP") and obj in inside:
                first.setdefault(inside[obj], "used_closed")
        for obj, synset in demo.objects.items():
            if "openable" in abilities.get(synset, ()) and obj not in stated:
                counts = stats.setdefault(synset, {"used_closed": 0, "opened": 0, "untouched": 0})
                counts[first.get(obj, "untouched")] += 1
    return dict(sorted(stats.items()))


def open_defaults(evidence: dict[str, dict[str, int]]) -> dict[str, bool]:
    """Open by default: used without opening at least once and never opened first."""
    return {s: c["used_closed"] > 0 and c["opened"] == 0 for s, c in evidence.items()}


def write_open_defaults() -> None:
    evidence = open_evidence()
    defaults = open_defaults(evidence)
    data = {"source": "EAI's 100 human gold plans (eai-eval==1.0.5 human_annotations) and their prompts' "
                      "initial states, via `symplan data fetch --eai`",
            "generator": "python -m symplan_core.eai.igibson_table --open-defaults",
            "rule": "open by default when the plans use an instance's inside without opening it at least once "
                    "and never open one first; every other openable category is closed by default",
            "open": defaults, "evidence": evidence}
    OPEN_OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OPEN_OUT}: open by default: {[s for s, v in defaults.items() if v]}")


if __name__ == "__main__":  # pragma: no cover - a generator, run by hand
    write_open_defaults() if sys.argv[1] == "--open-defaults" else main(sys.argv[1])
