"""perceive() end to end on rendered BEHAVIOR scenes, its bad inputs, and the atomic writer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from car_task import INSTRUCTION

from symplan_core.bddl import parse_problem
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.perception import (
    DepthError,
    FiducialMap,
    Frame,
    FrameError,
    IntrinsicsError,
    NoDetectionsError,
    OutputError,
    PerceptionError,
    make_detector,
    perceive,
    sidecar_path,
    write_outputs,
)
from symplan_core.perception.rigs import NoiseConfig


def _fiducial(scene):
    return make_detector("fiducial", fiducial_map=scene.fiducial_map)


def test_noisy_frames_of_a_real_task_become_its_released_task(car_scene, car_problem, b1k_config) -> None:
    frames = car_scene.frames(8, NoiseConfig.default())
    result = perceive(frames, INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    assert result.accepted, result.reasons
    assert [v.axis for v in result.verdicts] == ["syntax", "objects", "init", "goal"]
    assert result.plan.strict_pass and result.engine_loads
    assert result.provenance["goal"]["activity"] == "b1k/loading_the_car"
    assert parse_problem(result.bddl) == result.problem
    ours, released = to_omnigibson(result.problem), to_omnigibson(car_problem)
    assert ours.objects == released.objects  # marker ids follow the released instances here
    assert set(ours.init) == set(released.init) and ours.goal == released.goal


def test_provenance_names_the_frames_and_detections_behind_each_fact(car_scene, b1k_config) -> None:
    result = perceive(car_scene.frames(3), INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    objects = result.provenance["objects"]
    assert objects["car.n.01_1"]["source"] == "detection" and objects["car.n.01_1"]["frames"] == [0, 1, 2]
    assert objects["car.n.01_1"]["marker_id"] in car_scene.truth
    fact = next(f for f in result.provenance["facts"] if f["fact"] == "(ontop tennis_racket.n.01_1 table.n.02_1)")
    assert fact["source"] == "observed" and fact["frames"] == [0, 1, 2] and 0 < fact["confidence"] <= 1
    assert fact["regions"] == ["table.n.02_1#0", "tennis_racket.n.01_1#0"]
    json.dumps(result.to_json())  # plain JSON all the way down


def test_accepted_results_are_written_atomically_with_their_sidecar(car_scene, b1k_config, tmp_path) -> None:
    result = perceive(car_scene.frames(2), INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    bddl, sidecar = write_outputs(result, tmp_path / "out" / "task.bddl")
    assert sidecar == sidecar_path(bddl) == tmp_path / "out" / "task.provenance.json"
    assert bddl.read_text() == result.bddl and json.loads(sidecar.read_text())["version"] == 1
    assert sorted(p.name for p in bddl.parent.iterdir()) == ["task.bddl", "task.provenance.json"]


def test_unwritable_outputs_are_typed_errors(car_scene, b1k_config, tmp_path) -> None:
    result = perceive(car_scene.frames(2), INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="cannot write"):
        write_outputs(result, tmp_path / "file" / "task.bddl")


def test_unseen_goal_objects_reject_the_draft_and_nothing_is_written(car_scene, b1k_config, tmp_path) -> None:
    hidden = {m: e for m, e in car_scene.fiducial_map.markers.items() if e.synset != "car.n.01"}
    detector = make_detector("fiducial", fiducial_map=FiducialMap(markers=hidden))
    result = perceive(car_scene.frames(2), INSTRUCTION, detector, car_scene.intrinsics, b1k_config)
    assert not result.accepted
    objects = next(v for v in result.verdicts if v.axis == "objects")
    assert "car.n.01_1 is needed by the goal but was not detected" in objects.reasons
    car_marker = next(m for m, e in car_scene.fiducial_map.markers.items() if e.synset == "car.n.01")
    assert {"label": f"marker:{car_marker}", "frames": [0, 1],
            "reason": f"marker {car_marker} is not in the fiducial map"} in result.provenance["dropped"]
    with pytest.raises(OutputError, match="rejected, nothing written"):
        write_outputs(result, tmp_path / "task.bddl")
    assert list(tmp_path.iterdir()) == []


def test_a_named_object_the_scene_lacks_is_a_note_when_the_goal_does_not_need_it(car_scene, b1k_config) -> None:
    result = perceive(car_scene.frames(2), INSTRUCTION + " and the skateboard", _fiducial(car_scene),
                      car_scene.intrinsics, b1k_config)
    assert result.accepted, result.reasons
    objects = next(v for v in result.verdicts if v.axis == "objects")
    assert any("the instruction names 'skateboard'" in n and "the goal does not need it" in n for n in objects.notes)
    assert any("'skateboard'" in n for n in result.provenance["notes"])


def test_an_instruction_naming_a_needed_object_the_scene_lacks_is_rejected(car_scene, b1k_config) -> None:
    hidden = {m: e for m, e in car_scene.fiducial_map.markers.items() if e.synset != "digital_camera.n.01"}
    detector = make_detector("fiducial", fiducial_map=FiducialMap(markers=hidden))
    result = perceive(car_scene.frames(2), INSTRUCTION, detector, car_scene.intrinsics, b1k_config)
    assert not result.accepted and not result.needs_clarification
    # Whichever task is drafted, the camera the instruction names is needed (by the drafted goal, or by the
    # better match retrieval had to skip) and the scene lacks it.
    assert any(r.startswith("objects: the instruction names 'digital camera' (digital_camera.n.01), which")
               and r.endswith("but no such object was detected") for r in result.reasons), result.reasons


def test_frames_without_depth_or_of_another_size_are_typed_errors(car_scene, b1k_config) -> None:
    frames = car_scene.frames(2)
    detector = _fiducial(car_scene)
    with pytest.raises(DepthError, match="has no depth"):
        perceive([Frame(frames[0].rgb)], INSTRUCTION, detector, car_scene.intrinsics, b1k_config)
    small = Frame(np.zeros((240, 320, 3), np.uint8), np.ones((240, 320), np.float32))
    with pytest.raises(IntrinsicsError, match="camera info says 640x480"):
        perceive([small], INSTRUCTION, detector, car_scene.intrinsics, b1k_config)
    with pytest.raises(FrameError, match="no frames"):
        perceive([], INSTRUCTION, detector, car_scene.intrinsics, b1k_config)
    with pytest.raises(PerceptionError, match="instruction is empty"):
        perceive(frames, "  ", detector, car_scene.intrinsics, b1k_config)


def test_no_detections_and_unknown_labels_are_typed_errors_with_reasons(car_scene, b1k_config) -> None:
    blank = Frame(np.full((480, 640, 3), 120, np.uint8), np.full((480, 640), 3.0, np.float32))
    with pytest.raises(NoDetectionsError, match="the detector found nothing"):
        perceive([blank], INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    nonsense = FiducialMap(markers={m: {"synset": "gizmo.n.77"} for m in car_scene.truth})
    with pytest.raises(NoDetectionsError, match="gizmo.n.77 is not a BEHAVIOR synset"):
        perceive(car_scene.frames(1), INSTRUCTION, make_detector("fiducial", fiducial_map=nonsense),
                 car_scene.intrinsics, b1k_config)


def test_missing_depth_at_detections_is_reported_not_invented(car_scene, b1k_config) -> None:
    frames = car_scene.frames(2)
    holed = [Frame(f.rgb, np.zeros_like(f.depth), pose=f.pose) for f in frames]
    with pytest.raises(NoDetectionsError, match="no usable depth at the detection"):
        perceive(holed, INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    car = next(d for d in _fiducial(car_scene).detect(frames[0]) if d.synset == "car.n.01")
    x0, y0, x1, y1 = (int(v) for v in car.box)
    for f in frames:
        f.depth[y0 - 2:y1 + 2, x0 - 2:x1 + 2] = 0.0  # no depth reading on the car
    result = perceive(frames, INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    assert not result.accepted
    assert any(note.startswith("car.n.01 (marker:") and "no usable depth" in note
               for note in result.provenance["notes"])
    assert "objects: car.n.01_1 is needed by the goal but was not detected" in result.reasons


def test_a_moving_camera_is_fused_in_the_world_frame(car_scene, car_problem, b1k_config) -> None:
    frames = car_scene.frames(4, NoiseConfig.default(), motion=0.08)
    assert len({tuple(f.pose[:3, 3].round(6)) for f in frames}) == 4  # four poses, four pose groups
    result = perceive(frames, INSTRUCTION, _fiducial(car_scene), car_scene.intrinsics, b1k_config)
    assert result.accepted, result.reasons
    assert set(to_omnigibson(result.problem).init) == set(to_omnigibson(car_problem).init)
