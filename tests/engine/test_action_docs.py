"""The generated action table: one row per spec, and docs/engine.md embeds it verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symplan_core.engine import action_set
from symplan_core.engine.docs import action_table_markdown

ENGINE_MD = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
BLOCK = re.compile(r'<!-- BEGIN GENERATED: action_table_markdown\("b1k"\) -->\n(.*?)<!-- END GENERATED -->', re.S)


@pytest.mark.parametrize(("name", "count"), [("b100", 14), ("b1k", 34)])
def test_table_has_one_row_per_action_with_its_preconditions(name, count):
    table = action_table_markdown(name)
    rows = table.splitlines()[2:]
    assert len(rows) == count
    for row, spec in zip(rows, action_set(name).values(), strict=True):
        assert f"`{spec.signature}`" in row
        assert all(f"`{pre}`" in row.replace("\\|", "|") for pre in spec.pre)
        assert all(f"`{eff}`" in row for eff in spec.effects)


def test_engine_md_embeds_the_generated_b1k_table():
    """Regenerate with: python -c 'from symplan_core.engine.docs import action_table_markdown as t;
    print(t("b1k"))' and paste it between the GENERATED markers of docs/engine.md."""
    match = BLOCK.search(ENGINE_MD.read_text(encoding="utf-8"))
    assert match is not None
    assert match.group(1) == action_table_markdown("b1k")
