#!/usr/bin/env bash
# Source ROS and the SymPlan workspace, then run the command (default: the planner launch file).
set -e
# shellcheck disable=SC1091
source /opt/ros/kilted/setup.bash
# shellcheck disable=SC1091
source /opt/symplan/ros2_ws/install/setup.bash
exec "$@"
