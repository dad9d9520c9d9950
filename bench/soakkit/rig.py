"""The soak rig: the planner node, the skill simulator, optionally the camera simulator and a
llama.cpp server, each in its own process; a client node, the DDS audit and the samplers here.

Everything is real: the planner is ``python -m symplan_ros.planner_main --ros-args --params-file``
(what ``symplan-ros`` runs), goals and service calls go over DDS in an isolated localhost domain,
and the process figures are read from ``/proc/PID``.
"""

from __future__ import annotations

import json
import os
import random
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROS_SRC = ROOT / "ros2_ws" / "src"
for _p in (*(str(ROS_SRC / name) for name in ("symplan_ros", "symplan_sim", "symplan_tools")), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

CONFIG = ROS_SRC / "symplan_bringup" / "config" / "planner.yaml"
LARGE_FRAMES = ROS_SRC / "symplan_bringup" / "config" / "fastdds_large_frames.xml"  # Fast DDS profile for raw camera frames
PLANNER = "symplan_planner"
LLM_START_S = 180.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def params_yaml(path: Path, values: dict[str, Any]) -> Path:
    """A --params-file with dotted parameter names expanded into nested keys."""
    import yaml

    tree: dict[str, Any] = {}
    for name, value in values.items():
        *parents, leaf = name.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    path.write_text(yaml.safe_dump({"/**": {"ros__parameters": tree}}))
    return path


def pin_to_cpus(command: list[str], cpus: set[int]) -> list[str]:
    """``command`` run with its CPU affinity set to ``cpus`` (a one-CPU robot computer)."""
    cpu_set = "{" + ", ".join(map(str, sorted(cpus))) + "}"
    launcher = f"import os, sys; os.sched_setaffinity(0, {cpu_set}); os.execv(sys.argv[1], sys.argv[1:])"
    return [sys.executable, "-c", launcher, *command]


@dataclass
class RigConfig:
    params: dict[str, Any] = field(default_factory=dict)  # planner parameters (dotted names)
    sim: dict[str, Any] | None = field(default_factory=dict)  # skill simulator parameters; None: none
    camera_task: str = ""  # stream this task from the camera simulator ("" : no camera)
    llm: bool = False  # serve SmolLM2 with llama.cpp and point planner.backend at it
    llm_spec: str = "max_retries=0&timeout=120&connect_timeout=5"  # openai spec options
    cpus: set[int] | None = None  # pin the planner to these CPUs
    fastdds_profile: str = ""  # FASTDDS_DEFAULT_PROFILES_FILE of the ROS children ("" : Fast DDS defaults)


@dataclass
class GoalRecord:
    status: int
    success: bool
    message: str
    replans: int
    subgoals: int
    latency_s: float
    first_subgoal_ms: float | None
    violations: list[str]
    errors: list[str]
    stages: list[str]
    action_at_s: float | None = None  # when the at_stage action ran (from the goal's start)
    subgoals_after_action: int = 0  # subgoals that arrived after it
    plan_text: str = ""  # the result's subgoals, one call per line

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Rig:
    def __init__(self, config: RigConfig, out: Path, domain_id: int | None = None) -> None:
        self.config = config
        self.out = out
        self.domain_id = domain_id if domain_id is not None else random.randint(10, 99)
        self.children: dict[str, Any] = {}
        self.llm_url = ""
        self._ctx: Any = None
        self.spinner: Any = None
        self._sim_params: Any = None

    # ---- processes -------------------------------------------------------------------------
    def start(self, wait_active: bool = True) -> Rig:
        from symplan_ros.workspace import ensure_workspace

        if not ensure_workspace():
            raise RuntimeError("ros2_ws/install missing: run scripts/setup_ros.sh")
        self.out.mkdir(parents=True, exist_ok=True)
        params = dict(self.config.params)
        try:
            if self.config.llm:
                self.start_llm()
                params["planner.backend"] = f"openai:{self.llm_url}?{self.config.llm_spec}"
            if self.config.camera_task:
                params.update(self.start_camera())
            if self.config.sim is not None:
                self.start_sim()
            self._start_planner(params)
            self._start_client()
            if wait_active:
                self.wait_active()
        except BaseException:
            self.close()  # leave no child process behind
            raise
        return self

    def _node(self, name: str, module: str, ros_args: list[str], args: list[str] | None = None) -> Any:
        from symplan_tools.supervise import Child

        env = {"FASTDDS_DEFAULT_PROFILES_FILE": self.config.fastdds_profile} if self.config.fastdds_profile else None
        child = Child.ros_node(name, module, ros_args, self.domain_id, self.out / "logs", args, env)
        self.children[name] = child
        return child

    def _start_planner(self, params: dict[str, Any]) -> None:
        overrides = params_yaml(self.out / "planner_params.yaml", params)
        child = self._node("planner", "symplan_ros.planner_main",
                           ["--params-file", str(CONFIG), "--params-file", str(overrides)])
        if self.config.cpus:
            child.command = pin_to_cpus(child.command, self.config.cpus)
        child.start()

    def start_sim(self) -> Any:
        args = [a for name, value in (self.config.sim or {}).items() for a in ("-p", f"{name}:={value}")]
        return self._node("sim", "symplan_sim.skill_sim", args).start()

    def start_camera(self) -> dict[str, Any]:
        """Start the camera simulator; the planner parameters that perceive its stream."""
        map_file = self.out / "fiducials.yaml"
        self._node("camera", "symplan_sim.camera_sim",
                   ["-p", f"task:={self.config.camera_task}", "-p", f"map_file:={map_file}", "-p", "rate_hz:=5.0",
                    "-p", "frames:=2"]).start()
        deadline = time.monotonic() + 120
        while not map_file.exists():
            if time.monotonic() > deadline or not self.children["camera"].alive():
                raise RuntimeError("camera simulator wrote no map:\n" + self.children["camera"].log_tail())
            time.sleep(0.1)
        return {"scene.source": "camera", "perception.detector": f"fiducial:{map_file}",
                "camera.rgb_topic": "/camera/color/image_raw", "camera.depth_topic": "/camera/depth/image_raw",
                "camera.info_topic": "/camera/color/camera_info",
                # A static camera (no world_topic): execution monitoring would contradict every move.
                "execution.monitor": "off"}

    def start_llm(self, port: int | None = None) -> Any:
        """llama-cpp-python's OpenAI-compatible server serving SmolLM2 (the same port on a restart)."""
        from symplan_tools.supervise import Child

        from symplan_core.llm.models import install_model

        if port is None:
            port = int(self.llm_url.rsplit(":", 1)[1].split("/")[0]) if self.llm_url else free_port()
        model = install_model("smollm2")
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
                   "--port", str(port), "--n_ctx", "2048"]
        child = self.children.get("llm") or Child("llm", command, dict(os.environ), self.out / "logs")
        self.children["llm"] = child.start()
        self.llm_url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + LLM_START_S
        while time.monotonic() < deadline:
            if not child.alive():
                raise RuntimeError("llama.cpp server exited:\n" + child.log_tail())
            try:
                with urllib.request.urlopen(f"{self.llm_url}/models", timeout=2) as response:
                    if response.status == 200:
                        return child
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        raise RuntimeError("llama.cpp server not ready:\n" + child.log_tail())

    # ---- client side ------------------------------------------------------------------------
    def _start_client(self) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.node import Node
        from symplan_tools.audit import DdsAudit
        from symplan_tools.client import BackgroundExecutor, PlannerClient

        self._ctx = Context()
        rclpy.init(context=self._ctx, domain_id=self.domain_id)
        self.spinner = BackgroundExecutor(self._ctx, num_threads=8)
        self.node = self.spinner.add(Node("soak_client", context=self._ctx))
        self._arrivals: list[float] = []
        self.client = PlannerClient(self.node, f"/{PLANNER}", on_subgoal=lambda _m: self._arrivals.append(
            time.perf_counter()))
        self.audit = DdsAudit(self.node, f"/{PLANNER}")

    def wait_active(self, timeout: float = 180.0) -> None:
        from symplan_tools.waits import wait_until

        def active() -> bool:
            if not self.children["planner"].alive():
                raise RuntimeError("planner exited:\n" + self.children["planner"].log_tail())
            try:
                return self.client.state(timeout=5) == "active"
            except TimeoutError:
                return False

        wait_until(active, timeout=timeout, poll=0.2)

    def close(self) -> dict[str, int | None]:
        """Stop everything (SIGINT first); the exit codes."""
        codes: dict[str, int | None] = {}
        if self.spinner is not None:
            self.spinner.close()
            self._ctx.try_shutdown()
            self.spinner = None
        for name in ("planner", "sim", "camera", "llm"):
            if name in self.children:
                codes[name] = self.children[name].stop()
        return codes

    # ---- goals ------------------------------------------------------------------------------
    def goal(self, timeout: float = 600.0,
             at_stage: tuple[str, float, Callable[[Any], Any]] | None = None, **fields: Any) -> GoalRecord:
        """Run one Plan goal to its end, then audit what went over DDS for it. ``at_stage``:
        (stage, delay_s, action): ``action(goal_handle)`` runs in its own thread ``delay_s`` after
        the first feedback of that stage (a cancel, a kill, a lifecycle transition)."""
        from symplan_interfaces.action import Plan
        from symplan_tools.waits import wait_future

        goal = Plan.Goal(**fields)
        stages: list[str] = []
        self._arrivals.clear()
        self.client.subgoals.clear()
        accepted = threading.Event()
        handle_box: list[Any] = []
        fired: list[float] = []
        actions: list[threading.Timer] = []

        def run_action() -> None:
            accepted.wait(60)
            fired.append(time.perf_counter())
            assert at_stage is not None
            at_stage[2](handle_box[0])

        def on_feedback(fb: Any) -> None:
            if not stages or stages[-1] != fb.stage:
                stages.append(fb.stage)
                if at_stage and fb.stage == at_stage[0] and stages.count(fb.stage) == 1:
                    timer = threading.Timer(at_stage[1], run_action)
                    actions.append(timer)
                    timer.start()

        started = time.perf_counter()
        handle = self.client.send(goal, on_feedback, timeout=60)
        if handle is None:
            raise RuntimeError("Plan goal rejected (planner busy or not active)")
        handle_box.append(handle)
        accepted.set()
        response = wait_future(handle.get_result_async(), timeout)
        latency = time.perf_counter() - started
        # The action may outlive the goal (a deactivate whose answer comes after the goal's
        # result, a simulator still restarting): what follows must start from its end state.
        for action in actions:
            action.join(timeout)
        result = response.result
        violations = self.audit.settle(result, executed=goal.execute)
        first = (self._arrivals[0] - started) * 1000 if self._arrivals else None
        action_at = fired[0] if fired else None
        return GoalRecord(response.status, bool(result.success), result.message, int(result.replans),
                          len(result.subgoals), latency, first, violations, list(result.errors)[:5], stages,
                          None if action_at is None else round(action_at - started, 3),
                          sum(t > action_at for t in self._arrivals) if action_at is not None else 0,
                          "\n".join(s.text for s in result.subgoals))

    # ---- samples ----------------------------------------------------------------------------
    def planner_values(self) -> dict[str, str]:
        """The newest ``planner`` diagnostic's values (the node's own counters and state)."""
        for arr in reversed(list(self.client.diagnostics)):
            for status in arr.status:
                if status.name == f"{PLANNER}: planner":
                    return {kv.key: kv.value for kv in status.values}
        return {}

    def diagnostic(self, item: str) -> tuple[int, str] | None:
        """(level, message) of the newest ``PLANNER: item`` diagnostic status."""
        for arr in reversed(list(self.client.diagnostics)):
            for status in arr.status:
                if status.name == f"{PLANNER}: {item}":
                    return status.level[0], status.message
        return None

    def sample(self) -> dict[str, Any]:
        from symplan_tools.supervise import graph_counts

        values = self.planner_values()
        counters = {k: int(v) for k, v in values.items()
                    if k in ("goals", "rejected_requests", "stray_statuses", "verify_calls")}
        return {**self.children["planner"].sample().to_json(), **graph_counts(self.node, PLANNER), **counters}

    def set_sim(self, **values: Any) -> None:
        """Change skill-simulator parameters at run time (parameter services over DDS)."""
        from rclpy.parameter import Parameter
        from rclpy.parameter_client import AsyncParameterClient
        from symplan_tools.waits import wait_future

        if self._sim_params is None:  # one client: rclpy's parameter client cannot be destroyed
            self._sim_params = AsyncParameterClient(self.node, "symplan_skill_sim")
        if not self._sim_params.wait_for_services(timeout_sec=30):
            raise TimeoutError("skill simulator parameter services not found")
        wait_future(self._sim_params.set_parameters([Parameter(k, value=v) for k, v in values.items()]), 30)

    def write_json(self, name: str, data: Any) -> Path:
        path = self.out / name
        path.write_text(json.dumps(data, indent=2, default=str) + "\n")
        return path
