"""Overlays: boxes, labels and relations drawn where the detections are (`perceive --overlay`,
`replay --overlay`), from the provenance the BDDL was built from."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from car_task import INSTRUCTION
from typer.testing import CliRunner

from symplan_core.cli.main import app
from symplan_core.perception import OutputError
from symplan_core.perception.overlay import PANEL_WIDTH, colour, draw, write_png

runner = CliRunner()


def _provenance() -> dict:
    return {
        "detector": "test",
        "objects": {
            "mug.n.04_1": {"type": "mug.n.04", "source": "detection", "label": "Mug", "confidence": 0.8,
                           "image_boxes": [{"frame": 0, "box": [40, 30, 90, 80]}]},
            "table.n.02_1": {"type": "table.n.02", "source": "detection", "label": "Table", "confidence": 0.6,
                             "image_boxes": [{"frame": 0, "box": [20, 100, 260, 180]},
                                             {"frame": 1, "box": [0, 0, 10, 10]}]},
            "agent.n.01_1": {"type": "agent.n.01", "source": "prior"},
        },
        "facts": [{"fact": "(ontop mug.n.04_1 table.n.02_1)", "source": "observed"},
                  {"fact": "(ontop agent.n.01_1 floor.n.01_1)", "source": "prior"}],
    }


def _perimeter(box, skip_top: bool = True) -> list[tuple[int, int]]:
    x0, y0, x1, y1 = box
    points = [(x0, y) for y in range(y0 + 20, y1 - 2, 3)] + [(x1, y) for y in range(y0 + 20, y1 - 2, 3)]
    points += [(x, y1) for x in range(x0 + 3, x1 - 2, 3)]
    return points if skip_top else points + [(x, y0) for x in range(x0 + 3, x1 - 2, 3)]


def test_boxes_are_drawn_in_their_instance_colour_where_the_detections_are() -> None:
    image = np.full((200, 300, 3), 90, np.uint8)
    out = draw(image, _provenance(), frame=0, accepted=True)
    assert out.shape == (200, 300 + PANEL_WIDTH, 3)
    for inst, box in (("mug.n.04_1", (40, 30, 90, 80)), ("table.n.02_1", (20, 100, 260, 180))):
        on_edge = [tuple(int(c) for c in out[y, x]) == colour(inst) for x, y in _perimeter(box)]
        assert np.mean(on_edge) >= 0.8, inst
    assert tuple(out[190, 290]) == (90, 90, 90) and tuple(out[10, 200]) == (90, 90, 90)  # away from every box
    # the observed relation: an arrow from the mug's centre to the table's centre, labelled at its middle
    a, b = np.array([65.0, 55.0]), np.array([140.0, 140.0])
    for t in (0.25, 0.8):
        x, y = (a + t * (b - a)).round().astype(int)
        assert (out[y - 1:y + 2, x - 1:x + 2] != 90).any(), (x, y)
    assert (out[90:100, 104:116] != 90).any()  # the predicate's label at the middle, (102, 97)
    # frame 1 holds only the table's other box; the prior fact and the agent (no box) are not drawn
    other = draw(image, _provenance(), frame=1, panel=False)
    assert np.array_equal(other[20:, 20:], image[20:, 20:])
    assert other[5, 0].tolist() == list(colour("table.n.02_1"))


def test_write_png_refuses_other_suffixes_and_unwritable_paths(tmp_path) -> None:
    image = np.zeros((20, 20, 3), np.uint8)
    with pytest.raises(OutputError, match="is a PNG file"):
        write_png(tmp_path / "x.jpg", image)
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="cannot write the overlay"):
        write_png(tmp_path / "file" / "x.png", image)
    assert write_png(tmp_path / "a" / "x.png", image).is_file()


@pytest.fixture(scope="module")
def scene_dir(tmp_path_factory, behavior_dir):
    out = tmp_path_factory.mktemp("scene")
    result = runner.invoke(app, ["perceive", "render", "b1k/loading_the_car", "--out", str(out), "--frames", "2"])
    assert result.exit_code == 0, result.output
    return out


def _marker_box_coloured(picture: np.ndarray, inst: str, box: list[float]) -> float:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    points = [(x, y) for x, y in _perimeter((x0, y0, x1, y1), skip_top=False)
              if 0 <= x < picture.shape[1] - PANEL_WIDTH and 0 <= y < picture.shape[0]]
    hits = [np.abs(picture[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).astype(int) - colour(inst)).sum(1).min() == 0
            for x, y in points]
    return float(np.mean(hits)) if hits else 0.0


def test_perceive_overlay_boxes_every_marker_the_task_was_built_from(scene_dir, tmp_path) -> None:
    overlay = tmp_path / "look.png"
    result = runner.invoke(app, ["perceive", "--images", str(scene_dir / "rgb"), "--depth", str(scene_dir / "depth"),
                                 "--camera-info", str(scene_dir / "camera_info.yaml"), "--instruction", INSTRUCTION,
                                 "--detector", f"fiducial:{scene_dir / 'markers.yaml'}",
                                 "--out", str(tmp_path / "task.bddl"), "--overlay", str(overlay), "--json"])
    assert result.exit_code == 0, result.output
    provenance = json.loads((tmp_path / "task.provenance.json").read_text())
    picture = cv2.imread(str(overlay))[..., ::-1]
    seen = {i: o for i, o in provenance["objects"].items() if o.get("image_boxes")}
    assert len(seen) >= 5
    for inst, obj in seen.items():
        boxes = [b["box"] for b in obj["image_boxes"] if b["frame"] == 0]
        if boxes:  # drawn on the key frame, in the instance's colour, on the marker's outline
            assert max(_marker_box_coloured(picture, inst, box) for box in boxes) >= 0.6, inst


def test_perceive_overlay_is_written_for_a_rejected_draft_and_rejects_a_non_png(scene_dir, tmp_path) -> None:
    args = ["perceive", "--images", str(scene_dir / "rgb"), "--depth", str(scene_dir / "depth"),
            "--camera-info", str(scene_dir / "camera_info.yaml"),
            "--instruction", "polish the piano and put the skateboard in the car",
            "--detector", f"fiducial:{scene_dir / 'markers.yaml'}", "--out", str(tmp_path / "task.bddl")]
    result = runner.invoke(app, [*args, "--overlay", str(tmp_path / "look.png")])
    assert result.exit_code == 1, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["look.png"]  # the overlay, and no task
    result = runner.invoke(app, [*args, "--overlay", str(tmp_path / "look.jpg")])
    assert result.exit_code == 2 and "--overlay is a .png file" in result.output


def test_replay_overlay_writes_one_picture_per_key_frame(behavior_dir, tmp_path) -> None:
    pytest.importorskip("rosbags", reason="replay needs the bags extra (pip install 'symplan-core[bags]')")
    from symplan_core.perception.rigs import render_task
    from symplan_core.rosio.bags import write_camera_bag
    from symplan_core.tasks import load_problem

    scene = render_task(load_problem("b1k/loading_the_car"), seed=0)
    frames = scene.frames(3)
    scene.fiducial_map.dump(tmp_path / "markers.yaml")
    bag = write_camera_bag(tmp_path / "bag", frames, scene.intrinsics, "sqlite3")
    result = runner.invoke(app, ["replay", str(bag), "--instruction", INSTRUCTION, "--out", str(tmp_path / "out"),
                                 "--detector", f"fiducial:{tmp_path / 'markers.yaml'}",
                                 "--overlay", str(tmp_path / "look"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    pictures = sorted((tmp_path / "look").glob("frame_*.png"))
    assert [str(p) for p in pictures] == report["overlays"] and len(pictures) == len(report["key_frames"]) >= 1
    provenance = json.loads((tmp_path / "out" / "task.provenance.json").read_text())
    picture = cv2.imread(str(pictures[0]))[..., ::-1]
    drawn = [_marker_box_coloured(picture, inst, b["box"]) for inst, o in provenance["objects"].items()
             for b in o.get("image_boxes", []) if b["frame"] == 0]
    assert drawn and np.mean([d >= 0.6 for d in drawn]) >= 0.9
