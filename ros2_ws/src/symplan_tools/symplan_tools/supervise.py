"""Run SymPlan's nodes (or any server) as child processes and sample what they hold.

Used by the soak suite (`tests/soak`, `bench/bench_soak.py`) and handy for tools: a planner in its
own process is what a robot runs, and only there are its memory, threads and file descriptors its
own. :class:`Child` starts, signals, kills and restarts a process; :meth:`Child.sample` reads
``/proc/PID`` through psutil; :func:`graph_counts` counts a node's DDS entities as the ROS graph
shows them. No rclpy at import time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from symplan_ros.workspace import install_dir

PACKAGE_SRC = Path(__file__).resolve().parents[1]  # the directory holding this symplan_tools package
#: The Python packages of the ROS workspace (each in ros2_ws/src/<name>/<name> in the source tree).
#: How long a node gets to print its stacks (SIGUSR1) before it is killed.
STACK_DUMP_WAIT_S = 1.0
WORKSPACE_PACKAGES = ("symplan_ros", "symplan_sim", "symplan_tools")


def package_dirs() -> list[Path]:
    """Where the workspace's Python packages are: their source directories beside this one, or
    (installed) the one site-packages directory holding them all."""
    src = PACKAGE_SRC.parent
    found = [src / name for name in WORKSPACE_PACKAGES if (src / name / name).is_dir()]
    return found or [PACKAGE_SRC]


@dataclass(frozen=True)
class ProcessSample:
    rss_mb: float
    threads: int
    fds: int
    cpu_s: float  # user + system CPU time so far

    def to_json(self) -> dict[str, float]:
        return asdict(self)


def ros_child_env(domain_id: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a ROS child process: this package and its built workspace first on the
    search paths (what ``scripts/ros_env.sh`` does), an isolated localhost DDS domain."""
    install = install_dir()
    site = install / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    env = dict(os.environ)
    root = PACKAGE_SRC.parents[2]  # ros2_ws/src/symplan_tools -> the repository (symplan_core)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*map(str, package_dirs()), str(site), str(root),
                                                     env.get("PYTHONPATH", "")) if p)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(install / "lib"), env.get("LD_LIBRARY_PATH", "")) if p)
    env["AMENT_PREFIX_PATH"] = os.pathsep.join(
        p for p in (str(install), sys.prefix, env.get("AMENT_PREFIX_PATH", "")) if p)
    env["ROS_DOMAIN_ID"] = str(domain_id)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


class Child:
    """One child process with its output in a log file; restartable with the same command."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @classmethod
    def ros_node(cls, name: str, module: str, ros_args: list[str], domain_id: int, log_dir: Path,
                 args: list[str] | None = None, env: dict[str, str] | None = None) -> Child:
        """``python -m MODULE [ARGS] --ros-args ROS_ARGS`` (e.g. symplan_ros.planner_main)."""
        command = [sys.executable, "-m", module, *(args or []), "--ros-args", *ros_args]
        return cls(name, command, ros_child_env(domain_id, env), log_dir)

    def start(self) -> Child:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            log.write(f"--- start {self.starts + 1}: {' '.join(self.command)}\n".encode())
            log.flush()
            self.process = subprocess.Popen(self.command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        self.starts += 1
        return self

    @property
    def pid(self) -> int:
        if self.process is None:
            raise RuntimeError(f"{self.name} was never started")
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def returncode(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def kill(self) -> None:
        """SIGKILL: the process dies mid-whatever, as on a crash or an OOM kill."""
        if self.alive():
            assert self.process is not None
            self.process.kill()
            self.process.wait(timeout=30)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGINT (a clean ROS shutdown), then SIGKILL after ``timeout``; the exit code. Before the
        kill, SIGUSR1 asks a SymPlan node for its threads' stacks, which land in its log."""
        if self.process is None:
            return None
        if self.alive():
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.send_signal(signal.SIGUSR1)
                time.sleep(STACK_DUMP_WAIT_S)
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.returncode

    def sample(self) -> ProcessSample:
        """Resident memory, threads, open file descriptors and CPU time of the process (psutil)."""
        import psutil

        proc = psutil.Process(self.pid)
        with proc.oneshot():
            cpu = proc.cpu_times()
            return ProcessSample(round(proc.memory_info().rss / 2**20, 2), proc.num_threads(), proc.num_fds(),
                                 round(cpu.user + cpu.system, 2))

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def wait_for_log(self, text: str, timeout: float) -> bool:
        """True once ``text`` appears in this run's log (False on timeout or exit)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_tail(20000).rsplit("--- start ", 1)[-1]:
                return True
            if not self.alive():
                return False
            time.sleep(0.1)
        return False


def graph_counts(node: Any, target: str, namespace: str = "/") -> dict[str, int]:
    """DDS entities of node ``target`` as the ROS graph shows them to ``node``: its publishers,
    subscriptions, services and clients (action and lifecycle entities included), plus the graph's
    node and topic totals."""
    def safe(call: Any) -> int:
        try:
            return len(call(target, namespace))
        except Exception:  # noqa: BLE001 - the node is gone or not discovered yet: count nothing
            return 0

    return {"publishers": safe(node.get_publisher_names_and_types_by_node),
            "subscriptions": safe(node.get_subscriber_names_and_types_by_node),
            "services": safe(node.get_service_names_and_types_by_node),
            "clients": safe(node.get_client_names_and_types_by_node),
            "graph_nodes": len(node.get_node_names_and_namespaces()),
            "graph_topics": len(node.get_topic_names_and_types())}
