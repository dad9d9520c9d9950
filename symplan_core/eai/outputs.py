"""EAI plans and outputs files, read as JSON data only (EAI itself ``eval``s them).

A plan is a list of ``{"action": "RIGHT_GRASP", "object": "strawberry_0"}`` (two objects
as ``"obj1,obj2"``). A model's response usually wraps the list in prose, a code fence or
``# comments`` after entries (EAI's own worked example has them), and often writes Python
quotes. :func:`read_action_list` takes the first bracketed list and reads it with a small
JSON reader that also accepts single-quoted strings, ``#`` comments and trailing commas;
anything else is a :class:`EaiFormatError` that says where. Nothing is evaluated.

An outputs file (what EAI's ``evaluate_results`` reads) is a JSON list of
``{"identifier": demo id, "llm_output": response text}``.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

from symplan_core.eai.actions import VOCABULARY
from symplan_core.engine.errors import ErrorKind, Finding
from symplan_core.errors import SymPlanError


class EaiFormatError(SymPlanError, ValueError):
    """Text that holds no readable action list, or an outputs file of the wrong shape."""


@dataclass(frozen=True)
class EaiStep:
    index: int                  # position in the plan (0-based)
    action: str
    objects: tuple[str, ...]
    text: str                   # ``RIGHT_GRASP(strawberry_0)``, for messages


def _normalize(text: str, start: int) -> tuple[str, int]:
    """JSON text for the bracketed value at ``text[start]``, and where it ends."""
    out: list[str] = []
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j, buf = i + 1, []
            while j < len(text) and text[j] != ch:
                if text[j] == "\\" and j + 1 < len(text):
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            if j >= len(text):
                raise EaiFormatError(f"unterminated string starting at character {i}")
            # A double-quoted string is JSON already; a single-quoted one is re-quoted.
            out.append(text[i:j + 1] if ch == '"' else json.dumps("".join(buf).replace("\\'", "'")))
            i = j + 1
            continue
        if ch == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()  # trailing comma
            depth -= 1
        out.append(ch)
        i += 1
        if depth == 0:
            return "".join(out), i
    raise EaiFormatError(f"the list starting at character {start} is never closed")


def read_action_list(text: str) -> list:
    """The action list in a response or a plain JSON file (data only)."""
    try:
        value = json.loads(text)
    except ValueError:
        start = text.find("[")
        if start < 0:
            raise EaiFormatError("no '[' ... ']' action list in the text") from None
        normalized, _end = _normalize(text, start)
        try:
            value = json.loads(normalized)
        except ValueError as exc:
            raise EaiFormatError(f"the action list is not JSON data: {exc}") from None
    if not isinstance(value, list):
        raise EaiFormatError(f"expected a list of actions, got a JSON {type(value).__name__}")
    return value


def steps_of(entries: list) -> tuple[list[EaiStep], list[Finding]]:
    """Check each entry's shape, action name and number of objects (EAI's grammar checks).
    Object names are checked against the scene later, by the translation."""
    steps, errors = [], []
    if not entries:
        errors.append(Finding(0, "", ErrorKind.PARSE, "the plan has no actions",
                                  "output a list of {\"action\": ..., \"object\": ...}"))
    for k, entry in enumerate(entries):
        shown = json.dumps(entry)[:120]
        if not (isinstance(entry, dict) and isinstance(entry.get("action"), str)
                and isinstance(entry.get("object"), str)):
            errors.append(Finding(k, shown, ErrorKind.PARSE,
                                      f"entry {k} is not {{\"action\": <name>, \"object\": <names>}} with strings",
                                      "write each step as {\"action\": \"RIGHT_GRASP\", \"object\": \"apple_0\"}"))
            continue
        name, objects = entry["action"].strip(), tuple(o.strip() for o in entry["object"].split(","))
        text = f"{name}({', '.join(objects)})"
        spec = VOCABULARY.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, VOCABULARY, n=1)
            hint = f"did you mean {close[0]}?" if close else "use one of EAI's action names"
            errors.append(Finding(k, text, ErrorKind.UNKNOWN_ACTION, f"unknown EAI action {name!r}", hint))
            continue
        if len(objects) != spec.arity or not all(objects):
            errors.append(Finding(k, text, ErrorKind.ARITY,
                                      f"{name} takes {spec.arity} object(s), got {entry['object']!r}",
                                      "name the objects as \"obj\" or \"obj1,obj2\""))
            continue
        steps.append(EaiStep(k, name, objects, text))
    return steps, errors


@dataclass(frozen=True)
class OutputEntry:
    position: int
    demo_id: str | None
    response: str | list | None
    problem: str = ""           # why the entry itself is malformed ("" when it is fine)
    scorable: bool = True       # False: no demo to score it against (no identifier, a repeat)


def read_outputs(text: str) -> list[OutputEntry]:
    """An EAI outputs file; malformed entries are kept with the reason (never dropped)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise EaiFormatError(f"the outputs file is not JSON: {exc}") from None
    if not isinstance(data, list):
        raise EaiFormatError("the outputs file must be a JSON list of {\"identifier\", \"llm_output\"} objects")
    entries, seen = [], set()
    for k, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("identifier"), str):
            entries.append(OutputEntry(k, None, None, f"entry {k} has no string \"identifier\"", False))
            continue
        demo_id, response = item["identifier"], item.get("llm_output")
        if demo_id in seen:
            entries.append(OutputEntry(k, demo_id, None, f"entry {k}: {demo_id} appears more than once", False))
            continue
        seen.add(demo_id)
        if isinstance(response, (str, list)):
            entries.append(OutputEntry(k, demo_id, response))
        else:
            entries.append(OutputEntry(k, demo_id, None, f"entry {k} ({demo_id}) has no \"llm_output\" text"))
    return entries
