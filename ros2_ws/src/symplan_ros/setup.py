"""ament_python package: `ros2 run symplan_ros symplan_planner` (launched by `ros2 launch symplan_bringup planner.launch.py`)."""

from setuptools import find_packages, setup

package_name = "symplan_ros"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="SymPlan maintainers",
    maintainer_email="symplan@example.org",
    description="SymPlan planner node (verified planning as a lifecycle node around symplan_core.runtime)",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "symplan_planner = symplan_ros.planner_main:main",
            "symplan-ros = symplan_ros.planner_main:main",
        ],
    },
)
