"""Fixtures for the perception tests: real BEHAVIOR tasks rendered by the package's own renderer.

Rendering a scene takes milliseconds; the retrieval index over B-1K is built once per session.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

cv2 = pytest.importorskip("cv2", reason="OpenCV is not installed (pip install 'symplan-core[vision]')")

from car_task import TASK  # noqa: E402

from symplan_core.perception import PerceptionConfig  # noqa: E402
from symplan_core.perception.rigs import render_task  # noqa: E402
from symplan_core.tasks import load_problem  # noqa: E402


@pytest.fixture(scope="session")
def b1k_config(behavior_dir) -> PerceptionConfig:
    return PerceptionConfig(benchmarks=("b1k",))


@pytest.fixture(scope="session")
def car_problem(behavior_dir):
    return load_problem(TASK)


@pytest.fixture(scope="session")
def car_scene(car_problem):
    return render_task(car_problem, seed=0)


@pytest.fixture()
def car_frames(car_scene):
    return car_scene.frames(4)
