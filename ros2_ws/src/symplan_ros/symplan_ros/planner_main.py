"""Entry point `symplan-ros`: run the planner node where the `launch` package is absent.

    symplan-ros [--no-autostart] --ros-args --params-file config/planner.yaml

Does what planner.launch.py does: starts `symplan_planner`, then (unless --no-autostart)
drives it through configure and activate, and spins a MultiThreadedExecutor.
"""

from __future__ import annotations

import sys

import rclpy
from rclpy.lifecycle import TransitionCallbackReturn

from symplan_ros.planner_node import PlannerNode
from symplan_ros.plumbing import spin_until_shutdown


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv if argv is None else argv)
    autostart = "--no-autostart" not in args
    args = [a for a in args if a != "--no-autostart"]
    rclpy.init(args=args)
    node = PlannerNode()
    if autostart:
        if node.trigger_configure() != TransitionCallbackReturn.SUCCESS:
            node.get_logger().error("configure failed; staying unconfigured (fix parameters and retry)")
        elif node.trigger_activate() != TransitionCallbackReturn.SUCCESS:
            node.get_logger().error("activate failed")
        else:
            node.get_logger().info("active: send a goal to ~/plan")
    spin_until_shutdown(node)
    return 0


if __name__ == "__main__":
    sys.exit(main())
