"""``symplan perceive`` (render -> perceive from files), ``perceive eval``: exit codes, files, JSON."""

from __future__ import annotations

import json

import pytest
from car_task import INSTRUCTION
from typer.testing import CliRunner

from symplan_core.cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def scene_dir(tmp_path_factory, behavior_dir):
    out = tmp_path_factory.mktemp("scene")
    result = runner.invoke(app, ["perceive", "render", "b1k/loading_the_car", "--out", str(out), "--frames", "3",
                                 "--noise", "default"])
    assert result.exit_code == 0, result.output
    return out


def _perceive(scene_dir, out, *extra):
    return runner.invoke(app, ["perceive", "--images", str(scene_dir / "rgb"), "--depth", str(scene_dir / "depth"),
                               "--camera-info", str(scene_dir / "camera_info.yaml"), "--instruction", INSTRUCTION,
                               "--detector", f"fiducial:{scene_dir / 'markers.yaml'}", "--out", str(out), *extra])


def test_render_writes_frames_depth_camera_info_and_the_marker_map(scene_dir) -> None:
    assert len(list((scene_dir / "rgb").glob("*.png"))) == 3 == len(list((scene_dir / "depth").glob("*.png")))
    assert {"camera_info.yaml", "markers.yaml", "truth.json"} <= {p.name for p in scene_dir.iterdir()}


def test_perceive_from_files_writes_the_task_and_its_provenance(scene_dir, tmp_path) -> None:
    result = _perceive(scene_dir, tmp_path / "task.bddl", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["accepted"] and data["written"] == [str(tmp_path / "task.bddl"), str(tmp_path / "task.provenance.json")]
    assert (tmp_path / "task.bddl").read_text() == data["bddl"]
    assert "(inside ?digital_camera.n.01_1 ?container.n.01_1)" in data["bddl"]


def test_a_rejected_draft_exits_1_and_writes_nothing(scene_dir, tmp_path) -> None:
    result = runner.invoke(app, ["perceive", "--images", str(scene_dir / "rgb"), "--depth", str(scene_dir / "depth"),
                                 "--camera-info", str(scene_dir / "camera_info.yaml"),
                                 "--instruction", "polish the piano and put the skateboard in the car",
                                 "--detector", f"fiducial:{scene_dir / 'markers.yaml'}",
                                 "--out", str(tmp_path / "task.bddl")])
    assert result.exit_code == 1, result.output
    assert "the instruction names 'piano'" in result.output
    assert "rejected" in result.output and "nothing written" in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["--images", "/no/such/dir"], "no such image directory"),
    (["--detector", "sonar"], "unknown detector 'sonar'"),
    (["--camera-info", "/no/such.yaml"], "cannot read camera info"),
    (["--depth", "/no/such/depth"], "no such depth directory"),
    (["--goal", "llm", "--llm", "telepathy:x"], "LLM backend 'telepathy:x'"),
])
def test_bad_inputs_are_one_line_errors_with_exit_2(scene_dir, tmp_path, args, message) -> None:
    base = {"--images": str(scene_dir / "rgb"), "--depth": str(scene_dir / "depth"),
            "--camera-info": str(scene_dir / "camera_info.yaml"), "--detector": "fiducial",
            "--instruction": INSTRUCTION, "--out": str(tmp_path / "t.bddl")}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    result = runner.invoke(app, ["perceive", *[x for kv in base.items() for x in kv]])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "t.bddl").exists()


def test_images_and_video_are_exclusive(scene_dir, tmp_path) -> None:
    result = runner.invoke(app, ["perceive", "--images", str(scene_dir), "--video", "x.mp4", "--instruction", "x",
                                 "--out", str(tmp_path / "t.bddl"), "--camera-info", "c.yaml"])
    assert result.exit_code == 2 and "exactly one of --images DIR or --video FILE" in result.output


def test_perceive_eval_reports_the_indicators(behavior_dir, tmp_path) -> None:
    result = runner.invoke(app, ["perceive", "eval", "--benchmark", "b1k", "--limit", "2", "--frames", "2",
                                 "--noise", "default", "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["tasks"] == 2 and summary["engine_loading"] == 100.0
    assert {"verifier_acceptance", "core_semantic_agreement", "instruction_alignment", "goal_equivalence",
            "objects", "facts", "observed_facts", "prior_facts"} <= set(summary)
    assert len((tmp_path / "tasks.jsonl").read_text().splitlines()) == 2
    assert "| verifier acceptance rate |" in (tmp_path / "report.md").read_text()
    bad = runner.invoke(app, ["perceive", "eval", "--detector", "grounding-dino:/x"])
    assert bad.exit_code == 2 and "only the fiducial detector" in bad.output


def test_a_config_file_keeps_its_values_where_no_flag_is_given(scene_dir, tmp_path) -> None:
    config = tmp_path / "perception.yaml"
    config.write_text("goal: llm\nkeyframes: {max_frames: 2, min_sharpness: 0.0}\n")
    from_file = _perceive(scene_dir, tmp_path / "a" / "task.bddl", "--config", str(config))
    assert from_file.exit_code == 2, from_file.output
    assert "goal='llm' needs an LLM backend spec" in from_file.output
    flag_wins = _perceive(scene_dir, tmp_path / "b" / "task.bddl", "--config", str(config), "--goal", "retrieval",
                          "--max-key-frames", "3", "--json")
    assert flag_wins.exit_code == 0, flag_wins.output
    assert json.loads(flag_wins.stdout)["accepted"]


def test_max_key_frames_keeps_the_config_files_other_key_frame_settings(tmp_path) -> None:
    from symplan_core.cli.perceive_cmd import _config

    config = tmp_path / "perception.yaml"
    config.write_text("robot: dual\nkeyframes: {max_frames: 2, min_sharpness: 0.0}\n")
    assert _config(config, robot=None, keyframes={"max_frames": 5}).keyframes.model_dump() == {
        "max_frames": 5, "min_sharpness": 0.0, "min_change": 0.02}
    assert _config(config, robot=None, keyframes={"max_frames": None}).robot == "dual"
