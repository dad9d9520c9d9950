"""Bad messages: fuzzed Plan goals and VerifyPlan requests, garbage on the subscribed topics.

Every case must end in a typed failure (a Plan result naming the stage that refused it, a
VerifyPlan response with ok=false and its reasons) or a normal answer, within bounded time, with
the planner process alive. Cases are drawn from a seeded generator, so a run is reproducible.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soakkit.rig import PLANNER, Rig

#: What a refused Plan goal's message starts with (the stage that refused it).
TYPED_PREFIXES = ("request:", "scene:", "bddl_check:", "no plan strict-passed", "replan limit")
#: Exception names that mean a bug reached the client instead of a typed error.
UNTYPED_MARKERS = ("internal error", "RecursionError", "Traceback", "KeyError", "IndexError", "AttributeError",
                   "TypeError", "AssertionError", "MemoryError")

HOSTILE_TASK_IDS = [
    "no_such_task_xyz", "b100/no_such_task", "b999/bringing_in_wood", "../../../../etc/passwd",
    "/etc/passwd", "/etc/hostname.bddl", "b100/../../../etc/passwd", "b100/../b1k/make_a_sandwich",
    "~/.bashrc.bddl", "/proc/self/environ.bddl", "/dev/zero.bddl", "bringing_in_wood\x00.bddl",
    "bringing in wood", "-rf", "$(id)", "`id`", "%s%s%s%n", "a" * 300, "ü" * 100, "*", "?", ".bddl", "b100/",
]


@dataclass
class Case:
    kind: str
    target: str  # "plan" or "verify"
    fields: dict[str, Any] = field(default_factory=dict)


def _garbage(rng: random.Random, n: int) -> str:
    """Random bytes as text (NUL, control characters, Latin-1: what a broken client sends)."""
    return rng.randbytes(n).decode("latin-1")


def _unicode(rng: random.Random, n: int) -> str:
    points = [rng.choice((rng.randrange(0x20, 0x7F), rng.randrange(0xA0, 0xD7FF), rng.randrange(0xE000, 0x10FFFF),
                          0x202E, 0x200B, 0xFEFF, 0x0301)) for _ in range(n)]
    return "".join(map(chr, points))


def _mutate(rng: random.Random, text: str) -> str:
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(tokens))
        op = rng.choice(("drop", "dup", "swap", "paren", "number", "junk"))
        if op == "drop":
            del tokens[i]
        elif op == "dup":
            tokens[i:i] = tokens[i:i + rng.randint(1, 40)]
        elif op == "swap":
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == "paren":
            tokens.insert(i, rng.choice("()"))
        elif op == "number":
            tokens.insert(i, str(rng.choice((-1, 0, 10**30, 2**63))))
        else:
            tokens.insert(i, _unicode(rng, rng.randint(1, 12)))
    return " ".join(tokens)


def _deep(base: str, depth: int) -> str:
    atom = "(onfloor plywood.n.01_1 floor.n.01_1)"
    return base[:base.index("(:goal")] + "(:goal " + "(not " * depth + atom + ")" * depth + "))"


def padded(base: str, target_bytes: int) -> str:
    """A valid problem grown to about ``target_bytes`` with extra objects and facts."""
    extra = max(0, (target_bytes - len(base)) // 60)
    objects = " ".join(f"plywood.n.01_{i}" for i in range(100, 100 + extra))
    facts = " ".join(f"(onfloor plywood.n.01_{i} floor.n.01_1)" for i in range(100, 100 + extra))
    text = base.replace("(:objects", f"(:objects {objects} - plywood.n.01", 1)
    return text.replace("(:init", f"(:init {facts}", 1)


def goal_files(directory: Path, real: str, max_bytes: int) -> dict[str, str]:
    """Files a request may name (inside scene.goal_file_dirs), good and hostile."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {"valid.bddl": real, "big.bddl": real + " " * (max_bytes + 1), "binary.bddl": None}
    for name, text in files.items():
        if text is not None:
            (directory / name).write_text(text)
    (directory / "binary.bddl").write_bytes(b"\xff\xfe\x00" + os.urandom(512))
    fifo = directory / "fifo.bddl"
    if not fifo.exists():
        os.mkfifo(fifo)  # opening it for reading would block forever
    link = directory / "escape.bddl"
    if not link.is_symlink():
        link.symlink_to("/etc/hostname")
    return {name: str(directory / name) for name in ("valid.bddl", "big.bddl", "binary.bddl", "fifo.bddl",
                                                        "escape.bddl")}


def make_cases(count: int, seed: int, real_bddl: str, files: dict[str, str], max_bddl_bytes: int) -> list[Case]:
    rng = random.Random(seed)
    fixed = [
        Case("huge_bddl", "plan", {"bddl": "(" * (max_bddl_bytes + 1)}),
        Case("huge_bddl", "verify", {"bddl": " " * (4 * 2**20), "plan_text": "navigate(a)"}),
        Case("huge_plan", "verify", {"task_id": "bringing_in_wood", "benchmark": "b100", "plan_text": "x" * 2**20}),
        Case("near_limit_bddl", "plan", {"bddl": padded(real_bddl, max_bddl_bytes - 4096), "execute": False}),
        Case("near_limit_bddl", "verify", {"bddl": padded(real_bddl, max_bddl_bytes - 4096),
                                           "plan_text": "navigate(plywood_1)\ngrasp(plywood_1)"}),
        *(Case("deep_nesting", target, {"bddl": _deep(real_bddl, depth), "plan_text": "navigate(plywood_1)"})
          for depth in (101, 1000, 40000) for target in ("plan", "verify")),
        *(Case("goal_file", target, {"task_id": path, "plan_text": "navigate(plywood_1)", "execute": False})
          for path in files.values() for target in ("plan", "verify")),
        *(Case("task_id", rng.choice(("plan", "verify")), {"task_id": t, "plan_text": "navigate(a)", "execute": False})
          for t in HOSTILE_TASK_IDS),
        Case("robot", "plan", {"task_id": "bringing_in_wood", "benchmark": "b100", "robot": "triple",
                               "execute": False}),
        Case("robot", "verify", {"task_id": "bringing_in_wood", "benchmark": "b100", "robot": _garbage(rng, 40),
                                 "plan_text": "navigate(plywood_1)"}),
        Case("plan_text", "verify", {"task_id": "bringing_in_wood", "benchmark": "b100",
                                     "plan_text": "navigate(" * 5000 + "plywood_1" + ")" * 5000}),
        Case("plan_text", "verify", {"task_id": "bringing_in_wood", "benchmark": "b100",
                                     "plan_text": "navigate(plywood_1)\n" * 3000}),
        Case("plan_text", "verify", {"task_id": "bringing_in_wood", "benchmark": "b100",
                                     "plan_text": "__import__('os').system('id')\nexec('x')\neval('1')"}),
    ]
    cases = list(fixed)
    while len(cases) < count:
        kind = rng.choice(("garbage", "unicode", "mutated", "mutated", "mutated", "field_garbage"))
        target = rng.choice(("plan", "verify"))
        if kind == "garbage":
            fields = {"bddl": _garbage(rng, rng.randint(1, 4096)), "plan_text": _garbage(rng, rng.randint(0, 512))}
        elif kind == "unicode":
            fields = {"bddl": _unicode(rng, rng.randint(1, 2000)), "plan_text": _unicode(rng, rng.randint(0, 300)),
                      "instruction": _unicode(rng, rng.randint(0, 300))}
        elif kind == "mutated":
            fields = {"bddl": _mutate(rng, real_bddl), "plan_text": "navigate(plywood_1)\ngrasp(plywood_1)"}
        else:
            fields = {"task_id": rng.choice(("bringing_in_wood", _garbage(rng, 30))),
                      "benchmark": rng.choice(("b100", "", _garbage(rng, 8))), "instruction": _garbage(rng, 200),
                      "robot": rng.choice(("single", "dual", "", _garbage(rng, 8))),
                      "plan_text": _garbage(rng, 200)}
        fields["execute"] = rng.random() < 0.3
        cases.append(Case(kind, target, fields))
    return cases[:max(count, len(fixed))]


def run_case(rig: Rig, case: Case, timeout: float = 120.0) -> tuple[str, float, str]:
    """(outcome, seconds, detail): outcome is ok, typed, untyped or crash."""
    started = time.perf_counter()
    if case.target == "plan":
        fields = {k: v for k, v in case.fields.items() if k in ("bddl", "task_id", "benchmark", "robot",
                                                                  "instruction", "execute")}
        rec = rig.goal(timeout=timeout, **fields)
        text = rec.message + " " + " ".join(rec.errors)
        if rec.violations:
            outcome, detail = "untyped", f"audit: {rec.violations[:2]}"
        elif rec.success:
            outcome, detail = "ok", rec.message
        elif any(marker in text for marker in UNTYPED_MARKERS) or not rec.message.startswith(TYPED_PREFIXES):
            outcome, detail = "untyped", text[:300]
        else:
            outcome, detail = "typed", rec.message[:160]
    else:
        fields = {k: v for k, v in case.fields.items() if k in ("bddl", "task_id", "benchmark", "robot", "plan_text")}
        resp = rig.client.call_verify(timeout=timeout, **fields)
        text = " ".join(resp.errors)
        if any(marker in text for marker in UNTYPED_MARKERS):
            outcome, detail = "untyped", text[:300]
        elif resp.ok:
            outcome, detail = "ok", f"strict_pass={resp.strict_pass}"
        else:
            outcome, detail = ("typed", text[:160]) if resp.errors else ("untyped", "ok=false without a reason")
    seconds = time.perf_counter() - started
    if not rig.children["planner"].alive():
        outcome = "crash"
    return outcome, seconds, detail


def fuzz_requests(rig: Rig, cases: list[Case], sample_every: int = 25) -> dict[str, Any]:
    outcomes: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    slowest: list[tuple[float, str, str]] = []
    findings: list[dict[str, str]] = []
    rss = [rig.sample()["rss_mb"]]
    for i, case in enumerate(cases):
        outcome, seconds, detail = run_case(rig, case)
        outcomes[outcome] += 1
        by_kind.setdefault(case.kind, Counter())[outcome] += 1
        slowest = sorted([*slowest, (seconds, f"{case.kind}/{case.target}", detail[:100])], reverse=True)[:3]
        if outcome in ("untyped", "crash"):
            findings.append({"kind": case.kind, "target": case.target, "outcome": outcome, "detail": detail})
        if outcome == "crash":
            break
        if (i + 1) % sample_every == 0:
            rss.append(rig.sample()["rss_mb"])
    rss.append(rig.sample()["rss_mb"] if rig.children["planner"].alive() else float("nan"))
    return {"cases": sum(outcomes.values()), "outcomes": dict(outcomes),
            "by_kind": {k: dict(v) for k, v in by_kind.items()}, "findings": findings[:20],
            "slowest": [{"seconds": round(s, 2), "case": c, "detail": d} for s, c, d in slowest],
            "rss_mb": {"start": rss[0], "max": max(rss), "end": rss[-1]},
            "planner_alive": rig.children["planner"].alive()}


def _settle(read: Any, quiet_s: float = 3.0, timeout: float = 120.0) -> None:
    """Wait until ``read()`` stops changing for ``quiet_s`` (the node has taken what arrived)."""
    deadline, last, since = time.monotonic() + timeout, read(), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet_s:
        time.sleep(0.5)
        now = read()
        if now != last:
            last, since = now, time.monotonic()


def fuzz_topics(rig: Rig, max_image_bytes: int, messages: int = 200, seed: int = 0) -> dict[str, Any]:
    """Garbage on what the node subscribes: raw non-CDR bytes on ~/skill_status and the camera
    topic, stray SkillStatus messages with 64 kB strings, an image over ``camera.max_image_bytes``."""
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    from symplan_interfaces.msg import SkillStatus
    from symplan_ros.plumbing import RELIABLE
    from symplan_tools.waits import wait_until

    rng = random.Random(seed)
    status_pub = rig.node.create_publisher(SkillStatus, f"/{PLANNER}/skill_status", RELIABLE)
    image_pub = rig.node.create_publisher(Image, "/camera/color/image_raw", qos_profile_sensor_data)
    wait_until(lambda: status_pub.get_subscription_count() >= 1 and image_pub.get_subscription_count() >= 1, 30)
    before = rig.sample()
    for _ in range(messages):
        status_pub.publish(rng.randbytes(rng.randint(0, 64)))
        image_pub.publish(rng.randbytes(rng.randint(0, 256)))
    big = "x" * 65536
    for i in range(messages):
        status_pub.publish(SkillStatus(plan_id=f"{big}{i}", index=i, status=rng.choice((1, 2, 3)), message=big))
        time.sleep(0.005)  # a reliable KEEP_LAST writer overwrites what a flood outruns
    _settle(lambda: rig.sample().get("stray_statuses", 0))
    width = 1000
    height = max_image_bytes // (3 * width) + 1
    oversized = Image(height=height, width=width, encoding="rgb8", step=width * 3, data=bytes(height * width * 3))
    rejected = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # best-effort QoS: resend until the node has seen one
        image_pub.publish(oversized)
        seen = rig.diagnostic("camera")
        if seen and "too_large" in seen[1]:
            rejected = seen
            break
        time.sleep(0.5)
    after = rig.sample()
    rig.node.destroy_publisher(status_pub)
    rig.node.destroy_publisher(image_pub)
    return {"raw_garbage_messages": 2 * messages, "stray_statuses_64kB": messages,
            "stray_statuses_counted": after.get("stray_statuses", 0) - before.get("stray_statuses", 0),
            "rss_mb_before": before["rss_mb"], "rss_mb_after": after["rss_mb"],
            "oversized_image_diagnostic": None if rejected is None else rejected[1][:160],
            "planner_alive": rig.children["planner"].alive()}
