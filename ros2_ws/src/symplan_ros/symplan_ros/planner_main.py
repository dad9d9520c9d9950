"""Entry point `symplan-ros`: run the planner node where the `launch` package is absent.

    symplan-ros [--no-autostart] --ros-args --params-file config/planner.yaml

Does what planner.launch.py does: starts `symplan_planner`, then (unless --no-autostart)
drives it through configure and activate, and spins a MultiThreadedExecutor.
"""

from __future__ import annotations

import sys

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn

from symplan_ros.planner_node import PlannerNode


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv if argv is None else argv)
    autostart = "--no-autostart" not in args
    args = [a for a in args if a != "--no-autostart"]
    rclpy.init(args=args)
    node = PlannerNode()
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    try:
        if autostart:
            if node.trigger_configure() != TransitionCallbackReturn.SUCCESS:
                node.get_logger().error("configure failed; staying unconfigured (fix parameters and retry)")
            elif node.trigger_activate() != TransitionCallbackReturn.SUCCESS:
                node.get_logger().error("activate failed")
            else:
                node.get_logger().info("active: send a goal to ~/plan")
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # rcl drives the lifecycle node to finalized when the context shuts down (SIGINT).
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
