"""Prompt test helpers: compiled real tasks, cached per session."""

from __future__ import annotations

import pytest

from symplan_core.engine import CompiledTask, compile_task
from symplan_core.tasks import load_problem


@pytest.fixture(scope="session")
def compiled(behavior_dir):
    cache: dict[tuple[str, str], CompiledTask] = {}

    def get(task: str, robot: str = "single") -> CompiledTask:
        if (task, robot) not in cache:
            cache[task, robot] = compile_task(load_problem(task), robot=robot)
        return cache[task, robot]

    return get
