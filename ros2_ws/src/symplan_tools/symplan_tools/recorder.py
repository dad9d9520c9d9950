"""`symplan-record`: a small rosbag2 recorder for pip-installed ROS (``rosbag2`` is not on PyPI).

Subscribes to the given topics (types looked up in the ROS graph), serialises each message with
``rclpy.serialization`` (the CDR bytes rosbag2 stores) and writes a rosbag2 directory (sqlite3
or MCAP) through ``rosbags``, with the receive time as log time, as ``ros2 bag record`` does.
``symplan replay`` reads what it writes.

    symplan-record --out camera_bag [--storage mcap] [--duration 10] /camera/color/image_raw ...
"""

from __future__ import annotations

import argparse
import importlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import rclpy
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from rclpy.serialization import serialize_message
from symplan_ros.plumbing import BackgroundExecutor


def message_class(msgtype: str) -> type:
    """``pkg/msg/Type`` -> the generated Python class (rosidl_runtime_py is not on PyPI)."""
    package, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)


class BagRecorder:
    """Record ``topics`` ({name: "pkg/msg/Type"}) seen by ``node`` into the bag at ``path``."""

    def __init__(self, node: Node, path: str | Path, topics: dict[str, str], storage: str = "sqlite3") -> None:
        from rosbags.rosbag2 import StoragePlugin, Writer
        from rosbags.typesys import Stores, get_typestore

        self.path = Path(path)
        self.counts = dict.fromkeys(topics, 0)
        self._lock = threading.Lock()
        store = get_typestore(Stores.ROS2_KILTED)
        plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
        self._writer = Writer(self.path, version=9, storage_plugin=plugin)
        self._writer.open()
        self._node = node
        self._subs = []
        for topic, msgtype in topics.items():
            conn = self._writer.add_connection(topic, msgtype, typestore=store)
            self._subs.append(node.create_subscription(message_class(msgtype), topic,
                                                       lambda msg, c=conn, t=topic: self._write(c, t, msg),
                                                       qos_profile_sensor_data))
        self._open = True

    def _write(self, conn: Any, topic: str, msg: Any) -> None:
        data = serialize_message(msg)
        with self._lock:
            if self._open:
                self._writer.write(conn, time.time_ns(), data)
                self.counts[topic] += 1

    def close(self) -> None:
        """Stop recording and finish the bag. The subscriptions stay until the node is destroyed:
        destroying them under a spinning executor races its wait set (rclpy InvalidHandle)."""
        with self._lock:
            if not self._open:
                return
            self._open = False
            self._writer.close()


def topic_types(node: Node, topics: list[str], timeout_s: float = 5.0) -> dict[str, str]:
    """The message type of each topic, from the ROS graph (waits for publishers to appear)."""
    deadline = time.monotonic() + timeout_s
    while True:
        graph = {name: types[0] for name, types in node.get_topic_names_and_types() if types}
        missing = [t for t in topics if t not in graph]
        if not missing:
            return {t: graph[t] for t in topics}
        if time.monotonic() > deadline:
            raise TimeoutError(f"no publisher for {', '.join(missing)} within {timeout_s:g} s")
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symplan-record", description=__doc__.split("\n\n")[0])
    parser.add_argument("topics", nargs="+", help="topics to record (absolute names)")
    parser.add_argument("--out", required=True, help="bag directory to create")
    parser.add_argument("--storage", choices=("sqlite3", "mcap"), default="sqlite3")
    parser.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds (0: Ctrl-C)")
    args, ros_args = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if Path(args.out).exists():
        print(f"error: {args.out} exists", file=sys.stderr)
        return 2
    rclpy.init(args=[sys.argv[0], *ros_args])
    node = Node("symplan_recorder")
    spinner = BackgroundExecutor()
    spinner.add(node)
    recorder = None
    try:
        recorder = BagRecorder(node, args.out, topic_types(node, args.topics), args.storage)
        deadline = time.monotonic() + args.duration if args.duration > 0 else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    except TimeoutError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if recorder is not None:
            recorder.close()
            print(f"{args.out}: " + ", ".join(f"{t} {n}" for t, n in recorder.counts.items()))
        spinner.close()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
