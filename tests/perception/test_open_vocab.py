"""GroundingDINO through transformers: a tiny random model of the real architecture, real pre- and
post-processing, offline. Its detections are noise, so the pipeline must end in a typed outcome."""

from __future__ import annotations

import pytest
from car_task import INSTRUCTION

from symplan_core.perception import (
    DetectorUnavailableError,
    NoDetectionsError,
    PerceptionConfig,
    make_detector,
    perceive,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, behavior_dir):
    pytest.importorskip("transformers", reason="transformers is not installed (pip install 'symplan-core[llm]')")
    from symplan_core.perception.rigs.tiny_gdino import build_tiny_grounding_dino

    return build_tiny_grounding_dino(tmp_path_factory.mktemp("gdino"))


def test_grounding_dino_detects_boxes_labelled_with_prompt_words(tiny_model, car_scene) -> None:
    detector = make_detector(f"grounding-dino:{tiny_model}?threshold=0.05&text_threshold=0.05")
    assert detector.open_vocabulary
    frame = car_scene.frames(1)[0]
    prompt = ["car", "tennis racket", "digital camera"]
    found = detector.detect(frame, prompt)
    assert found, "a random model above a 0.05 threshold still proposes boxes"
    words = {w for phrase in prompt for w in phrase.split()}
    for det in found:
        x0, y0, x1, y1 = det.box
        assert 0 <= x0 < x1 <= frame.width and 0 <= y0 < y1 <= frame.height
        assert 0.05 < det.score <= 1.0 and det.kind == "box" and det.marker_id is None
        assert set(det.label.replace(".", " ").replace("[SEP]", " ").split()) <= words | {"[UNK]"}
    assert detector.detect(frame, []) == []


def test_the_grounding_dino_pipeline_ends_in_a_typed_outcome(tiny_model, car_scene) -> None:
    detector = make_detector(f"grounding-dino:{tiny_model}?threshold=0.2&text_threshold=0.2")
    try:
        result = perceive(car_scene.frames(2), INSTRUCTION, detector, car_scene.intrinsics,
                          PerceptionConfig(benchmarks=("b1k",)))
    except NoDetectionsError as exc:  # every box's label failed to ground: said so, per label
        assert "could be grounded" in str(exc) or "placed in 3-D" in str(exc)
    else:
        assert not result.accepted and result.reasons  # random boxes cannot make the released task


def test_a_model_directory_without_weights_is_unavailable(tmp_path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(DetectorUnavailableError, match="cannot load GroundingDINO"):
        make_detector(f"grounding-dino:{tmp_path}")
