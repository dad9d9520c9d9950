"""``perceive``: key frames + instruction -> a verified BDDL draft with its provenance.

Stages (each swappable, plain data between them): detection (a :class:`Detector`), synset
grounding of labels, multi-frame fusion and 3-D lifting, relations, goal drafting (retrieval or
an LLM backend), the verifier. Bad input raises a typed :class:`PerceptionError`; a draft that
fails a check is returned rejected, with its reasons, and :func:`write_outputs` refuses to write it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as Lit

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from symplan_core.bddl import Atom, Literal, Problem
from symplan_core.bddl.normalize import to_igibson
from symplan_core.bddl.writer import write_literal, write_problem
from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.errors import DepthError, FrameError, NoDetectionsError, PerceptionError
from symplan_core.perception.frames import CameraIntrinsics, Frame, overhead_pose
from symplan_core.perception.keyframes import KeyFrameConfig
from symplan_core.perception.lifting import LiftConfig
from symplan_core.perception.relations import Region, RelationConfig, infer_relations
from symplan_core.perception.scene import Observed, observe
from symplan_core.perception.synsets import (
    ground_label,
    is_fixture,
    is_floor,
    is_substance,
    known_synset,
    mentioned_synsets,
)
from symplan_core.perception.verifier import DraftFacts, Verdict, verify_draft
from symplan_core.prompts.goal_text import type_word

Dialect = Lit["omnigibson", "igibson"]


class PerceptionConfig(BaseModel):
    """Everything ``perceive`` can be told; defaults are what the evaluation uses."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: Lit["retrieval", "llm"] = "retrieval"
    llm: str | None = Field(default=None, description="backend spec drafting the goal when goal='llm'")
    judge: str | None = Field(default=None, description="backend spec of the optional LLM-judge axis")
    benchmarks: tuple[str, ...] = ("b1k", "b100")  # retrieval corpus
    domain: Dialect | None = Field(default=None, description="output dialect; None: the retrieved activity's")
    robot: Lit["single", "dual"] = "single"
    problem_name: str | None = None
    plan_budget_s: float = Field(default=5.0, gt=0)
    llm_max_tokens: int = Field(default=256, ge=1)
    aliases: dict[str, str] = Field(default_factory=dict, description="detector label -> synset")
    camera_pose: list[list[float]] | None = Field(default=None, description="4x4 camera->world for frames without one")
    check_instruction_objects: bool = True
    lift: LiftConfig = LiftConfig()
    relations: RelationConfig = RelationConfig()
    keyframes: KeyFrameConfig = KeyFrameConfig()

    def default_pose(self) -> np.ndarray:
        return np.asarray(self.camera_pose, dtype=np.float64) if self.camera_pose else overhead_pose()


@dataclass
class PerceptionResult:
    """The outcome of :func:`perceive`. ``problem`` is the draft (None if its goal never parsed);
    ``accepted`` says whether every axis passed; ``provenance`` is the sidecar's content."""

    accepted: bool
    problem: Problem | None
    bddl: str | None
    verdicts: list[Verdict]
    provenance: dict[str, Any]
    engine_loads: bool = False
    plan: Any = None  # the reference planner's PlanResult when the goal axis ran
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def reasons(self) -> list[str]:
        return [f"{v.axis}: {r}" for v in self.verdicts if v.passed is False for r in v.reasons]

    def to_json(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "engine_loads": self.engine_loads,
                "verdicts": [v.to_json() for v in self.verdicts], "bddl": self.bddl,
                "problem": self.problem.to_json() if self.problem else None,
                "provenance": self.provenance, "timings_ms": self.timings_ms}


def _check_inputs(frames: Sequence[Frame], instruction: str, intrinsics: CameraIntrinsics) -> None:
    if not frames:
        raise FrameError("no frames to perceive from")
    if not isinstance(instruction, str) or not instruction.strip():
        raise PerceptionError("the instruction is empty")
    for frame in frames:
        if not isinstance(frame, Frame):
            raise FrameError(f"expected Frame objects, got {type(frame).__name__}")
        intrinsics.check(frame)
        if frame.depth is None:
            raise DepthError(f"{frame.label} has no depth: 3-D lifting needs a depth image per frame")


def _check_specs(config: PerceptionConfig) -> None:
    """Malformed backend specs fail before any frame is processed."""
    from symplan_core.llm import BackendSpecError, parse_backend_spec

    for spec in (config.llm, config.judge):
        if spec:
            try:
                parse_backend_spec(spec)
            except BackendSpecError as exc:
                raise PerceptionError(f"LLM backend {spec!r}: {exc}") from None


def object_prior(instruction: str, benchmarks: tuple[str, ...]) -> dict[str, str]:
    """Phrase -> synset an open-vocabulary detector is prompted with: what the instruction names,
    plus the object types of the activity the instruction alone retrieves (paper, stage 1)."""
    from symplan_core.perception.retrieval import activity_index
    from symplan_core.tasks import load_problem

    prior = {phrase: synset for phrase, synset in mentioned_synsets(instruction)}
    best = activity_index(benchmarks).search(instruction, k=1)
    if best:
        for typ in load_problem(best[0].task).objects.values():
            if typ != "agent.n.01":
                prior.setdefault(type_word(typ), typ)
    return prior


def _ground(detections: list[list[Detection]], prompt: dict[str, str], aliases: dict[str, str],
            dropped: dict[str, dict]) -> list[list[Detection]]:
    out = []
    for frame_dets in detections:
        kept = []
        for det in frame_dets:
            synset, reason = det.synset, ""
            if synset is None and det.room:
                kept.append(det)
                continue
            if synset is not None and not known_synset(synset):
                synset, reason = None, f"{synset} is not a BEHAVIOR synset"
            elif det.kind == "marker" and synset is None:
                reason = f"marker {det.marker_id} is not in the fiducial map"
            elif synset is None:
                hit = prompt.get(det.label.strip().lower())
                grounding = ground_label(det.label, aliases)
                synset, reason = hit or grounding.synset, grounding.reason
            if synset is None:
                entry = dropped.setdefault(det.label, {"label": det.label, "frames": [], "reason": reason})
                entry["frames"] = sorted({*entry["frames"], det.frame})
                continue
            kept.append(Detection(det.label, det.score, det.corners, det.kind, det.marker_id, synset, det.room,
                                  det.frame))
        out.append(kept)
    return out


@dataclass
class _Scene:
    seen: dict[str, str]  # instance -> synset
    regions: list[Region]
    evidence: dict[str, Observed]  # instance (or room) -> what was observed
    notes: list[str]


def _instances(observed: list[Observed], domain: str) -> _Scene:
    notes: list[str] = []
    seen: dict[str, str] = {}
    regions: list[Region] = []
    evidence: dict[str, Observed] = {}
    things = [o for o in observed if o.synset]
    things.sort(key=lambda o: (o.synset, o.marker_id if o.marker_id is not None else 1 << 30,
                               o.sightings[0].box.cx, o.sightings[0].box.cy))
    counts: dict[str, int] = {}
    for obs in things:
        substance = is_substance(obs.synset, domain)
        places = obs.sightings if substance else obs.sightings[:1]
        if not substance and len(obs.sightings) > 1 and obs.marker_id is not None:
            notes.append(f"marker {obs.marker_id} ({obs.synset}) seen at {len(obs.sightings)} places; "
                         "kept the one seen in most frames")
        groups = [places] if substance or obs.marker_id is not None else [[s] for s in obs.sightings]
        for group in groups:
            counts[obs.synset] = counts.get(obs.synset, 0) + 1
            inst = f"{obs.synset}_{counts[obs.synset]}"
            seen[inst] = obs.synset
            evidence[inst] = Observed(obs.key, obs.label, obs.marker_id, obs.synset, obs.room, list(group))
            kind = "substance" if substance else "floor" if is_floor(obs.synset) else "object"
            for k, sighting in enumerate(group):
                regions.append(Region(f"{inst}#{k}", inst, sighting.box, kind, is_fixture(obs.synset), obs.room))
    for obs in observed:
        if not obs.synset and obs.room:
            evidence[f"room:{obs.room}"] = obs
            regions.append(Region(f"room:{obs.room}", None, obs.sightings[0].box, "room", False, obs.room))
    return _Scene(seen, regions, evidence, notes)


def perceive(frames: Sequence[Frame], instruction: str, detector: Detector, intrinsics: CameraIntrinsics,
             config: PerceptionConfig | None = None, *, goal_backend: Any = None,
             judge_backend: Any = None) -> PerceptionResult:
    """Key frames + instruction -> a verified draft (see the module docstring).

    ``goal_backend`` / ``judge_backend``: an already built planner backend to use instead of the
    ``llm`` / ``judge`` spec of the config (a loaded model is then reused across calls).
    """
    from symplan_core.perception.provenance import build_provenance

    config = config or PerceptionConfig()
    frames = list(frames)
    _check_inputs(frames, instruction, intrinsics)
    _check_specs(config)
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round((now - clock) * 1000, 2)
        clock = now

    prompt = object_prior(instruction, config.benchmarks) if detector.open_vocabulary else {}
    detections = [[d.in_frame(i) for d in detector.detect(f, list(prompt))] for i, f in enumerate(frames)]
    lap("detect")
    dropped: dict[str, dict] = {}
    grounded = _ground(detections, {k.lower(): v for k, v in prompt.items()}, config.aliases, dropped)
    if not any(d.synset for frame_dets in grounded for d in frame_dets):
        why = "; ".join(f"{d['label']}: {d['reason']}" for d in dropped.values()) or "the detector found nothing"
        raise NoDetectionsError(f"no detection could be grounded to a BEHAVIOR object ({why})")
    observed, lift_notes = observe(frames, grounded, intrinsics, config.default_pose(), config.lift)
    if not any(o.synset for o in observed):
        raise NoDetectionsError("objects were detected but none could be placed in 3-D: "
                                + "; ".join(lift_notes[:5]))
    lap("lift")
    draft = _draft(observed, instruction, config, goal_backend)
    lap("relations_and_goal")
    judge = None
    if config.judge or judge_backend is not None:
        from symplan_core.perception.llm_goal import judge as ask_judge

        def judge(bddl: str) -> tuple[bool, str]:
            ok, reason, _reply = ask_judge(judge_backend or config.judge, bddl, instruction)
            return ok, reason

    mentioned = mentioned_synsets(instruction) if config.check_instruction_objects else []
    facts = DraftFacts(draft.sources, mentioned, draft.goal_reason, curated_goal=config.goal == "retrieval")
    verdicts, plan, loads = verify_draft(draft.problem, facts, config.robot, config.plan_budget_s, judge)
    lap("verify")
    accepted = all(v.passed is True for v in verdicts)
    provenance = build_provenance(instruction, detector.name, frames, draft, dropped, lift_notes, config)
    bddl = write_problem(draft.problem) if draft.problem is not None else None
    return PerceptionResult(accepted, draft.problem, bddl, verdicts, provenance, loads, plan, timings)


@dataclass
class Draft:
    problem: Problem | None
    sources: dict[str, str]
    scene: _Scene
    fact_sources: dict[str, str]  # written literal -> observed | prior
    relation_regions: dict[str, list[str]]  # written literal -> region keys
    goal_info: dict[str, Any]
    goal_reason: str = ""
    notes: list[str] = field(default_factory=list)


def _draft(observed: list[Observed], instruction: str, config: PerceptionConfig, goal_backend: Any = None) -> Draft:
    from symplan_core.perception.llm_goal import draft_goal
    from symplan_core.perception.regrounding import reground
    from symplan_core.perception.retrieval import activity_index
    from symplan_core.tasks import load_problem

    seen_synsets = {o.synset for o in observed if o.synset}
    matches = activity_index(config.benchmarks).search(instruction, seen_synsets, k=5)
    top = matches[0] if matches else None
    activity_problem = load_problem(top.task) if top else None
    domain = config.domain or (activity_problem.domain if activity_problem and config.goal == "retrieval"
                               else "omnigibson")
    scene = _instances(observed, domain)
    found = infer_relations(scene.regions, config.relations)
    notes = list(scene.notes) + [f"{key}: no support found (it floats, or what holds it was not seen)"
                                 for key in found.unsupported]
    observed_init: list[Literal] = []
    regions_of: dict[Literal, list[str]] = {}
    for rel in found.relations:
        lit = Literal(Atom(rel.predicate, rel.args))
        if lit not in regions_of:
            observed_init.append(lit)
            regions_of[lit] = []
        regions_of[lit] = sorted({*regions_of[lit], *rel.regions})
    goal_info: dict[str, Any] = {"source": config.goal,
                                 "candidates": [{"activity": m.task, "score": round(m.score, 4),
                                                 "text": round(m.text_score, 4), "objects": round(m.object_score, 4)}
                                                for m in matches]}
    name = config.problem_name
    goal_reason = ""
    if config.goal == "retrieval":
        if activity_problem is None:
            raise PerceptionError("retrieval found no activity (empty benchmark corpus)")
        # The best-scoring activity whose goal objects were all seen; else the best one (rejected
        # by the objects axis, which names what is missing).
        rg = None
        for match in matches:
            if config.domain is None and load_problem(match.task).domain != domain:
                continue
            trial = reground(load_problem(match.task), match.task, scene.seen, observed_init, domain)
            if rg is None or "unseen" not in trial.sources.values():
                rg, top = trial, match
                if "unseen" not in trial.sources.values():
                    break
        objects, sources, init, goal = rg.objects, rg.sources, rg.init, rg.goal
        fact_sources = {lit: src for lit, src in rg.fact_sources.items()}
        regions_of = {Literal(Atom(lit.predicate, tuple(rg.renamed.get(a, a) for a in lit.args)), lit.negated): keys
                      for lit, keys in regions_of.items()}
        scene.evidence = {rg.renamed.get(k, k): v for k, v in scene.evidence.items()}
        goal_info.update(activity=top.task, mapping=rg.mapping)
        name = name or f"{top.task.split('/', 1)[1]}-perceived"
    else:
        backend = goal_backend or config.llm
        if not backend:
            raise PerceptionError("goal='llm' needs an LLM backend spec (config.llm)")
        objects, init = dict(scene.seen), observed_init
        sources = {inst: "detection" for inst in objects}
        fact_sources = {lit: "observed" for lit in init}
        llm = draft_goal(backend, objects, init, instruction, "omnigibson", config.llm_max_tokens)
        goal, goal_reason = llm.goal, llm.reason
        goal_info.update(llm=config.llm or getattr(backend, "name", "backend"), reply=llm.reply)
        name = name or "perceived-0"
    problem = None
    if goal is not None:
        problem = Problem(name, "omnigibson", objects, tuple(init), goal)
        if domain == "igibson":
            problem = to_igibson(problem)
    written_sources = {write_literal(lit): src for lit, src in fact_sources.items()}
    written_regions = {write_literal(lit): keys for lit, keys in regions_of.items()}
    return Draft(problem, sources, scene, written_sources, written_regions, goal_info, goal_reason, notes)
