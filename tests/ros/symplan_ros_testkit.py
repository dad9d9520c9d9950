"""What the ROS tests share beyond the runtime's kit (tests/runtime/runtime_testkit.py): where the
repository and the planner's parameters file are, and a DDS domain per test module."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "ros2_ws/src/symplan_bringup/config/planner.yaml"  # the planner's parameters file


def domain_id_for(name: str) -> int:
    """A DDS domain per test module (and per process), so parallel runs do not cross-talk."""
    return 10 + (zlib.crc32(name.encode()) + os.getpid()) % 90
