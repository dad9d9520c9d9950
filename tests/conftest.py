"""Suite-wide fixtures: only the fetched BEHAVIOR data, which several test dirs read.

`make test` runs `symplan data fetch` first, so missing data is a set-up error and the
fixtures fail loudly instead of skipping (a skipped corpus test would pass vacuously).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from symplan_core.fetch import BENCHMARKS, data_dir, is_complete


@pytest.fixture(scope="session")
def behavior_dir() -> Path:
    """The complete, read-only BEHAVIOR data directory (never modify it in a test)."""
    missing = [b for b in BENCHMARKS if not is_complete(b)]
    if missing:
        pytest.fail(f"BEHAVIOR data {missing} missing in {data_dir()}; run `symplan data fetch`")
    return data_dir()


@pytest.fixture(scope="session")
def behavior_files(behavior_dir: Path) -> dict[str, list[Path]]:
    """Problem files per benchmark, sorted by name."""
    return {b: sorted((behavior_dir / b / "problems").glob("*.bddl")) for b in BENCHMARKS}
