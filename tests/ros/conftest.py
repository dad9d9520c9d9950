"""Shared set-up for the ROS 2 tests: real rclpy over DDS, one isolated domain per module.

The tests need the wheels and the colcon-built workspace from `scripts/setup_ros.sh`.
Without them the tests skip, unless SYMPLAN_REQUIRE_ROS=1 (set by `make test`), where a
missing or broken ROS set-up is an error instead of a silent skip.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Tests exercise the source tree of the workspace's Python packages (no rebuild needed after an
# edit); the helpers live in symplan_ros_testkit.py next to this file and tests/runtime/runtime_testkit.py.
PKG_SRCS = [ROOT / "ros2_ws" / "src" / name for name in ("symplan_ros", "symplan_sim", "symplan_tools")]
for p in (*map(str, PKG_SRCS), str(ROOT), str(Path(__file__).parent), str(ROOT / "tests" / "runtime")):
    if p not in sys.path:
        sys.path.insert(0, p)

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


def _ros_available() -> str | None:
    try:
        from symplan_ros.workspace import ensure_workspace

        if not ensure_workspace():
            return "ros2_ws/install missing: run scripts/setup_ros.sh"
        import rclpy  # noqa: F401
        import symplan_interfaces.msg  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the machine
        return f"ROS 2 not set up ({exc}): run scripts/setup_ros.sh"
    return None


_MISSING = _ros_available()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_ros: uses rclpy / DDS / the built ROS workspace")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _MISSING is None:
        return
    if os.environ.get("SYMPLAN_REQUIRE_ROS") == "1":
        raise pytest.UsageError(f"SYMPLAN_REQUIRE_ROS=1 but {_MISSING}")
    for item in items:
        if item.get_closest_marker("needs_ros") is not None:
            item.add_marker(pytest.mark.skip(reason=_MISSING))


@pytest.fixture(scope="module")
def ros_context(request: pytest.FixtureRequest) -> Iterator[object]:
    import rclpy
    from rclpy.context import Context
    from symplan_ros_testkit import domain_id_for

    ctx = Context()
    rclpy.init(context=ctx, domain_id=domain_id_for(request.module.__name__))
    yield ctx
    ctx.try_shutdown()


@pytest.fixture(scope="module")
def spinner(ros_context: object) -> Iterator[object]:
    """Nodes added here are spun in a background MultiThreadedExecutor and destroyed after the module."""
    from symplan_ros.plumbing import BackgroundExecutor

    executor = BackgroundExecutor(ros_context, num_threads=8)
    yield executor
    executor.close()
