"""rosbag2 reading and writing through rosbags: both storage formats, and one-line errors for broken bags."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from symplan_core.rosio.bags import IMAGE, BagError, BagReader, CameraTopics, write_camera_bag
from symplan_core.rosio.images import decode_color, decode_depth


@pytest.mark.parametrize("storage", ["sqlite3", "mcap"])
def test_a_written_camera_bag_reads_back_frame_for_frame(rendered, tmp_path: Path, storage: str) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames, rendered.task.intrinsics, storage)
    topics = CameraTopics()
    with BagReader(bag) as reader:
        counts = {t.name: t.count for t in reader.topics()}
        assert counts == {topics.rgb: 6, topics.depth: 6, topics.info: 6}
        colour = [m for m in reader.messages([topics.rgb])]
        depth = [m for m in reader.messages([topics.depth])]
    assert [m.index for m in colour] == list(range(6))
    np.testing.assert_array_equal(decode_color(colour[3].msg), rendered.frames[3].rgb)
    # 16UC1 stores millimetres: the round trip is exact to half a millimetre.
    np.testing.assert_allclose(decode_depth(depth[3].msg), rendered.frames[3].depth, atol=5.01e-4)


def test_the_db3_file_inside_a_bag_directory_opens_the_bag(rendered, tmp_path: Path) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:1], rendered.task.intrinsics, "sqlite3")
    with BagReader(next(bag.glob("*.db3"))) as reader:
        assert reader.message_count == 3


def _storage_file(bag: Path) -> Path:
    return next(p for p in bag.iterdir() if p.suffix in (".db3", ".mcap"))


@pytest.mark.parametrize("storage", ["sqlite3", "mcap"])
@pytest.mark.parametrize("damage", ["truncate", "scramble"])
def test_a_damaged_bag_is_one_bag_error_naming_the_bag(rendered, tmp_path: Path, storage: str, damage: str) -> None:
    bag = write_camera_bag(tmp_path / "bag", rendered.frames[:3], rendered.task.intrinsics, storage)
    data_file = _storage_file(bag)
    data = bytearray(data_file.read_bytes())
    if damage == "truncate":
        data = data[: len(data) * 2 // 3]
    else:
        for i in range(64, len(data), 89):
            data[i] ^= 0xA5
    data_file.write_bytes(bytes(data))
    with pytest.raises(BagError) as err:
        with BagReader(bag) as reader:
            for _ in reader.messages([t.name for t in reader.topics()]):
                pass
    message = str(err.value)
    assert message.startswith(str(bag)) and "\n" not in message


def test_missing_bag_and_missing_metadata_are_bag_errors(tmp_path: Path) -> None:
    with pytest.raises(BagError, match="no such bag"):
        BagReader(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BagError, match="metadata.yaml is missing"):
        BagReader(tmp_path / "empty")


def test_an_undecodable_message_names_topic_and_offset(rendered, tmp_path: Path) -> None:
    """A message whose CDR bytes do not match its declared type fails at its offset on its topic."""
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore

    bag = tmp_path / "bag"
    store = get_typestore(Stores.ROS2_KILTED)
    with Writer(bag, version=9) as writer:
        conn = writer.add_connection("/camera/color/image_raw", IMAGE, typestore=store)
        writer.write(conn, 10, b"\x00\x01\x00\x00 not an Image")
    with BagReader(bag) as reader, pytest.raises(BagError) as err:
        list(reader.messages(["/camera/color/image_raw"]))
    assert "/camera/color/image_raw @ message 0 (t=0.000 s)" in str(err.value)
    shutil.rmtree(bag)
