"""RL test fixtures: real BEHAVIOR tasks as sample rows (helpers in ``rl_rows.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # for `rl_rows`

from rl_rows import prompt_row

from symplan_core.data.samples import SampleRow


@pytest.fixture(scope="session")
def bathtub(behavior_dir) -> SampleRow:
    return prompt_row("b100/cleaning_bathtub")


@pytest.fixture(scope="session")
def stove(behavior_dir) -> SampleRow:
    return prompt_row("b100/cleaning_stove")
