"""The house's layout as code reads it: every room of ``symplan_core`` on its floor
(docs/architecture.md), no import running up a floor or sideways between rooms, no import circle
between modules, the evaluation and simulation apparatus out of the production rooms, and no ROS
in the core. Imports are read from the source (``ast``), those inside functions and under
``TYPE_CHECKING`` included: a deferred import is still an arrow."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "symplan_core"
ROS_SRC = ROOT / "ros2_ws" / "src"

#: Room -> floor, as docs/architecture.md's table gives them. A room may import only rooms on a
#: lower floor. A new room gets its floor here (and in the table) before it can land.
FLOORS = {
    "errors": 1,
    "fetch": 2, "bddl": 2,
    "tasks": 3,
    "engine": 4,
    "llm": 5, "prompts": 5, "discovery": 5,
    "planners": 6,
    "perception": 7, "data": 7,
    "perception.rigs": 8, "rosio": 8,
    "sim": 9, "runtime": 9,
    "eval": 10,
    "training": 11, "eai": 11,
    "cli": 12,
}
#: Apparatus: it measures or stands in for the robot and is imported only by the CLI, by itself,
#: by the ROS simulators, the benchmarks and the tests.
APPARATUS = ("perception.rigs", "sim")
APPARATUS_USERS = {"cli", "sim", "perception.rigs"}
ROS_NAMES = ("rclpy", "rosidl", "launch", "launch_ros", "symplan_ros", "symplan_sim", "symplan_tools",
             "symplan_interfaces", "symplan_bringup", "std_msgs", "sensor_msgs", "visualization_msgs")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "symplan_core" or len(parts) < 2:
        return module
    if parts[1] == "perception" and len(parts) > 2 and parts[2] == "rigs":
        return "perception.rigs"
    return parts[1]


def _core_module(name: str) -> str | None:
    """The symplan_core module (file or package) an imported name lives in, else None."""
    parts = name.split(".")
    while parts and parts[0] == "symplan_core":
        path = ROOT.joinpath(*parts)
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return ".".join(parts)
        parts = parts[:-1]
    return None


def _imports(path: Path) -> list[str]:
    """Every absolute name ``path`` imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names


@cache
def _core_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in sorted(CORE.rglob("*.py")):
        source = _module_name(path)
        graph[source]
        for name in _imports(path):
            target = _core_module(name)
            if target is not None and target != source:
                graph[source].add(target)
    return graph


def test_every_room_of_the_core_has_a_floor() -> None:
    rooms = {_room(module) for module in _core_graph()} - {"symplan_core"}
    assert rooms <= set(FLOORS), f"rooms without a floor in FLOORS and docs/architecture.md: {rooms - set(FLOORS)}"


def test_no_room_imports_a_room_on_its_own_or_a_higher_floor() -> None:
    wrong = sorted({f"{source} -> {target} ({_room(source)} floor {FLOORS[_room(source)]}, "
                    f"{_room(target)} floor {FLOORS[_room(target)]})"
                    for source, targets in _core_graph().items() for target in targets
                    if _room(source) in FLOORS and _room(target) in FLOORS and _room(source) != _room(target)
                    and FLOORS[_room(target)] >= FLOORS[_room(source)]})
    assert not wrong, "imports that do not run down a floor:\n" + "\n".join(wrong)


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return circles


def test_no_import_circle_between_modules() -> None:
    # A package's __init__ importing its own modules is how a package exports them, and a module
    # of the package importing the package's name reaches those modules: not a circle of logic.
    edges = {source: {t for t in targets if not source.startswith(t + ".") and not t.startswith(source + ".")}
             for source, targets in _core_graph().items()}
    circles = _circles(edges)
    assert not circles, "modules that import each other (directly or round a circle): " + "; ".join(
        " <-> ".join(circle) for circle in circles)


def test_production_rooms_never_import_the_evaluation_or_simulation_apparatus() -> None:
    wrong = sorted(f"{source} -> {target}" for source, targets in _core_graph().items() for target in targets
                   if _room(target) in APPARATUS and _room(source) not in APPARATUS_USERS)
    node_package = ROS_SRC / "symplan_ros" / "symplan_ros"
    for path in sorted(node_package.rglob("*.py")):
        for name in _imports(path):
            target = _core_module(name)
            if target is not None and _room(target) in APPARATUS + ("eval",):
                wrong.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not wrong, "production code importing apparatus (perception.rigs, sim) or eval:\n" + "\n".join(wrong)


def test_the_core_imports_no_ros_package() -> None:
    wrong = sorted(f"{path.relative_to(ROOT)} imports {name}" for path in CORE.rglob("*.py")
                   for name in _imports(path) if name.split(".")[0] in ROS_NAMES)
    assert not wrong, "\n".join(wrong)


def test_torch_and_transformers_load_only_with_the_module_that_needs_them() -> None:
    """Only the transformers backend and the TRL trainer import torch/transformers at module level,
    and nothing imports those two modules at module level: a CLI or node that never builds the
    backend or trains never loads torch."""
    heavy_modules = {"symplan_core.llm.transformers_backend", "symplan_core.training.grpo"}
    wrong = []
    for path in sorted(CORE.rglob("*.py")):
        module = _module_name(path)
        for node in ast.parse(path.read_text()).body:  # module level only (TYPE_CHECKING blocks are ifs)
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
                     if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.split(".")[0] in ("torch", "transformers") and module not in heavy_modules:
                    wrong.append(f"{module} imports {name}")
                if name in heavy_modules:
                    wrong.append(f"{module} imports {name} (a torch module) at module level")
    assert not wrong, "\n".join(wrong)
