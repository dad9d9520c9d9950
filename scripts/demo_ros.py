#!/usr/bin/env python
"""ROS 2 demo: planner node + skill simulator over real DDS, one Plan goal, an injected failure.

    scripts/setup_ros.sh && .venv/bin/python scripts/demo_ros.py [--task T] [--fail-at N]
    .venv/bin/python scripts/demo_ros.py --backend openai:http://127.0.0.1:8742/v1 --decoding guided \
        --think skip --fallback none      # a served Qwen2.5 model writes every executed plan
    .venv/bin/python scripts/demo_ros.py --camera [--task b1k/T] [--instruction "..."]

Prints the validated subgoals as the simulator executes them, the replan after the injected
failure, and the final result. Backend: the configured LLM (--backend, or $SYMPLAN_PLANNER, or
an OpenAI-compatible server at $OPENAI_BASE_URL) when it answers, else the `reference` planner.
With --camera the scene comes from the camera: a camera simulator streams rendered RGB-D frames
of a real B-1K scene, the planner perceives it (scene.source: camera) from the instruction, and
prints the perception verdicts before planning.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [*(str(ROOT / "ros2_ws" / "src" / name) for name in ("symplan_ros", "symplan_sim", "symplan_tools")), str(ROOT)]


_print_lock = threading.Lock()


def say(line: str) -> None:
    with _print_lock:  # callbacks run on several executor threads
        print(line, flush=True)


def choose_backend(explicit: str | None) -> tuple[str, str]:
    """(spec, why): the configured LLM if reachable, else the reference planner."""
    if explicit:
        return explicit, "given with --backend"
    spec = os.environ.get("SYMPLAN_PLANNER", "")
    base = os.environ.get("OPENAI_BASE_URL", "")
    if not spec and base:
        spec = f"openai:{base}"
    if spec.startswith("openai:"):
        url = spec.split(":", 1)[1].split("?", 1)[0].rstrip("/") + "/models"
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:  # the configured local URL
                if resp.status == 200:
                    return spec, f"LLM endpoint {url} is reachable"
        except OSError as exc:
            return "reference", f"LLM endpoint {url} unreachable ({exc.__class__.__name__}); using reference"
    elif spec:
        return spec, "from $SYMPLAN_PLANNER"
    return "reference", "no LLM configured ($SYMPLAN_PLANNER / $OPENAI_BASE_URL); using reference"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=None,
                    help="BEHAVIOR activity (or .bddl path); default bringing_in_wood, b1k/picking_up_trash with --camera")
    ap.add_argument("--benchmark", default="b100")
    ap.add_argument("--camera", action="store_true", help="perceive the scene from a simulated RGB-D camera")
    ap.add_argument("--instruction", default=None, help="instruction (default: the activity name in words)")
    ap.add_argument("--fail-at", type=int, default=2, help="subgoal (0-based count) the simulator fails; -1: none")
    ap.add_argument("--backend", default=None, help="planner backend spec (default: see above)")
    ap.add_argument("--robot", default="single")
    ap.add_argument("--decoding", choices=("free", "grammar", "guided"), default=None,
                    help="planner.decoding for an LLM backend (default: the node's, free)")
    ap.add_argument("--think", default=None, help="planner.think: keep | skip | N characters")
    ap.add_argument("--steps", default=None, help="planner.steps: keep | skip | N characters")
    ap.add_argument("--fallback", choices=("none", "reference"), default=None,
                    help="planner.fallback; none proves every executed plan came from the LLM")
    ap.add_argument("--max-tokens", type=int, default=None, help="planner.max_tokens")
    args = ap.parse_args()
    args.task = args.task or ("b1k/picking_up_trash" if args.camera else "bringing_in_wood")
    args.instruction = args.instruction or args.task.rsplit("/", 1)[-1].replace("_", " ")

    from symplan_ros.workspace import ensure_workspace

    if not ensure_workspace():
        print("ros2_ws/install missing: run scripts/setup_ros.sh first", file=sys.stderr)
        return 2
    import rclpy
    from rclpy.context import Context
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode
    from symplan_ros.plumbing import BackgroundExecutor
    from symplan_sim.skill_sim import SkillSimNode
    from symplan_tools.client import PlannerClient

    spec, why = choose_backend(args.backend)
    print(f"backend: {spec}  ({why})")
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=int(os.environ.get("ROS_DOMAIN_ID", random.randint(10, 99))))
    spinner = BackgroundExecutor(ctx)
    try:
        params = [Parameter("planner.backend", value=spec), Parameter("robot", value=args.robot)]
        params += [Parameter(f"planner.{name}", value=value) for name, value in (
            ("decoding", args.decoding), ("think", args.think), ("steps", args.steps), ("fallback", args.fallback),
            ("max_tokens", args.max_tokens)) if value is not None]
        if args.camera:
            params += _start_camera(spinner, ctx, args.task)
        planner = spinner.add(PlannerNode(context=ctx, parameter_overrides=params))
        skill_params = [Parameter("fail_at", value=args.fail_at), Parameter("robot", value=args.robot)]
        if args.camera:  # the camera shows what the skill simulator did; it reports once the camera does
            skill_params.append(Parameter("camera_sync_topic", value="/symplan_camera_sim/rendered"))
        spinner.add(SkillSimNode(context=ctx, parameter_overrides=skill_params))
        client = PlannerClient(spinner.add(Node("symplan_demo_client", context=ctx)))
        if planner.trigger_configure().name != "SUCCESS" or planner.trigger_activate().name != "SUCCESS":
            print("planner failed to configure/activate (see log above)", file=sys.stderr)
            return 1
        return _send_goal(client, args)
    finally:
        spinner.close()
        ctx.try_shutdown()


def _start_camera(spinner: object, ctx: object, task: str) -> list:
    """Start the camera simulator on `task`; the planner parameters that perceive its stream."""
    import tempfile

    from rclpy.parameter import Parameter
    from symplan_sim.camera_sim import CameraSimNode, perceiving_parameters

    map_file = Path(tempfile.mkdtemp(prefix="symplan-demo-")) / "fiducials.yaml"
    camera = spinner.add(CameraSimNode(context=ctx, parameter_overrides=[
        Parameter("task", value=task), Parameter("map_file", value=str(map_file)),
        Parameter("noise", value="default"), Parameter("world_topic", value="/symplan_skill_sim/world")]))
    print(f"camera: streaming a rendered scene of {task} on {camera.get_parameter('rgb_topic').value} "
          f"(+ depth, camera info); fiducial map {map_file}")
    return perceiving_parameters(camera)


def _send_goal(client: object, args: argparse.Namespace) -> int:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan

    last: dict = {"stage": None, "first_subgoal_s": None}
    sent = time.perf_counter()

    def on_feedback(fb: Plan.Feedback) -> None:
        # Feedback is one ordered stream: stages, then one line per subgoal outcome.
        if fb.stage == "executing":
            if last["first_subgoal_s"] is None and "validated subgoals" in fb.message:
                last["first_subgoal_s"] = time.perf_counter() - sent
            if " -> " in fb.message:
                say(f"  {fb.message}")
            elif "validated subgoals" in fb.message:
                say(f"[executing] attempt {fb.attempt}: {fb.message}")
        elif (fb.stage, fb.message) != last["stage"]:
            say(f"[{fb.stage}] attempt {fb.attempt}: {fb.message}")
            last["stage"] = (fb.stage, fb.message)

    if args.camera:
        print(f"goal: \"{args.instruction}\" (scene from the camera), simulator fails subgoal #{args.fail_at}")
        goal = Plan.Goal(instruction=args.instruction)
    else:
        print(f"goal: task={args.task} ({args.benchmark}), simulator fails subgoal #{args.fail_at}")
        goal = Plan.Goal(task_id=args.task, benchmark=args.benchmark, instruction=args.instruction)
    r, status_code = client.run(goal, on_feedback, timeout=900)
    time.sleep(0.2)  # feedback is another DDS topic than the result: let its tail print first
    status = {GoalStatus.STATUS_SUCCEEDED: "SUCCEEDED", GoalStatus.STATUS_ABORTED: "ABORTED",
              GoalStatus.STATUS_CANCELED: "CANCELED"}.get(status_code, str(status_code))
    print(f"\nresult: {status}  success={r.success} strict_pass={r.strict_pass} gcr={r.gcr:.2f} "
          f"replans={r.replans} executed_subgoals={len(r.subgoals)}")
    print(f"message: {r.message}")
    if last["first_subgoal_s"] is not None:
        print(f"first validated subgoals published {last['first_subgoal_s']:.1f} s after the goal was sent")
    if r.scene_json:
        import json

        scene = json.loads(r.scene_json)
        verdicts = ", ".join(f"{v['axis']} {'ok' if v['passed'] else 'REJECTED'}" for v in scene["verdicts"])
        goal = scene["provenance"].get("goal", {})
        print(f"perceived scene: {'accepted' if scene['accepted'] else 'rejected'} ({verdicts}); "
              f"{len(scene['provenance'].get('objects', {}))} objects; goal from {goal.get('activity', goal.get('source'))}")
    print("executed subgoals (each from a plan that strict-passed the engine from the state it started in):")
    for i, sub in enumerate(r.subgoals, 1):
        print(f"  {i:2d}. [plan {sub.plan_id}] {sub.text}")
    for err in r.errors:
        print(f"  trace: {err}")
    return 0 if r.success else 1


if __name__ == "__main__":
    sys.exit(main())
