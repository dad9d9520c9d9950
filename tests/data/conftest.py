"""Data-factory test helpers: the held-out split, the room model and one small real dataset,
built once per session from real BEHAVIOR files."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from factory_helpers import SMALL

from symplan_core.data.dataset import build_dataset
from symplan_core.data.factory import FactoryConfig, split_activities
from symplan_core.data.placements import PlacementModel
from symplan_core.data.samples import SampleRow, read_rows
from symplan_core.eval.splits import split_tasks
from symplan_core.tasks import load_problem


@pytest.fixture(scope="session")
def test_activities(behavior_dir) -> list[str]:
    return split_tasks("b1k", "test")


@pytest.fixture(scope="session")
def placements(test_activities) -> PlacementModel:
    train = split_activities("b1k/train", test_activities)
    return PlacementModel.from_problems(load_problem(f"b1k/{name}") for name in train)


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory, test_activities) -> tuple[Path, dict, list[SampleRow]]:
    """``symplan data build`` on a few real activities of every split, with both augmentations."""
    out = tmp_path_factory.mktemp("small_dataset")
    meta = build_dataset(FactoryConfig(tasks=SMALL), test_activities, out)
    return out, meta, read_rows(out / "prompts.jsonl")


@pytest.fixture()
def closed_port() -> int:
    """A loopback port nothing listens on (bound once to find it, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
