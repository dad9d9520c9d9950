"""Detector specs and the fiducial detector on real OpenCV markers in rendered images."""

from __future__ import annotations

import numpy as np
import pytest

from symplan_core.perception import (
    DetectorSpecError,
    DetectorUnavailableError,
    FiducialMap,
    Frame,
    make_detector,
)


def test_fiducial_detector_reads_every_marker_of_a_clean_rendered_scene(car_scene) -> None:
    frame = car_scene.frames(1)[0]
    found = make_detector("fiducial", fiducial_map=car_scene.fiducial_map).detect(frame)
    assert sorted(d.marker_id for d in found) == sorted(car_scene.truth)
    by_id = {d.marker_id: d for d in found}
    for marker, who in car_scene.truth.items():
        entry = car_scene.fiducial_map.markers[marker]
        assert by_id[marker].synset == entry.synset and by_id[marker].room == entry.room
        if not who.startswith("room:"):
            assert who.rsplit("_", 1)[0] == entry.synset  # the instance's synset


def test_markers_missing_from_the_map_are_reported_by_id(car_scene) -> None:
    frame = car_scene.frames(1)[0]
    found = make_detector("fiducial").detect(frame)  # an empty map
    assert found and all(d.synset is None and d.label == f"marker:{d.marker_id}" for d in found)


def test_a_blank_image_has_no_detections() -> None:
    assert make_detector("fiducial").detect(Frame(np.full((480, 640, 3), 128, np.uint8))) == []


def test_fiducial_map_round_trips_and_accepts_the_short_form(tmp_path) -> None:
    (tmp_path / "m.yaml").write_text("dictionary: DICT_APRILTAG_36h11\nmarkers:\n  3: car.n.01\n"
                                     "  4: {synset: floor.n.01, room: garage}\n  5: {room: kitchen}\n")
    fmap = FiducialMap.load(tmp_path / "m.yaml")
    assert fmap.markers[3].synset == "car.n.01" and fmap.markers[5].room == "kitchen"
    fmap.dump(tmp_path / "again.yaml")
    assert FiducialMap.load(tmp_path / "again.yaml") == fmap
    assert make_detector(f"fiducial:{tmp_path / 'm.yaml'}").map == fmap


@pytest.mark.parametrize(("text", "error", "match"), [
    ("dictionary: DICT_NOPE\n", DetectorSpecError, "unknown marker dictionary"),
    ("markers:\n  1: {}\n", DetectorSpecError, "needs a synset, a room or both"),
    ("markers: [1, 2\n", DetectorSpecError, "cannot read fiducial map"),
])
def test_bad_fiducial_maps_are_typed_errors(tmp_path, text, error, match) -> None:
    (tmp_path / "m.yaml").write_text(text)
    with pytest.raises(error, match=match):
        make_detector(f"fiducial:{tmp_path / 'm.yaml'}")


@pytest.mark.parametrize(("spec", "error", "match"), [
    ("", DetectorSpecError, "empty detector spec"),
    ("sonar", DetectorSpecError, "unknown detector 'sonar'"),
    ("grounding-dino", DetectorSpecError, "needs a local model path"),
    ("grounding-dino:/x?threshold=two", DetectorSpecError, "not a number"),
    ("grounding-dino:/x?threshold=3", DetectorSpecError, "between 0 and 1"),
    ("grounding-dino:/x?colour=red", DetectorSpecError, "unknown option"),
    ("fiducial:/no/such/map.yaml", DetectorUnavailableError, "no such fiducial map"),
    ("grounding-dino:/no/such/model", DetectorUnavailableError, "no GroundingDINO model directory"),
    ("yolo-world:/no/such/weights.pt", DetectorUnavailableError, "ultralytics|no YOLO-World weights"),
])
def test_detector_specs_fail_with_typed_errors(spec, error, match) -> None:
    with pytest.raises(error, match=match):
        make_detector(spec)
