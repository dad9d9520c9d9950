"""docs/actions.md is generated from the specs, not hand-copied."""

from __future__ import annotations

from pathlib import Path

from symplan_core.engine.actions import action_set
from symplan_core.engine.docs import action_table_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "actions.md"


def test_actions_doc_matches_the_specs():
    table = action_table_markdown("full").strip()
    assert table in DOC.read_text()
    assert table.count("\n| ") == len(action_set("full"))  # one row per action, after the header rule
