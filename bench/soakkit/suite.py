"""The soak runs: each builds its own rig (processes, DDS domain), runs phases, stops everything
and returns its figures. bench/bench_soak.py runs them long; tests/soak/test_soak_short.py short."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from soakkit import faults, fuzz, phases
from soakkit.rig import LARGE_FRAMES, Rig, RigConfig

WOOD = {"task_id": "bringing_in_wood", "benchmark": "b100"}
CAMERA_TASK, CAMERA_INSTRUCTION = "b1k/attach_a_camera_to_a_tripod", "attach the camera to the tripod"
SKILL_TIMEOUT_S = 10.0  # the simulator answers in milliseconds: a timeout here is a fault, not load


def pick_tasks(b100: int, b1k: int, seed: int = 0) -> list[tuple[str, str]]:
    """``b100`` + ``b1k`` real task ids, drawn with a fixed seed (bringing_in_wood always first)."""
    from symplan_core.tasks import list_tasks

    rng = random.Random(seed)
    picks = [("b100", "bringing_in_wood")]
    for bench, n in (("b100", b100), ("b1k", b1k)):
        names = [t for t in list_tasks(bench) if (bench, t) not in picks]
        picks += [(bench, t) for t in rng.sample(names, min(n, len(names)))]
    return picks[:max(1, b100 + b1k)]


def _finish(rig: Rig, result: dict[str, Any]) -> dict[str, Any]:
    alive = rig.children["planner"].alive() if "planner" in rig.children else False
    codes = rig.close()
    log = rig.children["planner"].log_tail(200_000) if "planner" in rig.children else ""
    result.update(planner_alive_at_end=alive, exit_codes=codes, planner_tracebacks=log.count("Traceback"))
    return result


def endurance_reference(out: Path, goals: int, b100: int, b1k: int, fail_every: int = 23,
                        sample_every: int = 50, seed: int = 0, progress: Any = None) -> dict[str, Any]:
    """Reference backend over varied real tasks, both robots, every 5th goal execute=false, the
    simulator failing every ``fail_every``-th subgoal (replans)."""
    rig = Rig(RigConfig(params={"execution.skill_timeout_s": SKILL_TIMEOUT_S}, sim={"fail_every": fail_every}),
              out / "endurance_reference").start()
    result: dict[str, Any] = {}
    try:
        pool, warm = phases.task_pool(rig, pick_tasks(b100, b1k, seed))
        result = phases.endurance(rig, pool, goals, sample_every, progress=progress)
        result["warmup_pass"] = warm
        result["simulator_fail_every"] = fail_every
    finally:
        _finish(rig, result)
    return result


def llm_soak(out: Path, goals: int, sample_every: int = 5, cycles: int = 3, cancel_stages: bool = True,
             repair_rounds: int = 1, progress: Any = None) -> dict[str, Any]:
    """The OpenAI backend against a real llama.cpp server serving SmolLM2 (its plans fail the
    engine, so goals are served by the verified reference fallback: that path is measured), then
    the LLM faults: the server killed mid-request and restarted, cancels at the LLM stages, a
    deactivate while an LLM call is in flight."""
    rig = Rig(RigConfig(params={"planner.max_tokens": 48, "planner.repair_rounds": repair_rounds,
                                "execution.skill_timeout_s": SKILL_TIMEOUT_S}, llm=True), out / "llm").start()
    result: dict[str, Any] = {}
    try:
        pool = [dict(WOOD, robot="single"), {"task_id": "make_a_sandwich", "benchmark": "b1k", "robot": "dual"}]
        if goals:
            result["endurance"] = phases.endurance(rig, pool, goals, sample_every, dry_every=0,
                                                   warmup_goals=min(2, goals), progress=progress)
        result["kill_server"] = faults.kill_llm_mid_request(rig, WOOD)
        if cancel_stages:
            result["cancel"] = faults.cancel_at_stages(rig, WOOD, ["planning", "repairing"])
        if cycles:
            result["lifecycle"] = faults.lifecycle_cycles(rig, WOOD, cycles, stage="planning", delay_s=0.5)
    finally:
        _finish(rig, result)
    return result


def camera_soak(out: Path, goals: int, sample_every: int = 10, large_frames: bool = True,
                faults_too: bool = True, progress: Any = None) -> dict[str, Any]:
    """``scene.source: camera`` with the camera simulator streaming a rendered B-1K scene (5 Hz,
    640x480 rgb8 + 16UC1): frame delivery to the planner, goals that perceive, verify, plan and
    execute; then the camera goes silent and comes back. ``large_frames``: the planner and the
    camera use config/fastdds_large_frames.xml (else Fast DDS's default transports)."""
    profile = str(LARGE_FRAMES) if large_frames else ""
    rig = Rig(RigConfig(params={"execution.skill_timeout_s": SKILL_TIMEOUT_S}, camera_task=CAMERA_TASK,
                        fastdds_profile=profile), out / ("camera" if large_frames else "camera_default_transport")).start()
    goal = {"instruction": CAMERA_INSTRUCTION}
    result: dict[str, Any] = {"fastdds_profile": profile or "Fast DDS defaults", "camera_rate_hz": 5.0}
    try:
        faults.wait_diagnostic(rig, "camera", (faults.OK,), timeout=120)  # frames are arriving
        result["delivery"] = phases.camera_delivery(rig)
        if goals:
            # Warm-up: the frame buffer and perception's first allocations settle in the first goals.
            result["endurance"] = phases.endurance(rig, [goal], goals, sample_every, dry_every=0,
                                                   warmup_goals=min(25, goals), progress=progress)
        if faults_too:
            result["silence"] = faults.silence_camera(rig, goal)
            result["cancel"] = faults.cancel_at_stages(rig, goal, ["perceiving", "checking_scene"])
    finally:
        _finish(rig, result)
    return result


def concurrency_run(out: Path, clients: int, rate_hz: float, skill_delay_s: float = 0.5) -> dict[str, Any]:
    """Verify calls while a goal executes, each subgoal taking ``skill_delay_s`` in the simulator
    (bringing_in_wood: 12 subgoals, so the calls overlap about 12 x that)."""
    rig = Rig(RigConfig(params={"execution.skill_timeout_s": SKILL_TIMEOUT_S}), out / "concurrency").start()
    result: dict[str, Any] = {}
    try:
        cases = phases.verify_cases(rig, out / "concurrency" / "cases")
        result = phases.concurrency(rig, cases, dict(WOOD, robot="single"), clients=clients, rate_hz=rate_hz,
                                    sim_delay_s=skill_delay_s)
        result["skill_delay_s"] = skill_delay_s
        result["distinct_requests"] = len(cases)
    finally:
        _finish(rig, result)
    return result


def faults_reference(out: Path, cycles: int) -> dict[str, Any]:
    """Cancel at each stage, lifecycle cycles idle and during execution, the simulator killed
    mid-subgoal (reference backend, so the stages before execution are quick)."""
    rig = Rig(RigConfig(params={"execution.skill_timeout_s": 3.0}), out / "faults").start()
    result: dict[str, Any] = {}
    try:
        result["cancel"] = faults.cancel_at_stages(rig, WOOD, ["scene", "bddl_check", "planning", "verifying",
                                                               "executing"])
        result["lifecycle"] = faults.lifecycle_cycles(rig, WOOD, cycles, stage="executing", delay_s=0.2)
        result["kill_simulator"] = faults.kill_sim_mid_subgoal(rig, WOOD)
    finally:
        _finish(rig, result)
    return result


def fuzz_run(out: Path, cases: int, seed: int = 0, topic_messages: int = 200,
             max_image: int = 4 * 2**20) -> dict[str, Any]:
    """``max_image``: the node's camera.max_image_bytes; the oversized test image is just above it
    and goes over best-effort QoS with Fast DDS's default transports, which lose most multi-MB
    samples on a busy machine (docs/reliability.md), so a short run uses a smaller limit."""
    from symplan_core.tasks import problem_path

    max_bddl = 65536
    real = problem_path(WOOD["task_id"], WOOD["benchmark"])[1].read_text()
    files = fuzz.goal_files(out / "fuzz" / "goal_files", real, max_bddl)
    rig = Rig(RigConfig(params={"scene.goal_file_dirs": str(out / "fuzz" / "goal_files"),
                                "limits.max_bddl_bytes": max_bddl, "camera.max_image_bytes": max_image,
                                "execution.skill_timeout_s": SKILL_TIMEOUT_S}), out / "fuzz").start()
    result: dict[str, Any] = {}
    try:
        result["requests"] = fuzz.fuzz_requests(rig, fuzz.make_cases(cases, seed, real, files, max_bddl))
        result["topics"] = fuzz.fuzz_topics(rig, max_image, messages=topic_messages, seed=seed)
        result["goal_after_fuzz"] = faults.brief(rig.goal(**WOOD))
    finally:
        _finish(rig, result)
    return result


def machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}
