"""`symplan_planner`: lifecycle node around ``symplan_core.runtime.PlanningSession`` (ROS glue only:
parameters, topics, the action and service, message conversion in ``symplan_ros.messages``).

Interfaces (relative to the node's name, e.g. /symplan_planner/...):
  ~/plan          action symplan_interfaces/Plan   one goal at a time: a goal arriving while
                                                     one runs is rejected (the client retries); an
                                                     ambiguous instruction ends with a question
                                                     (outcome needs_clarification), a follow-up goal
                                                     with its answer resumes (runtime/clarify.py)
  ~/verify_plan   service symplan_interfaces/VerifyPlan
  ~/task_bddl     std_msgs/String, transient-local  the problem being planned (first line is a
                                                     `; symplan goal_id=... robot=...` comment)
  ~/subgoal       symplan_interfaces/Subgoal        only subgoals of engine-validated plans
  ~/skill_status  symplan_interfaces/SkillStatus    (subscribed) controller reports
  ~/plan_status   symplan_interfaces/PlanStatus, transient-local
  ~/execution_check symplan_interfaces/ExecutionCheck  execution monitoring's verdict on each
                                                     SUCCEEDED subgoal (execution.monitor: camera)
  ~/scene_markers visualization_msgs/MarkerArray    what the planner perceives (camera frame):
                                                     objects, relations, the running subgoal's objects
  /diagnostics    diagnostic_msgs/DiagnosticArray   planner, LLM endpoint and camera health
Needs a MultiThreadedExecutor: the action callback waits for skill_status callbacks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.lifecycle import LifecycleNode, LifecyclePublisher, LifecycleState, TransitionCallbackReturn
from rclpy.qos import qos_profile_sensor_data
from rclpy.subscription import Subscription
from sensor_msgs.msg import CameraInfo, CompressedImage, Image
from std_msgs.msg import String
from symplan_interfaces.action import Plan
from symplan_interfaces.msg import ExecutionCheck, PlanStatus, SkillStatus
from symplan_interfaces.msg import Subgoal as SubgoalMsg
from symplan_interfaces.srv import VerifyPlan
from visualization_msgs.msg import MarkerArray

from symplan_core.llm import PlannerBackend
from symplan_core.planners.reference_backend import make_planner_backend
from symplan_core.runtime.camera import CameraFeed
from symplan_core.runtime.camera_view import CameraView, view_from_provenance, view_from_snapshot
from symplan_core.runtime.config import RuntimeConfig
from symplan_core.runtime.health import ERROR, OK, WARN, Health
from symplan_core.runtime.limits import InputLimits, RequestRejected
from symplan_core.runtime.monitor import EffectVerdict, ExecutionMonitor, MonitorResult, monitor_for
from symplan_core.runtime.session import Outcome, PlanningSession, SessionResult, Subgoal
from symplan_core.runtime.sources import Scene, SceneSource, TaskRequest, scene_source_for
from symplan_ros.markers import MarkerIds, marker_array
from symplan_ros.messages import (
    diagnostic_array,
    fill_verify_response,
    image_type,
    plan_result,
    subgoal_msg,
    task_message,
    task_request,
)
from symplan_ros.params import declare_parameters, read_config
from symplan_ros.plumbing import LATCHED, RELIABLE

_POLL_S = 0.02  # granularity of cancel checks while waiting for a skill status
_DEACTIVATE_WAIT_S = 5.0
_STATUS_MESSAGE_CHARS = 500  # a controller's status message is kept (and reported) up to this length


class PlannerNode(LifecycleNode):
    def __init__(self, node_name: str = "symplan_planner", *,
                 backend_factory: Callable[[str], PlannerBackend] | None = None, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        declare_parameters(self)
        # Tests and embedders may inject a backend factory (spec -> backend); default: the one
        # planner factory of symplan_core.
        self._backend_factory = backend_factory or make_planner_backend
        self._cb = ReentrantCallbackGroup()
        self._diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.config: RuntimeConfig | None = None
        self.session: PlanningSession | None = None
        self.scene_source: SceneSource | None = None
        self.camera = CameraFeed()
        self.monitor: ExecutionMonitor | None = None
        self._check_pub: LifecyclePublisher[ExecutionCheck] | None = None
        self._skill_message = ""  # the last SUCCEEDED/FAILED report's message (for ~/execution_check)
        self._markers_pub: LifecyclePublisher[MarkerArray] | None = None
        self._marker_ids = MarkerIds()
        self._view: CameraView | None = None  # what ~/scene_markers shows
        self._frame_id = ""  # the camera frame, from the images' headers
        self._entities: list[Callable[[], Any]] = []  # destroyers of what on_configure created
        self._subgoal_pub: LifecyclePublisher[SubgoalMsg] | None = None
        self._skill_status_sub: Subscription | None = None
        self._bddl_pub: LifecyclePublisher[String] | None = None
        self._status_pub: LifecyclePublisher[PlanStatus] | None = None
        self._active = False
        self._busy = False
        self.limits = InputLimits()
        self._goal_lock = threading.Lock()
        self._status_cv = threading.Condition()
        # Only the subgoal being dispatched is awaited; every other status is counted and dropped,
        # so what a controller (or anyone) publishes on ~/skill_status cannot grow the node.
        self._awaiting: tuple[str, int] | None = None
        self._status: tuple[int, str] | None = None
        self.counters = {"goals": 0, "rejected_requests": 0, "stray_statuses": 0, "verify_calls": 0}
        self._counter_lock = threading.Lock()
        self._last_result: SessionResult | None = None
        self._lifecycle = "unconfigured"

    # ---- lifecycle -------------------------------------------------------------------------
    def on_configure(self, _state: LifecycleState) -> TransitionCallbackReturn:
        try:
            cfg = read_config(self)
            backend = self._backend_factory(cfg.planner.backend_spec)  # decoding and think applied
        except Exception as exc:  # noqa: BLE001 - process boundary: a bad parameter or backend fails the transition, not the node
            self.get_logger().error(f"configure failed: {type(exc).__name__}: {exc}")
            return TransitionCallbackReturn.FAILURE
        self.config = cfg
        self.limits = InputLimits.from_config(cfg.limits, cfg.scene)
        self.scene_source, self.camera = scene_source_for(cfg)
        self.monitor = monitor_for(cfg, self.camera, getattr(self.scene_source, "detector", None))
        self.session = PlanningSession.from_config(cfg, backend, self.monitor)
        if self.camera.detector_error:
            self.get_logger().error(f"camera scene source: detector unavailable: {self.camera.detector_error}")
        self._subgoal_pub = self.create_lifecycle_publisher(SubgoalMsg, "~/subgoal", RELIABLE)
        self._bddl_pub = self.create_lifecycle_publisher(String, "~/task_bddl", LATCHED)
        self._status_pub = self.create_lifecycle_publisher(PlanStatus, "~/plan_status", LATCHED)
        self._check_pub = self.create_lifecycle_publisher(ExecutionCheck, "~/execution_check", RELIABLE)
        self._markers_pub = self.create_lifecycle_publisher(MarkerArray, "~/scene_markers", LATCHED)
        self._marker_ids, self._view = MarkerIds(), None
        self._skill_status_sub = self.create_subscription(SkillStatus, "~/skill_status", self._on_skill_status,
                                                          RELIABLE, callback_group=self._cb)
        subs = [self._skill_status_sub]
        camera = cfg.camera
        for topic, kind, cb in ((camera.rgb_topic, image_type(camera.rgb_topic), self._on_rgb),
                                (camera.depth_topic, image_type(camera.depth_topic), self._on_depth),
                                (camera.info_topic, CameraInfo, self._on_info)):
            if topic:
                subs.append(self.create_subscription(kind, topic, cb, qos_profile_sensor_data,
                                                     callback_group=self._cb))
        action = ActionServer(self, Plan, "~/plan", execute_callback=self._execute, goal_callback=self._on_goal,
                              cancel_callback=self._on_cancel, callback_group=self._cb)
        service = self.create_service(VerifyPlan, "~/verify_plan", self._on_verify, callback_group=self._cb)
        timer = self.create_timer(cfg.diagnostics.period_s, self.publish_diagnostics, callback_group=self._cb)
        self._entities = [*(partial(self.destroy_subscription, sub) for sub in subs), action.destroy,
                          partial(self.destroy_service, service), partial(self.destroy_timer, timer),
                          *(partial(self.destroy_lifecycle_publisher, pub)
                            for pub in (self._subgoal_pub, self._bddl_pub, self._status_pub, self._check_pub,
                                        self._markers_pub))]
        self._lifecycle = "inactive"
        self.get_logger().info(f"configured: backend={cfg.planner.backend_spec} fallback={cfg.planner.fallback} "
                               f"robot={cfg.robot} scene={cfg.scene.source}")
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._active, self._lifecycle = True, "active"
        ret = super().on_activate(state)
        self._publish_status(PlanStatus.STATE_IDLE, message="ready")
        return ret

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._active, self._lifecycle = False, "inactive"  # a running goal sees this and cancels
        with self._status_cv:
            self._status_cv.notify_all()
        # Let a running goal finish its cancel before publishers go inactive (bounded: a goal
        # inside a long LLM call notices at its next stage and is aborted then).
        deadline = time.monotonic() + _DEACTIVATE_WAIT_S
        while self._busy and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        if self._busy:
            self.get_logger().warning(f"deactivated with a goal still running after {_DEACTIVATE_WAIT_S:.0f}s "
                                      "(it is aborted at its next stage)")
        else:
            self.get_logger().info("deactivated")
        return super().on_deactivate(state)

    def on_cleanup(self, _state: LifecycleState) -> TransitionCallbackReturn:
        self._destroy_entities()
        self._lifecycle = "unconfigured"
        self.get_logger().info("cleaned up")
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, _state: LifecycleState) -> TransitionCallbackReturn:
        self._active = False
        self._destroy_entities()
        self._lifecycle = "finalized"
        return TransitionCallbackReturn.SUCCESS

    def _destroy_entities(self) -> None:
        for destroy in self._entities:
            destroy()
        self._entities = []
        self._subgoal_pub = self._bddl_pub = self._status_pub = None
        self._skill_status_sub = None
        self._check_pub = self._markers_pub = None
        # Backends own threads and connections (the OpenAI client: an event-loop thread and its
        # sockets); the next configure builds new ones, so these are released now.
        if self.session is not None:
            self.session.close()

    def _count(self, name: str) -> None:
        with self._counter_lock:  # callbacks run on several executor threads
            self.counters[name] += 1

    # ---- plan action -----------------------------------------------------------------------
    def _on_goal(self, _goal: Plan.Goal) -> GoalResponse:
        with self._goal_lock:
            if not self._active or self._busy:
                self.get_logger().warning("rejecting Plan goal: " + ("busy" if self._busy else "not active"))
                return GoalResponse.REJECT
            self._busy = True
            return GoalResponse.ACCEPT

    def _on_cancel(self, _goal_handle: ServerGoalHandle) -> CancelResponse:
        with self._status_cv:
            self._status_cv.notify_all()
        return CancelResponse.ACCEPT

    def _execute(self, goal_handle: ServerGoalHandle) -> Plan.Result:
        g = goal_handle.request
        request = task_request(g)
        self._count("goals")

        def cancelled() -> bool:
            return goal_handle.is_cancel_requested or not self._active

        def feedback(stage: str, attempt: int, message: str, index: int = 0, count: int = 0) -> None:
            # rclpy 9's annotation names the wrapped FeedbackMessage; the method takes the Feedback.
            goal_handle.publish_feedback(Plan.Feedback(  # type: ignore[arg-type]
                stage=stage, attempt=attempt, message=message, subgoal_index=index, subgoal_count=count))
            state = PlanStatus.STATE_EXECUTING if stage in ("executing", "monitoring") else PlanStatus.STATE_PLANNING
            self._publish_status(state, message=f"{stage}: {message}")

        try:
            try:
                assert self.session is not None and self.scene_source is not None
                self.limits.check(bddl=g.bddl, task_id=g.task_id, benchmark=g.benchmark,
                                  instruction=g.instruction, robot=g.robot, answer=g.answer,
                                  clarification_id=g.clarification_id)
                result = self.session.run(request, self.scene_source,
                                          lambda sub: self._dispatch(sub, cancelled), feedback,
                                          cancelled, on_scene=self._publish_bddl, on_check=self._publish_check)
            except RequestRejected as exc:
                self._count("rejected_requests")
                result = SessionResult(False, f"request: {exc}", errors=[f"request: {r}" for r in exc.reasons])
            except Exception as exc:  # noqa: BLE001 - process boundary: the node must survive any planning bug
                error = f"{type(exc).__name__}: {exc}"
                if cancelled():  # deactivated or cleaned up under it (its backend closed): a cancel
                    self.get_logger().warning(f"plan goal ended by cancel/deactivate: {error}")
                    result = SessionResult(False, "canceled", errors=[error], canceled=True)
                else:
                    self.get_logger().error(f"plan goal crashed: {error}")
                    result = SessionResult(False, f"internal error: {exc}", errors=[error])
            self._last_result = result
            self._log_question(result)
            final = (PlanStatus.STATE_SUCCEEDED if result.success else
                     PlanStatus.STATE_CANCELED if result.canceled else
                     PlanStatus.STATE_NEEDS_CLARIFICATION if result.outcome == "needs_clarification" else
                     PlanStatus.STATE_FAILED)
            self._publish_status(final, plan_id=result.plan_id, replans=result.replans, message=result.message)
            if result.canceled and goal_handle.is_cancel_requested:
                goal_handle.canceled()
            elif result.success:
                goal_handle.succeed()
            else:
                goal_handle.abort()
        finally:
            # Free only once this goal's terminal state is set: the next goal cannot overlap it.
            with self._goal_lock:
                self._busy = False
        self.publish_diagnostics()
        return plan_result(result)

    def _log_question(self, result: SessionResult) -> None:
        """A question asked, or an answer rejected, goes to the log with the candidates (the result
        and /diagnostics carry them too)."""
        if result.outcome == "needs_clarification" and result.question is not None:
            self.get_logger().info("needs clarification: " + " | ".join(result.question.lines()))
        elif result.outcome == "answer_rejected":
            self.get_logger().warning(f"{result.message}" + (f" (question {result.question.clarification_id} "
                                                             "stays open)" if result.question else ""))

    def _dispatch(self, sub: Subgoal, cancelled: Callable[[], bool]) -> tuple[Outcome, str]:
        """Publish one validated subgoal and wait for its SUCCEEDED/FAILED (or time out)."""
        assert self.config is not None and self._subgoal_pub is not None
        timeout = self.config.execution.skill_timeout_s
        deadline = time.monotonic() + timeout
        # A subgoal published before the controller's subscription is matched is lost (DDS keeps no
        # history for it), and a status before ours is matched never arrives: wait for both ends.
        while not self._controller_connected():
            if cancelled():
                return Outcome.CANCELED, "canceled"
            if time.monotonic() >= deadline:
                return Outcome.TIMEOUT, (f"no skill controller connected within {timeout:.1f}s (~/subgoal has no "
                                         "subscriber or ~/skill_status no publisher)")
            time.sleep(_POLL_S)
        with self._status_cv:
            self._awaiting, self._status = (sub.plan_id, sub.index), None
        try:
            self._subgoal_pub.publish(subgoal_msg(sub))
            if self._view is not None:  # the running subgoal's objects, highlighted
                self._publish_markers(self._view.with_active(sub.args))
            self._publish_status(PlanStatus.STATE_EXECUTING, plan_id=sub.plan_id, index=sub.index,
                                 count=sub.count, message=sub.text)
            with self._status_cv:
                while True:
                    status = self._status
                    if status is not None:
                        outcome = Outcome.SUCCEEDED if status[0] == SkillStatus.SUCCEEDED else Outcome.FAILED
                        self._skill_message = status[1]
                        return outcome, status[1]
                    if cancelled():
                        return Outcome.CANCELED, "canceled"
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return Outcome.TIMEOUT, f"no SUCCEEDED/FAILED within {timeout:.1f}s"
                    # Woken by the awaited status; the short cap also polls cancel requests.
                    self._status_cv.wait(min(_POLL_S, remaining))
        finally:
            with self._status_cv:
                self._awaiting = self._status = None

    def _controller_connected(self) -> bool:
        """A skill controller listens on ~/subgoal and talks on ~/skill_status (both matched here)."""
        assert self._subgoal_pub is not None and self._skill_status_sub is not None
        return self._subgoal_pub.get_subscription_count() > 0 and self._skill_status_sub.get_publisher_count() > 0

    def _on_skill_status(self, msg: SkillStatus) -> None:
        with self._status_cv:
            if self._awaiting != (msg.plan_id, int(msg.index)):
                self._count("stray_statuses")  # late, duplicate or foreign: nothing waits for it
                return
            if msg.status in (SkillStatus.SUCCEEDED, SkillStatus.FAILED):
                self._status = (int(msg.status), msg.message[:_STATUS_MESSAGE_CHARS])
                self._status_cv.notify_all()

    def _publish_markers(self, view: CameraView) -> None:
        self._view = view
        if self._markers_pub is not None:
            self._markers_pub.publish(marker_array(view, self._frame_id, self.get_clock().now().to_msg(),
                                                   self._marker_ids))

    def _publish_check(self, sub: Subgoal, check: MonitorResult) -> None:
        if self.monitor is not None and self.monitor.last_snapshot is not None:
            snapshot, names = self.monitor.last_snapshot
            self._publish_markers(view_from_snapshot(snapshot, names).with_active(sub.args))
        if check.verdict is EffectVerdict.CONTRADICTED:
            self.get_logger().warning(f"subgoal {sub.text} reported SUCCEEDED, camera contradicts it: {check.reason}")
        if self._check_pub is not None:
            self._check_pub.publish(ExecutionCheck(
                plan_id=sub.plan_id, index=sub.index, text=sub.text, skill_status=SkillStatus.SUCCEEDED,
                skill_message=self._skill_message, verdict=check.verdict.value, reason=check.reason[:1000],
                checks=[c.line()[:500] for c in check.checks], frames=check.frames, latency_s=check.latency_s))
        self.publish_diagnostics()

    def _publish_scene_markers(self, scene: Scene) -> None:
        """A perceived scene's objects and observed relations on ~/scene_markers (camera frame)."""
        provenance = scene.details.get("provenance")
        if not provenance:
            return
        from symplan_core.perception import PerceptionConfig  # the vision extra: a camera scene has it

        self._publish_markers(view_from_provenance(provenance, PerceptionConfig().default_pose()))

    def _publish_bddl(self, scene: Scene, goal_id: str, robot: str) -> None:
        self._publish_scene_markers(scene)
        if self._bddl_pub is not None:
            objects = (scene.details.get("provenance") or {}).get("objects") or {}
            markers = {inst: int(e["marker_id"]) for inst, e in objects.items() if e.get("marker_id") is not None}
            self._bddl_pub.publish(String(data=task_message(scene.bddl_text, goal_id, robot, markers)))

    def _publish_status(self, state: str, plan_id: str = "", index: int = 0, count: int = 0,
                        replans: int = 0, message: str = "") -> None:
        if self._status_pub is not None:
            self._status_pub.publish(PlanStatus(state=state, plan_id=plan_id, index=index, count=count,
                                   replans=replans, message=message[:500]))

    # ---- verify service --------------------------------------------------------------------
    def _on_verify(self, req: VerifyPlan.Request, resp: VerifyPlan.Response) -> VerifyPlan.Response:
        assert self.session is not None and self.scene_source is not None
        self._count("verify_calls")
        try:
            self.limits.check(bddl=req.bddl, plan_text=req.plan_text, task_id=req.task_id,
                              benchmark=req.benchmark, robot=req.robot)
            scene = self.scene_source.resolve(TaskRequest(bddl=req.bddl, task_id=req.task_id,
                                                          benchmark=req.benchmark))
            result = self.session.verify_text(scene.problem, req.plan_text, req.robot)
            return fill_verify_response(resp, result, self.session.accepts(result))
        except RequestRejected as exc:
            self._count("rejected_requests")
            resp.ok, resp.errors = False, [f"request: {r}" for r in exc.reasons]
            return resp
        except Exception as exc:  # noqa: BLE001 - process boundary: SceneError, BDDL/robot errors or a bug, the node stays up
            resp.ok, resp.errors = False, [f"{type(exc).__name__}: {exc}"]
            return resp

    # ---- cameras and diagnostics -----------------------------------------------------------
    def _on_rgb(self, msg: Image | CompressedImage) -> None:
        self._frame_id = msg.header.frame_id or self._frame_id
        if self.camera.on_rgb(msg) is not None:
            self.publish_diagnostics()  # report a rejected frame at once, not at the next tick

    def _on_depth(self, msg: Image | CompressedImage) -> None:
        if self.camera.on_depth(msg) is not None:
            self.publish_diagnostics()

    def _on_info(self, msg: CameraInfo) -> None:
        if self.camera.on_info(msg) is not None:
            self.publish_diagnostics()

    def health(self) -> list[Health]:
        last = self._last_result
        planner_level = OK if self._lifecycle == "active" else WARN
        planner_msg = f"{self._lifecycle}{', busy' if self._busy else ''}"
        values = {"lifecycle": self._lifecycle, "busy": str(self._busy),
                  **{name: str(count) for name, count in self.counters.items()}}
        if last is not None:
            values.update(last_success=str(last.success), last_outcome=last.outcome, last_message=last.message[:200],
                          last_replans=str(last.replans))
            if last.outcome == "needs_clarification":  # not a fault: waiting for a person's answer
                planner_msg = f"waiting for an answer: {last.message[:160]}"
            elif not last.success and not last.canceled:
                planner_level, planner_msg = WARN, f"last goal failed: {last.message[:120]}"
        open_question = self.session.questions.question if self.session else None
        if open_question is not None:
            values.update(clarification_id=open_question.clarification_id, question=open_question.question[:500],
                          candidates=" | ".join(f"({c.number}) {c.activity}" for c in open_question.candidates))
        items = [Health("planner", planner_level, planner_msg, values)]
        err = self.session.last_backend_error if self.session else None
        spec = self.config.planner.backend if self.config else ""
        items.append(Health("llm endpoint", ERROR if err else OK, err or "ok", {"backend": spec}))
        items.append(self.camera.health())
        if self.monitor is not None:
            items.append(self._monitor_health(self.monitor))
        return items

    @staticmethod
    def _monitor_health(monitor: ExecutionMonitor) -> Health:
        last = monitor.last
        values = {name: str(count) for name, count in monitor.counts.items()}
        if last is not None:
            values.update(last_verdict=last.verdict.value, last_reason=last.reason[:200],
                          last_latency_s=f"{last.latency_s:.3f}")
        if monitor.detector is None:
            return Health("execution monitor", ERROR, f"no detector: {monitor.detector_error}"[:200], values)
        if last is not None and last.verdict is EffectVerdict.CONTRADICTED:
            return Health("execution monitor", WARN, f"last subgoal contradicted by the camera: {last.reason}"[:200],
                          values)
        return Health("execution monitor", OK, f"camera checks: {values['confirmed']} confirmed, "
                      f"{values['contradicted']} contradicted, {values['unobservable']} unobservable", values)

    def publish_diagnostics(self) -> None:
        self._diag_pub.publish(diagnostic_array(self.get_name(), self.get_clock().now().to_msg(),
                                                self.health()))
