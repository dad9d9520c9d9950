"""ament_python package: `ros2 run symplan_sim symplan_skill_sim`, `ros2 run symplan_sim symplan_camera_sim`."""

from setuptools import find_packages, setup

package_name = "symplan_sim"

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
    description="SymPlan simulators: a skill controller and an RGB-D camera streaming a rendered BEHAVIOR scene",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "symplan_skill_sim = symplan_sim.skill_sim:main",
            "symplan-skill-sim = symplan_sim.skill_sim:main",
            "symplan_camera_sim = symplan_sim.camera_sim:main",
            "symplan-camera-sim = symplan_sim.camera_sim:main",
        ],
    },
)
