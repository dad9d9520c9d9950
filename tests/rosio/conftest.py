"""A real BEHAVIOR-1K task rendered to RGB-D frames: the camera data every rosio test records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

TASK = "b1k/attach_a_camera_to_a_tripod"
INSTRUCTION = "attach the camera to the tripod"


@dataclass(frozen=True)
class Recording:
    task: object  # perception.rigs.RenderedTask
    frames: list
    map_path: Path
    detector: str
    instruction: str = INSTRUCTION


@pytest.fixture(scope="session")
def rendered(behavior_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    from symplan_core.perception.rigs import NoiseConfig, render_task
    from symplan_core.tasks import load_problem

    task = render_task(load_problem(TASK), seed=0)
    map_path = tmp_path_factory.mktemp("fiducials") / "map.yaml"
    task.fiducial_map.dump(map_path)
    return Recording(task, task.frames(6, NoiseConfig.default()), map_path, f"fiducial:{map_path}")
