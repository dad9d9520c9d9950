"""Client-side helpers: drive a planner node over DDS from Python (demo, bench, tests, tools).

`PlannerClient` wraps the node's lifecycle services, the Plan action and the VerifyPlan
service with blocking calls; its node must be spun by another thread (`BackgroundExecutor`,
re-exported here from `symplan_ros.plumbing`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.action import ActionClient
from rclpy.client import Client
from rclpy.node import Node
from rclpy.task import Future
from symplan_interfaces.action import Plan
from symplan_interfaces.msg import Subgoal
from symplan_interfaces.srv import VerifyPlan
from symplan_ros.plumbing import RELIABLE, BackgroundExecutor

from symplan_tools.waits import WAIT_S, wait_future, wait_until

__all__ = ["WAIT_S", "BackgroundExecutor", "GoalClient", "PlannerClient", "answer_goal", "call_resending",
           "wait_future", "wait_until"]


#: Where each lifecycle transition leaves a node that took it.
_TRANSITION_GOAL = {Transition.TRANSITION_CONFIGURE: "inactive", Transition.TRANSITION_CLEANUP: "unconfigured",
                    Transition.TRANSITION_ACTIVATE: "active", Transition.TRANSITION_DEACTIVATE: "inactive"}
RESEND_AFTER_S = 15.0


class GoalClient(ActionClient):
    """An ActionClient that is safe to create on a node already spinning in another thread, and
    whose ``send_goal_async`` registers the goal before its response can arrive. Two rclpy 9.1.2
    (the PyPI wheel) races, both seen on a loaded 2-core machine:

    - Its constructor registers the client with the node's executor before it creates its
      ``_lock``; an executor thread that polls the client in between dies of AttributeError, and
      with it every callback of every node it spun (a lifecycle configure then got no answer).
      Here the lock exists before the constructor runs, and the constructor's late assignment
      is ignored.
    - ``send_goal_async`` registers the request's future under the lock, then, after it, a second
      future under the same sequence number (a half-applied backport of ros2/rclpy#1308 for
      ros2/rclpy#1123). A response taken by the executor thread in between completes the first
      future and the caller waits on the second forever, or the second's done-callback removes a
      future never added (``ValueError: list.remove(x)``). Here the feedback callback is
      registered before the request goes out and everything else under the lock, so the one
      returned future is the one the response completes.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._early_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    @property
    def _lock(self) -> threading.Lock:
        return self._early_lock

    @_lock.setter
    def _lock(self, _late: threading.Lock) -> None:
        pass  # rclpy assigns it after the executor can already use the client: keep the first

    def send_goal_async(self, goal: Any, feedback_callback: Callable[[Any], None] | None = None,
                        goal_uuid: Any = None) -> Future:
        if not isinstance(goal, self._action_type.Goal):
            raise TypeError(f"expected {self._action_type.Goal}, got {type(goal)}")
        request = self._action_type.Impl.SendGoalService.Request()
        request.goal_id = self._generate_random_uuid() if goal_uuid is None else goal_uuid
        request.goal = goal
        if feedback_callback is not None:
            self._feedback_callbacks[bytes(request.goal_id.uuid)] = feedback_callback
        future: Future = Future()
        with self._lock:  # the executor takes responses under this lock
            sequence_number = self._client_handle.send_goal_request(request)
            if sequence_number in self._pending_goal_requests:
                raise RuntimeError(f"sequence {sequence_number} conflicts with a pending goal request")
            self._pending_goal_requests[sequence_number] = future
            self._goal_sequence_number_to_goal_id[sequence_number] = request.goal_id
            future.add_done_callback(self._remove_pending_goal_request)
            self.add_future(future)
        return future


class PlannerClient:
    """Drives one planner node the way an operator's tools would: lifecycle, Plan, VerifyPlan.

    Also records the node's published subgoals and all /diagnostics messages it sees.
    """

    def __init__(self, node: Node, planner: str = "/symplan_planner",
                 on_subgoal: Callable[[Subgoal], None] | None = None, resend_after_s: float = RESEND_AFTER_S) -> None:
        self.node = node
        self.resend_after_s = resend_after_s  # a service request without an answer is sent again
        self.plan_client = GoalClient(node, Plan, f"{planner}/plan")
        # rclpy's create_client cannot name the request/response types it returns.
        self.change_state: Client[Any, Any] = node.create_client(ChangeState, f"{planner}/change_state")
        self.get_state: Client[Any, Any] = node.create_client(GetState, f"{planner}/get_state")
        self.verify: Client[Any, Any] = node.create_client(VerifyPlan, f"{planner}/verify_plan")
        self.subgoals: list[Subgoal] = []
        self.diagnostics: deque[DiagnosticArray] = deque(maxlen=2000)  # the newest (a long run's client stays small)
        self._on_subgoal = on_subgoal
        node.create_subscription(Subgoal, f"{planner}/subgoal", self._record_subgoal, RELIABLE)
        node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: self.diagnostics.append(m), 50)

    def _record_subgoal(self, msg: Subgoal) -> None:
        if self._on_subgoal is not None:
            self._on_subgoal(msg)
        self.subgoals.append(msg)

    def _call(self, client: Any, make_request: Callable[[], Any], timeout: float) -> tuple[Any, int]:
        """(the first answer, requests sent) of one of the node's services (see `call_resending`)."""
        if not client.wait_for_service(timeout_sec=timeout):
            raise TimeoutError(f"no {client.srv_name.rsplit('/', 1)[-1]} service")
        return call_resending(client, make_request, timeout, self.resend_after_s)

    def state(self, timeout: float = WAIT_S) -> str:
        return self._call(self.get_state, GetState.Request, timeout)[0].current_state.label

    def transition(self, transition_id: int, timeout: float = WAIT_S) -> bool:
        """Request a lifecycle transition; True once the node is in the transition's goal state.

        A request that got no answer is sent again (see `call_resending`); a second request
        of one transition fails once the first has moved the node on, so a failure is settled by
        asking the node for its state."""

        def request() -> ChangeState.Request:
            req = ChangeState.Request()
            req.transition.id = transition_id
            return req

        response, sent = self._call(self.change_state, request, timeout)
        if response.success:
            return True
        return sent > 1 and self.state(timeout) == _TRANSITION_GOAL.get(transition_id)

    def send(self, goal: Plan.Goal, on_feedback: Callable[[Plan.Feedback], None] | None = None,
             timeout: float = WAIT_S) -> Any:
        """Send a goal; return its goal handle if accepted, else None."""
        if not self.plan_client.wait_for_server(timeout_sec=timeout):
            raise TimeoutError("no Plan action server")
        callback = (lambda m: on_feedback(m.feedback)) if on_feedback is not None else None
        handle = wait_future(self.plan_client.send_goal_async(goal, feedback_callback=callback), timeout)
        return handle if handle.accepted else None

    def run(self, goal: Plan.Goal, on_feedback: Callable[[Plan.Feedback], None] | None = None,
            timeout: float = WAIT_S) -> tuple[Plan.Result, int]:
        """Send a goal and wait for (result, GoalStatus); raises if the goal is rejected."""
        handle = self.send(goal, on_feedback, timeout)
        if handle is None:
            raise RuntimeError("Plan goal rejected (planner busy or not active)")
        res = wait_future(handle.get_result_async(), timeout)
        return res.result, res.status

    def call_verify(self, timeout: float = WAIT_S, **fields: Any) -> VerifyPlan.Response:
        return self._call(self.verify, lambda: VerifyPlan.Request(**fields), timeout)[0]


def answer_goal(asked: Plan.Result, answer: str | int, execute: bool = True, robot: str = "") -> Plan.Goal:
    """The follow-up goal answering the question a ``needs_clarification`` result asked: ``answer`` is a
    candidate's number or activity (``asked.candidates``). Raises ValueError for a result that asked nothing."""
    if asked.outcome not in (Plan.Result.OUTCOME_NEEDS_CLARIFICATION, Plan.Result.OUTCOME_ANSWER_REJECTED) \
            or not asked.clarification_id:
        raise ValueError(f"the result asked no question (outcome {asked.outcome!r})")
    return Plan.Goal(answer=str(answer), clarification_id=asked.clarification_id, execute=execute, robot=robot)


def call_resending(client: Any, make_request: Callable[[], Any], timeout: float,
                    resend_after: float = RESEND_AFTER_S) -> tuple[Any, int]:
    """Call a service, sending the request again each ``resend_after`` seconds without an answer;
    return (the first answer, the number of requests sent).

    A guard, not a fix for a failure seen here: rmw_fastrtps drops a response that is ready
    before the server has matched the client's response reader (it waits 100 ms for that), so on
    a loaded machine a request can be served and its answer never arrive, and the caller would
    wait out its whole timeout. (The unanswered configure once seen in a fresh-clone `make test`
    is explained by the executor death `GoalClient` prevents.)
    """
    deadline = time.monotonic() + timeout
    futures = [client.call_async(make_request())]
    next_send = time.monotonic() + resend_after
    try:
        while True:
            for future in futures:
                if future.done():
                    return future.result(), len(futures)
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError(f"{client.srv_name}: no answer to {len(futures)} request(s) within {timeout}s")
            if now >= next_send:
                futures.append(client.call_async(make_request()))
                next_send = now + resend_after
            time.sleep(0.01)
    finally:
        for future in futures:
            if not future.done():  # forget it: the client would keep it pending forever
                client.remove_pending_request(future)
