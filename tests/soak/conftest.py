"""The soak suite: the planner node driven over real DDS, under load, faults and bad input.

Fast regression tests for what the soak found run in every `make test`; the short soak itself
(`test_soak_short.py`, marked ``soak``) runs there too, in a few minutes. The long run is
`make soak` (bench/bench_soak.py). ROS set-up, skipping and the per-module DDS domain are the
ROS tests' own (tests/ros/conftest.py, loaded from its file: a site-packages `tests` package
shadows the name); the harness lives in bench/soakkit.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _p in (str(ROOT / "tests" / "ros"), str(ROOT / "bench")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

_spec = importlib.util.spec_from_file_location("symplan_ros_test_fixtures", ROOT / "tests" / "ros" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_ros = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ros)

ros_context = _ros.ros_context
spinner = _ros.spinner
pytest_configure = _ros.pytest_configure
pytest_collection_modifyitems = _ros.pytest_collection_modifyitems
