"""The perceived scene as BDDL (``symplan perceive --scene FILE``): what the camera showed, written
whether or not a task could be drafted from it.

Only what was observed goes in: the detected objects (instance names and types as in the draft and
its provenance) and the observed facts (the relations lifted from depth), in the engine's
omnigibson vocabulary, with an empty goal ``(and)``. It is **not a task**: its goal is empty,
nothing in it was planned or verified beyond parsing, and the facts a retrieved activity would add
(the prior) are left out. ``task.bddl`` remains the only file written after every check passes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from symplan_core.bddl import BDDLError, Problem, parse_problem
from symplan_core.bddl.writer import write_problem
from symplan_core.perception.errors import OutputError

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def scene_problem(provenance: dict[str, Any], name: str = "perceived-scene") -> Problem:
    """The observed objects and facts of a provenance record as a goal-less BDDL problem, read back
    by our parser (a malformed name or fact is an :class:`OutputError`)."""
    objects = {inst: entry["type"] for inst, entry in provenance.get("objects", {}).items()
               if entry.get("source") == "detection" and entry.get("type")}
    rooms = set(provenance.get("rooms", {}))
    facts = []
    for fact in provenance.get("facts", []):
        if fact.get("source") != "observed":
            continue
        words = fact["fact"].replace("(", " ").replace(")", " ").split()
        args = [w for w in words[1:] if w != "not"]
        if all(a in objects or a in rooms for a in args):
            facts.append(fact["fact"])
    by_type: dict[str, list[str]] = {}
    for inst, typ in objects.items():
        by_type.setdefault(typ, []).append(inst)
    lines = [f"(define (problem {_NAME.sub('_', name) or 'perceived-scene'})", "    (:domain omnigibson)",
             "    (:objects"]
    lines += [f"        {' '.join(sorted(insts))} - {typ}" for typ, insts in sorted(by_type.items())]
    lines += ["    )", "    (:init"] + [f"        {f}" for f in facts] + ["    )", "    (:goal (and))", ")"]
    try:
        return parse_problem("\n".join(lines) + "\n", name)
    except BDDLError as exc:
        raise OutputError(f"the perceived scene does not parse as BDDL: {exc}") from None


def write_scene(provenance: dict[str, Any], path: str | Path) -> tuple[Path, Problem]:
    """Write :func:`scene_problem` to ``path`` (a temporary name, then renamed)."""
    path = Path(path)
    problem = scene_problem(provenance, f"perceived-{path.stem}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(write_problem(problem), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise OutputError(f"cannot write the scene {path}: {exc.strerror or exc}") from None
    return path, problem
