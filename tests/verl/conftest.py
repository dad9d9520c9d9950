"""The verl integration tests: they run in verl's own environment, ``.venv-verl`` (``make test``
and ``make test-verl`` create it with ``.[dev,llm,verl]``: verl 0.9.1 and every requirement it
declares, which the project's ``.venv`` with its newer transformers cannot hold). ``make test``
runs them there and leaves this directory out of the ``.venv`` run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "training"))  # for `rl_rows`

from rl_rows import prompt_row

from symplan_core.data.samples import SampleRow


@pytest.fixture(scope="session")
def stove(behavior_dir) -> SampleRow:
    return prompt_row("b100/cleaning_stove")
