"""``symplan replay``: a recorded ROS 2 bag + an instruction -> a verified BDDL task (and a plan).

The same path as the live node: camera messages -> :class:`~symplan_core.rosio.stream.CameraStream`
(decode, pair by stamp) -> perception's key-frame selector -> :func:`~symplan_core.perception.perceive`
-> verified BDDL; with a planner spec, the engine-verified plan from the same repair loop the node
uses. Everything is written to a temporary directory beside ``out`` and renamed into place at the
end, so ``out`` is either complete or absent. Every bag problem is one :class:`BagError` line that
names the bag, the topic and the offset.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from symplan_core.engine import compile_task
from symplan_core.planners.reference_backend import make_planner_backend
from symplan_core.prompts import build_prompt
from symplan_core.rosio.bags import (
    CAMERA_INFO,
    COMPRESSED,
    IMAGE,
    IMAGE_TYPES,
    BagError,
    BagReader,
    TopicInfo,
    describe_topics,
)
from symplan_core.rosio.images import DEPTH_ENCODINGS, ImageError, stamp_seconds
from symplan_core.rosio.stream import CameraStream, CameraStreamError
from symplan_core.rosio.sync import CLOCK_JUMP_S
from symplan_core.runtime.repair import repair_sample

TASK_FILE = "task.bddl"
REPORT_FILE = "report.json"
PLAN_FILE = "plan.txt"
PLAN_REPORT_FILE = "plan.json"
Progress = Callable[[int, int], None]  # (messages read, messages in the selected topics)


class ReplayConfig(BaseModel):
    """What ``symplan replay`` is asked to do (all CLI options)."""

    model_config = ConfigDict(extra="forbid")

    bag: Path
    instruction: str
    out: Path
    rgb_topic: str | None = None
    depth_topic: str | None = None
    info_topic: str | None = None
    detector: str = "fiducial"
    plan: str | None = Field(default=None, description="planner backend spec; None: no plan")
    repair_rounds: int = Field(default=2, ge=0)
    robot: Literal["single", "dual"] = "single"
    sync_tolerance_s: float = Field(default=0.05, ge=0)
    force: bool = Field(default=False, description="replace an existing output directory")
    overlay: Path | None = Field(default=None, description="directory for one overlay PNG per key frame")
    perception: dict[str, Any] = Field(default_factory=dict, description="PerceptionConfig fields")


@dataclass(frozen=True)
class CameraTopicChoice:
    rgb: str
    depth: str
    info: str

    def to_json(self) -> dict[str, str]:
        return {"rgb": self.rgb, "depth": self.depth, "info": self.info}


@dataclass
class ReplayOutcome:
    ok: bool
    report: dict[str, Any]
    out: Path | None = None
    reasons: list[str] = field(default_factory=list)


def choose_topics(topics: list[TopicInfo], rgb: str | None, depth: str | None, info: str | None,
                  bag: Path) -> CameraTopicChoice:
    """The colour, depth and camera-info topics: as given, else the only plausible one of each."""
    by_name = {t.name: t for t in topics}

    def given(name: str, kinds: tuple[str, ...], role: str) -> str:
        topic = by_name.get(name)
        if topic is None:
            raise BagError(bag, f"no {role} topic {name!r} in the bag; topics: {describe_topics(topics)}")
        if topic.msgtype not in kinds:
            raise BagError(bag, f"{role} topic has type {topic.msgtype}, expected {' or '.join(kinds)}", name)
        return name

    def guess(kinds: tuple[str, ...], role: str, want_depth: bool | None) -> str:
        found = [t for t in topics if t.msgtype in kinds and t.count > 0
                 and (want_depth is None or ("depth" in t.name.lower()) == want_depth)]
        if len(found) == 1:
            return found[0].name
        what = "none" if not found else "several: " + ", ".join(t.name for t in found)
        raise BagError(bag, f"cannot tell which topic is the {role} stream ({what}); pass it with "
                            f"--{'camera-info' if role == 'camera info' else role}; topics: {describe_topics(topics)}")

    return CameraTopicChoice(
        rgb=given(rgb, IMAGE_TYPES, "rgb") if rgb else guess(IMAGE_TYPES, "rgb", False),
        depth=given(depth, IMAGE_TYPES, "depth") if depth else guess(IMAGE_TYPES, "depth", True),
        info=given(info, (CAMERA_INFO,), "camera info") if info else guess((CAMERA_INFO,), "camera info", None),
    )


def read_key_frames(reader: BagReader, topics: CameraTopicChoice, tolerance_s: float, keyframes: Any,
                    progress: Progress | None = None) -> tuple[list[Any], Any, dict[str, Any]]:
    """Stream the camera topics through :class:`CameraStream` into a key-frame selector.

    Returns (key frames, intrinsics, statistics)."""
    from symplan_core.perception import KeyFrameSelector

    selector = KeyFrameSelector(keyframes)
    stream = CameraStream(tolerance_s, with_depth=True)
    counts = {t.name: t.count for t in reader.topics()}
    total = sum(counts.get(name, 0) for name in (topics.rgb, topics.depth, topics.info))
    last_stamp: dict[str, float] = {}
    read = 0
    for message in reader.messages([topics.rgb, topics.depth, topics.info]):
        read += 1
        if progress is not None:
            progress(read, total)
        stamp = stamp_seconds(message.msg)
        previous = last_stamp.get(message.topic)
        if previous is not None and stamp < previous - CLOCK_JUMP_S:
            raise BagError(reader.path, f"clock jump: header stamp went back from {previous:.3f} s to {stamp:.3f} s "
                                        "(split the bag at the jump)", message.topic, message.offset)
        last_stamp[message.topic] = stamp
        try:
            if message.topic == topics.info:
                stream.on_info(message.msg)
                continue
            if message.topic == topics.depth:
                if message.msgtype == IMAGE and message.msg.encoding not in DEPTH_ENCODINGS:
                    raise ImageError("unsupported_encoding", f"depth encoding {message.msg.encoding!r} is not one of "
                                                             f"{', '.join(DEPTH_ENCODINGS)}")
                frames = stream.on_depth(message.msg)
            else:
                frames = stream.on_color(message.msg)
        except (ImageError, CameraStreamError) as exc:
            raise BagError(reader.path, str(exc), message.topic, message.offset) from None
        for frame in frames:
            selector.push(frame)
    sync = stream.sync.stats
    stats = {"messages": read, "color": stream.stats.color, "depth": stream.stats.depth,
             "frames": stream.stats.frames, "unmatched_color": sync.unmatched_color,
             "unmatched_depth": sync.unmatched_depth}
    if read == 0:
        raise BagError(reader.path, "the camera topics hold no messages")
    if stream.intrinsics is None:
        raise BagError(reader.path, "no CameraInfo message: 3-D lifting needs the intrinsics", topics.info)
    if stream.stats.frames == 0:
        raise BagError(reader.path, f"no colour frame had a depth frame within {tolerance_s:g} s "
                                    f"({stream.stats.color} colour, {stream.stats.depth} depth messages)",
                       topics.depth)
    return selector.key_frames(), stream.intrinsics, stats


def _plan(problem: Any, spec: str, robot: str, rounds: int) -> tuple[str | None, dict[str, Any]]:
    """The engine-verified plan for an accepted problem (the node's repair loop); (response, report)."""
    task = compile_task(problem, robot=robot)
    with make_planner_backend(spec) as backend:
        trace = repair_sample(backend, task, build_prompt(task), None, None, rounds, prompt_id="replay",
                              stop_on_backend_error=True)
    accepted = trace.accepted
    report = {"planner": spec, "robot": robot, "strict_pass": accepted is not None,
              "strict_pass_at_round": trace.strict_pass_at_round,
              "attempts": [a.to_json() for a in trace.attempts]}
    return (accepted.completion.text if accepted else None), report


def _write_tree(out: Path, files: dict[str, str], force: bool) -> None:
    """Write ``files`` into a fresh directory and rename it to ``out`` (replacing it when forced)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name, text in files.items():
            with open(staging / name, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        if out.exists():
            if not force:
                raise FileExistsError(f"{out} exists; pass --force to replace it")
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.replace(out, old / out.name)
            os.replace(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def replay(config: ReplayConfig, progress: Progress | None = None) -> ReplayOutcome:
    """Run the whole replay; raises BagError / PerceptionError / FileExistsError on bad input."""
    from symplan_core.perception import PerceptionConfig, make_detector, perceive, sidecar_path

    if config.out.exists() and not config.force:
        raise FileExistsError(f"{config.out} exists; pass --force to replace it")
    perception = PerceptionConfig(**{"robot": config.robot, **config.perception})
    detector = make_detector(config.detector)
    started = time.perf_counter()
    with BagReader(config.bag) as reader:
        if reader.message_count == 0:
            raise BagError(reader.path, "the bag is empty")
        topics = choose_topics(reader.topics(), config.rgb_topic, config.depth_topic, config.info_topic,
                               reader.path)
        frames, intrinsics, stats = read_key_frames(reader, topics, config.sync_tolerance_s,
                                                    perception.keyframes, progress)
    read_s = time.perf_counter() - started
    result = perceive(frames, config.instruction, detector, intrinsics, perception)
    report: dict[str, Any] = {
        "bag": str(config.bag), "instruction": config.instruction, "detector": config.detector,
        "topics": topics.to_json(), "stream": stats, "key_frames": [f.label for f in frames],
        "intrinsics": intrinsics.to_json(), "accepted": result.accepted,
        "verdicts": [v.to_json() for v in result.verdicts], "reasons": result.reasons,
        "timings_s": {"read": round(read_s, 4), "perceive": round(time.perf_counter() - started - read_s, 4)},
        "frames_per_s": round(stats["frames"] / read_s, 2) if read_s > 0 else None,
    }
    if config.overlay is not None:  # drawn for a rejected draft too: that is when people need to look
        from symplan_core.perception.overlay import write_overlays

        report["overlays"] = [str(p) for p in write_overlays(frames, result.provenance, config.overlay,
                                                             result.accepted)]
    if not result.accepted or result.problem is None or result.bddl is None:
        return ReplayOutcome(False, report, None, result.reasons)
    files = {TASK_FILE: result.bddl, sidecar_path(Path(TASK_FILE)).name: json.dumps(result.provenance, indent=2) + "\n"}
    reasons: list[str] = []
    if config.plan:
        response, plan_report = _plan(result.problem, config.plan, config.robot, config.repair_rounds)
        report["plan"] = {k: plan_report[k] for k in ("planner", "robot", "strict_pass", "strict_pass_at_round")}
        files[PLAN_REPORT_FILE] = json.dumps(plan_report, indent=2) + "\n"
        if response is None:
            reasons.append(f"plan: no answer from {config.plan} strict-passed the engine")
        else:
            files[PLAN_FILE] = response if response.endswith("\n") else response + "\n"
    report["timings_s"]["total"] = round(time.perf_counter() - started, 4)
    report["outputs"] = sorted([*files, REPORT_FILE])
    files[REPORT_FILE] = json.dumps(report, indent=2) + "\n"
    _write_tree(config.out, files, config.force)
    return ReplayOutcome(not reasons, report, config.out, reasons)


__all__ = ["COMPRESSED", "BagError", "CameraTopicChoice", "ReplayConfig", "ReplayOutcome", "choose_topics",
           "read_key_frames", "replay"]
