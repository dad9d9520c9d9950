"""``symplan perceive eval``: rendered BEHAVIOR scenes -> perceive -> compared with the released BDDL.

For each task: its ``:init`` is rendered (:mod:`symplan_core.perception.rigs.synthetic`), ``perceive``
runs on the frames with the fiducial detector and an instruction made from the task (its goal in
English, as the planner prompt words it, or its activity name), and the draft is compared with the
released problem. Perceived instance names are mapped back to the released ones through the
renderer's ground truth (which marker was on which instance), never through the pipeline.

Metrics per task and in total: engine loading, verifier acceptance, object precision/recall,
init-fact precision/recall (all facts; those vision produces; those the prior supplies), grounded
goal equivalence (same conjuncts as the released goal after the name mapping), retrieval hit,
and the paper's four indicators, two of which need a strong LLM judge we do not have offline and
are replaced by deterministic proxies (stated in ``docs/perception.md``):

* core semantic agreement: goal equivalent, every goal object present with its type, init F1 >= 0.9;
* instruction alignment: the reference plan made for *our* draft reaches the *released* goal with
  a strict pass when executed in the released task (the draft serves the instruction's intent).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from typing import Literal as Lit

from pydantic import BaseModel, ConfigDict, Field

from symplan_core.bddl.checks import iter_atoms
from symplan_core.bddl.model import And, Atom, Formula, Param, Problem
from symplan_core.bddl.normalize import map_formula, to_omnigibson
from symplan_core.engine import compile_task
from symplan_core.perception.errors import PerceptionError
from symplan_core.perception.fiducial import FiducialDetector
from symplan_core.perception.goal_grammar import compact_goal
from symplan_core.perception.pipeline import PerceptionConfig, perceive, plan_reaches
from symplan_core.perception.regrounding import VISUAL
from symplan_core.perception.rigs.synthetic import NoiseConfig, render_task
from symplan_core.prompts import goal_to_english
from symplan_core.tasks import load_problem

CORE_F1 = 0.9


class HoldoutLeakError(PerceptionError, RuntimeError):
    """In ``--holdout`` the evaluated activity reached the drafter (an example or the retrieved goal)."""


class InstructionFileError(PerceptionError, ValueError):
    """A malformed ``--instructions`` file (line number and reason)."""


@dataclass(frozen=True)
class GivenInstruction:
    """One line of an instructions file: what a person said for an activity, in a style."""

    activity: str
    instruction: str
    style: str = "unstyled"


def read_json_lines(path, what: str = "instructions") -> list[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSONL file; a file that cannot be read,
    a line that is not JSON or not an object is an :class:`InstructionFileError` saying where."""
    import json
    from pathlib import Path

    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InstructionFileError(f"cannot read {what} {path}: {exc}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InstructionFileError(f"{path}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise InstructionFileError(f"{path}:{number}: not a JSON object")
        out.append((number, row))
    return out


def load_instructions(path, benchmark: str = "b1k") -> list[GivenInstruction]:
    """Read a JSONL file of ``{"activity", "instruction", "style"?}``; every activity must exist."""
    from symplan_core.tasks import list_tasks

    known = set(list_tasks(benchmark))
    out = []
    for number, row in read_json_lines(path):
        extra = set(row) - {"activity", "instruction", "style"}
        if extra:
            raise InstructionFileError(f"{path}:{number}: unknown field(s) {sorted(extra)}")
        activity, text, style = row.get("activity"), row.get("instruction"), row.get("style", "unstyled")
        if not isinstance(activity, str) or not isinstance(text, str) or not text.strip():
            raise InstructionFileError(f"{path}:{number}: needs a string 'activity' and a non-empty 'instruction'")
        if not isinstance(style, str) or not style:
            raise InstructionFileError(f"{path}:{number}: 'style' is a non-empty string")
        activity = activity.split("/", 1)[1] if activity.startswith(f"{benchmark}/") else activity
        if activity not in known:
            raise InstructionFileError(f"{path}:{number}: {activity!r} is not a {benchmark} activity")
        out.append(GivenInstruction(activity, text.strip(), style))
    if not out:
        raise InstructionFileError(f"{path}: no instructions")
    return out


class EvalOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str = "b1k"
    seed: int = 0
    frames: int = Field(default=8, ge=1)
    noise: NoiseConfig = NoiseConfig()
    instruction: Lit["goal", "name"] = "goal"
    #: Leave-one-out: the evaluated activity is removed from the retrieval corpus and any example
    #: pool (the novel-task setting).
    holdout: bool = False
    perception: PerceptionConfig = PerceptionConfig()

    def config_for(self, task: str) -> PerceptionConfig:
        if not self.holdout:
            return self.perception
        return self.perception.model_copy(
            update={"exclude_activities": (*self.perception.exclude_activities, task)})


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _counts(found: set, truth: set) -> Counts:
    return Counts(len(found & truth), len(found - truth), len(truth - found))


@dataclass
class TaskReport:
    task: str
    instruction: str
    style: str = ""
    holdout: bool = False
    loads: bool = False
    accepted: bool = False
    verdicts: dict[str, bool | None] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    retrieved: str | None = None
    retrieval_score: float | None = None  # the retrieved activity's match score (retrieval, hybrid)
    objects: Counts = field(default_factory=Counts)
    facts: Counts = field(default_factory=Counts)
    observed_facts: Counts = field(default_factory=Counts)
    prior_facts: Counts = field(default_factory=Counts)
    goal_equivalent: bool = False
    plan_transfer: bool = False
    #: A clarification question was asked instead of accepting; the simulated person's answer
    #: (the candidate whose goal is the released one, else one whose plan reaches it) resolves it.
    asked: bool = False
    asked_why: str = ""  # the Clarification's why (novel-goal: an accepted LLM goal stated back for a yes/no)
    question: str = ""
    candidates: list[str] = field(default_factory=list)
    answer: str | None = None
    resolved: bool = False
    #: Who drafted the chosen goal (retrieval | llm) and the activities shown to the LLM as examples.
    drafted_by: str = ""
    examples: list[str] = field(default_factory=list)
    #: The instruction's object phrases the LLM's draft had to mention (``llm_mention_objects``).
    must_mention: list[str] = field(default_factory=list)
    #: The instruction's state words the LLM's draft had to answer (``llm_answer_states``).
    must_answer: list[str] = field(default_factory=list)
    redrafts: int = 0  # LLM goals refused by the verifier and redrafted with its reasons before this one
    samples: int = 0  # LLM goals refused by the verifier before this sampled draw (best-of-N, --samples)
    #: --agreement: each sampled draw (seed, accepted, and for an accepted one whether each goal's plan
    #: reaches the other's goal and whether the two read the same)
    agreement: list[dict[str, Any]] = field(default_factory=list)
    #: The drafted goal in one line (perceived instance names), or the LLM's reply when it gave none.
    drafted_goal: str = ""
    core_agreement: bool = False
    min_tag_px: int = 0
    seconds: float = 0.0
    error: str = ""

    @property
    def retrieval_hit(self) -> bool:
        return self.retrieved == self.task

    @property
    def accepted_wrong(self) -> bool:
        """Accepted, and its plan does not reach the released goal: the dangerous case."""
        return self.accepted and not self.plan_transfer

    def to_json(self) -> dict:
        out = asdict(self)
        for key in ("objects", "facts", "observed_facts", "prior_facts"):
            c = getattr(self, key)
            out[key].update(precision=round(c.precision, 4), recall=round(c.recall, 4), f1=round(c.f1, 4))
        out["retrieval_hit"] = self.retrieval_hit
        out["accepted_wrong"] = self.accepted_wrong
        return out


def instruction_for(problem: Problem, activity: str, mode: str) -> str:
    if mode == "name":
        return activity.replace("_", " ")
    return goal_to_english(compile_task(problem))


def _conjuncts(goal: Formula) -> set[Formula]:
    parts = goal.parts if isinstance(goal, And) else (goal,)
    out: set[Formula] = set()
    for part in parts:
        out |= _conjuncts(part) if isinstance(part, And) else {part}
    return out


def _facts(problem: Problem) -> set[tuple]:
    return {(lit.negated, lit.predicate, lit.args) for lit in problem.init}


def _renamed(problem: Problem, rename: dict[str, str]) -> Problem:
    from symplan_core.bddl.model import Literal

    def name(x: str) -> str:
        return rename.get(x, x)

    init = tuple(Literal(Atom(lit.predicate, tuple(map(name, lit.args))), lit.negated) for lit in problem.init)
    goal = map_formula(problem.goal, lambda a: Atom(a.predicate, tuple(map(name, a.args))),
                       lambda p: Param(p.var, p.type))
    return Problem(problem.name, problem.domain, {name(i): t for i, t in problem.objects.items()}, init, goal)


def evaluate_task(activity: str, options: EvalOptions, given: GivenInstruction | None = None,
                  rendered: tuple | None = None, goal_backend: Any = None) -> TaskReport:
    """Render, perceive, compare. ``given``: a person's instruction instead of one made from the
    task; ``rendered``: (scene, frames) already made for this activity (several instructions);
    ``goal_backend``: a built LLM backend for ``goal=llm|hybrid`` (one loaded model for the run).

    With ``holdout`` the evaluated activity must never reach the drafter's examples: if it did, the
    run stops with a :class:`HoldoutLeakError` (a fault of the harness, not a result)."""
    started = time.perf_counter()
    task = f"{options.benchmark}/{activity}"
    released = load_problem(task)
    instruction = given.instruction if given else instruction_for(released, activity, options.instruction)
    report = TaskReport(task=task, instruction=instruction, style=given.style if given else options.instruction,
                        holdout=options.holdout)
    scene, frames = rendered or _render(released, options)
    report.min_tag_px = scene.min_tag_pixels()
    try:
        result = perceive(frames, instruction, FiducialDetector(scene.fiducial_map), scene.intrinsics,
                          options.config_for(task), goal_backend=goal_backend)
    except Exception as exc:  # noqa: BLE001 - a typed perception error is this task's result
        report.error = f"{type(exc).__name__}: {exc}"
        report.seconds = time.perf_counter() - started
        return report
    report.loads, report.accepted = result.engine_loads, result.accepted
    report.verdicts = {v.axis: v.passed for v in result.verdicts}
    report.reasons = result.reasons
    report.retrieved = result.provenance["goal"].get("activity")
    report.retrieval_score = result.provenance["goal"].get("score")
    report.drafted_by = str(result.provenance["goal"].get("source", ""))
    candidates = result.clarification.candidates if result.clarification else []
    shown = [str(e) for res in [result, *(c.result for c in candidates)] for e in res.provenance["goal"].get("examples", ())]
    shown += [str(c.activity) for c in candidates]
    report.examples = [str(e) for e in result.provenance["goal"].get("examples", ())]
    report.must_mention = [str(p) for p in result.provenance["goal"].get("must_mention", ())]
    report.must_answer = [str(p) for p in result.provenance["goal"].get("must_answer", ())]
    report.redrafts = len(result.provenance["goal"].get("redrafts", ()))
    report.samples = len(result.provenance["goal"].get("samples", ()))
    report.agreement = [{k: v for k, v in draw.items() if k != "reply"}
                        for draw in result.provenance["goal"].get("agreement", ())]
    report.drafted_goal = (compact_goal(to_omnigibson(result.problem).goal) if result.problem is not None
                           else str(result.provenance["goal"].get("reply", "")))
    if options.holdout and (task in shown or report.retrieved == task):
        raise HoldoutLeakError(f"{task} reached the drafter in --holdout (examples {shown}, retrieved {report.retrieved})")
    truth = released_names(result.provenance, scene.truth)
    ref = to_omnigibson(released)
    if result.problem is not None:
        ours = _renamed(to_omnigibson(result.problem), truth)
        report.objects = _counts(set(ours.objects.items()), set(ref.objects.items()))
        mine, theirs = _facts(ours), _facts(ref)
        report.facts = _counts(mine, theirs)
        report.observed_facts = _counts({f for f in mine if f[1] in VISUAL}, {f for f in theirs if f[1] in VISUAL})
        report.prior_facts = _counts({f for f in mine if f[1] not in VISUAL}, {f for f in theirs if f[1] not in VISUAL})
        report.goal_equivalent = _conjuncts(ours.goal) == _conjuncts(ref.goal)
        goal_objects = {a for atom in iter_atoms(ref.goal) for a in atom.args if a in ref.objects}
        present = all(ours.objects.get(o) == ref.objects[o] for o in goal_objects)
        report.core_agreement = report.goal_equivalent and present and report.facts.f1 >= CORE_F1
        report.plan_transfer = _plan_transfers(result.plan, truth, released, options.perception.robot)
    if result.clarification is not None:
        report.asked, report.question = True, result.clarification.question
        report.asked_why = result.clarification.why
        report.candidates = [str(c.activity) for c in result.clarification.candidates]
        chosen = simulated_answer(result.clarification.candidates, scene.truth, released, options.perception.robot)
        if chosen is not None:
            report.answer, report.resolved = str(chosen.activity), True
    report.seconds = time.perf_counter() - started
    return report


def simulated_answer(candidates, truth: dict[int, str], released: Problem, robot: str):
    """The answer a person who wants the released goal gives: the candidate whose goal is the
    released goal (same conjuncts after mapping names back through the markers), else the first
    whose reference plan strict-passes the released task; None ("none of these") otherwise."""
    ref = to_omnigibson(released)
    transfers = None
    for cand in candidates:
        res = cand.result
        if not res.accepted or res.problem is None:
            continue
        names = released_names(res.provenance, truth)
        if _conjuncts(_renamed(to_omnigibson(res.problem), names).goal) == _conjuncts(ref.goal):
            return cand
        if transfers is None and _plan_transfers(res.plan, names, released, robot):
            transfers = cand
    return transfers


def _render(released: Problem, options: EvalOptions) -> tuple:
    scene = render_task(released, options.seed)
    return scene, scene.frames(options.frames, options.noise)


def released_names(provenance: dict, truth: dict[int, str]) -> dict[str, str]:
    """Perceived instance -> released instance, through the marker each detection read."""
    return {inst: truth[entry["marker_id"]] for inst, entry in provenance["objects"].items()
            if entry.get("marker_id") in truth and not truth[entry["marker_id"]].startswith("room:")}


def _plan_transfers(plan, truth: dict[str, str], released: Problem, robot: str) -> bool:
    return plan_reaches(plan, released, robot, truth)


def summarize(reports: list[TaskReport]) -> dict:
    n = len(reports) or 1
    totals = {key: Counts() for key in ("objects", "facts", "observed_facts", "prior_facts")}
    for r in reports:
        for key, c in totals.items():
            c.add(getattr(r, key))

    def rate(flag: Callable[[TaskReport], bool]) -> float:
        return round(100.0 * sum(1 for r in reports if flag(r)) / n, 2)

    out: dict[str, object] = {
        "tasks": len(reports),
        "engine_loading": rate(lambda r: r.loads),
        "verifier_acceptance": rate(lambda r: r.accepted),
        "retrieval_hit": rate(lambda r: r.retrieval_hit),
        "goal_equivalence": rate(lambda r: r.goal_equivalent),
        "core_semantic_agreement": rate(lambda r: r.core_agreement),
        "instruction_alignment": rate(lambda r: r.plan_transfer),
        "errors": sum(1 for r in reports if r.error),
        "mean_seconds": round(sum(r.seconds for r in reports) / n, 3),
    }
    for key, c in totals.items():
        out[key] = {"precision": round(c.precision, 4), "recall": round(c.recall, 4), "f1": round(c.f1, 4),
                    "tp": c.tp, "fp": c.fp, "fn": c.fn}
    out["axis_failures"] = {axis: sum(1 for r in reports if r.verdicts.get(axis) is False)
                            for axis in ("syntax", "objects", "init", "goal", "judge")}
    return out


def evaluate(activities: list[str], options: EvalOptions,
             progress: Callable[[TaskReport], None] | None = None) -> tuple[list[TaskReport], dict]:
    reports = []
    for activity in activities:
        report = evaluate_task(activity, options)
        reports.append(report)
        if progress:
            progress(report)
    return reports, summarize(reports)


def evaluate_instructions(given: list[GivenInstruction], options: EvalOptions,
                          progress: Callable[[TaskReport], None] | None = None,
                          goal_backend: Any = None) -> tuple[list[TaskReport], dict]:
    """Every given instruction on its activity's rendered scene (rendered once per activity)."""
    reports: list[TaskReport] = []
    rendered: dict[str, tuple] = {}
    for item in given:
        if item.activity not in rendered:
            rendered.clear()  # one scene's frames at a time
            rendered[item.activity] = _render(load_problem(f"{options.benchmark}/{item.activity}"), options)
        report = evaluate_task(item.activity, options, item, rendered[item.activity], goal_backend)
        reports.append(report)
        if progress:
            progress(report)
    summary = summarize(reports)
    summary["holdout"] = options.holdout
    summary["by_style"] = by_style(reports)
    return reports, summary


def by_style(reports: list[TaskReport]) -> dict[str, dict]:
    """Per style: the counts of the instruction-following table (docs/perception.md)."""
    out: dict[str, dict] = {}
    for style in dict.fromkeys(r.style for r in reports):
        rs = [r for r in reports if r.style == style]
        out[style] = {
            "n": len(rs),
            "accepted": sum(r.accepted for r in rs),
            "accepted_equivalent": sum(r.accepted and r.goal_equivalent for r in rs),
            "accepted_transfer": sum(r.accepted and r.plan_transfer for r in rs),
            "accepted_wrong": sum(r.accepted_wrong for r in rs),
            "retrieved_equivalent": sum(r.goal_equivalent for r in rs),
            "asked": sum(r.asked for r in rs),
            "asked_resolved": sum(r.resolved for r in rs),
            "confirm_asked": sum(r.asked_why == "novel-goal" for r in rs),
            "confirm_declined": sum(r.asked_why == "novel-goal" and not r.resolved for r in rs),
            "guess_asked": sum(r.asked_why == "guessed-goal" for r in rs),
            "guess_declined": sum(r.asked_why == "guessed-goal" and not r.resolved for r in rs),
            "state_asked": sum(r.asked_why == "unasked-state" for r in rs),
            "state_declined": sum(r.asked_why == "unasked-state" and not r.resolved for r in rs),
            "agreement_asked": sum(r.asked_why == "samples-disagree" for r in rs),
            "agreement_declined": sum(r.asked_why == "samples-disagree" and not r.resolved for r in rs),
            "done_right": sum((r.accepted and r.plan_transfer) or r.resolved for r in rs),
            "llm_drafted": sum(r.drafted_by == "llm" for r in rs),
            "redrafted": sum(r.redrafts > 0 for r in rs),
            "redrafted_transfer": sum(r.redrafts > 0 and r.accepted and r.plan_transfer for r in rs),
            "sampled": sum(r.samples > 0 for r in rs),
            "sampled_accepted": sum(r.samples > 0 and r.accepted for r in rs),
            "sampled_transfer": sum(r.samples > 0 and r.accepted and r.plan_transfer for r in rs),
        }
    return out


STYLE_ROWS = (("accepted", "accepted"), ("accepted_equivalent", "accepted and goal-equivalent"),
              ("accepted_transfer", "accepted and plan-transfer"),
              ("accepted_wrong", "**accepted but wrong** (plan fails the released goal)"),
              ("asked", "asked a clarification question"),
              ("asked_resolved", "asked, and the simulated answer resolved it"),
              ("confirm_asked", "of these asked: an LLM goal stated back for a yes (--confirm novel)"),
              ("confirm_declined", "of those: declined (would have been accepted but wrong without --confirm)"),
              ("guess_asked", "of these asked: an LLM goal for a request naming nothing in the scene, for a yes"),
              ("guess_declined", "of those: declined (would have been accepted but wrong without the question)"),
              ("state_asked", "of these asked: a retrieved goal that never answers a state word, for a yes"),
              ("state_declined", "of those: declined (would have been accepted but wrong without the question)"),
              ("agreement_asked", "of these asked: goals sampled from the same prompt disagree (--agreement)"),
              ("agreement_declined", "of those: none of the candidates reaches the released goal"),
              ("done_right", "**done right**: accepted and plan-transfer, or asked and resolved"),
              ("retrieved_equivalent", "drafted goal equivalent (accepted or not)"),
              ("llm_drafted", "goal drafted by the LLM (llm, hybrid)"),
              ("redrafted", "LLM goal refused, redrafted with the verifier's reasons"),
              ("redrafted_transfer", "of those: accepted and plan-transfer after the redraft"),
              ("sampled", "LLM goal refused, more drawn by sampling (--samples)"),
              ("sampled_accepted", "of those: a sampled goal accepted"),
              ("sampled_transfer", "of those: accepted and plan-transfer"))


def style_markdown(summary: dict) -> str:
    """The per-style table: one row per count, one column per style."""
    styles = summary["by_style"]
    names = list(styles)
    setting = "holdout (activity left out)" if summary.get("holdout") else "activity in the corpus"
    lines = [f"| {setting} | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for key, title in STYLE_ROWS:
        if all(key in styles[s] for s in names):
            lines.append(f"| {title} | " + " | ".join(f"{styles[s][key]}/{styles[s]['n']}" for s in names) + " |")
    return "\n".join(lines) + "\n"


def markdown(summary: dict, reports: list[TaskReport] | None = None) -> str:
    s = summary
    lines = ["| indicator | value |", "|---|---|",
             f"| tasks | {s['tasks']} |",
             f"| engine loading rate | {s['engine_loading']:.1f}% |",
             f"| verifier acceptance rate | {s['verifier_acceptance']:.1f}% |",
             f"| core semantic agreement (proxy) | {s['core_semantic_agreement']:.1f}% |",
             f"| instruction alignment (proxy: plan transfer) | {s['instruction_alignment']:.1f}% |",
             f"| grounded-goal equivalence | {s['goal_equivalence']:.1f}% |",
             f"| retrieval hit | {s['retrieval_hit']:.1f}% |"]
    for key, title in (("objects", "objects"), ("facts", "init facts (all)"),
                       ("observed_facts", "init facts vision produces"), ("prior_facts", "init facts from the prior")):
        c = s[key]
        lines.append(f"| {title} P / R / F1 | {c['precision']:.3f} / {c['recall']:.3f} / {c['f1']:.3f} |")
    lines.append(f"| axis failures (syntax/objects/init/goal) | {s['axis_failures']['syntax']} / "
                 f"{s['axis_failures']['objects']} / {s['axis_failures']['init']} / {s['axis_failures']['goal']} |")
    lines.append(f"| mean seconds per task (render + perceive + compare) | {s['mean_seconds']:.3f} |")
    if reports:
        lines += ["", "| task | loads | accepted | facts F1 | goal eq. | plan transfer | why rejected |",
                  "|---|---|---|---|---|---|---|"]
        for r in reports:
            why = (r.error or "; ".join(r.reasons))[:160].replace("|", "/")
            lines.append(f"| {r.task} | {'yes' if r.loads else 'no'} | {'yes' if r.accepted else 'no'} | "
                         f"{r.facts.f1:.3f} | {'yes' if r.goal_equivalent else 'no'} | "
                         f"{'yes' if r.plan_transfer else 'no'} | {why} |")
    return "\n".join(lines) + "\n"


def plot_sweep(levels: list[float], summaries: list[dict], path) -> None:
    """Acceptance, init F1, object recall and goal equivalence against the noise scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    series = {"verifier acceptance": [s["verifier_acceptance"] / 100 for s in summaries],
              "init-fact F1": [s["facts"]["f1"] for s in summaries],
              "object recall": [s["objects"]["recall"] for s in summaries],
              "goal equivalence": [s["goal_equivalence"] / 100 for s in summaries]}
    for label, values in series.items():
        ax.plot(levels, values, marker="o", label=label)
    ax.set_xlabel("noise scale (x the default noise setting)")
    ax.set_ylabel("rate")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    ax.set_title("Perception on rendered scenes vs noise")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
