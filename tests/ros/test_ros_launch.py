"""planner.launch.py structure (checked with `ast` where the `launch` package is absent).

The bring-up package must install the launch file and its config into share/, and the launch file
must start the same lifecycle node the `symplan-ros` entry point (package symplan_ros) starts.
"""

from __future__ import annotations

import ast
import importlib.util
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BRINGUP = ROOT / "ros2_ws" / "src" / "symplan_bringup"
NODE_PKG = ROOT / "ros2_ws" / "src" / "symplan_ros"
LAUNCH = ROOT / "launch" / "planner.launch.py"


def _installed(name: str) -> bool:
    """A real package, not the namespace package the top-level launch/ folder makes on sys.path."""
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin is not None


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == name]


def _kw(call: ast.Call, key: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == key), None)


def test_top_level_launch_file_is_the_installed_package_launch_file() -> None:
    assert LAUNCH.resolve() == (BRINGUP / "launch" / "planner.launch.py").resolve()


def test_launch_declares_params_file_namespace_use_sim_time_autostart() -> None:
    tree = ast.parse(LAUNCH.read_text())
    declared = {c.args[0].value for c in _calls(tree, "DeclareLaunchArgument")}
    assert declared == {"params_file", "namespace", "use_sim_time", "autostart"}
    assert any(isinstance(n, ast.FunctionDef) and n.name == "generate_launch_description"
               for n in tree.body)


def test_launch_starts_the_lifecycle_planner_and_drives_configure_then_activate() -> None:
    tree = ast.parse(LAUNCH.read_text())
    (node,) = _calls(tree, "LifecycleNode")
    assert _kw(node, "package").value == "symplan_ros"
    executable = _kw(node, "executable").value
    setup = (NODE_PKG / "setup.py").read_text()
    assert f'"{executable} = symplan_ros.planner_main:main"' in setup
    # The executable autostarts unless told not to; under launch the events drive the lifecycle.
    assert ast.literal_eval(_kw(node, "arguments")) == ["--no-autostart"]
    transitions = [ast.unparse(_kw(c, "transition_id")) for c in _calls(tree, "ChangeState")]
    assert any(t.endswith("TRANSITION_CONFIGURE") for t in transitions)
    assert any(t.endswith("TRANSITION_ACTIVATE") for t in transitions)


def test_package_installs_launch_and_config_into_share() -> None:
    setup = ast.parse((BRINGUP / "setup.py").read_text())
    text = ast.unparse(setup)
    assert "'/launch', glob('launch/*.launch.py')" in text
    assert "'/config', glob('config/*.yaml')" in text
    assert (BRINGUP / "config" / "planner.yaml").is_file()
    assert "<build_type>ament_python</build_type>" in (BRINGUP / "package.xml").read_text()
    tree = ast.parse(LAUNCH.read_text())
    assert any(isinstance(c.args[0], ast.Constant) and c.args[0].value == "symplan_bringup"
               for c in _calls(tree, "get_package_share_directory"))


def test_the_top_level_launch_folder_is_no_python_package() -> None:
    # ROS's `launch` (a regular package) outranks a namespace package of the same name, so the
    # folder never shadows it; an __init__.py would make it a regular package that could.
    assert not (ROOT / "launch" / "__init__.py").exists()


@pytest.mark.skipif(not _installed("launch") or not _installed("launch_ros"),
                    reason="the `launch` package is absent: it is not on PyPI, only in apt ROS installs; structure checked above")
def test_launch_description_builds_with_the_launch_package() -> None:  # pragma: no cover - ROS installs
    module = runpy.run_path(str(LAUNCH))
    description = module["generate_launch_description"]()
    names = {a.name for a in description.get_launch_arguments()}
    assert {"params_file", "namespace", "use_sim_time", "autostart"} <= names
