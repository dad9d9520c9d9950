"""Parse planner output with a restricted grammar. LLM output is data, never code.

Accepted input: the paper's response format
``<think>...</think><answer><steps>...</steps><code>...</code></answer>`` or bare
code. A code line must be ``name(arg, arg, ...)`` where names and arguments are
plain identifiers (letters, digits, ``_ . - *``), optionally quoted, optionally
prefixed by a step number and followed by ``;`` or a ``#`` comment. Anything else
is a PARSE error for that line; nothing is ever evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

_LINE = re.compile(
    r"""^\s*(?:\d+\s*[.):]\s*)?(?:[-*]\s+)?     # optional numbering / bullet
        ([A-Za-z_][A-Za-z0-9_]*)\s*               # action name
        \(\s*(.*?)\s*\)\s*;?\s*(?:\#.*)?$         # (args) ; # comment
    """,
    re.VERBOSE,
)
_ARG = re.compile(r"""^(['"]?)([A-Za-z0-9_][A-Za-z0-9_.\-*]*)\1$""")
_TAG = re.compile(r"<(/?)(think|answer|steps|code)>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*$")


class Call(NamedTuple):
    """One parsed code line. ``step`` counts code lines from 0. (A named tuple: immutable like
    the frozen dataclass it was, and three times cheaper to build, once per plan line.)"""

    step: int
    action: str
    args: tuple[str, ...]
    text: str


class BadLine(NamedTuple):
    step: int
    text: str
    reason: str


@dataclass
class ParsedPlan:
    items: list[Call | BadLine] = field(default_factory=list)
    format_ok: bool = False
    format_issues: list[str] = field(default_factory=list)
    steps_text: str = ""
    think_text: str = ""

    @property
    def calls(self) -> list[Call]:
        return [c for c in self.items if isinstance(c, Call)]


_TAGS = ("think", "answer", "steps", "code")
_SECTION = {t: re.compile(rf"<{t}>(.*?)</{t}>", re.IGNORECASE | re.DOTALL) for t in _TAGS}
_OPEN = {t: re.compile(rf"<{t}>", re.IGNORECASE) for t in _TAGS}
_CLOSE = {t: re.compile(rf"</{t}>", re.IGNORECASE) for t in _TAGS}


def _section(text: str, tag: str) -> str | None:
    m = _SECTION[tag].search(text)
    return m.group(1) if m else None


def check_format(text: str) -> list[str]:
    """Problems with the response format (for the format reward); [] when well-formed."""
    issues = []
    for tag in _TAGS:
        opens = len(_OPEN[tag].findall(text))
        closes = len(_CLOSE[tag].findall(text))
        if opens != 1 or closes != 1:
            issues.append(f"expected one <{tag}>...</{tag}>, found {opens} open / {closes} close")
    answer = _section(text, "answer") or ""
    for tag in ("steps", "code"):
        if _section(answer, tag) is None and not any(tag in i for i in issues):
            issues.append(f"<{tag}> is not inside <answer>")
    order = [m.group(2).lower() + ("/" if m.group(1) else "") for m in _TAG.finditer(text)]
    if not issues and order != ["think", "think/", "answer", "steps", "steps/", "code", "code/", "answer/"]:
        issues.append("tags out of order (want <think>, then <answer><steps/><code/></answer>)")
    return issues


#: Fast path for the common plain form ``name(a, b)`` (a strict subset of what _LINE/_ARG accept,
#: giving the same Call); everything else takes the general path below.
#: Separators are mandatory between arguments, so the match is linear (no backtracking blow-up).
_PLAIN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(((?:[A-Za-z0-9_][A-Za-z0-9_.\-*]*(?:, ?[A-Za-z0-9_][A-Za-z0-9_.\-*]*)*)?)\)")


def parse_line(line: str, step: int) -> Call | BadLine:
    plain = _PLAIN.fullmatch(line)
    if plain is not None:
        raw = plain.group(2)
        return Call(step, plain.group(1), tuple(a.strip() for a in raw.split(",")) if raw else (), line)
    m = _LINE.match(line)
    if not m:
        return BadLine(step, line.strip(), "not of the form action(arg, ...)")
    name, raw_args = m.group(1), m.group(2)
    args: list[str] = []
    if raw_args:
        for raw in raw_args.split(","):
            am = _ARG.match(raw.strip())
            if not am:
                return BadLine(step, line.strip(), f"argument {raw.strip()!r} is not a plain object name")
            args.append(am.group(2))
    return Call(step, name, tuple(args), line.strip())


#: ``check_format`` of a text without any tag (bare code)
_NO_TAGS = tuple(f"expected one <{tag}>...</{tag}>, found 0 open / 0 close" for tag in _TAGS)


def parse_plan(text: str) -> ParsedPlan:
    """Split a response into code calls; bad lines are kept as :class:`BadLine`."""
    if "<" not in text:  # bare code: no tag to look for
        return _parse_code(text, ParsedPlan(format_ok=False, format_issues=list(_NO_TAGS)))
    issues = check_format(text)
    code = _section(text, "code")
    if code is None:
        # Bare code (or a broken response): use what follows the last <code>, else everything.
        tail = re.split(r"<code>", text, flags=re.IGNORECASE)[-1]
        code = re.sub(r"</?(think|answer|steps|code)>", "", tail, flags=re.IGNORECASE) \
            if "<code>" in text.lower() else (text if not re.search(r"<think>|<answer>", text, re.I) else "")
    plan = ParsedPlan(format_ok=not issues, format_issues=issues,
                      steps_text=(_section(text, "steps") or "").strip(),
                      think_text=(_section(text, "think") or "").strip())
    return _parse_code(code, plan)


#: ``Call(*fields)`` without the named tuple's Python-level ``__new__`` (same object, half the cost)
_new_tuple = tuple.__new__
#: A whole line that is one plain call (``_PLAIN``), nothing around it; ``^``/``$`` are line
#: bounds, and no character of a plain call is a line break, so a match never spans lines.
_PLAIN_LINE = re.compile(rf"^({_PLAIN.pattern})$", re.MULTILINE)


def _parse_code(code: str, plan: ParsedPlan) -> ParsedPlan:
    """The code lines of a response as calls. Fast path: when every line is a plain call (the
    usual model output and every generated plan), one regex pass finds them all; its calls are
    what the per-line loop (:func:`_parse_lines`, the fallback) makes of such text."""
    found = _PLAIN_LINE.findall(code)
    lines = code.count("\n") + 1 - code.endswith("\n")  # "\n"-separated lines, a last empty one aside
    if found and len(found) == lines:  # one match per line: every line is a plain call
        plan.items.extend([_new_tuple(Call, (k, name, tuple(raw.replace(" ", "").split(",")) if raw else (), line))
                           for k, (line, name, raw) in enumerate(found)])
        return plan
    return _parse_lines(code, plan)


def _parse_lines(code: str, plan: ParsedPlan) -> ParsedPlan:
    items = plan.items
    plain = _PLAIN.fullmatch
    for line in code.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] == "#" or (stripped[0] == "`" and _FENCE.match(stripped)):
            continue
        m = plain(stripped)
        if m is not None:  # parse_line's fast path, inline (arguments hold no spaces: drop them)
            name, raw = m.groups()
            items.append(_new_tuple(Call, (len(items), name, tuple(raw.replace(" ", "").split(",")) if raw else (),
                                           stripped)))
        else:
            items.append(parse_line(stripped, len(items)))
    return plan


def format_call(action: str, args: Iterable[str]) -> str:
    return f"{action}({', '.join(args)})"
