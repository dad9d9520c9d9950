"""Execution monitoring: after a subgoal reports SUCCEEDED, check its expected effects with the camera.

A skill or VLA controller may report success while the mug is still on the table. With
``execution.monitor: camera`` the planning session asks :class:`ExecutionMonitor` after every
SUCCEEDED subgoal: it waits for frames received after the report (``execution.monitor_settle_s``
later, up to ``execution.monitor_wait_s``), perceives them with the camera scene source's detector
and perception stages (:func:`symplan_core.perception.pipeline.observe_scene`: the same detection,
grounding, lifting and relations), names what it sees with the planner's instances
(:class:`IdentityMap`: marker ids recorded when the scene was perceived, else synset and nearest
last-known place) and compares the subgoal's expected add/delete literals with it
(:func:`check_effects`):

* support (``ontop``, ``onfloor`` and what rests on its target: ``attached``, ``draped``,
  ``overlaid``), containment (``inside``) and ``nextto`` are observable when the moved object is
  seen; ``covered``/``filled`` (a substance on or in a thing) when the thing is seen (a patch the
  detector sees); other state literals (``open``, ``cooked``...) only when the snapshot reports
  that predicate; literals about the robot itself (``holding``, the agent's place) never are; an
  object the subgoal does not move seen resting elsewhere than in the last snapshot contradicts it
  (the controller did something else); objects the camera could not identify when the scene was
  perceived (no tag in its map, made during the task) are not tracked;
* verdict **confirmed** (something observable agrees, nothing disagrees): the session applies the
  effects; **contradicted** (an observable literal is seen false): the subgoal counts as failed,
  the effects are not applied, the symbolic state is re-grounded on what the camera shows
  (:func:`reground`) and the session replans from it; **unobservable** (nothing checkable was
  seen): the effects are applied and the verdict records that they were not observed.

No rclpy here: the node publishes the verdicts (``~/execution_check``, feedback, /diagnostics).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from symplan_core.engine import CompiledTask, State
from symplan_core.runtime.camera import CameraFeed, CameraUnavailable
from symplan_core.runtime.config import ExecutionSection, PerceptionSection, RuntimeConfig

if TYPE_CHECKING:  # the vision extra: imported by the methods that perceive
    from symplan_core.perception import Detector
    from symplan_core.perception.pipeline import SceneSnapshot

__all__ = ["EffectVerdict", "ExecutionMonitor", "IdentityMap", "LiteralCheck", "MonitorResult", "Perceived",
           "check_effects", "monitor_enabled", "parse_literal", "reground"]

# What vision can tell apart (docs/architecture.md, "Execution monitoring").
SUPPORT = frozenset({"ontop", "onfloor"})
RESTS_ON = frozenset({"attached", "draped", "overlaid"})  # the object lies on its target
CONTAINMENT = frozenset({"inside"})
SUBSTANCE_STATES = frozenset({"covered", "filled"})  # substance patches on / in a thing
AGENT_SIDE = frozenset({"holding", "grasped", "near", "future", "real"})
AGENT_SYNSET = "agent.n.01"


class EffectVerdict(Enum):
    CONFIRMED = "confirmed"
    CONTRADICTED = "contradicted"
    UNOBSERVABLE = "unobservable"


@dataclass(frozen=True)
class LiteralCheck:
    literal: str  # "(ontop a b)" as the subgoal names it
    expected: bool  # True: an add literal, False: a delete literal
    verdict: EffectVerdict
    why: str

    def line(self) -> str:
        sign = "" if self.expected else "not "
        return f"{sign}{self.literal}: {self.verdict.value} ({self.why})"


@dataclass(frozen=True)
class MonitorResult:
    """The verdict on one SUCCEEDED subgoal, with each literal's check."""

    verdict: EffectVerdict
    checks: tuple[LiteralCheck, ...] = ()
    reason: str = ""
    latency_s: float = 0.0  # from the report to the verdict (waiting for frames + perception)
    frames: int = 0  # fresh frames perceived
    seen: tuple[str, ...] = ()  # the planner instances the camera saw

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "reason": self.reason, "latency_s": round(self.latency_s, 4),
                "frames": self.frames, "checks": [c.line() for c in self.checks]}


@dataclass
class Perceived:
    """A snapshot in the planner's names: where each tracked object is and the relations seen.

    ``support`` maps an object to the (relation, target) it was seen resting on (``ontop`` or
    ``inside``); ``relations`` are all the (predicate, args...) seen; ``predicates`` are the
    predicates the snapshot can report at all (a state predicate is observable only then)."""

    seen: set[str] = field(default_factory=set)
    support: dict[str, tuple[str, str]] = field(default_factory=dict)
    relations: set[tuple[str, ...]] = field(default_factory=set)
    predicates: frozenset[str] = frozenset({"ontop", "inside", "nextto", "under", "inroom"})
    agents: frozenset[str] = frozenset()
    places: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # centre x, y and top z

    def holds(self, pred: str, args: tuple[str, ...]) -> bool:
        if pred == "nextto":
            return ("nextto", *args) in self.relations or ("nextto", *reversed(args)) in self.relations
        return (pred, *args) in self.relations


def parse_literal(text: str) -> tuple[str, tuple[str, ...]]:
    """``(pred a b)`` -> ("pred", ("a", "b")); a ``(not ...)`` wrapper is not expected here."""
    words = text.replace("(", " ").replace(")", " ").split()
    return (words[0], tuple(words[1:])) if words else ("", ())


def _support_like(pred: str) -> str | None:
    if pred in SUPPORT or pred in RESTS_ON:
        return "ontop"
    if pred in CONTAINMENT:
        return "inside"
    return None


def _check(pred: str, args: tuple[str, ...], expected: bool, seen: Perceived,
           tracked: set[str]) -> tuple[EffectVerdict, str]:
    if pred in AGENT_SIDE or any(a in seen.agents for a in args):
        return EffectVerdict.UNOBSERVABLE, "about the robot itself"
    untracked = [a for a in args if a not in tracked]
    if untracked:
        return EffectVerdict.UNOBSERVABLE, f"{', '.join(untracked)} not tracked by the camera"
    relation = _support_like(pred)
    if relation is not None and len(args) == 2:
        obj, target = args
        if obj not in seen.seen:
            return EffectVerdict.UNOBSERVABLE, f"{obj} not seen"
        actual = seen.support.get(obj)
        if expected:
            if actual == (relation, target) or (relation == "inside" and seen.holds("inside", args)):
                return EffectVerdict.CONFIRMED, f"{obj} seen {relation} {target}"
            if actual is None:
                return EffectVerdict.UNOBSERVABLE, f"{obj} seen but its support was not"
            return EffectVerdict.CONTRADICTED, f"{obj} seen {actual[0]} {actual[1]}"
        if actual == (relation, target) or seen.holds(relation, args):
            return EffectVerdict.CONTRADICTED, f"{obj} still seen {relation} {target}"
        if actual is None:
            return EffectVerdict.UNOBSERVABLE, f"{obj} seen but its support was not"
        return EffectVerdict.CONFIRMED, f"{obj} seen {actual[0]} {actual[1]}"
    if pred == "nextto" and len(args) == 2:
        a, b = args
        if a not in seen.seen or b not in seen.seen:
            return EffectVerdict.UNOBSERVABLE, f"{a if a not in seen.seen else b} not seen"
        if seen.holds("nextto", args) == expected:
            return EffectVerdict.CONFIRMED, "seen " + ("next to each other" if expected else "apart")
        if not expected:
            return EffectVerdict.CONTRADICTED, "still seen next to each other"
        # Next to something means on its support: a different support contradicts it, the same
        # one with a gap wider than the relation's threshold is not decisive.
        sa, sb = seen.support.get(a), seen.support.get(b)
        if sa is not None and sb is not None and sa[1] != sb[1] and sa[1] != b and sb[1] != a:
            return EffectVerdict.CONTRADICTED, f"{a} seen {sa[0]} {sa[1]}, {b} {sb[0]} {sb[1]}"
        return EffectVerdict.UNOBSERVABLE, "on the same support, not within the next-to gap"
    if pred in SUBSTANCE_STATES and len(args) == 2:
        obj, stuff = args
        if obj not in seen.seen:
            return EffectVerdict.UNOBSERVABLE, f"{obj} not seen"
        if seen.holds(pred, args):
            return (EffectVerdict.CONFIRMED, f"{stuff} seen on {obj}") if expected else \
                (EffectVerdict.CONTRADICTED, f"{stuff} still seen on {obj}")
        if not expected:
            return EffectVerdict.CONFIRMED, f"{obj} seen without {stuff}"
        if stuff in seen.seen:  # the detector sees that substance elsewhere, not on obj
            return EffectVerdict.CONTRADICTED, f"{obj} seen without {stuff}"
        return EffectVerdict.UNOBSERVABLE, f"{stuff} not seen anywhere"
    if pred in seen.predicates:
        if not all(a in seen.seen for a in args):
            return EffectVerdict.UNOBSERVABLE, "not seen"
        if seen.holds(pred, args) == expected:
            return EffectVerdict.CONFIRMED, "seen" if expected else "seen false"
        return EffectVerdict.CONTRADICTED, "seen false" if expected else "still seen"
    return EffectVerdict.UNOBSERVABLE, f"no detector or state source reports ({pred} ...)"


def _moved(before: Perceived, seen: Perceived, movable: set[str], tracked: set[str]) -> list[LiteralCheck]:
    """Objects the subgoal does not move, seen resting elsewhere than before it (the controller
    did something else): one contradicted check each, as the delete of the support seen before."""
    out = []
    for obj, link in sorted(before.support.items()):
        now = seen.support.get(obj)
        if obj in movable or obj not in tracked or obj in seen.agents or now is None or now == link:
            continue
        if link[1] in movable and now[1] in movable:
            continue  # resting on what the subgoal moves, under another name of the same support
        out.append(LiteralCheck(f"({link[0]} {obj} {link[1]})", True, EffectVerdict.CONTRADICTED,
                                f"{obj} moved though the subgoal does not move it: seen {now[0]} {now[1]}"))
    return out


STILL_M = 0.02  # an object expected to move, seen within this of where it was, did not move


def _unmoved(expected: Sequence[str], before: Perceived, seen: Perceived, tracked: set[str]) -> list[LiteralCheck]:
    """Objects the subgoal's effects move (taken, put somewhere) seen exactly where they were."""
    out = []
    moving = set()
    for text in expected:
        pred, args = parse_literal(text)
        if args and (pred in ("holding", "grasped") or _support_like(pred) is not None):
            moving.add(args[-1] if pred == "grasped" else args[0])
    for obj in sorted(moving & tracked):
        a, b = before.places.get(obj), seen.places.get(obj)
        # Same place and the same support seen (or none now): a change of support is the
        # support checks' to judge, and a renderer may re-lay a scene out around a moved thing.
        if a is not None and b is not None and math.dist(a, b) < STILL_M \
                and seen.support.get(obj) in (None, before.support.get(obj)):
            out.append(LiteralCheck(f"(moved {obj})", True, EffectVerdict.CONTRADICTED,
                                    f"{obj} seen where it was before the subgoal (it did not move)"))
    return out


def check_effects(expected_add: Sequence[str], expected_del: Sequence[str], seen: Perceived,
                  tracked: Iterable[str], before: Perceived | None = None,
                  movable: Iterable[str] = ()) -> MonitorResult:
    """The verdict on a subgoal's expected literals against what the camera saw (pure). With
    ``before`` (the last snapshot), an object not among ``movable`` (the subgoal's arguments)
    seen resting elsewhere than before contradicts the subgoal too, and so does an object the
    subgoal should move seen where it was."""
    tracked_set = set(tracked)
    checks = []
    for literals, expected in ((expected_add, True), (expected_del, False)):
        for text in literals:
            pred, args = parse_literal(text)
            verdict, why = _check(pred, args, expected, seen, tracked_set)
            checks.append(LiteralCheck(text, expected, verdict, why))
    if before is not None:
        checks += _moved(before, seen, set(movable), tracked_set)
        checks += _unmoved([*expected_add, *expected_del], before, seen, tracked_set)
    contradicted = [c for c in checks if c.verdict is EffectVerdict.CONTRADICTED]
    if contradicted:
        return MonitorResult(EffectVerdict.CONTRADICTED, tuple(checks),
                             "; ".join(f"expected {'' if c.expected else 'not '}{c.literal}, but {c.why}"
                                       for c in contradicted), seen=tuple(sorted(seen.seen)))
    if any(c.verdict is EffectVerdict.CONFIRMED for c in checks):
        return MonitorResult(EffectVerdict.CONFIRMED, tuple(checks), "; ".join(
            c.line() for c in checks if c.verdict is EffectVerdict.CONFIRMED), seen=tuple(sorted(seen.seen)))
    return MonitorResult(EffectVerdict.UNOBSERVABLE, tuple(checks),
                         "no expected effect is observable" if not checks else
                         "; ".join(f"{c.literal}: {c.why}" for c in checks), seen=tuple(sorted(seen.seen)))


def reground(state: State, seen: Perceived, task: CompiledTask | None = None) -> list[str]:
    """Re-ground ``state`` (mutated) on what the camera shows: each seen object's support becomes
    the one seen (a held object seen resting somewhere is no longer held), observed next-to pairs
    are added; an object seen on the robot is held. Returns the changes, one line each."""
    changes = []
    substances = state.substances
    for obj, (rel, target) in sorted(seen.support.items()):
        if obj in substances or obj in seen.agents:
            continue
        if target in seen.agents:  # what rests on the robot is what it holds
            if obj not in state.held:
                state.detach(obj)
                state.held.append(obj)
                changes.append(f"{obj} is held (seen on the robot)")
            continue
        if task is not None and obj in task.world.floors:
            continue
        if obj in state.held:
            state.held.remove(obj)
            changes.append(f"{obj} is not held (seen {rel} {target})")
        if state.support.get(obj) != (rel, target):
            before = state.support.get(obj)
            state.detach(obj)
            state.support[obj] = (rel, target)
            changes.append(f"{obj}: {before[0] + ' ' + before[1] if before else 'no support'} -> {rel} {target}")
    for fact in seen.relations:
        if fact[0] == "nextto" and len(fact) == 3 and frozenset(fact[1:]) not in state.nextto \
                and not (set(fact[1:]) & seen.agents):
            state.nextto.add(frozenset(fact[1:]))
            changes.append(f"(nextto {fact[1]} {fact[2]}) seen")
    return changes


class IdentityMap:
    """Names what the camera sees with the planner's instances.

    Built from the scene's provenance (``objects``: instance -> type, marker id, 3-D box) when the
    scene was perceived; else from the task's instances by synset. A seen object with a marker id
    the map knows is that instance; otherwise an instance of its synset not yet taken in this
    snapshot, the one nearest to where it was last seen (a closed-set detector has no identities).
    """

    def __init__(self, types: Mapping[str, str], markers: Mapping[int, str] | None = None,
                 places: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.types = dict(types)  # planner instance -> synset
        self.markers = dict(markers or {})
        self.places = dict(places or {})

    @classmethod
    def from_scene(cls, types: Mapping[str, str], details: Mapping[str, Any]) -> IdentityMap:
        objects = (details.get("provenance") or {}).get("objects") or {}
        markers, places = {}, {}
        for inst, entry in objects.items():
            if entry.get("source") != "detection" or inst not in types:
                continue
            if entry.get("marker_id") is not None:
                markers[int(entry["marker_id"])] = inst
            boxes = entry.get("boxes") or []
            if boxes:
                places[inst] = (float(boxes[0]["center"][0]), float(boxes[0]["center"][1]))
        return cls(types, markers, places)

    def baseline(self, details: Mapping[str, Any]) -> Perceived | None:
        """What the scene's perception saw (its observed facts), as a snapshot; None without one."""
        provenance = details.get("provenance") or {}
        if not provenance.get("objects"):
            return None
        seen = Perceived(agents=frozenset(p for p, typ in self.types.items() if typ == AGENT_SYNSET))
        seen.seen = {inst for inst, e in provenance["objects"].items() if e.get("source") == "detection"}
        for inst in seen.seen:
            boxes = provenance["objects"][inst].get("boxes") or []
            if boxes:
                box = boxes[0]
                seen.places[inst] = (float(box["center"][0]), float(box["center"][1]), float(box["top"]))
        for fact in provenance.get("facts") or []:
            if fact.get("source") != "observed" or fact["fact"].startswith("(not"):
                continue
            pred, args = parse_literal(fact["fact"])
            seen.relations.add((pred, *args))
            if pred in ("ontop", "inside") and len(args) == 2 and (args[0] not in seen.support or pred == "inside"):
                seen.support[args[0]] = (pred, args[1])
        return seen

    @property
    def tracked(self) -> set[str]:
        """Instances the camera can name (all of the task's, except the robot)."""
        return {inst for inst, typ in self.types.items() if typ != AGENT_SYNSET}

    def name(self, snapshot: SceneSnapshot) -> tuple[dict[str, str], Perceived]:
        """(perceived instance -> planner instance, the snapshot in planner names)."""
        names: dict[str, str] = {}
        taken: set[str] = set()
        rest = []
        for inst, obj in snapshot.objects.items():
            known = self.markers.get(obj.marker_id) if obj.marker_id is not None else None
            if known is not None and known not in taken:
                names[inst] = known
                taken.add(known)
            else:
                rest.append((inst, obj))
        for inst, obj in rest:
            candidates = [p for p, typ in self.types.items() if typ == obj.synset and p not in taken
                          and not (obj.marker_id is not None and p in self.markers.values())]
            if not candidates:
                continue
            here = (obj.box.cx, obj.box.cy)
            best = min(candidates, key=lambda p: (math.dist(self.places[p], here) if p in self.places
                                                  else math.inf, p))
            names[inst] = best
            taken.add(best)
        seen = Perceived(agents=frozenset(p for p, typ in self.types.items() if typ == AGENT_SYNSET))
        rooms = set()
        for inst, planner in names.items():
            seen.seen.add(planner)
            obj = snapshot.objects[inst]
            self.places[planner] = (obj.box.cx, obj.box.cy)
            seen.places[planner] = (float(obj.box.cx), float(obj.box.cy), float(obj.box.top))
        for rel in snapshot.relations:
            pred, args = rel[0], rel[1:]
            mapped = tuple(names.get(a, a) for a in args)
            if any(a in snapshot.objects and a not in names for a in args):
                continue  # an object the planner does not know
            seen.relations.add((pred, *mapped))
            if pred == "inroom":
                rooms.add(mapped[-1])
            if pred in ("ontop", "inside") and len(mapped) == 2 and mapped[0] in seen.seen:
                # One support per object: a thing inside a container on a table is inside it.
                if mapped[0] not in seen.support or pred == "inside":
                    seen.support[mapped[0]] = (pred, mapped[1])
        return names, seen


def monitor_enabled(config: RuntimeConfig) -> bool:
    """``execution.monitor``: camera, off, or auto (camera when ``scene.source`` is camera)."""
    mode = config.execution.monitor
    return mode == "camera" or (mode == "auto" and config.scene.source == "camera")


class ExecutionMonitor:
    """Checks SUCCEEDED subgoals with the camera (module docstring). One per node; the session calls
    :meth:`bind` once per goal and :meth:`check` after each SUCCEEDED subgoal."""

    def __init__(self, feed: CameraFeed, detector: Detector | None, execution: ExecutionSection | None = None,
                 perception: PerceptionSection | None = None, detector_error: str = "") -> None:
        self.feed = feed
        self.detector = detector
        self.execution = execution or ExecutionSection()
        self.perception = perception or PerceptionSection()
        self.detector_error = detector_error
        self.identities = IdentityMap({})
        self.previous: Perceived | None = None  # the last snapshot of this goal (what "moved" compares with)
        self.counts = {v.value: 0 for v in EffectVerdict}
        self.last: MonitorResult | None = None
        self.last_snapshot: tuple[SceneSnapshot, dict[str, str]] | None = None
        self._lock = threading.Lock()

    def bind(self, types: Mapping[str, str], details: Mapping[str, Any]) -> None:
        """A new goal: its instances (instance -> synset) and how its scene was made."""
        self.identities = IdentityMap.from_scene(types, details)
        self.previous = self.identities.baseline(details)

    def check(self, expected_add: Sequence[str], expected_del: Sequence[str], since: float,
              should_cancel: Callable[[], bool] = lambda: False,
              movable: Iterable[str] = (), record: bool = True) -> tuple[MonitorResult, Perceived | None]:
        """Wait for frames received after ``since`` (``time.monotonic()`` of the report) plus the
        settle time, perceive and judge; ``movable``: the subgoal's objects (any other seen moved
        contradicts it). No fresh frames or no detector: unobservable, with why. ``record`` False:
        a look that judges no subgoal (not counted in :attr:`counts`)."""
        ex = self.execution
        if self.detector is None:
            return self._done(MonitorResult(EffectVerdict.UNOBSERVABLE, reason="camera monitoring has no detector: "
                                            + (self.detector_error or "unavailable")), since, record), None
        try:
            frames, intrinsics = self.feed.frames_after(since + ex.monitor_settle_s, ex.monitor_frames,
                                                        ex.monitor_wait_s, should_cancel)
        except CameraUnavailable as exc:
            return self._done(MonitorResult(EffectVerdict.UNOBSERVABLE, reason=f"no fresh frames: {exc}"), since,
                              record), None
        result, seen = self.check_frames(expected_add, expected_del, frames, intrinsics, movable)
        return self._done(result, since, record), seen

    def check_frames(self, expected_add: Sequence[str], expected_del: Sequence[str], frames: Sequence[Any],
                     intrinsics: Any, movable: Iterable[str] = ()) -> tuple[MonitorResult, Perceived | None]:
        """Perceive ``frames`` and judge (no waiting, nothing counted): the part of :meth:`check`
        after the frames came."""
        from symplan_core.perception import PerceptionConfig, PerceptionError  # the vision extra
        from symplan_core.perception.pipeline import observe_scene

        assert self.detector is not None
        try:
            snapshot = observe_scene(frames, self.detector, intrinsics, PerceptionConfig())
        except PerceptionError as exc:
            return MonitorResult(EffectVerdict.UNOBSERVABLE, reason=f"perception failed: {exc}", frames=len(frames)), None
        names, seen = self.identities.name(snapshot)
        with self._lock:
            self.last_snapshot = (snapshot, names)
        result = check_effects(expected_add, expected_del, seen, self.identities.tracked, self.previous, movable)
        self.previous = seen
        return MonitorResult(result.verdict, result.checks, result.reason, frames=len(frames), seen=result.seen), seen

    def _done(self, result: MonitorResult, since: float, record: bool = True) -> MonitorResult:
        out = MonitorResult(result.verdict, result.checks, result.reason, time.monotonic() - since, result.frames,
                            result.seen)
        if not record:
            return out
        with self._lock:
            self.counts[out.verdict.value] += 1
            self.last = out
        return out


def monitor_for(config: RuntimeConfig, feed: CameraFeed, detector: Detector | None = None) -> ExecutionMonitor | None:
    """The monitor a configuration asks for (None: ``execution.monitor`` is off). ``detector``: the
    camera scene source's (one detector per node); built from ``perception.detector`` when None."""
    if not monitor_enabled(config):
        return None
    error = ""
    if detector is None:
        try:
            from symplan_core.perception import PerceptionError, make_detector  # the vision extra

            detector = make_detector(config.perception.detector)
        except ImportError as exc:
            error = f"perception needs the vision extra ({exc})"
        except PerceptionError as exc:
            error = str(exc)
    return ExecutionMonitor(feed, detector, config.execution, config.perception, error)
