"""BDDL language layer: model, parser, writer, checks, normalization, rendering."""

from symplan_core.bddl.diagnostics import BDDLError, BDDLSyntaxError, Diagnostic
from symplan_core.bddl.model import (
    And,
    Atom,
    Formula,
    Imply,
    Literal,
    Not,
    ObjectDecl,
    Or,
    Param,
    Problem,
    Quantifier,
    SourcePos,
)
from symplan_core.bddl.parser import parse_file, parse_problem

__all__ = [
    "And", "Atom", "BDDLError", "BDDLSyntaxError", "Diagnostic", "Formula", "Imply",
    "Literal", "Not", "ObjectDecl", "Or", "Param", "Problem", "Quantifier", "SourcePos",
    "parse_file", "parse_problem",
]
