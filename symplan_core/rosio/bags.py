"""ROS 2 bags (sqlite3 and MCAP) read and written with ``rosbags``: no ROS install needed.

:func:`open_bag` wraps ``rosbags.highlevel.AnyReader``; every failure (a missing or truncated
file, a corrupt database, an undecodable message) becomes one :class:`BagError` whose message
names the bag, the topic and the offset (message index on that topic and log time), so a user
sees one line, never a traceback. :func:`write_camera_bag` records camera frames the way a ROS
camera driver publishes them; tests, the benchmark and the camera demo use it to make bags from
rendered scenes instead of checking in binaries.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from symplan_core.errors import SymPlanError
from symplan_core.rosio.images import numpy_to_image_fields

IMAGE = "sensor_msgs/msg/Image"
COMPRESSED = "sensor_msgs/msg/CompressedImage"
CAMERA_INFO = "sensor_msgs/msg/CameraInfo"
IMAGE_TYPES = (IMAGE, COMPRESSED)
Storage = Literal["sqlite3", "mcap"]


class BagError(SymPlanError):
    """A bag that cannot be read as asked; the message is one line naming bag, topic and offset."""

    def __init__(self, bag: str | Path, what: str, topic: str = "", offset: str = "") -> None:
        where = f"{topic} @ {offset}: " if topic and offset else f"{topic}: " if topic else ""
        super().__init__(f"{bag}: {where}{what}")
        self.bag, self.topic, self.offset, self.what = str(bag), topic, offset, what


@dataclass(frozen=True)
class TopicInfo:
    name: str
    msgtype: str
    count: int


@dataclass(frozen=True)
class BagMessage:
    topic: str
    msgtype: str
    index: int  # position of the message on its topic, from 0
    log_time_s: float  # seconds since the start of the bag
    msg: Any

    @property
    def offset(self) -> str:
        return f"message {self.index} (t={self.log_time_s:.3f} s)"


def _typestore() -> Any:
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS2_KILTED)


def bag_directory(path: str | Path) -> Path:
    """A bag is a directory with ``metadata.yaml``; a ``.db3``/``.mcap`` file inside one is accepted too."""
    path = Path(path)
    if path.is_file() and path.suffix in (".db3", ".mcap") and (path.parent / "metadata.yaml").is_file():
        return path.parent
    return path


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{text} ({type(exc).__name__})" if type(exc).__name__ not in text else text


class BagReader:
    """An open bag: its topics and its messages in log order, decoded."""

    def __init__(self, path: str | Path) -> None:
        from rosbags.highlevel import AnyReader

        self.path = bag_directory(path)
        if not self.path.exists():
            raise BagError(path, "no such bag (expected a rosbag2 directory with metadata.yaml)")
        if self.path.is_dir() and not (self.path / "metadata.yaml").is_file():
            raise BagError(path, "not a rosbag2 directory: metadata.yaml is missing")
        try:
            self._reader = AnyReader([self.path], default_typestore=_typestore())
            self._reader.open()
        except Exception as exc:  # noqa: BLE001 - rosbags/apsw/yaml raise many types for a broken bag
            raise BagError(self.path, f"cannot open: {_reason(exc)}") from None
        self._start_ns = int(self._reader.start_time) if self._reader.message_count else 0

    def __enter__(self) -> BagReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._reader.close()
        except Exception:  # noqa: BLE001 - closing a corrupt bag may fail again; nothing to keep
            pass

    @property
    def message_count(self) -> int:
        return int(self._reader.message_count)

    def topics(self) -> list[TopicInfo]:
        counts: dict[tuple[str, str], int] = {}
        for conn in self._reader.connections:
            key = (conn.topic, conn.msgtype)
            counts[key] = counts.get(key, 0) + int(conn.msgcount)
        return [TopicInfo(topic, msgtype, count) for (topic, msgtype), count in sorted(counts.items())]

    def messages(self, topics: Sequence[str]) -> Iterator[BagMessage]:
        """Messages of ``topics`` in log order, deserialized; a failure raises BagError at its offset."""
        wanted = [c for c in self._reader.connections if c.topic in set(topics)]
        index: dict[str, int] = {}
        stream = self._reader.messages(connections=wanted)
        last_topic, last_time = "", 0.0
        while True:
            try:
                conn, timestamp, raw = next(stream)
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001 - a corrupt page surfaces while iterating
                where = f"after message {index.get(last_topic, 0) - 1} (t={last_time:.3f} s)" if last_topic else "start"
                raise BagError(self.path, f"corrupt data: {_reason(exc)}", last_topic or "-", where) from None
            position = index.get(conn.topic, 0)
            index[conn.topic] = position + 1
            log_time = (int(timestamp) - self._start_ns) * 1e-9
            last_topic, last_time = conn.topic, log_time
            try:
                msg = self._reader.deserialize(raw, conn.msgtype)
            except Exception as exc:  # noqa: BLE001 - undecodable CDR of any kind
                raise BagError(self.path, f"cannot decode {conn.msgtype}: {_reason(exc)}", conn.topic,
                               f"message {position} (t={log_time:.3f} s)") from None
            yield BagMessage(conn.topic, conn.msgtype, position, log_time, msg)


def open_bag(path: str | Path) -> BagReader:
    return BagReader(path)


def describe_topics(topics: Sequence[TopicInfo]) -> str:
    return ", ".join(f"{t.name} [{t.msgtype}, {t.count}]" for t in topics) or "none"


# -- writing ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CameraTopics:
    rgb: str = "/camera/color/image_raw"
    depth: str = "/camera/depth/image_raw"
    info: str = "/camera/color/camera_info"


def _stamp(ts: Any, seconds: float) -> Any:
    whole = int(np.floor(seconds))
    return ts.types["builtin_interfaces/msg/Time"](sec=whole, nanosec=int(round((seconds - whole) * 1e9)) % 10**9)


def write_camera_bag(path: str | Path, frames: Sequence[Any], intrinsics: Any, storage: Storage = "sqlite3",
                     topics: CameraTopics = CameraTopics(), compressed: bool = False,
                     depth_encoding: Literal["16UC1", "32FC1"] = "16UC1", frame_id: str = "camera") -> Path:
    """Record ``frames`` (perception ``Frame``s: RGB + optional depth in metres) as a camera driver
    would: colour (``rgb8``, or JPEG ``CompressedImage``), depth (16UC1 millimetres or 32FC1 metres)
    and ``CameraInfo`` per frame, each stamped with the frame's stamp."""
    import cv2
    from rosbags.rosbag2 import StoragePlugin, Writer

    ts = _typestore()
    types = ts.types
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    path = Path(path)
    with Writer(path, version=9, storage_plugin=plugin) as writer:
        rgb_conn = writer.add_connection(topics.rgb + ("/compressed" if compressed else ""),
                                         COMPRESSED if compressed else IMAGE, typestore=ts)
        depth_conn = writer.add_connection(topics.depth, IMAGE, typestore=ts)
        info_conn = writer.add_connection(topics.info, CAMERA_INFO, typestore=ts)
        for frame in frames:
            header = types["std_msgs/msg/Header"](stamp=_stamp(ts, frame.stamp), frame_id=frame_id)
            log_ns = int(round(frame.stamp * 1e9))
            if compressed:
                ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(frame.rgb, cv2.COLOR_RGB2BGR),
                                        [cv2.IMWRITE_JPEG_QUALITY, 95])
                assert ok, "OpenCV could not encode a JPEG"
                color = types[COMPRESSED](header=header, format="rgb8; jpeg compressed bgr8",
                                          data=np.frombuffer(jpeg.tobytes(), np.uint8))
                writer.write(rgb_conn, log_ns, ts.serialize_cdr(color, COMPRESSED))
            else:
                fields = numpy_to_image_fields(frame.rgb, "rgb8")
                fields["data"] = np.frombuffer(fields["data"], np.uint8)
                writer.write(rgb_conn, log_ns, ts.serialize_cdr(types[IMAGE](header=header, **fields), IMAGE))
            if frame.depth is not None:
                if depth_encoding == "16UC1":
                    depth = np.nan_to_num(frame.depth * 1000.0, nan=0.0).clip(0, 65535).round().astype(np.uint16)
                else:
                    depth = frame.depth.astype(np.float32)
                fields = numpy_to_image_fields(depth, depth_encoding)
                fields["data"] = np.frombuffer(fields["data"], np.uint8)
                writer.write(depth_conn, log_ns, ts.serialize_cdr(types[IMAGE](header=header, **fields), IMAGE))
            info = types[CAMERA_INFO](
                header=header, height=intrinsics.height, width=intrinsics.width, distortion_model="plumb_bob",
                d=np.zeros(5), k=np.array(intrinsics.matrix(), dtype=np.float64).reshape(-1),
                r=np.eye(3).reshape(-1), p=np.hstack([intrinsics.matrix(), np.zeros((3, 1))]).reshape(-1),
                binning_x=0, binning_y=0,
                roi=types["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0,
                                                              do_rectify=False))
            writer.write(info_conn, log_ns, ts.serialize_cdr(info, CAMERA_INFO))
    return path
