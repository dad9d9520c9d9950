"""ament_python package: `ros2 run symplan_ros symplan_planner`, `ros2 launch symplan_ros planner.launch.py`."""

from glob import glob

from setuptools import find_packages, setup

package_name = "symplan_ros"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        ("share/" + package_name + "/config", glob("config/*.yaml") + glob("config/*.xml")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="SymPlan maintainers",
    maintainer_email="symplan@example.org",
    description="SymPlan ROS 2 runtime (verified planning, lifecycle planner node, skill simulator)",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "symplan_planner = symplan_ros.planner_main:main",
            "symplan-ros = symplan_ros.planner_main:main",
            "symplan_skill_sim = symplan_ros.skill_sim:main",
            "symplan-skill-sim = symplan_ros.skill_sim:main",
            "symplan_camera_sim = symplan_ros.camera_sim:main",
            "symplan-camera-sim = symplan_ros.camera_sim:main",
            "symplan-record = symplan_ros.recorder:main",
        ],
    },
)
