"""Typed errors and diagnostics of the BDDL layer."""

from __future__ import annotations

from dataclasses import dataclass

from symplan_core.bddl.model import SourcePos
from symplan_core.errors import SymPlanError


class BDDLError(SymPlanError):
    """Base of every error the BDDL layer raises on bad input."""


class BDDLSyntaxError(BDDLError):
    """Text that is not a well-formed BDDL problem. Carries the position."""

    def __init__(self, message: str, pos: SourcePos):
        super().__init__(f"{pos}: {message}")
        self.message = message
        self.pos = pos


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A semantic finding: ``severity`` is "error" or "warning"; ``code`` is stable."""

    severity: str
    code: str
    message: str
    pos: SourcePos

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}: {self.message} [{self.code}]"

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.pos.file,
            "line": self.pos.line,
            "col": self.pos.col,
        }
