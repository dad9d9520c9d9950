"""Shared ROS plumbing of the SymPlan nodes: QoS profiles and executors (how nodes are spun and torn down)."""

from __future__ import annotations

import faulthandler
import os
import signal
import threading
import time
import traceback
from collections import deque
from typing import TypeVar

import rclpy
import rclpy.logging
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

RCLError = _rclpy.RCLError
InvalidHandle = _rclpy.InvalidHandle
NodeT = TypeVar("NodeT", bound=Node)

# Late joiners (a simulator started after the goal) still get the current problem/status.
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)

#: Callbacks that block (a Plan goal waiting for skill status, the simulator waiting for its world)
#: each hold a thread, so the pool is sized for them, not by CPUs: rclpy's default (one thread per
#: CPU of the process's affinity) deadlocks a goal on a one-CPU machine until the skill timeout.
MIN_EXECUTOR_THREADS = 4


def executor_threads() -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(MIN_EXECUTOR_THREADS, cpus)


#: More callback errors than this within one second end spinning (a fault that repeats at once
#: is not one bad callback, and a log flooded forever would hide it).
MAX_ERRORS_PER_SECOND = 20
#: A node process's main thread leaves the executor's wait at least this often (seconds).
#: rclpy ends a wait on SIGINT by triggering a guard condition; twice in a full `make test` that
#: wake was lost, and an unconfigured node (no timer to wake it) never returned to Python to
#: raise its pending KeyboardInterrupt: its stacks showed the main thread in the wait.
SIGNAL_WAKE_S = 0.5


def spin_logging_errors(executor: MultiThreadedExecutor, logger: RcutilsLogger,
                        wake_s: float | None = None) -> None:
    """``executor.spin()``, except that an exception a callback raised is logged with its traceback
    and spinning goes on. With ``wake_s``, each wait ends after that many seconds at the latest, so
    a pending signal is raised and a context shut down elsewhere is seen (for the main thread;
    ``executor.shutdown()`` from another thread ends only the plain ``spin()``).

    rclpy's MultiThreadedExecutor re-raises a finished callback's exception out of ``spin()``: one
    failed callback (a timer racing a lifecycle cleanup, a subscription destroyed between wait and
    take) would end the executor, and with it every service of the node: a node process exits, and
    a ``BackgroundExecutor``'s nodes go unanswered while their process lives on. Work for an entity
    destroyed under it (``InvalidHandle``) is a warning, not a fault. Errors while the context
    shuts down, and errors that repeat faster than ``MAX_ERRORS_PER_SECOND``, are raised.
    """
    recent: deque[float] = deque(maxlen=MAX_ERRORS_PER_SECOND)
    while True:
        try:
            if wake_s is None:
                executor.spin()
                return
            while executor.context.ok():
                executor.spin_once(timeout_sec=wake_s)
            return
        except (KeyboardInterrupt, ExternalShutdownException):
            raise
        except Exception as exc:
            now = time.monotonic()
            recent.append(now)
            if not executor.context.ok() or (len(recent) == recent.maxlen and now - recent[0] < 1.0):
                raise
            if isinstance(exc, InvalidHandle):
                # Work still in flight for an entity the node destroyed on purpose (a lifecycle
                # cleanup destroying the action server while rclpy's goal task sends its last
                # status): nothing is left to do for it. rclpy skips such takes the same way.
                logger.warning(f"skipped work for an entity destroyed under it: {exc}")
            else:
                logger.error("a callback failed; the node keeps spinning:\n" + traceback.format_exc())


def enable_stack_dumps() -> None:
    """SIGUSR1 makes the process print every thread's stack to stderr: what a supervisor asks of a
    node that does not stop on SIGINT, before it kills it (faulthandler writes from the signal
    handler itself, so it works while every Python thread is stuck)."""
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)


def spin_until_shutdown(node: Node) -> None:
    """Spin ``node`` in a MultiThreadedExecutor until Ctrl-C / context shutdown, then clean up.

    Multi-threaded because the planner's action callback blocks while waiting for skill status.
    SIGUSR1 dumps the threads' stacks (:func:`enable_stack_dumps`).
    """
    enable_stack_dumps()
    executor = MultiThreadedExecutor(num_threads=executor_threads())
    executor.add_node(node)
    try:
        spin_logging_errors(executor, node.get_logger(), wake_s=SIGNAL_WAKE_S)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RCLError:
        # SIGINT shuts the context down asynchronously; landing between two wait sets it makes
        # rclpy raise "context is not valid" instead of ExternalShutdownException (seen once in
        # the soak's process stops). Only then is it a clean shutdown.
        if executor.context.ok():
            raise
    finally:
        # rcl drives a lifecycle node to finalized when the context shuts down (SIGINT).
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


class BackgroundExecutor:
    """A MultiThreadedExecutor spinning in a daemon thread."""

    def __init__(self, context: Context | None = None, num_threads: int = 6) -> None:
        self.executor = MultiThreadedExecutor(num_threads=num_threads, context=context)
        self.nodes: list[Node] = []
        logger = rclpy.logging.get_logger("symplan_background_executor")
        self.thread = threading.Thread(target=spin_logging_errors, args=(self.executor, logger), daemon=True)
        self.thread.start()

    def add(self, node: NodeT) -> NodeT:
        self.executor.add_node(node)
        self.nodes.append(node)
        return node

    def close(self) -> None:
        # shutdown -> join -> destroy avoids "terminate called without an active exception".
        self.executor.shutdown()
        self.thread.join()
        for node in reversed(self.nodes):
            node.destroy_node()
        self.nodes = []
