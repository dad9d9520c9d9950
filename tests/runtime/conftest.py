"""The robot runtime (symplan_core.runtime) without DDS: plain Python, no ROS set-up needed.
The shared test backends live in runtime_testkit.py next to this file."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
