"""The runtime's one configuration: the planner's parameters file is the model, section by section,
and each stage gets its section as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from symplan_core.runtime.camera import CameraFeed
from symplan_core.runtime.config import CameraSection, RuntimeConfig
from symplan_core.runtime.limits import InputLimits
from symplan_core.runtime.sources import BddlSceneSource, CameraSceneSource, scene_source_for

PARAMS_FILE = Path(__file__).resolve().parents[2] / "ros2_ws/src/symplan_bringup/config/planner.yaml"


def _file_values() -> dict:
    return yaml.safe_load(PARAMS_FILE.read_text())["/**"]["ros__parameters"]


def test_the_parameters_file_names_every_field_of_the_model_and_nothing_else() -> None:
    values = _file_values()
    model = RuntimeConfig()
    assert set(values) == set(RuntimeConfig.model_fields)
    for name, value in values.items():
        if isinstance(value, dict):
            assert set(value) == set(type(getattr(model, name)).model_fields), name


def test_the_parameters_file_holds_the_model_defaults() -> None:
    assert RuntimeConfig.model_validate(_file_values()) == RuntimeConfig()


def test_a_bad_value_names_its_section_and_field() -> None:
    with pytest.raises(ValidationError, match=r"scene\.source"):
        RuntimeConfig.model_validate({"scene": {"source": "lidar"}})
    with pytest.raises(ValidationError, match=r"camera\.buffer_frames"):
        RuntimeConfig.model_validate({"camera": {"buffer_frames": 0}})
    with pytest.raises(ValidationError, match=r"planner\.prompt_variant"):
        RuntimeConfig.model_validate({"planner": {"prompt_variant": "chatty"}})
    with pytest.raises(ValidationError, match="extra"):
        RuntimeConfig.model_validate({"camera": {"rgb_topics": "x"}})


def test_each_stage_gets_its_section_as_it_is() -> None:
    config = RuntimeConfig.model_validate({"scene": {"source": "camera"}, "camera": {"buffer_frames": 4},
                                           "perception": {"detector": "fiducial"}})
    source, feed = scene_source_for(config)
    assert isinstance(feed, CameraFeed) and feed.config is config.camera and feed.required
    assert isinstance(source, CameraSceneSource)
    assert source.perception is config.perception and source.camera is config.camera
    bddl, plain = scene_source_for(RuntimeConfig())
    assert isinstance(bddl, BddlSceneSource) and not plain.required
    limits = InputLimits.from_config(config.limits, config.scene)
    assert (limits.max_bddl_bytes, limits.goal_file_dirs) == (config.limits.max_bddl_bytes, ())


def test_a_camera_without_topics_is_off() -> None:
    assert not CameraFeed().enabled
    assert CameraFeed(CameraSection(rgb_topic="/cam/rgb")).enabled


def test_planner_decoding_reaches_the_llm_backend_and_is_refused_for_the_reference_planner() -> None:
    from symplan_core.llm.spec import BackendSpecError
    from symplan_core.runtime.session import PlanningSession

    config = RuntimeConfig.model_validate({"planner": {
        "backend": "openai:http://127.0.0.1:9/v1?model=m", "decoding": "guided", "think": "skip",
        "steps": "120"}})
    backend_config = PlanningSession.from_config(config).backend.config  # type: ignore[attr-defined]
    assert (backend_config.decoding, backend_config.think, backend_config.steps) == ("guided", "skip", "120")
    with pytest.raises(BackendSpecError, match="does not decode"):
        PlanningSession.from_config(RuntimeConfig.model_validate({"planner": {"decoding": "grammar"}}))
    with pytest.raises(ValidationError, match=r"planner\.decoding"):
        RuntimeConfig.model_validate({"planner": {"decoding": "beam"}})
