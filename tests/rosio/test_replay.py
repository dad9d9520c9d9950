"""``symplan replay``: recorded camera bags -> the BDDL perception gives on the same frames, or one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from symplan_core.rosio.bags import CAMERA_INFO, IMAGE, BagError, CameraTopics, write_camera_bag
from symplan_core.rosio.images import numpy_to_image_fields
from symplan_core.runtime.replay import ReplayConfig, replay

INSTRUCTION = "attach the camera to the tripod"  # the task rendered in conftest.py


def _config(bag: Path, out: Path, rendered, **kw) -> ReplayConfig:
    return ReplayConfig(bag=bag, instruction=kw.pop("instruction", INSTRUCTION), out=out,
                        detector=rendered.detector, **kw)


@pytest.fixture(scope="module")
def perceived_from_files(rendered, tmp_path_factory) -> str:
    """What `symplan perceive --images DIR --depth DIR` writes for the same frames as image files."""
    import yaml

    root = tmp_path_factory.mktemp("frames")
    images, depth = root / "rgb", root / "depth"
    images.mkdir()
    depth.mkdir()
    for k, frame in enumerate(rendered.frames):
        cv2.imwrite(str(images / f"{k:04d}.png"), cv2.cvtColor(frame.rgb, cv2.COLOR_RGB2BGR))
        mm = np.nan_to_num(frame.depth * 1000.0, nan=0.0).clip(0, 65535).round().astype(np.uint16)
        cv2.imwrite(str(depth / f"{k:04d}.png"), mm)
    (root / "camera.yaml").write_text(yaml.safe_dump(rendered.task.intrinsics.to_json()))
    proc = subprocess.run([sys.executable, "-m", "symplan_core.cli.main", "perceive", "--images", str(images),
                           "--depth", str(depth), "--camera-info", str(root / "camera.yaml"),
                           "--instruction", INSTRUCTION, "--detector", rendered.detector,
                           "--out", str(root / "task.bddl")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return (root / "task.bddl").read_text()


@pytest.mark.parametrize("storage", ["sqlite3", "mcap"])
def test_replay_reproduces_the_bddl_symplan_perceive_gives_on_the_same_frames(rendered, perceived_from_files,
                                                                                tmp_path: Path, storage: str) -> None:
    expected = perceived_from_files
    bag = write_camera_bag(tmp_path / "bag", rendered.frames, rendered.task.intrinsics, storage)
    outcome = replay(_config(bag, tmp_path / "out", rendered))
    assert outcome.ok, outcome.reasons
    assert (tmp_path / "out" / "task.bddl").read_text() == expected
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["stream"]["frames"] == len(rendered.frames) and report["accepted"] is True
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.json", "task.bddl",
                                                                   "task.provenance.json"]


def test_compressed_colour_and_32fc1_depth_replay_to_an_accepted_scene(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames, rendered.task.intrinsics, "mcap",
                           compressed=True, depth_encoding="32FC1")
    outcome = replay(_config(bag, tmp_path / "out", rendered))
    assert outcome.ok, outcome.reasons
    assert outcome.report["topics"]["rgb"].endswith("/compressed")


def test_with_a_planner_the_written_plan_strict_passes_the_written_task(rendered, tmp_path: Path) -> None:
    from symplan_core.bddl import parse_problem
    from symplan_core.engine import compile_task, verify

    bag = write_camera_bag(tmp_path / "bag", rendered.frames, rendered.task.intrinsics)
    outcome = replay(_config(bag, tmp_path / "out", rendered, plan="reference"))
    assert outcome.ok and outcome.report["plan"]["strict_pass"] is True
    task = compile_task(parse_problem((tmp_path / "out" / "task.bddl").read_text()), "single")
    assert verify(task, (tmp_path / "out" / "plan.txt").read_text()).strict_pass


# -- bad input ------------------------------------------------------------------------------

def _write(bag: Path, messages: list[tuple[str, str, float, dict]]) -> Path:
    """A bag of hand-made camera messages: (topic, type, header stamp, fields), logged in list order
    (log time is the recorder's clock: it keeps running when a driver's header stamps jump)."""
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_KILTED)
    types = store.types
    with Writer(bag, version=9) as writer:
        conns = {}
        for order, (topic, msgtype, stamp, fields) in enumerate(messages):
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, msgtype, typestore=store)
            header = types["std_msgs/msg/Header"](
                stamp=types["builtin_interfaces/msg/Time"](sec=int(stamp), nanosec=int((stamp % 1) * 1e9)),
                frame_id="camera")
            if msgtype == IMAGE:
                fields = {**fields, "data": np.frombuffer(fields["data"], np.uint8)}
                msg = types[IMAGE](header=header, **fields)
            else:
                msg = types[CAMERA_INFO](
                    header=header, height=fields["height"], width=fields["width"], distortion_model="",
                    d=np.zeros(0), k=np.array([500.0, 0, 16, 0, 500, 12, 0, 0, 1]), r=np.eye(3).ravel(),
                    p=np.zeros(12), binning_x=0, binning_y=0,
                    roi=types["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0,
                                                                  do_rectify=False))
            writer.write(conns[topic], (order + 1) * 10**8, store.serialize_cdr(msg, msgtype))
    return bag


T = CameraTopics()
RGB = numpy_to_image_fields(np.zeros((24, 32, 3), np.uint8), "rgb8")
DEPTH = numpy_to_image_fields(np.full((24, 32), 1000, np.uint16), "16UC1")
INFO = {"height": 24, "width": 32}


def test_a_topic_that_is_not_in_the_bag_is_named_with_the_topics_that_are(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:2], rendered.task.intrinsics)
    with pytest.raises(BagError) as err:
        replay(_config(bag, tmp_path / "out", rendered, rgb_topic="/front/image"))
    assert "no rgb topic '/front/image'" in str(err.value)
    assert T.rgb in str(err.value) and T.depth in str(err.value)
    assert not (tmp_path / "out").exists()


def test_a_topic_of_the_wrong_type_is_rejected(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:2], rendered.task.intrinsics)
    with pytest.raises(BagError, match="has type sensor_msgs/msg/CameraInfo"):
        replay(_config(bag, tmp_path / "out", rendered, rgb_topic=T.info))


def test_an_empty_bag_is_an_error(rendered, tmp_path: Path) -> None:
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore

    with Writer(tmp_path / "bag", version=9) as writer:
        writer.add_connection(T.rgb, IMAGE, typestore=get_typestore(Stores.ROS2_KILTED))
    with pytest.raises(BagError, match="the bag is empty"):
        replay(_config(tmp_path / "bag", tmp_path / "out", rendered))


def test_a_clock_jump_names_the_topic_and_offset(rendered, tmp_path: Path) -> None:
    # The third colour frame is stamped 8 s before the second: the driver's clock jumped back.
    bag = _write(tmp_path / "bag", [
        (T.info, CAMERA_INFO, 10.0, INFO), (T.rgb, IMAGE, 10.0, RGB), (T.depth, IMAGE, 10.0, DEPTH),
        (T.rgb, IMAGE, 10.1, RGB), (T.rgb, IMAGE, 2.0, RGB)])
    with pytest.raises(BagError) as err:
        replay(_config(bag, tmp_path / "out", rendered))
    assert f"{T.rgb} @ message 2" in str(err.value) and "clock jump" in str(err.value)


def test_depth_of_another_size_than_its_colour_frame_is_an_error(rendered, tmp_path: Path) -> None:
    small = numpy_to_image_fields(np.full((12, 16), 1000, np.uint16), "16UC1")
    bag = _write(tmp_path / "bag", [(T.info, CAMERA_INFO, 1.0, INFO), (T.rgb, IMAGE, 1.0, RGB),
                                    (T.depth, IMAGE, 1.0, small)])
    with pytest.raises(BagError) as err:
        replay(_config(bag, tmp_path / "out", rendered))
    assert "depth 16x12 does not match colour 32x24" in str(err.value) and f"{T.depth} @ message 0" in str(err.value)


def test_a_bag_without_camera_info_cannot_be_lifted_to_3d(rendered, tmp_path: Path) -> None:
    bag = _write(tmp_path / "bag", [(T.rgb, IMAGE, 1.0, RGB), (T.depth, IMAGE, 1.0, DEPTH)])
    with pytest.raises(BagError, match="camera info"):
        replay(_config(bag, tmp_path / "out", rendered, info_topic=None))


def test_a_colour_encoding_on_the_depth_topic_is_an_error(rendered, tmp_path: Path) -> None:
    bag = _write(tmp_path / "bag", [(T.info, CAMERA_INFO, 1.0, INFO), (T.rgb, IMAGE, 1.0, RGB),
                                    (T.depth, IMAGE, 1.0, RGB)])
    with pytest.raises(BagError, match=rf"{T.depth} @ message 0 .*not one of 16UC1"):
        replay(_config(bag, tmp_path / "out", rendered))


def test_an_existing_output_is_kept_unless_forced(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:2], rendered.task.intrinsics)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        replay(_config(bag, out, rendered))
    assert (out / "keep.txt").read_text() == "mine"
    assert replay(_config(bag, out, rendered, force=True)).ok
    assert not (out / "keep.txt").exists() and (out / "task.bddl").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []  # no staging left behind


def test_a_rejected_scene_writes_nothing(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:2], rendered.task.intrinsics)
    outcome = replay(_config(bag, tmp_path / "out", rendered,
                             instruction="put the pizza and the wine bottle in the fridge"))
    assert not outcome.ok and outcome.reasons
    assert not (tmp_path / "out").exists()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symplan_core.cli.main", "replay", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_reports_a_broken_bag_in_one_line_and_exits_2(tmp_path: Path) -> None:
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text("rosbag2_bagfile_information: {version: 9, storage_identifier: sqlite3}\n")
    proc = _cli(str(bag), "--instruction", INSTRUCTION, "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: replay:"), proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_cli_json_report_of_an_accepted_scene(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:2], rendered.task.intrinsics, "mcap")
    proc = _cli(str(bag), "--instruction", INSTRUCTION, "--out", str(tmp_path / "out"),
                "--detector", rendered.detector, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["accepted"] and report["out"] == str(tmp_path / "out")
    assert [v["axis"] for v in report["verdicts"]] == ["syntax", "objects", "init", "goal"]
