"""Engine test helpers: compiled real tasks (cached per session) and plan text builders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from symplan_core.engine import CompiledTask, compile_task
from symplan_core.tasks import load_problem

sys.path.insert(0, str(Path(__file__).parent))  # for `plans`


@pytest.fixture(scope="session")
def compiled(behavior_dir):
    """``compiled("b100/making_tea", "dual")`` -> a CompiledTask, built once per session."""
    cache: dict[tuple[str, str], CompiledTask] = {}

    def get(task: str, robot: str = "single") -> CompiledTask:
        key = (task, robot)
        if key not in cache:
            cache[key] = compile_task(load_problem(task), robot=robot)
        return cache[key]

    return get
