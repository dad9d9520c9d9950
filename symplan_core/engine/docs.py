"""Generated documentation of the action library (``docs/actions.md``, the table in ``docs/engine.md``).

The table is rendered from the :class:`~symplan_core.engine.actions.ActionSpec`
data itself, so the documentation cannot drift from what the engine executes.
"""

from __future__ import annotations

from symplan_core.engine import actions as _actions
from symplan_core.engine.actions import ActionSpec

_HEADER = ("| # | Action | Set | Preconditions | Effects | Redundant when (warning) | Meaning |\n"
           "|---|---|---|---|---|---|---|")


def _code(tokens: tuple[str, ...]) -> str:
    return " ".join(f"`{t}`" for t in tokens) if tokens else "-"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def action_row(index: int, spec: ActionSpec) -> str:
    return "| " + " | ".join((
        str(index), f"`{spec.signature}`", spec.added_in, _cell(_code(spec.pre)), _cell(_code(spec.effects)),
        _cell(_code(spec.redundant)), _cell(spec.doc),
    )) + " |"


def action_table_markdown(action_set: str) -> str:
    """Markdown table of every action in ``action_set`` (``b100``, ``b1k`` or ``full``),
    in library order, one row per action, ending with a newline."""
    specs = list(_actions.action_set(action_set).values())
    rows = [action_row(k, spec) for k, spec in enumerate(specs, start=1)]
    return "\n".join([_HEADER, *rows]) + "\n"
