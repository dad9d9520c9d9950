"""EAI tests read the real EAI files that `symplan data fetch --eai` caches (`make data` runs it).

Missing data is a set-up error: the fixture fails instead of skipping, so a corpus test can
never pass vacuously.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from symplan_core.fetch import EAI, data_dir, is_complete


@pytest.fixture(scope="session")
def eai_dir(behavior_dir: Path) -> Path:
    """The complete, read-only EAI data directory (never modify it in a test)."""
    if not is_complete(EAI):
        pytest.fail(f"EAI data missing in {data_dir()}; run `symplan data fetch --eai`")
    return data_dir() / EAI


@pytest.fixture(scope="session")
def gold(eai_dir: Path):
    """The verdicts of the 100 human gold plans, with and without auto-navigate."""
    from symplan_core.eai.benchmark import gold_verdicts

    return {False: gold_verdicts(False), True: gold_verdicts(True)}
