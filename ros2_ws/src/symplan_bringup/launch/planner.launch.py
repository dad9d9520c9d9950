"""Bring up the SymPlan planner: `ros2 launch symplan_bringup planner.launch.py [arg:=value ...]`.

Arguments: params_file (default: this package's config/planner.yaml), namespace, use_sim_time,
autostart (configure + activate the lifecycle node on start-up).
Without the `launch` package (pip-wheel ROS), `symplan-ros --ros-args --params-file F` does the same.
"""

import os

import launch
import lifecycle_msgs.msg
from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, EmitEvent, RegisterEventHandler
from launch.conditions import IfCondition
from launch.events import matches_action
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import LifecycleNode
from launch_ros.event_handlers import OnStateTransition
from launch_ros.events.lifecycle import ChangeState


def generate_launch_description() -> launch.LaunchDescription:
    default_params = os.path.join(get_package_share_directory("symplan_bringup"), "config", "planner.yaml")
    params_file = LaunchConfiguration("params_file")
    namespace = LaunchConfiguration("namespace")
    use_sim_time = LaunchConfiguration("use_sim_time")
    autostart = LaunchConfiguration("autostart")

    planner = LifecycleNode(
        package="symplan_ros",
        executable="symplan_planner",
        name="symplan_planner",
        namespace=namespace,
        output="screen",
        # The launch file drives the lifecycle (autostart argument); the executable must not.
        arguments=["--no-autostart"],
        parameters=[params_file, {"use_sim_time": use_sim_time}],
    )
    configure = EmitEvent(
        event=ChangeState(
            lifecycle_node_matcher=matches_action(planner),
            transition_id=lifecycle_msgs.msg.Transition.TRANSITION_CONFIGURE,
        ),
        condition=IfCondition(autostart),
    )
    # Activate once configure has succeeded (inactive state reached).
    activate = RegisterEventHandler(
        OnStateTransition(
            target_lifecycle_node=planner,
            goal_state="inactive",
            entities=[
                EmitEvent(
                    event=ChangeState(
                        lifecycle_node_matcher=matches_action(planner),
                        transition_id=lifecycle_msgs.msg.Transition.TRANSITION_ACTIVATE,
                    )
                )
            ],
        ),
        condition=IfCondition(autostart),
    )
    return launch.LaunchDescription([
        DeclareLaunchArgument("params_file", default_value=default_params,
                              description="YAML file with the planner's ros__parameters"),
        DeclareLaunchArgument("namespace", default_value="", description="namespace of the planner node"),
        DeclareLaunchArgument("use_sim_time", default_value="false", description="use /clock time"),
        DeclareLaunchArgument("autostart", default_value="true",
                              description="configure and activate the lifecycle node on start-up"),
        planner,
        activate,
        configure,
    ])
