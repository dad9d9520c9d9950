"""Tokenizer: parentheses and atoms; ``;`` comments are dropped.

The parser needs only the token strings, which ``str.split`` produces far faster than
a regex (and the C extension ``_speedups`` faster still, in one scan). Offsets (for
line/column) come from a second, regex-based pass that runs only when a position is actually
asked for (a diagnostic, an error, ``node.pos``). Both passes agree on token boundaries:
``\\s`` in a ``str`` pattern and ``str.split()`` use the same Unicode whitespace set, and
comments run to ``\\n`` in both.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from symplan_core.bddl.diagnostics import BDDLSyntaxError, Diagnostic
from symplan_core.bddl.model import SourcePos

_TOKEN = re.compile(r";[^\n]*|[()]|[^\s();]+")
_COMMENT = re.compile(r";[^\n]*")


def python_split_tokens(text: str) -> list[str]:
    """Token strings only, in order (the parser's fast path)."""
    if ";" in text:
        text = _COMMENT.sub("", text)
    return text.replace("(", " ( ").replace(")", " ) ").split()


try:  # the same tokens in one C scan, when the extension was built at install (see _speedups.c)
    from symplan_core.bddl._speedups import split_tokens
except ImportError:
    split_tokens = python_split_tokens


def tokenize(text: str) -> tuple[list[str], list[int]]:
    """Parallel lists of tokens and their start offsets (slow path, for positions)."""
    tokens: list[str] = []
    offsets: list[int] = []
    for match in _TOKEN.finditer(text):
        tok = match.group()
        if tok[0] != ";":
            tokens.append(tok)
            offsets.append(match.start())
    return tokens, offsets


class SourceText:
    """One source: maps character offsets and token indices to 1-based line/column."""

    __slots__ = ("text", "name", "_line_starts", "_offsets")

    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name
        self._line_starts: list[int] | None = None
        self._offsets: list[int] | None = None

    def pos(self, offset: int) -> SourcePos:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect_right(self._line_starts, offset)
        return SourcePos(self.name, line, offset - self._line_starts[line - 1] + 1)

    def token_pos(self, index: int) -> SourcePos:
        """Position of token ``index`` of :func:`split_tokens`; past the last token: end of text."""
        if self._offsets is None:
            self._offsets = tokenize(self.text)[1]
        offsets = self._offsets
        return self.pos(offsets[index] if index < len(offsets) else len(self.text))


# Sentinels after the last token: every lookahead is at most this far past a token
# already checked to be real, so lookups never raise IndexError. split() never yields "".
END = ""
PAD = (END,) * 6
_PARENS = ("(", ")")
NOT_A_NAME = frozenset({END, "(", ")"})


class TokenStream:
    """The tokens of one source (padded with END) plus error/warning helpers for parsers."""

    __slots__ = ("src", "toks", "n", "notes")

    def __init__(self, text: str, source: str):
        self.src = SourceText(text, source)
        toks = split_tokens(text)
        self.n = len(toks)
        toks.extend(PAD)
        # A tuple: slices of it are the args tuples the model wants, with no extra copy.
        self.toks: tuple[str, ...] = tuple(toks)
        self.notes: list[Diagnostic] = []

    def error(self, message: str, index: int) -> BDDLSyntaxError:
        return BDDLSyntaxError(message, self.src.token_pos(index))

    def unexpected(self, index: int, what: str) -> BDDLSyntaxError:
        tok = self.toks[index] if index < self.n else END
        if tok == END:
            return self.error(f"unexpected end of input, expected {what}", index)
        return self.error(f"expected {what}, found {tok!r}", index)

    def expect(self, index: int, want: str) -> int:
        if self.toks[index] != want:
            raise self.unexpected(index, repr(want))
        return index + 1

    def name(self, index: int, what: str) -> str:
        tok = self.toks[index]
        if tok == END or tok in _PARENS:
            raise self.unexpected(index, what)
        return tok

    def close(self, index: int) -> int:
        """Index of the next ')' at or after ``index`` (end of input is an error)."""
        try:
            return self.toks.index(")", index, self.n)
        except ValueError:
            raise self.error("unexpected end of input, expected ')'", self.n) from None

    def warn(self, code: str, message: str, index: int) -> None:
        self.notes.append(Diagnostic("warning", code, message, self.src.token_pos(index)))
