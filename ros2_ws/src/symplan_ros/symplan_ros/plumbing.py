"""Shared ROS plumbing of the SymPlan nodes: QoS profiles and executors (how nodes are spun and torn down)."""

from __future__ import annotations

import os
import threading
from typing import TypeVar

import rclpy
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

RCLError = _rclpy.RCLError
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


def spin_until_shutdown(node: Node) -> None:
    """Spin ``node`` in a MultiThreadedExecutor until Ctrl-C / context shutdown, then clean up.

    Multi-threaded because the planner's action callback blocks while waiting for skill status.
    """
    executor = MultiThreadedExecutor(num_threads=executor_threads())
    executor.add_node(node)
    try:
        executor.spin()
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
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
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
