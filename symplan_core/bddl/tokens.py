"""Tokenizer: parentheses and atoms, with offsets; ``;`` comments are dropped.

Line/column are computed lazily from offsets (only diagnostics need them),
which keeps tokenizing as cheap as a single regex pass.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from symplan_core.bddl.model import SourcePos

_TOKEN = re.compile(r";[^\n]*|[()]|[^\s();]+")


class SourceText:
    """Maps character offsets of one source to 1-based line/column."""

    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name
        self._line_starts: list[int] | None = None

    def pos(self, offset: int) -> SourcePos:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect_right(self._line_starts, offset)
        return SourcePos(self.name, line, offset - self._line_starts[line - 1] + 1)


def tokenize(text: str) -> tuple[list[str], list[int]]:
    """Return parallel lists of tokens and their start offsets."""
    tokens: list[str] = []
    offsets: list[int] = []
    for match in _TOKEN.finditer(text):
        tok = match.group()
        if tok[0] != ";":
            tokens.append(tok)
            offsets.append(match.start())
    return tokens, offsets
