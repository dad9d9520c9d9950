"""Execution monitoring without ROS: a SUCCEEDED subgoal's expected effects against real rendered
camera frames perceived by the fiducial detector (confirmed, contradicted, unobservable), and the
planning session replanning from the perceived state when the camera contradicts a report."""

from __future__ import annotations

import random
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from symplan_core.engine import compile_task, verify
from symplan_core.runtime.monitor import (
    EffectVerdict,
    ExecutionMonitor,
    Perceived,
    check_effects,
    reground,
)
from symplan_core.sim.world import WorldCamera, execute, world_problem
from symplan_core.tasks import load_problem

TASK = "b1k/attach_a_camera_to_a_tripod"
INSTRUCTION = "attach the camera to the tripod"
CAMERA, TRIPOD, FLOOR, AGENT = "digital_camera.n.01_1", "camera_tripod.n.01_1", "floor.n.01_1", "agent.n.01_1"


# ---- the verdict rules, on a hand-made snapshot ----------------------------------------------
def _seen(**support: tuple[str, str]) -> Perceived:
    seen = Perceived(agents=frozenset({AGENT}))
    for obj, link in support.items():
        name = {"camera": CAMERA, "tripod": TRIPOD}[obj]
        seen.seen.add(name)
        seen.support[name] = link
        seen.relations.add((link[0], name, link[1]))
    return seen


TRACKED = {CAMERA, TRIPOD, FLOOR}


def test_an_expected_support_seen_is_confirmed() -> None:
    result = check_effects([f"(attached {CAMERA} {TRIPOD})"], [], _seen(camera=("ontop", TRIPOD)), TRACKED)
    assert result.verdict is EffectVerdict.CONFIRMED


def test_an_object_still_on_what_it_should_have_left_is_a_contradiction() -> None:
    result = check_effects([f"(holding {CAMERA})"], [f"(ontop {CAMERA} {FLOOR})"],
                           _seen(camera=("ontop", FLOOR)), TRACKED)
    assert result.verdict is EffectVerdict.CONTRADICTED
    assert f"{CAMERA} still seen ontop {FLOOR}" in result.reason


def test_an_object_seen_on_another_support_contradicts_a_placement() -> None:
    result = check_effects([f"(ontop {CAMERA} {TRIPOD})"], [], _seen(camera=("ontop", FLOOR)), TRACKED)
    assert result.verdict is EffectVerdict.CONTRADICTED


def test_another_object_seen_moved_contradicts_the_subgoal() -> None:
    before = _seen(camera=("ontop", FLOOR), tripod=("ontop", FLOOR))
    after = _seen(camera=("ontop", FLOOR), tripod=("ontop", AGENT))  # it grasped the tripod instead
    result = check_effects([f"(holding {CAMERA})"], [f"(ontop {CAMERA} {FLOOR})"], after, TRACKED, before,
                           movable=[CAMERA])
    assert result.verdict is EffectVerdict.CONTRADICTED
    assert f"{TRIPOD} moved though the subgoal does not move it" in result.reason
    # The subgoal's own object moving is what it should do.
    moved = _seen(camera=("ontop", AGENT), tripod=("ontop", FLOOR))
    assert check_effects([], [f"(ontop {CAMERA} {FLOOR})"], moved, TRACKED, before, movable=[CAMERA]).verdict \
        is EffectVerdict.CONFIRMED


def test_robot_side_state_and_unseen_effects_are_unobservable() -> None:
    assert check_effects([f"(holding {CAMERA})"], [], _seen(), TRACKED).verdict is EffectVerdict.UNOBSERVABLE
    assert check_effects([f"(open {TRIPOD})"], [], _seen(tripod=("ontop", FLOOR)), TRACKED).verdict \
        is EffectVerdict.UNOBSERVABLE  # no detector reports (open ...)
    assert check_effects([f"(ontop {CAMERA} {TRIPOD})"], [], _seen(), TRACKED).verdict is EffectVerdict.UNOBSERVABLE
    assert check_effects([], [], _seen(), TRACKED).verdict is EffectVerdict.UNOBSERVABLE


def test_regrounding_takes_the_seen_support_and_releases_a_held_object() -> None:
    task = compile_task(load_problem(TASK))
    state = task.initial_state()
    state.held.append(CAMERA)
    state.support.pop(CAMERA, None)
    changes = reground(state, _seen(camera=("ontop", TRIPOD)), task)
    assert CAMERA not in state.held and state.support[CAMERA] == ("ontop", TRIPOD) and changes


# ---- real frames: the simulated world rendered and perceived --------------------------------
@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from symplan_core.perception import PerceptionConfig, make_detector, perceive
    from symplan_core.perception.rigs import NoiseConfig

    problem = load_problem(TASK)
    camera = WorldCamera(problem, seed=0)
    map_file = tmp_path_factory.mktemp("monitor") / "map.yaml"
    camera.shown.fiducial_map.dump(str(map_file))
    detector = make_detector(f"fiducial:{map_file}")
    noise = NoiseConfig.default()
    perceived = perceive(camera.frames(3, noise), INSTRUCTION, detector, camera.shown.intrinsics, PerceptionConfig())
    assert perceived.accepted and perceived.problem is not None
    return SimpleNamespace(camera=camera, detector=detector, noise=noise, result=perceived,
                           problem=perceived.problem, task=compile_task(perceived.problem))


def _monitor(world) -> ExecutionMonitor:
    from symplan_core.runtime.camera import CameraFeed

    monitor = ExecutionMonitor(CameraFeed(), world.detector)
    monitor.bind(dict(world.problem.objects), {"provenance": world.result.provenance})
    return monitor


def _after(world, steps: list[str], fault: str):
    """Run ``steps`` (the last one with ``fault``) in a fresh simulated world; the last subgoal."""
    from symplan_core.runtime.session import subgoals_for

    task = world.task
    state = task.initial_state()
    calls = verify(task, "\n".join(steps), state=task.initial_state()).calls
    subs = subgoals_for(task, task.initial_state(), calls, "g-0-0")
    for sub in subs:
        ok, _msg = execute(task, state, sub.text, fault if sub is subs[-1] else "none", random.Random(1))
        assert ok
    world.camera.show(world_problem(world.problem, task, state))
    return subs[-1], world.camera.frames(3, world.noise)


def test_a_real_grasp_is_confirmed_on_the_camera(world) -> None:
    sub, frames = _after(world, ["navigate(digital_camera_1)", "grasp(digital_camera_1)"], "none")
    result, _seen_now = _monitor(world).check_frames(sub.expected_add, sub.expected_del, frames,
                                                     world.camera.shown.intrinsics, sub.args)
    assert result.verdict is EffectVerdict.CONFIRMED, result.reason


def test_a_grasp_that_moved_nothing_is_contradicted_on_the_camera(world) -> None:
    sub, frames = _after(world, ["navigate(digital_camera_1)", "grasp(digital_camera_1)"], "nothing")
    result, seen = _monitor(world).check_frames(sub.expected_add, sub.expected_del, frames,
                                                world.camera.shown.intrinsics, sub.args)
    assert result.verdict is EffectVerdict.CONTRADICTED, result.reason
    assert seen is not None and seen.support[CAMERA] == ("ontop", FLOOR)


def test_a_navigation_is_unobservable_on_the_camera(world) -> None:
    sub, frames = _after(world, ["navigate(digital_camera_1)"], "none")
    result, _seen_now = _monitor(world).check_frames(sub.expected_add, sub.expected_del, frames,
                                                     world.camera.shown.intrinsics, sub.args)
    assert result.verdict is EffectVerdict.UNOBSERVABLE


# ---- the session: a silent failure is caught and replanned from the perceived state ----------
class _Stream:
    """Feeds a CameraFeed with the simulated world's frames (as a camera driver would), ~20 Hz."""

    def __init__(self, feed, camera: WorldCamera, noise) -> None:
        from symplan_core.rosio.images import numpy_to_image_fields

        self.feed, self.camera, self.noise = feed, camera, noise
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.fields = numpy_to_image_fields
        self.frames = camera.frames(2, noise)
        k = camera.shown.intrinsics
        feed.on_info(SimpleNamespace(k=list(k.matrix().reshape(-1)), width=k.width, height=k.height))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def show(self, problem) -> None:
        self.camera.show(problem)
        frames = self.camera.frames(2, self.noise)
        with self.lock:
            self.frames = frames

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            with self.lock:
                frame = self.frames[n % len(self.frames)]
            t = time.time()
            stamp = SimpleNamespace(header=SimpleNamespace(stamp=SimpleNamespace(sec=int(t), nanosec=int(t % 1 * 1e9))))
            depth = np.nan_to_num(frame.depth * 1000.0, nan=0.0).clip(0, 65535).round().astype(np.uint16)
            self.feed.on_depth(SimpleNamespace(**vars(stamp), **self.fields(depth, "16UC1")))
            self.feed.on_rgb(SimpleNamespace(**vars(stamp), **self.fields(frame.rgb, "rgb8")))
            n += 1
            self.stop.wait(0.05)


def test_a_silent_failure_is_replanned_from_the_perceived_state_and_the_goal_reached(world) -> None:
    from symplan_core.llm.base import FunctionBackend
    from symplan_core.runtime.camera import CameraFeed
    from symplan_core.runtime.config import CameraSection, ExecutionSection, PerceptionSection, RuntimeConfig
    from symplan_core.runtime.monitor import monitor_for
    from symplan_core.runtime.session import Outcome, PlanningSession
    from symplan_core.runtime.sources import BddlSceneSource, CameraSceneSource, TaskRequest

    fresh = WorldCamera(load_problem(TASK), seed=0)
    config = RuntimeConfig(scene={"source": "camera"}, execution=ExecutionSection(monitor_settle_s=0.1),
                           camera=CameraSection(rgb_topic="/rgb", depth_topic="/depth", info_topic="/info",
                                                max_rate_hz=20.0, window_s=1.0))
    feed = CameraFeed(config.camera, required=True)
    stream = _Stream(feed, fresh, world.noise)
    try:
        source = CameraSceneSource(BddlSceneSource(), feed, PerceptionSection(), world.detector)
        monitor = monitor_for(config, feed, world.detector)
        assert monitor is not None
        session = PlanningSession(FunctionBackend(lambda _p: "", name="empty"), monitor=monitor,
                                  execution=config.execution)
        sim: dict = {}
        received: list[str] = []

        def dispatch(sub):
            if "world" not in sim:  # the controller's world: the problem the planner perceived
                task = compile_task(monitor_problem[0])
                sim.update(world=task.initial_state(), task=task, problem=monitor_problem[0])
            fault = "nothing" if sub.action == "grasp" and "grasp" not in received else "none"
            received.append(sub.action)
            ok, message = execute(sim["task"], sim["world"], sub.text, fault)  # type: ignore[arg-type]
            stream.show(world_problem(sim["problem"], sim["task"], sim["world"]))
            return (Outcome.SUCCEEDED if ok else Outcome.FAILED), message

        monitor_problem: list = []
        result = session.run(TaskRequest(instruction=INSTRUCTION), source, dispatch, lambda *_a: None,
                             on_scene=lambda scene, *_a: monitor_problem.append(scene.problem))
    finally:
        stream.stop.set()
        stream.thread.join()
    assert result.success, (result.message, result.errors)
    assert result.replans == 1
    verdicts = [(sub.text, check.verdict) for sub, check in result.checks]
    assert ("grasp(digital_camera_1)", EffectVerdict.CONTRADICTED) in verdicts
    assert verdicts[-1] == ("attach(digital_camera_1, camera_tripod_1)", EffectVerdict.CONFIRMED)
    # The contradicted grasp is not among the executed subgoals; the replanned one is.
    assert [s.text for s in result.executed].count("grasp(digital_camera_1)") == 1
    assert any("camera contradicts it" in e for e in result.errors)
