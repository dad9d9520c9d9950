"""ament_python package without Python code: `ros2 launch symplan_bringup planner.launch.py` and the
planner's parameters (config/planner.yaml) and Fast DDS profile."""

from glob import glob

from setuptools import setup

package_name = "symplan_bringup"

setup(
    name=package_name,
    version="0.1.0",
    packages=[],
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
    description="SymPlan bring-up: the planner's launch file and parameters",
    license="Apache-2.0",
)
