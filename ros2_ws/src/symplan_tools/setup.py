"""ament_python package: the planner client, the bag recorder (`ros2 run symplan_tools symplan-record`)
and the soak's audit and process supervision."""

from setuptools import find_packages, setup

package_name = "symplan_tools"

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
    description="SymPlan tools: planner client, bag recorder, subgoal audit and process supervision",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "symplan-record = symplan_tools.recorder:main",
        ],
    },
)
