"""Blocking waits on rclpy futures and conditions (no ROS import: usable before ROS loads)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

WAIT_S = 120.0  # default safety net against hangs; callers asserting on speed use bench/ instead


def wait_future(future: Any, timeout: float = WAIT_S) -> Any:
    """Block until an rclpy future (spun by another thread) is done; return its result."""
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout):
        raise TimeoutError(f"ROS future not done within {timeout}s")
    return future.result()


def wait_until(predicate: Callable[[], bool], timeout: float = WAIT_S, poll: float = 0.01) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("condition not met")
        time.sleep(poll)
