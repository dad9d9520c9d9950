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

from symplan_core.bddl import And, Atom, Literal, Problem
from symplan_core.bddl.normalize import to_igibson, to_omnigibson
from symplan_core.bddl.writer import write_literal, write_problem
from symplan_core.engine import compile_task, verify
from symplan_core.engine.plan_text import format_call
from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.errors import DepthError, FrameError, NoDetectionsError, PerceptionError
from symplan_core.perception.frames import CameraIntrinsics, Frame, overhead_pose
from symplan_core.perception.fusion import Observed, observe
from symplan_core.perception.goal_mending import mend_goal, read_made_substances
from symplan_core.perception.keyframes import KeyFrameConfig
from symplan_core.perception.language import presupposed_states
from symplan_core.perception.lifting import LiftConfig
from symplan_core.perception.object_words import goal_must_mention, instruction_objects, requested_products
from symplan_core.perception.placements import RequestedPlacement, requested_placements
from symplan_core.perception.relations import Region, RelationConfig, infer_relations
from symplan_core.perception.synsets import (
    ground_label,
    is_fixture,
    is_floor,
    is_substance,
    known_synset,
    mentioned_synsets,
)
from symplan_core.perception.verbs import asked_states, state_words
from symplan_core.perception.verifier import DraftFacts, Verdict, verify_draft
from symplan_core.prompts.goal_text import type_word

Dialect = Lit["omnigibson", "igibson"]


class PerceptionConfig(BaseModel):
    """Everything ``perceive`` can be told; defaults are what the evaluation uses."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: Lit["retrieval", "llm", "hybrid"] = "retrieval"
    llm: str | None = Field(default=None, description="backend spec drafting the goal when goal='llm' or 'hybrid'")
    llm_decoding: Lit["grammar", "free"] = Field(
        default="grammar", description="grammar: the LLM writes under the scene's goal grammar, with retrieved goals "
                                       "as examples; free: unconstrained reply, its first goal block is read")
    llm_examples: int = Field(default=3, ge=0, le=10, description="retrieved activities' goals shown to the LLM")
    confirm: Lit["never", "novel"] = Field(
        default="never", description="novel: an accepted goal that the LLM wrote and no retrieved activity's goal "
                                     "matches is asked back as a yes/no question with the goal in words (the "
                                     "paper's dialogue), not done; never: it is done as accepted")
    ask_unanswered: bool = Field(
        default=False, description="a retrieved goal that passes every check but never answers a state word of the "
                                   "instruction ('fold the sheets', and the closest known task does not fold them), "
                                   "or puts nothing where it says ('leave them at the mailbox') "
                                   "is asked back as a yes/no question with the goal in words, not done (off here, "
                                   "so the measured tables stay comparable; on for the robot node)")
    hybrid_clear: float = Field(
        default=0.9, ge=0, description="hybrid: a retrieval score at least this high is taken as it is; below it the "
                                       "LLM drafts too, and when both pass with different goals a question is asked")
    judge: str | None = Field(default=None, description="backend spec of the optional LLM-judge axis")
    benchmarks: tuple[str, ...] = ("b1k", "b100")  # retrieval corpus
    exclude_activities: tuple[str, ...] = Field(
        default=(), description="activities (bench/name) left out of the retrieval corpus and any example pool")
    domain: Dialect | None = Field(default=None, description="output dialect; None: the retrieved activity's")
    robot: Lit["single", "dual"] = "single"
    problem_name: str | None = None
    plan_budget_s: float = Field(default=5.0, gt=0)
    llm_max_tokens: int = Field(default=320, ge=1)
    llm_redrafts: int = Field(
        default=0, ge=0, le=3,
        description="grammar decoding: when the verifier refuses the LLM's goal for a reason a new draft can mend "
                    "(not an object the scene lacks), the model redrafts this many times at most, with the "
                    "refused goal and the reasons in the conversation")
    llm_samples: int = Field(
        default=0, ge=0, le=8,
        description="grammar decoding: when the verifier refuses the LLM's greedy goal (after any redrafts) for a "
                    "reason a new draft can mend, draw up to this many more goals from the same prompt by sampling "
                    "(llm_sample_temperature, seeds 1..N) and keep the first one the verifier accepts")
    llm_sample_temperature: float = Field(default=0.8, gt=0, le=2, description="temperature of llm_samples draws")
    llm_agreement: int = Field(
        default=0, ge=0, le=8,
        description="grammar decoding: an accepted LLM goal that no retrieved goal corroborates is held against this "
                    "many more goals drawn from the same prompt (llm_sample_temperature; seeds 1..N, or the N "
                    "seeds after those llm_samples drew for the goal); when the verifier accepts some of them and "
                    "none supports it (each goal's plan reaching the other's goal, or the two reading the same), "
                    "the result is a question with the distinct goals as candidates, "
                    "not done ('samples-disagree': the model is not sure what was meant)")
    llm_mention_objects: bool = Field(
        default=True,
        description="grammar decoding: a goal that leaves out an object the instruction names, which the verifier "
                    "would require (object_words.goal_must_mention), is decoded again from what it said, under a grammar "
                    "that goes on with a mention of a missing one (llm_goal.draft_goal_constrained)")
    llm_answer_states: bool = Field(
        default=False,
        description="grammar decoding: a goal that answers none of the literals a state word of the instruction "
                    "asks for ('bake' -> cooked, 'hang' -> attached or draped), which the verifier would refuse, is "
                    "decoded again from what it said, under a grammar that goes on with one of them about an "
                    "object the instruction names (verbs.asked_states; needs check_language). Off: with Qwen "
                    "1.5B it turned refused goals into accepted wrong ones and no right one (docs/results.md)")
    llm_answer_placements: bool = Field(
        default=True,
        description="grammar decoding: a thing the instruction moves ('throw the rod and tackle in it') that the "
                    "goal puts nowhere, or not where the instruction puts it while nothing is put there "
                    "(placements.empty_places), is decoded again from what the goal said, under a grammar that goes "
                    "on with that placement's literal (placements.requested_placements; needs check_language)")
    aliases: dict[str, str] = Field(default_factory=dict, description="detector label -> synset")
    camera_pose: list[list[float]] | None = Field(default=None, description="4x4 camera->world for frames without one")
    check_instruction_objects: bool = True
    check_language: bool = Field(
        default=True, description="hold the instruction's state words (turn off, cook, close) and the objects it "
                                  "names against the drafted goal (docs/perception.md, 'Language checks')")
    clarify_margin: float = Field(
        default=0.15, ge=0, le=1,
        description="retrieval candidates scoring within this fraction of the chosen one, with another goal that "
                    "also passes every check, make the result a clarification question instead of a guess")
    max_candidates: int = Field(default=3, ge=1, le=5, description="retrieved goals verified at most per request")
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
    #: Set when candidate goals disagree: the question to ask instead of guessing (``accepted`` is
    #: then False); :meth:`choose` gives the answered candidate's result.
    clarification: Clarification | None = None

    @property
    def reasons(self) -> list[str]:
        """Why it was not accepted: failed checks, and a pending question (callers that do not look
        at :attr:`clarification` still say why nothing was accepted)."""
        out = [f"{v.axis}: {r}" for v in self.verdicts if v.passed is False for r in v.reasons]
        if self.clarification is not None:
            out.append(f"clarification needed: {self.clarification.question}")
        return out

    @property
    def needs_clarification(self) -> bool:
        return self.clarification is not None

    def choose(self, answer: str | int) -> PerceptionResult:
        """The result for the candidate a person chose: its number (1-based, as asked) or activity."""
        if self.clarification is None:
            raise PerceptionError("nothing was asked: the result has no candidates to choose from")
        return self.clarification.pick(answer).result

    def to_json(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "engine_loads": self.engine_loads,
                "needs_clarification": self.needs_clarification,
                "clarification": self.clarification.to_json() if self.clarification else None,
                "verdicts": [v.to_json() for v in self.verdicts], "bddl": self.bddl,
                "problem": self.problem.to_json() if self.problem else None,
                "provenance": self.provenance, "timings_ms": self.timings_ms}


@dataclass
class Candidate:
    """One reading of the instruction: a retrieved activity's goal re-grounded on the scene, verified."""

    number: int  # 1-based, as the question lists it
    activity: str | None
    score: float | None
    goal_text: str  # the goal in English over the scene's objects
    result: PerceptionResult

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "activity": self.activity, "score": self.score, "goal": self.goal_text,
                "accepted": self.result.accepted, "reasons": self.result.reasons}


@dataclass
class Clarification:
    """A question instead of a guess: the candidate goals disagree (docs/perception.md)."""

    question: str
    #: close-scores | top-rejected | llm-retrieval-disagree | unconfirmed | novel-goal | guessed-goal | unasked-state
    #: | samples-disagree
    why: str
    candidates: list[Candidate]

    def pick(self, answer: str | int) -> Candidate:
        text = str(answer).strip()
        if len(self.candidates) == 1 and text.lower().rstrip(".!") in ("yes", "y", "ok", "okay", "sure"):
            return self.candidates[0]  # a yes/no question (novel-goal, unconfirmed)
        for c in self.candidates:
            if text == str(c.number) or (c.activity and text in (c.activity, c.activity.split("/", 1)[-1])):
                return c
        raise PerceptionError(f"{text!r} is none of the candidates (answer 1-{len(self.candidates)} or an "
                              f"activity: {', '.join(str(c.activity) for c in self.candidates)})")

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "why": self.why, "candidates": [c.to_json() for c in self.candidates]}


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


def object_prior(instruction: str, benchmarks: tuple[str, ...], exclude: tuple[str, ...] = ()) -> dict[str, str]:
    """Phrase -> synset an open-vocabulary detector is prompted with: what the instruction names,
    plus the object types of the activity the instruction alone retrieves (paper, stage 1)."""
    from symplan_core.perception.retrieval import activity_index
    from symplan_core.tasks import load_problem

    prior = {phrase: synset for phrase, synset in mentioned_synsets(instruction)}
    best = activity_index(benchmarks).search(instruction, k=1, exclude=exclude)
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
class _Instances:
    """The perceived scene's things under their instance names (``synset_k``), their regions and evidence."""

    seen: dict[str, str]  # instance -> synset
    regions: list[Region]
    evidence: dict[str, Observed]  # instance (or room) -> what was observed
    notes: list[str]


def _instances(observed: list[Observed], domain: str) -> _Instances:
    notes: list[str] = []
    seen: dict[str, str] = {}
    regions: list[Region] = []
    evidence: dict[str, Observed] = {}
    things = [(o, o.synset) for o in observed if o.synset]
    things.sort(key=lambda t: (t[1], t[0].marker_id if t[0].marker_id is not None else 1 << 30,
                               t[0].sightings[0].fused.cx, t[0].sightings[0].fused.cy))
    counts: dict[str, int] = {}
    for obs, synset in things:
        substance = is_substance(synset, domain)
        places = obs.sightings if substance else obs.sightings[:1]
        if not substance and len(obs.sightings) > 1 and obs.marker_id is not None:
            notes.append(f"marker {obs.marker_id} ({obs.synset}) seen at {len(obs.sightings)} places; "
                         "kept the one seen in most frames")
        groups = [places] if substance or obs.marker_id is not None else [[s] for s in obs.sightings]
        for group in groups:
            counts[synset] = counts.get(synset, 0) + 1
            inst = f"{synset}_{counts[synset]}"
            seen[inst] = synset
            evidence[inst] = Observed(obs.key, obs.label, obs.marker_id, synset, obs.room, list(group))
            kind = "substance" if substance else "floor" if is_floor(synset) else "object"
            for k, sighting in enumerate(group):
                regions.append(Region(f"{inst}#{k}", inst, sighting.fused, kind, is_fixture(synset), obs.room))
    for obs in observed:
        if not obs.synset and obs.room:
            evidence[f"room:{obs.room}"] = obs
            regions.append(Region(f"room:{obs.room}", None, obs.sightings[0].fused, "room", False, obs.room))
    return _Instances(seen, regions, evidence, notes)


def perceive(frames: Sequence[Frame], instruction: str, detector: Detector, intrinsics: CameraIntrinsics,
             config: PerceptionConfig | None = None, *, goal_backend: Any = None,
             judge_backend: Any = None, choice: str | None = None) -> PerceptionResult:
    """Key frames + instruction -> a verified draft (see the module docstring).

    ``goal_backend`` / ``judge_backend``: an already built planner backend to use instead of the
    ``llm`` / ``judge`` spec of the config (a loaded model is then reused across calls).
    ``choice``: the answer to an earlier clarification question (a candidate's activity): the goal
    is drafted from that activity only.
    """
    from symplan_core.perception.provenance import build_provenance
    from symplan_core.tasks import load_problem

    config = config or PerceptionConfig()
    frames = list(frames)
    _check_inputs(frames, instruction, intrinsics)
    _check_specs(config)
    if config.goal != "retrieval" and not config.llm and goal_backend is None:
        raise PerceptionError(f"goal={config.goal!r} needs an LLM backend spec (config.llm)")
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round((now - clock) * 1000, 2)
        clock = now

    prompt = object_prior(instruction, config.benchmarks, config.exclude_activities) if detector.open_vocabulary else {}
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
    source = "retrieval" if config.goal == "hybrid" else config.goal
    drafts = _drafts(observed, instruction, config, goal_backend, choice, source)
    hybrid_llm: Draft | None = None
    if config.goal == "hybrid" and choice is None and not _clear(drafts[0], config):
        hybrid_llm = _drafts(observed, instruction, config, goal_backend, None, "llm")[0]
    lap("relations_and_goal")
    judge = None
    if config.judge or judge_backend is not None:
        from symplan_core.perception.llm_goal import judge as ask_judge

        def judge(bddl: str) -> tuple[bool, str]:
            ok, reason, _reply = ask_judge(judge_backend or config.judge, bddl, instruction)
            return ok, reason

    mentioned: list[tuple[str, str]] = []
    if config.check_instruction_objects:  # the words, and words only this scene's types explain ("the rod")
        mentioned = instruction_objects(instruction, {o.synset for o in observed if o.synset})

    def verified(draft: Draft) -> PerceptionResult:
        curated = draft.goal_info.get("source") == "retrieval"
        activity = draft.goal_info.get("activity") if curated else None
        types = frozenset(to_omnigibson(load_problem(activity)).objects.values()) if activity else frozenset()
        facts = DraftFacts(draft.sources, mentioned, draft.goal_reason, curated_goal=curated,
                           wanted=draft.wanted, activity=activity, activity_types=types,
                           instruction=instruction if config.check_language else "", offered=draft.offered)
        verdicts, plan, loads = verify_draft(draft.problem, facts, config.robot, config.plan_budget_s, judge)
        accepted = all(v.passed is True for v in verdicts)
        draft.notes += [note for v in verdicts for note in v.notes]
        provenance = build_provenance(instruction, detector.name, frames, draft, dropped, lift_notes, config)
        bddl = write_problem(draft.problem) if draft.problem is not None else None
        return PerceptionResult(accepted, draft.problem, bddl, verdicts, provenance, loads, plan, timings)

    def redrafted(draft: Draft) -> tuple[PerceptionResult, Draft]:
        """The LLM's draft verified, then drawn again while the verifier's reasons can be mended:
        up to ``llm_redrafts`` redrafts (the refused goals and reasons in the conversation), then up
        to ``llm_samples`` sampled draws from the first prompt (best of N under the verifier)."""
        from symplan_core.perception.llm_goal import Rejection

        result = verified(draft)
        history: dict[str, list[dict[str, Any]]] = {"redrafts": [], "samples": []}
        draws = ["redrafts"] * config.llm_redrafts + ["samples"] * config.llm_samples
        for kind in draws if config.llm_decoding == "grammar" else ():
            if not _redraftable(result, draft):
                break
            history[kind].append({"reply": draft.goal_info.get("reply", ""), "reasons": list(result.reasons)})
            if kind == "redrafts":
                rejections = [Rejection(r["reply"], tuple(r["reasons"])) for r in history["redrafts"]]
                draft = _drafts(observed, instruction, config, goal_backend, None, "llm", rejections)[0]
            else:
                draft = _drafts(observed, instruction, config, goal_backend, None, "llm",
                                sample=len(history["samples"]))[0]
            draft.goal_info.update({k: list(v) for k, v in history.items() if v})
            result = verified(draft)
        return result, draft

    clarification: Clarification | None = None
    corroborated = False  # the LLM's goal is a retrieved activity's goal too
    if hybrid_llm is not None:
        result = verified(drafts[0])
    else:
        result = redrafted(drafts[0])[0] if source == "llm" else verified(drafts[0])
        clarification = _clarify(result, drafts, verified, config)
        if (config.goal == "hybrid" and choice is None and not result.accepted and clarification is None
                and not any(v.lacking for v in result.verdicts)):
            # A clear retrieval the verifier refuses, with no other candidate to offer: its score
            # misled (a task retrieval does not know scores high on a known one), so the LLM drafts.
            hybrid_llm = _drafts(observed, instruction, config, goal_backend, None, "llm")[0]
    if hybrid_llm is not None:  # the LLM's draft weighed against retrieval's best (verified above)
        retrieved = result
        llm_result, hybrid_llm = redrafted(hybrid_llm)
        result, clarification = _hybrid(llm_result, hybrid_llm, retrieved, drafts[0])
        corroborated = retrieved.accepted and _goal_key(hybrid_llm) == _goal_key(drafts[0])
    if (clarification is None and result.accepted and not corroborated
            and result.provenance["goal"].get("source") == "llm"):
        clarification = _guessed(result)
        if clarification is None and config.llm_agreement and config.llm_decoding == "grammar":
            def sampled(seed: int) -> PerceptionResult:
                return verified(_drafts(observed, instruction, config, goal_backend, None, "llm", sample=seed)[0])

            # Seeds after any best-of-N draws: the seed that gave this goal would agree with itself.
            first = len(result.provenance["goal"].get("samples", [])) + 1
            clarification = _samples_disagree(result, sampled, range(first, first + config.llm_agreement),
                                              config.robot)
        if clarification is None and config.confirm == "novel":
            clarification = _confirm(result)
    if (clarification is None and config.ask_unanswered and result.accepted
            and result.provenance["goal"].get("source") == "retrieval"):
        clarification = _unanswered(result)
    lap("verify")
    if clarification is not None:  # a new result: the first candidate keeps its own (accepted or not)
        from dataclasses import replace

        result = replace(result, accepted=False, clarification=clarification,
                         provenance={**result.provenance, "clarification": clarification.to_json()})
    return result


def _redraftable(result: PerceptionResult, draft: Draft) -> bool:
    """A refused LLM goal that a new draft may mend: the model answered (no backend failure), and
    the scene has every object the instruction names."""
    if result.accepted or not draft.goal_info.get("reply"):
        return False
    return not any(v.lacking for v in result.verdicts)


def _clear(draft: Draft, config: PerceptionConfig) -> bool:
    """Hybrid drafting: retrieval's best match scores high enough to be taken without the LLM."""
    score = draft.goal_info.get("score")
    return score is not None and score >= config.hybrid_clear


def _hybrid(llm: PerceptionResult, llm_draft: Draft, retrieved: PerceptionResult,
            retrieved_draft: Draft) -> tuple[PerceptionResult, Clarification | None]:
    """Hybrid drafting when retrieval is not clear (docs/perception.md): the LLM's draft and
    retrieval's best draft are both verified.

    * both pass with the same goal, or only the LLM's passes: the LLM's draft;
    * both pass with different goals: a question with both (``llm-retrieval-disagree``);
    * only retrieval's passes: a question with that one candidate (``unconfirmed``): an unclear
      retrieval the LLM does not confirm is asked about, not done (a question is better than a
      wrong goal);
    * neither passes: the LLM's rejection, with its reasons.
    """
    best = retrieved_draft.goal_info.get("activity")
    llm.provenance["goal"]["hybrid"] = {"retrieved": best, "score": retrieved_draft.goal_info.get("score"),
                                        "retrieval_accepted": retrieved.accepted}
    if llm.accepted and (not retrieved.accepted or _goal_key(llm_draft) == _goal_key(retrieved_draft)):
        return llm, None
    if not retrieved.accepted:
        return llm, None
    listed = ([(llm_draft, llm, "llm")] if llm.accepted else []) + [(retrieved_draft, retrieved, best)]
    candidates = [Candidate(i, activity, d.goal_info.get("score"), _goal_words(d), r)
                  for i, (d, r, activity) in enumerate(listed, 1)]
    if llm.accepted:
        why = "llm-retrieval-disagree"
        question = "Which do you mean? " + _choices(candidates)
    else:
        why = "unconfirmed"
        question = f"Do you mean (1) {candidates[0].goal_text}?"
    return (llm if llm.accepted else retrieved), Clarification(question, why, candidates)


def _choices(candidates: list[Candidate]) -> str:
    """The numbered candidates of a question, as it reads them out: "(1) ... Or (2) ..."."""
    return " Or ".join(f"({c.number}) {c.goal_text}" for c in candidates)


def _state_back(result: PerceptionResult, lead: str, why: str, activity: str | None,
                score: float | None) -> Clarification:
    """A yes/no question with the accepted draft's goal in words; its one candidate is that draft."""
    assert result.problem is not None  # accepted
    words = _problem_words(result.problem)
    return Clarification(f"{lead} Should I make this true: {words}?", why, [Candidate(1, activity, score, words, result)])


def _confirm(result: PerceptionResult) -> Clarification:
    """``confirm='novel'``: a goal only the LLM vouches for is stated back before anything is done
    (``novel-goal``), as the paper's dialogue does ("Should each basket include candle, cookie,
    cheese, bow?" - "Yes."). Its one candidate is the accepted draft itself."""
    return _state_back(result, "This is a task I have no example of.", "novel-goal", "llm", None)


def plan_reaches(plan: Any, problem: Problem, robot: str, names: dict[str, str] | None = None) -> bool:
    """Whether the reference planner's ``plan`` strict-passes ``problem`` (its instances renamed
    through ``names`` first, where the plan was made over another naming of the same scene)."""
    if plan is None or not plan.solved:
        return False
    names = names or {}
    text = "\n".join(format_call(action, [names.get(a, a) for a in args]) for action, args in plan.calls)
    return verify(compile_task(problem, robot=robot), text).strict_pass


def _same_task(a: PerceptionResult, a_problem: Problem, b: PerceptionResult, b_problem: Problem, robot: str) -> bool:
    """Two accepted goals over one scene ask for the same task: each one's reference plan
    strict-passes the other's goal, however the two are written."""
    return plan_reaches(a.plan, b_problem, robot) and plan_reaches(b.plan, a_problem, robot)


def _samples_disagree(result: PerceptionResult, sampled, seeds: range, robot: str) -> Clarification | None:
    """``llm_agreement``: the accepted LLM goal held against goals sampled from the same prompt, one
    per seed. A sampled goal the verifier accepts supports the greedy one when the two are the same
    task (:func:`_same_task`) or read the same in words (a person could not tell them apart);
    refused samples say nothing. When accepted samples exist and none supports the greedy goal, the
    model's own readings all point elsewhere: a question with the greedy goal and each distinct
    sampled one (``samples-disagree``; ``llm-sample-SEED``), instead of a guess. One differing
    sample among agreeing ones is not enough: Qwen 1.5B at temperature 0.8 often adds a stray
    literal to a right goal (docs/results.md). Every draw is recorded in the provenance
    (``goal.agreement``)."""
    assert result.problem is not None  # accepted
    words = _problem_words(result.problem)
    record: list[dict[str, Any]] = []
    accepted: list[tuple[int, PerceptionResult, Problem, str]] = []
    supported = False
    for seed in seeds:
        alt = sampled(seed)
        entry: dict[str, Any] = {"seed": seed, "accepted": alt.accepted,
                                 "reply": alt.provenance["goal"].get("reply", "")}
        if alt.accepted and alt.problem is not None:
            entry["reaches_sample"] = plan_reaches(result.plan, alt.problem, robot)
            entry["sample_reaches"] = plan_reaches(alt.plan, result.problem, robot)
            alt_words = _problem_words(alt.problem)
            entry["same_words"] = alt_words == words
            supported |= (entry["reaches_sample"] and entry["sample_reaches"]) or entry["same_words"]
            accepted.append((seed, alt, alt.problem, alt_words))
        record.append(entry)
    result.provenance["goal"]["agreement"] = record
    if supported or not accepted:
        return None
    distinct: list[tuple[int, PerceptionResult, Problem, str]] = []
    for seed, alt, problem, alt_words in accepted:
        if all(alt_words != seen and not _same_task(alt, problem, other, other_problem, robot)
               for _seed, other, other_problem, seen in distinct):
            distinct.append((seed, alt, problem, alt_words))
    listed = [("llm", result, words), *((f"llm-sample-{seed}", alt, said) for seed, alt, _p, said in distinct)]
    candidates = [Candidate(i, name, None, said, r) for i, (name, r, said) in enumerate(listed, 1)]
    question = "I am not sure what you mean. Which is it? " + _choices(candidates)
    return Clarification(question, "samples-disagree", candidates)


def _guessed(result: PerceptionResult) -> Clarification | None:
    """An accepted LLM goal for a request that names nothing the scene has (``guessed-goal``,
    ``Verdict.guessed``): nothing ties it to the request, so it is stated back for a yes, whatever
    ``confirm`` says."""
    if not any(v.guessed for v in result.verdicts):
        return None
    return _state_back(result, "Nothing you named is something I can see here, so this is my guess.",
                       "guessed-goal", "llm", None)


def _unanswered(result: PerceptionResult) -> Clarification | None:
    """``ask_unanswered``: the retrieved task passes, but a state the instruction asks for is in
    none of its goal's literals (``unasked-state``): the closest known task may be another one, so
    its goal is stated back for a yes rather than done."""
    missing = [m for v in result.verdicts for m in v.unanswered]
    if not missing:
        return None
    said = " and ".join(f"'{word}'" for word in dict.fromkeys(missing))
    goal = result.provenance["goal"]
    return _state_back(result, f"You said {said}, but the closest task I know does not ask for that.",
                       "unasked-state", goal.get("activity"), goal.get("score"))


def _close(draft: Draft, first: Draft, margin: float) -> bool:
    a, b = draft.goal_info.get("score"), first.goal_info.get("score")
    return a is not None and b is not None and a >= b * (1.0 - margin)


def _goal_key(draft: Draft) -> Any:
    from symplan_core.bddl.normalize import to_omnigibson

    if draft.problem is None:
        return None
    goal = to_omnigibson(draft.problem).goal
    return frozenset(goal.parts if isinstance(goal, And) else (goal,))


def _clarify(result: PerceptionResult, drafts: list[Draft], verified, config: PerceptionConfig) -> Clarification | None:
    """Ask instead of guessing when the candidate goals disagree:

    * ``close-scores``: the chosen goal passes, and another candidate scoring within
      ``clarify_margin`` of it has a different goal that passes too;
    * ``top-rejected``: the chosen goal (the best match whose objects were all seen) fails a check
      that the scene's objects do not explain, and other candidates pass: rather than silently
      doing the next-best task, ask which was meant.

    When every candidate fails, the result is the rejection with its reasons (no answer to a
    choice among failing goals could make one pass)."""
    if len(drafts) < 2:
        return None
    first = drafts[0]
    key = _goal_key(first)
    if result.accepted:
        others = [d for d in drafts[1:] if _close(d, first, config.clarify_margin) and _goal_key(d) != key]
        why = "close-scores"
    elif any("but no such object was detected" in r for r in result.reasons) or result.problem is None:
        return None  # the instruction names a needed object the scene lacks: nothing to choose
    else:
        others = [d for d in drafts[1:] if _goal_key(d) != key]
        why = "top-rejected"
    passing: list[tuple[Draft, PerceptionResult]] = []
    for draft in others:
        alt = verified(draft)
        if alt.accepted and all(_goal_key(draft) != _goal_key(d) for d, _r in passing):
            passing.append((draft, alt))
    if not passing:
        return None
    listed = ([(first, result)] if result.accepted else []) + passing
    candidates = [Candidate(i, d.goal_info.get("activity"), d.goal_info.get("score"), _goal_words(d), r)
                  for i, (d, r) in enumerate(listed, 1)]
    if why == "close-scores":
        question = "Which do you mean? " + _choices(candidates)
    else:
        reason = result.reasons[0] if result.reasons else "it fails a check"
        question = (f"I cannot do {_goal_words(first)!r} here ({reason}). Did you mean "
                    + _choices(candidates) + "?")
    return Clarification(question, why, candidates)


def _goal_words(draft: Draft) -> str:
    return "(no goal)" if draft.problem is None else _problem_words(draft.problem)


def _problem_words(drafted: Problem) -> str:
    from symplan_core.prompts.goal_text import GoalRewriter

    problem = to_omnigibson(drafted)
    rewriter = GoalRewriter(short=lambda inst: type_word(problem.objects.get(inst, inst)))
    return "; ".join(rewriter.instructions(problem.goal)).rstrip(".") or "(empty goal)"


@dataclass
class Draft:
    problem: Problem | None
    sources: dict[str, str]
    instances: _Instances  # the perceived scene's objects under their instance names
    fact_sources: dict[str, str]  # written literal -> observed | prior
    relation_regions: dict[str, list[str]]  # written literal -> region keys
    goal_info: dict[str, Any]
    goal_reason: str = ""
    notes: list[str] = field(default_factory=list)
    wanted: dict[str, str] = field(default_factory=dict)  # unseen type -> better-matching activity needing it
    offered: frozenset[str] = frozenset()  # types an LLM goal could add (``additions``), used or not


def _drafts(observed: list[Observed], instruction: str, config: PerceptionConfig, goal_backend: Any = None,
            choice: str | None = None, source: str = "retrieval", rejections: Sequence[Any] = (),
            sample: int = 0) -> list[Draft]:
    """The preferred draft first, then the other candidate readings (retrieval: the other
    retrieved activities whose goal objects were all seen, best score first; ``source='llm'``:
    the one LLM draft, a redraft when ``rejections`` (``llm_goal.Rejection``) are given, the
    ``sample``-th draw at ``llm_sample_temperature`` when it is above 0, else greedy)."""
    from dataclasses import replace

    from symplan_core.bddl.checks import goal_atoms, iter_atoms, iter_quantifiers
    from symplan_core.perception.additions import named_additions, scene_additions
    from symplan_core.perception.llm_goal import draft_goal, draft_goal_constrained, goal_examples
    from symplan_core.perception.regrounding import reground
    from symplan_core.perception.retrieval import activity_index
    from symplan_core.tasks import load_problem

    seen_synsets = {o.synset for o in observed if o.synset}
    matches = activity_index(config.benchmarks).search(instruction, seen_synsets, k=max(5, config.llm_examples),
                                                        exclude=config.exclude_activities)
    if choice is not None:
        matches = [m for m in matches if choice in (m.task, m.task.split("/", 1)[1])] or \
            [m for m in activity_index(config.benchmarks).search(instruction, seen_synsets, k=10 ** 6,
                                                                  exclude=config.exclude_activities)
             if choice in (m.task, m.task.split("/", 1)[1])]
        if not matches:
            raise PerceptionError(f"the answer {choice!r} names no activity of the retrieval corpus")
    top = matches[0] if matches else None
    activity_problem = load_problem(top.task) if top else None
    domain = config.domain or (activity_problem.domain if activity_problem and source == "retrieval"
                               else "omnigibson")
    named = _instances(observed, domain)
    found = infer_relations(named.regions, config.relations)
    notes = list(named.notes) + [f"{key}: no support found (it floats, or what holds it was not seen)"
                                 for key in found.unsupported]
    observed_init: list[Literal] = []
    regions_of: dict[Literal, list[str]] = {}
    for rel in found.relations:
        lit = Literal(Atom(rel.predicate, rel.args))
        if lit not in regions_of:
            observed_init.append(lit)
            regions_of[lit] = []
        regions_of[lit] = sorted({*regions_of[lit], *rel.regions})
    base_info: dict[str, Any] = {"source": source,
                                 "candidates": [{"activity": m.task, "score": round(m.score, 4),
                                                 "text": round(m.text_score, 4), "objects": round(m.object_score, 4)}
                                                for m in matches]}

    def finish(name: str, objects: dict, sources: dict, init: list, goal, fact_sources: dict,
               regions: dict, draft_instances: _Instances, info: dict, goal_reason: str = "",
               wanted: dict | None = None) -> Draft:
        problem = None
        if goal is not None:
            problem = Problem(name, "omnigibson", objects, tuple(init), goal)
            if domain == "igibson":
                problem = to_igibson(problem)
        written_sources = {write_literal(lit): src for lit, src in fact_sources.items()}
        written_regions = {write_literal(lit): keys for lit, keys in regions.items()}
        return Draft(problem, sources, draft_instances, written_sources, written_regions, info, goal_reason, list(notes),
                     dict(wanted or {}))

    if source != "retrieval":
        backend = goal_backend or config.llm
        if not backend:
            raise PerceptionError(f"goal={config.goal!r} needs an LLM backend spec (config.llm)")
        objects, init = dict(named.seen), observed_init
        # what the request says holds now that the camera cannot see ("switch off the calculator": on)
        said = presupposed_states(instruction, objects, init) if config.check_language else []
        # what the goal may name that the camera cannot show, and what the request asks to make
        extra = scene_additions(objects, requested_products(instruction, objects.values()))
        writable = {*objects.values(), *(a.type for a in extra.values())}
        mentions: list[tuple[str, frozenset[str]]] = []
        states: list[tuple[str, tuple[tuple[str, bool], ...]]] = []
        placements: list[RequestedPlacement] = []
        if config.llm_decoding == "free":
            llm = draft_goal(backend, objects, init, instruction, "omnigibson", config.llm_max_tokens, extra)
        else:  # held-out activities are not in ``matches`` (exclude): never an example
            examples = goal_examples(matches, config.llm_examples, config.exclude_activities)
            if config.llm_mention_objects and config.check_instruction_objects:  # what the verifier will require
                mentions = goal_must_mention(instruction, instruction_objects(instruction, seen_synsets), writable)
            if config.llm_answer_states and config.check_language:  # what its state checks will ask for
                states = asked_states(state_words(instruction))
            if config.llm_answer_placements and config.check_language:  # where its placement checks will look
                placements = requested_placements(instruction, writable)
            llm = draft_goal_constrained(backend, objects, instruction, examples, "omnigibson", config.llm_max_tokens,
                                         extra, rejections, [*init, *said], seed=sample or None,
                                         temperature=config.llm_sample_temperature if sample else 0.0,
                                         mentions=mentions, states=states, placements=placements)
        goal = llm.goal
        turned: list[str] = []
        if goal is not None and config.check_language:  # a substance cooked is the product it becomes
            goal, turned = read_made_substances(goal, {**objects, **{i: a.type for i, a in extra.items()}},
                                                {i: a.type for i, a in extra.items() if a.made})
        used = named_additions({a for atom in iter_atoms(goal) for a in atom.args}, extra,
                               {p.type for q in iter_quantifiers(goal) for p in q.params}) if goal else {}
        added = [lit for a in used.values() for lit in a.facts]
        info = {**base_info, "llm": config.llm or getattr(backend, "name", "backend"), "reply": llm.reply,
                "decoding": config.llm_decoding, "examples": list(llm.examples), "grammar_bytes": llm.grammar_bytes,
                "completion_tokens": llm.completion_tokens, "llm_seconds": round(llm.latency_s, 3),
                "must_mention": [phrase for phrase, _ in mentions], "must_answer": [said for said, _ in states],
                "continued": llm.continued,
                "additions": {i: {"type": a.type, "because": a.because} for i, a in used.items()}}
        declared = {**objects, **{i: a.type for i, a in used.items()}}
        cut = [f"the LLM goal was cut at {config.llm_max_tokens} tokens before it closed: its {llm.kept} complete "
               "conjunct(s) are read as the goal"] if llm.kept else []
        if cut:
            info["cut_kept"] = llm.kept
        mended: tuple[str, ...] = tuple(turned)
        if goal is not None and config.check_language:  # read as the model meant it (goal_mending)
            read_as = mend_goal(instruction, Problem("drafted", "omnigibson", declared, (*init, *added, *said), goal))
            goal, mended = read_as.goal, (*mended, *read_as.notes)
            if mended:
                info["mended"] = list(mended)
        ended = {atom for atom, positive, _types in goal_atoms(goal) if not positive} if goal is not None else set()
        said = [lit for lit in said if lit.atom in ended]  # kept where the goal ends that state
        if said:
            info["said"] = [write_literal(lit) for lit in said]
        draft = finish(config.problem_name or "perceived-0", declared,
                       {inst: "detection" for inst in objects} | {i: "prior" for i in used}, [*init, *added, *said],
                       goal, {lit: "observed" for lit in init} | {lit: "prior" for lit in added}
                       | {lit: "said" for lit in said}, regions_of, named, info, llm.reason)
        draft.notes += [*cut, *mended, *(f"the request asks to end ({write_literal(lit)[1:-1]}): it is taken to hold "
                                         "now, which the camera cannot see" for lit in said)]
        draft.offered = frozenset(a.type for a in extra.values())
        return [draft]
    if activity_problem is None:
        raise PerceptionError("retrieval found no activity (empty benchmark corpus)")
    trials = []
    complete = []  # The best-scoring activities whose goal objects were all seen; else the best one
    for match in matches:  # (rejected by the objects axis, which names what is missing).
        problem = load_problem(match.task)
        if config.domain is None and problem.domain != domain:
            continue
        trials.append((match, reground(problem, match.task, named.seen, observed_init, domain)))
        if "unseen" not in trials[-1][1].sources.values():
            complete.append(len(trials) - 1)
            if len(complete) == config.max_candidates:
                break
    complete = complete or [0]
    # What the instruction alone retrieves (the scene's objects aside) needs what it names, too,
    # when its words clearly prefer it to the drafted task: "polish the piano" in a scene without
    # a piano must not become the scene's best-fitting task.
    alone = activity_index(config.benchmarks).search(instruction, k=1, exclude=config.exclude_activities)
    alone_wants = {t: alone[0].task for t in to_omnigibson(load_problem(alone[0].task)).objects.values()} \
        if alone else {}
    drafts = []
    for i in complete[:config.max_candidates]:
        match, rg = trials[i]
        prefers_other = bool(alone) and match.text_score < alone[0].score * (1.0 - config.clarify_margin)
        wanted = {**(alone_wants if prefers_other else {}),
                  **{rg2.objects[inst]: m2.task for m2, rg2 in reversed(trials[:i])
                     for inst, src in rg2.sources.items() if src == "unseen"}}
        regions = {Literal(Atom(lit.predicate, tuple(rg.renamed.get(a, a) for a in lit.args)), lit.negated): keys
                   for lit, keys in regions_of.items()}
        draft_instances = replace(named, evidence={rg.renamed.get(k, k): v for k, v in named.evidence.items()})
        info = {**base_info, "activity": match.task, "score": round(match.score, 4), "mapping": rg.mapping}
        name = config.problem_name or f"{match.task.split('/', 1)[1]}-perceived"
        drafts.append(finish(name, rg.objects, rg.sources, rg.init, rg.goal, dict(rg.fact_sources), regions,
                             draft_instances, info, wanted=wanted))
    return drafts


@dataclass(frozen=True)
class SeenObject:
    """One object of :func:`observe_scene`: the scene's instance name (``synset_k``), what identifies
    it across perceptions (its marker id, else None), its fused world box and its image box."""

    instance: str
    synset: str
    label: str
    marker_id: int | None
    box: Any  # lifting.Box3D, world frame (z up)
    image_box: tuple[float, float, float, float] | None  # x0, y0, x1, y1 in the last frame that saw it
    score: float


@dataclass(frozen=True)
class SceneSnapshot:
    """What one perception shows, without a goal: objects and the relations between them (the
    same detection, grounding, lifting and relation stages as :func:`perceive`)."""

    objects: dict[str, SeenObject]
    relations: tuple[tuple[str, ...], ...]  # (predicate, arg, ...) over instance names and rooms
    pose: Any  # 4 x 4 camera -> world of the frames (the first frame's, else the config default)
    notes: tuple[str, ...] = ()


def observe_scene(frames: Sequence[Frame], detector: Detector, intrinsics: CameraIntrinsics,
                  config: PerceptionConfig | None = None) -> SceneSnapshot:
    """Key frames -> the objects and relations they show (no goal, no verifier): what execution
    monitoring compares a subgoal's expected effects with. Raises like :func:`perceive`
    (``NoDetectionsError`` when nothing could be grounded or placed)."""
    config = config or PerceptionConfig()
    frames = list(frames)
    if not frames:
        raise FrameError("no frames to perceive from")
    for frame in frames:
        intrinsics.check(frame)
        if frame.depth is None:
            raise DepthError(f"{frame.label} has no depth: 3-D lifting needs a depth image per frame")
    detections = [[d.in_frame(i) for d in detector.detect(f, [])] for i, f in enumerate(frames)]
    dropped: dict[str, dict] = {}
    grounded = _ground(detections, {}, config.aliases, dropped)
    observed, notes = observe(frames, grounded, intrinsics, config.default_pose(), config.lift)
    named = _instances(observed, config.domain or "omnigibson")
    found = infer_relations(named.regions, config.relations)
    objects: dict[str, SeenObject] = {}
    for inst, synset in named.seen.items():
        obs = named.evidence[inst]
        sighting = obs.sightings[0]
        dets = [d for s in obs.sightings for d in s.detections]
        last = max(dets, key=lambda d: d.frame) if dets else None
        objects[inst] = SeenObject(inst, synset, obs.label, obs.marker_id, sighting.box,
                                   last.box if last is not None else None, obs.score)
    relations = tuple(dict.fromkeys((rel.predicate, *rel.args) for rel in found.relations))
    pose = frames[0].pose if frames[0].pose is not None else config.default_pose()
    return SceneSnapshot(objects, relations, pose, tuple(notes) + tuple(named.notes))
