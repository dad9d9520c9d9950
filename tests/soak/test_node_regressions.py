"""Regressions for what the soak found in the planner node and the skill simulator, over real DDS.

* a planner pinned to one CPU deadlocked every goal until the skill timeout (rclpy sized its
  thread pool by CPUs; the goal's callback holds one thread while it waits for skill status);
* stray ~/skill_status messages were kept (up to 10,000 of any size): a memory sink;
* each lifecycle cleanup/configure leaked the OpenAI backend's client thread and sockets;
* a cancel while the goal waited for camera frames was reported as a camera failure;
* the simulator built problems concurrently, so an older goal's slower problem could replace the
  newer world and the newer goal's subgoals went unanswered;
* requests over the input limits, and paths outside scene.goal_file_dirs, are typed failures;
* the simulator's statuses went out before its writer had matched the planner's reader and were
  dropped (a planner pinned to one busy CPU then waited out the skill timeout);
* the soak rig returned a goal while its fault action still ran (a deactivate), so the next step
  raced the transition.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from runtime_testkit import BENCH, TASK
from soakkit.fuzz import padded
from soakkit.rig import Rig, RigConfig
from symplan_ros_testkit import CONFIG
from symplan_tools.waits import wait_future, wait_until

from symplan_core.tasks import problem_path

pytestmark = pytest.mark.needs_ros

CLOSED = "openai:http://127.0.0.1:9/v1?model=none&max_retries=0&connect_timeout=1"


def _planner(ros_context, spinner, name: str, **params):
    from rclpy.parameter import Parameter
    from symplan_ros.planner_node import PlannerNode

    node = PlannerNode(name, context=ros_context, cli_args=["--ros-args", "--params-file", str(CONFIG)],
                       parameter_overrides=[Parameter(k, value=v) for k, v in params.items()])
    spinner.add(node)
    assert node.trigger_configure().name == "SUCCESS" and node.trigger_activate().name == "SUCCESS"
    return node


@pytest.fixture(scope="module")
def client_node(ros_context, spinner):
    from rclpy.node import Node

    return spinner.add(Node("regression_client", context=ros_context))


def test_a_planner_pinned_to_one_cpu_serves_goals_without_waiting_for_the_skill_timeout(tmp_path: Path) -> None:
    rig = Rig(RigConfig(params={"execution.skill_timeout_s": 20.0}, cpus={0}), tmp_path).start()
    try:
        rec = rig.goal(task_id=TASK, benchmark=BENCH, timeout=120)
        assert rec.success and rec.replans == 0, (rec.message, rec.errors)
        assert rec.latency_s < 15.0  # before: every subgoal waited out the 20 s skill timeout
        assert rec.violations == []
    finally:
        assert rig.close()["planner"] == 0


def test_stray_skill_statuses_are_counted_and_dropped_not_kept(tmp_path: Path) -> None:
    from symplan_interfaces.msg import SkillStatus
    from symplan_ros.plumbing import RELIABLE

    rig = Rig(RigConfig(), tmp_path).start()
    try:
        pub = rig.node.create_publisher(SkillStatus, "/symplan_planner/skill_status", RELIABLE)
        wait_until(lambda: pub.get_subscription_count() >= 1, 30)
        big = "s" * 65536
        rss = []
        sent = 0
        for round_ in range(3):  # DDS keeps its receive pool after round 1; the node must add nothing
            for batch in range(10):
                for i in range(20):
                    pub.publish(SkillStatus(plan_id=f"{big}{round_}-{batch}-{i}", index=i,
                                            status=SkillStatus.SUCCEEDED, message=big))
                sent += 20
                # in batches well under the writer's KEEP_LAST depth: a reliable writer overwrites what a
                # flood outruns, and a busy 2-core machine falls behind an unpaced one
                wait_until(lambda n=sent: rig.sample().get("stray_statuses", 0) >= n, 60)
            rss.append(rig.sample()["rss_mb"])
        # before: 400 more statuses of 128 kB were kept between round 1 and round 3 (+50 MB)
        assert rss[2] - rss[0] < 15.0, rss
        assert rig.goal(task_id=TASK, benchmark=BENCH).success
    finally:
        rig.close()


def test_lifecycle_cycles_release_the_openai_backend_threads(ros_context, spinner, client_node) -> None:
    from lifecycle_msgs.msg import Transition
    from symplan_tools.client import PlannerClient

    def openai_threads() -> int:
        return sum(t.name == "symplan-openai-client" and t.is_alive() for t in threading.enumerate())

    before = openai_threads()
    _planner(ros_context, spinner, "cycling_planner", **{"planner.backend": CLOSED})
    client = PlannerClient(client_node, "/cycling_planner")
    for _ in range(5):
        for transition in (Transition.TRANSITION_DEACTIVATE, Transition.TRANSITION_CLEANUP,
                           Transition.TRANSITION_CONFIGURE, Transition.TRANSITION_ACTIVATE):
            assert client.transition(transition)
    assert openai_threads() - before == 1  # the configured backend's; before the fix: 6


def test_cancel_while_waiting_for_camera_frames_is_a_cancel(ros_context, spinner, client_node) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan
    from symplan_tools.client import PlannerClient

    _planner(ros_context, spinner, "waiting_planner", **{
        "scene.source": "camera", "camera.rgb_topic": "/nobody/rgb", "camera.depth_topic": "/nobody/depth",
        "camera.info_topic": "/nobody/info", "camera.wait_s": 60.0, "perception.detector": "fiducial"})
    client = PlannerClient(client_node, "/waiting_planner")
    perceiving = threading.Event()
    handle = client.send(Plan.Goal(instruction="pick up the trash"),
                         lambda fb: perceiving.set() if fb.stage == "perceiving" else None)
    assert perceiving.wait(30)
    started = time.monotonic()
    wait_future(handle.cancel_goal_async())
    res = wait_future(handle.get_result_async())
    assert res.status == GoalStatus.STATUS_CANCELED and res.result.message == "canceled"  # before: ABORTED, "no frames"
    assert time.monotonic() - started < 10.0 and client.subgoals == []


def test_the_simulator_builds_worlds_in_arrival_order(ros_context, spinner, client_node) -> None:
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
    from symplan_interfaces.msg import SkillStatus, Subgoal
    from symplan_ros.messages import task_message
    from symplan_ros.plumbing import LATCHED, RELIABLE
    from symplan_sim.skill_sim import SkillSimNode

    spinner.add(SkillSimNode("ordered_sim", context=ros_context,
                             parameter_overrides=[Parameter("planner", value="/ordered")]))
    bddl_pub = client_node.create_publisher(String, "/ordered/task_bddl", LATCHED)
    sub_pub = client_node.create_publisher(Subgoal, "/ordered/subgoal", RELIABLE)
    answers: dict[str, int] = {}
    client_node.create_subscription(SkillStatus, "/ordered/skill_status",
                                    lambda m: answers.__setitem__(m.plan_id, m.status) if m.status != SkillStatus.RUNNING else None,
                                    RELIABLE)
    wait_until(lambda: bddl_pub.get_subscription_count() >= 1 and sub_pub.get_subscription_count() >= 1, 30)
    fast = problem_path(TASK, BENCH)[1].read_text()
    slow = padded(fast, 128_000)  # compiles in a few hundred ms
    for k in range(4):  # an older, slower problem then a newer, fast one: the newer must win
        bddl_pub.publish(String(data=task_message(slow, f"old{k}", "single")))
        time.sleep(0.005)
        bddl_pub.publish(String(data=task_message(fast, f"new{k}", "single")))
        time.sleep(0.5)  # before: the old problem, built last, replaced the new world by now
        sub_pub.publish(Subgoal(plan_id=f"new{k}-0-0", index=0, count=1, action="navigate", args=["plywood.n.01_1"],
                                text="navigate(plywood_1)"))
        wait_until(lambda k=k: f"new{k}-0-0" in answers, 30)
        assert answers[f"new{k}-0-0"] == SkillStatus.SUCCEEDED


def test_the_simulator_holds_a_status_until_the_planners_reader_matches(ros_context, spinner, client_node) -> None:
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
    from symplan_interfaces.msg import SkillStatus, Subgoal
    from symplan_ros.messages import task_message
    from symplan_ros.plumbing import LATCHED, RELIABLE
    from symplan_sim.skill_sim import SkillSimNode

    spinner.add(SkillSimNode("late_reader_sim", context=ros_context,
                             parameter_overrides=[Parameter("planner", value="/late_reader")]))
    bddl_pub = client_node.create_publisher(String, "/late_reader/task_bddl", LATCHED)
    sub_pub = client_node.create_publisher(Subgoal, "/late_reader/subgoal", RELIABLE)
    wait_until(lambda: bddl_pub.get_subscription_count() >= 1 and sub_pub.get_subscription_count() >= 1, 30)
    bddl_pub.publish(String(data=task_message(problem_path(TASK, BENCH)[1].read_text(), "late", "single")))
    sub_pub.publish(Subgoal(plan_id="late-0-0", index=0, count=1, action="navigate", args=["plywood.n.01_1"],
                            text="navigate(plywood_1)"))
    time.sleep(2.0)  # the simulator has the subgoal; nothing reads its statuses yet
    answers: list[int] = []
    client_node.create_subscription(SkillStatus, "/late_reader/skill_status",
                                    lambda m: answers.append(m.status), RELIABLE)
    # before: both statuses went out to no reader and were dropped (the planner's skill timeout)
    wait_until(lambda: SkillStatus.SUCCEEDED in answers, 30)
    assert answers[0] == SkillStatus.RUNNING


def test_a_fault_action_has_ended_when_its_goal_returns(tmp_path: Path) -> None:
    rig = Rig(RigConfig(), tmp_path).start()
    try:
        ended = threading.Event()
        # the goal executes for about 4 s; the action outlasts it
        rec = rig.goal(task_id=TASK, benchmark=BENCH,
                       at_stage=("executing", 0.0, lambda _h: (time.sleep(8.0), ended.set())))
        # before: the goal returned with the action still running, and the next step (a cleanup
        # after a mid-goal deactivate) raced the transition it started
        assert rec.success and ended.is_set()
    finally:
        rig.close()


def test_requests_over_the_limits_or_naming_files_fail_typed_over_dds(ros_context, spinner, client_node,
                                                                     tmp_path: Path) -> None:
    from action_msgs.msg import GoalStatus
    from symplan_interfaces.action import Plan
    from symplan_tools.client import PlannerClient

    (tmp_path / "mine.bddl").write_text(problem_path(TASK, BENCH)[1].read_text())
    _planner(ros_context, spinner, "limited_planner", **{"limits.max_bddl_bytes": 4096,
                                                         "scene.goal_file_dirs": str(tmp_path)})
    client = PlannerClient(client_node, "/limited_planner")
    result, status = client.run(Plan.Goal(bddl="(" * 5000))
    assert status == GoalStatus.STATUS_ABORTED and result.message.startswith("request: bddl is over limits.")
    result, status = client.run(Plan.Goal(task_id="/etc/hostname.bddl"))
    assert status == GoalStatus.STATUS_ABORTED and "outside scene.goal_file_dirs" in result.message
    result, status = client.run(Plan.Goal(task_id=str(tmp_path / "mine.bddl"), execute=False))
    assert status == GoalStatus.STATUS_SUCCEEDED and result.strict_pass
    resp = client.call_verify(task_id="../../etc/passwd", plan_text="navigate(a)")
    assert not resp.ok and resp.errors[0].startswith("request: task_id '../../etc/passwd' is neither")
    deep = client.call_verify(bddl="(define (problem p) (:domain d) (:objects) (:init) (:goal "
                              + "(not " * 200 + "(p)" + ")" * 200 + "))", plan_text="x()")
    assert not deep.ok and "nested deeper than" in deep.errors[0]
    assert client.subgoals == []


def test_a_sigint_between_two_wait_sets_ends_spinning_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen once in the soak: the planner exited 1 with RCLError "failed to initialize wait set:
    the given context is not valid" when SIGINT shut the context down between two wait sets."""
    import rclpy
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
    from symplan_ros import plumbing
    from symplan_ros_testkit import domain_id_for

    class RacingSigint(MultiThreadedExecutor):
        def spin_once(self, timeout_sec: float | None = None) -> None:  # noqa: ARG002 - the overridden signature
            rclpy.shutdown(context=self.context)  # what rclpy's SIGINT handler does, here mid-spin
            _rclpy.WaitSet(0, 0, 0, 0, 0, 0, self.context.handle)  # the executor's next wait set

    # Only the executor spin_until_shutdown makes: the module's background executors spin on.
    monkeypatch.setattr(plumbing, "MultiThreadedExecutor", RacingSigint)
    rclpy.init(domain_id=domain_id_for("sigint_race"))
    plumbing.spin_until_shutdown(rclpy.create_node("sigint_race"))  # before: the RCLError escaped
    assert not rclpy.ok()


def test_a_failing_callback_is_logged_and_the_node_keeps_spinning(ros_context, capfd) -> None:
    """rclpy's MultiThreadedExecutor re-raises a finished callback's exception out of spin(): the
    executor stopped and every service of the node went unanswered while the process lived on."""
    import rclpy
    from symplan_ros.plumbing import BackgroundExecutor

    calls = []

    def fails_once() -> None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise ValueError("a callback's own fault")

    spinner = BackgroundExecutor(ros_context, num_threads=2)
    node = spinner.add(rclpy.create_node("failing_callback", context=ros_context))
    try:
        node.create_timer(0.05, fails_once)
        wait_until(lambda: len(calls) >= 5, timeout=10)  # it runs on after its failure
        assert spinner.thread.is_alive()
    finally:
        spinner.close()
    assert "ValueError: a callback's own fault" in capfd.readouterr().err


def test_work_for_an_entity_destroyed_under_it_is_a_warning_not_a_fault(ros_context, capfd) -> None:
    """A lifecycle cleanup destroys the action server while rclpy's goal task may still send its last
    status: the InvalidHandle that raises is skipped with a warning (no traceback, which the soak
    counts as a fault), and the node spins on."""
    import rclpy
    from std_msgs.msg import String
    from symplan_ros.plumbing import BackgroundExecutor

    spinner = BackgroundExecutor(ros_context, num_threads=2)
    node = spinner.add(rclpy.create_node("destroyed_under_it", context=ros_context))
    publisher = node.create_publisher(String, "destroyed_under_it", 1)
    calls = []

    def publish_on_a_destroyed_publisher() -> None:
        calls.append(1)
        if len(calls) == 1:
            node.destroy_publisher(publisher)
            publisher.publish(String(data="late"))  # raises InvalidHandle

    try:
        node.create_timer(0.05, publish_on_a_destroyed_publisher)
        wait_until(lambda: len(calls) >= 5, timeout=10)
        assert spinner.thread.is_alive()
    finally:
        spinner.close()
    err = capfd.readouterr().err
    assert "skipped work for an entity destroyed under it" in err and "Traceback" not in err


def test_a_callback_failing_at_once_every_time_ends_spinning(ros_context) -> None:
    """The bound: an error that repeats faster than MAX_ERRORS_PER_SECOND is raised, not logged forever."""
    import rclpy
    from rclpy.executors import MultiThreadedExecutor
    from symplan_ros.plumbing import spin_logging_errors

    def always_fails() -> None:
        raise ValueError("every time")

    executor = MultiThreadedExecutor(num_threads=2, context=ros_context)
    node = rclpy.create_node("always_failing_callback", context=ros_context)
    node.create_timer(0.001, always_fails)
    executor.add_node(node)
    try:
        with pytest.raises(ValueError, match="every time"):
            spin_logging_errors(executor, node.get_logger())
    finally:
        executor.shutdown()
        node.destroy_node()


def _python_child(tmp_path: Path, name: str, script: str):
    """``python -c SCRIPT`` as a supervised ROS child, returned once the script has printed "up"
    (its command line, at the top of its log, says "UP")."""
    from symplan_ros_testkit import domain_id_for
    from symplan_tools.supervise import Child, ros_child_env

    child = Child(name, [sys.executable, "-c", script], ros_child_env(domain_id_for(name), None), tmp_path).start()
    wait_until(lambda: "\nup\n" in child.log_tail(), timeout=60)
    return child


def test_a_node_that_ignores_sigint_leaves_its_stacks_in_its_log_before_the_kill(tmp_path: Path) -> None:
    """A node that did not stop on SIGINT was seen in full suites: the supervisor asks for its stacks
    before it kills it."""
    stuck = ("import signal, time\n"
             "from symplan_ros.plumbing import enable_stack_dumps\n"
             "enable_stack_dumps()\n"
             "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
             "print('UP'.lower(), flush=True)\n"
             "time.sleep(120)\n")
    child = _python_child(tmp_path, "stuck", stuck)
    assert child.stop(timeout=1.0) == -signal.SIGKILL
    log = child.log_tail()
    assert "Current thread" in log and 'File "<string>", line 6' in log  # where it hung: the sleep


def test_a_sigint_that_wakes_no_wait_still_ends_an_idle_node(tmp_path: Path) -> None:
    """Twice in a full `make test` an unconfigured planner (no timer) did not exit on SIGINT: its
    stacks showed the main thread in the executor's wait, which rclpy ends on SIGINT by a guard
    condition. Here nothing wakes the wait at all (rclpy's signal handlers are off; only Python's
    KeyboardInterrupt is pending): the node's bounded waits still return to Python and it exits."""
    idle = ("import signal\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent left\n"
            "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n"
            "import rclpy\n"
            "from rclpy.signals import SignalHandlerOptions\n"
            "from symplan_ros.plumbing import spin_until_shutdown\n"
            "rclpy.init(signal_handler_options=SignalHandlerOptions.NO)\n"
            "print('UP'.lower(), flush=True)\n"
            "spin_until_shutdown(rclpy.create_node('no_wake'))\n")
    child = _python_child(tmp_path, "no_wake", idle)
    time.sleep(0.5)  # in the wait
    assert child.process is not None
    child.process.send_signal(signal.SIGINT)
    try:
        code = child.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        child.stop(timeout=0.1)  # SIGUSR1 first: its stacks go to its log
        pytest.fail("no exit within 20 s of SIGINT:\n" + child.log_tail(12000))
    assert code == 0, child.log_tail()
