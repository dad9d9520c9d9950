"""Faults injected while a request is in flight. After each one the figures say how the node
reported it (goal result + /diagnostics), whether the audit found an unverified subgoal, and
whether the next goal was served."""

from __future__ import annotations

import time
from typing import Any

from soakkit.rig import GoalRecord, Rig

OK, WARN, ERROR = 0, 1, 2
STATUS = {4: "SUCCEEDED", 5: "CANCELED", 6: "ABORTED"}


def wait_diagnostic(rig: Rig, item: str, levels: tuple[int, ...], timeout: float = 10.0) -> tuple[int, str] | None:
    """The first ``item`` diagnostic at one of ``levels`` within ``timeout`` (else the newest seen)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = rig.diagnostic(item)
        if seen is not None and seen[0] in levels:
            return seen
        time.sleep(0.1)
    return rig.diagnostic(item)


def brief(rec: GoalRecord) -> dict[str, Any]:
    out = {"status": STATUS.get(rec.status, rec.status), "message": rec.message[:160], "replans": rec.replans,
           "subgoals": rec.subgoals, "latency_s": round(rec.latency_s, 2), "violations": rec.violations}
    if rec.action_at_s is not None:
        out.update(action_at_s=rec.action_at_s, result_after_action_s=round(rec.latency_s - rec.action_at_s, 2),
                   subgoals_after_action=rec.subgoals_after_action)
    if rec.errors:
        out["errors"] = [e[:200] for e in rec.errors[:3]]
    return out


def _level(seen: tuple[int, str] | None) -> dict[str, Any] | None:
    return None if seen is None else {"level": ["OK", "WARN", "ERROR", "STALE"][min(seen[0], 3)], "message": seen[1][:160]}


def kill_llm_mid_request(rig: Rig, goal: dict[str, Any]) -> dict[str, Any]:
    """SIGKILL the llama.cpp server 0.5 s into the first LLM call of a goal; a goal while it is
    down; restart it on the same port; a goal after."""
    llm = rig.children["llm"]
    during = rig.goal(at_stage=("planning", 0.5, lambda _h: llm.kill()), **goal)
    diag = wait_diagnostic(rig, "llm endpoint", (ERROR,))
    down = rig.goal(**goal)
    restart_started = time.perf_counter()
    rig.start_llm()
    restart_s = time.perf_counter() - restart_started
    up = rig.goal(**goal)
    diag_up = wait_diagnostic(rig, "llm endpoint", (OK,))
    return {"fault": "llm server killed mid-request, restarted", "during": brief(during),
            "diagnostic": _level(diag), "while_down": brief(down), "server_restart_s": round(restart_s, 1),
            "after_restart": brief(up), "diagnostic_after_restart": _level(diag_up),
            "survived": rig.children["planner"].alive() and not (during.violations or down.violations
                                                                 or up.violations) and up.success}


def kill_sim_mid_subgoal(rig: Rig, goal: dict[str, Any], down_s: float = 1.0) -> dict[str, Any]:
    """SIGKILL the skill simulator while it executes a subgoal (1 s per subgoal), restart it
    ``down_s`` later (a fresh world from the latched problem); then a fresh goal."""
    sim = rig.children["sim"]

    def kill_and_restart(_handle: Any) -> None:
        sim.kill()
        time.sleep(down_s)
        sim.start()

    rig.set_sim(delay_s=1.0)
    during = rig.goal(at_stage=("executing", 0.3, kill_and_restart), **goal)
    diag = wait_diagnostic(rig, "planner", (WARN,), timeout=3.0)
    time.sleep(1.0)  # the restarted simulator discovers the planner
    after = rig.goal(**goal)
    return {"fault": "skill simulator killed mid-subgoal, restarted", "during": brief(during),
            "diagnostic": _level(diag), "next_goal": brief(after),
            "survived": rig.children["planner"].alive() and not (during.violations or after.violations)
            and after.success}


def silence_camera(rig: Rig, goal: dict[str, Any], stale_s: float = 2.5) -> dict[str, Any]:
    """Kill the camera simulator (the topics go silent), a goal, restart it, a goal once the
    camera diagnostic is OK again."""
    before = rig.goal(**goal)
    camera = rig.children["camera"]
    camera.kill()
    time.sleep(stale_s)
    silent = rig.goal(**goal)
    diag = wait_diagnostic(rig, "camera", (WARN, ERROR))
    camera.start()
    wait_diagnostic(rig, "camera", (OK,), timeout=120)
    after = rig.goal(**goal)
    return {"fault": "camera topics silent, camera restarted", "before": brief(before), "silent": brief(silent),
            "diagnostic": _level(diag), "after_restart": brief(after),
            "survived": rig.children["planner"].alive() and after.success and not silent.success
            and not (silent.violations or after.violations)}


def slow_skills(rig: Rig, delay_s: float) -> None:
    """Make the skill simulator take ``delay_s`` per subgoal (a goal to cancel or deactivate mid-way)."""
    if "sim" in rig.children:
        rig.set_sim(delay_s=delay_s)


def cancel_at_stages(rig: Rig, goal: dict[str, Any], stages: list[str], delay_s: float = 0.0,
                     skill_delay_s: float = 0.3) -> dict[str, Any]:
    """One goal cancelled at the first feedback of each stage, each followed by a goal that must
    be served. A stage that ends before the cancel lands may finish normally: the figures say so.
    While executing, each subgoal takes ``skill_delay_s``."""
    rows = {}
    for stage in stages:
        slow_skills(rig, skill_delay_s if stage == "executing" else 0.0)
        rec = rig.goal(at_stage=(stage, delay_s, lambda h: h.cancel_goal_async()), **goal)
        slow_skills(rig, 0.0)
        nxt = rig.goal(**goal)
        rows[stage] = {**brief(rec), "stage_seen": stage in rec.stages, "next_goal": STATUS.get(nxt.status),
                       "next_violations": nxt.violations}
    return {"fault": "goal cancelled at each feedback stage", "stages": rows,
            "survived": rig.children["planner"].alive() and all(
                r["next_goal"] == "SUCCEEDED" and not r["violations"] and r["status"] in ("CANCELED", "SUCCEEDED")
                for r in rows.values())}


def _cycle(rig: Rig, *names: str) -> list[bool]:
    from lifecycle_msgs.msg import Transition

    ids = {"deactivate": Transition.TRANSITION_DEACTIVATE, "cleanup": Transition.TRANSITION_CLEANUP,
           "configure": Transition.TRANSITION_CONFIGURE, "activate": Transition.TRANSITION_ACTIVATE}
    done = []
    for name in names:
        try:
            done.append(rig.client.transition(ids[name], timeout=120))
        except TimeoutError as e:  # a node that stops answering: say whether it lives and what it logged
            planner = rig.children["planner"]
            raise TimeoutError(f"{e} ({name}; planner process alive: {planner.alive()}); its log ends:\n"
                               + planner.log_tail(6000)) from e
    return done


def lifecycle_cycles(rig: Rig, goal: dict[str, Any], cycles: int, stage: str = "executing",
                     delay_s: float = 0.2, skill_delay_s: float = 0.3) -> dict[str, Any]:
    """``cycles`` deactivate/cleanup/configure/activate cycles while idle (process and DDS
    figures before and after), then a deactivate at ``stage`` of a running goal followed by
    cleanup/configure/activate and a goal."""
    first = rig.goal(**goal)  # both samples are taken after a goal: caches and pools are warm
    before = rig.sample()
    ok = all(all(_cycle(rig, "deactivate", "cleanup", "configure", "activate")) for _ in range(cycles))
    idle_goal = rig.goal(**goal)
    after = rig.sample()
    slow_skills(rig, skill_delay_s if stage == "executing" else 0.0)
    during = rig.goal(at_stage=(stage, delay_s, lambda _h: _cycle(rig, "deactivate")), **goal)
    slow_skills(rig, 0.0)
    recovered = all(_cycle(rig, "cleanup", "configure", "activate"))
    nxt = rig.goal(**goal)
    return {"fault": f"lifecycle cycles idle and at stage {stage!r}", "cycles": cycles, "transitions_ok": ok,
            "first_goal": first.success, "goal_after_idle_cycles": brief(idle_goal),
            "before": before, "after": after,
            "growth": {k: round(after[k] - before[k], 2) for k in ("rss_mb", "threads", "fds", "publishers",
                                                                     "subscriptions", "services", "clients")},
            "during_goal": brief(during), "reconfigured": recovered, "next_goal": brief(nxt),
            "survived": rig.children["planner"].alive() and ok and recovered and nxt.success
            and not during.violations and during.status != 4}
