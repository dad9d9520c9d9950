"""The data factory: verified BEHAVIOR tasks -> augmented, extended definitions -> sample rows.

Per activity of a split (B-1K train, B-1K test, B-100):

1. the original task is validated (:mod:`~symplan_core.data.validate`); a task the reference
   planner cannot solve is excluded and counted;
2. augmentation drafts (:mod:`~symplan_core.data.augment`) are drawn with seeded generators until
   the wanted number is valid or the attempts run out; every invalid or duplicate draft is
   counted under its reason;
3. every definition is extended with room distractors (:mod:`~symplan_core.data.distractors`)
   and re-validated with the goal unchanged; when no draw of distractors validates, the
   definition keeps none and that is counted;
4. one row per definition and robot: the paper's prompt (system, environment without the goal,
   clarification dialogue) built by the one prompt builder from the extended task.

Training pairs each definition with one robot (drawn from the definition id) unless
``train_robots="both"``; test splits use both. Which activities are held out is an input
(``test_activities``): the command line passes the committed B-1K test split, so an activity of
it and everything derived from it only ever lands in ``split="test"``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from symplan_core.bddl.model import Problem
from symplan_core.bddl.writer import write_problem
from symplan_core.data.augment import Draft, init_aug, is_structural, object_aug
from symplan_core.data.distractors import add_distractors
from symplan_core.data.placements import PlacementModel
from symplan_core.data.samples import ChatTurn, SampleRow, row_id
from symplan_core.data.validate import Validation, validate_definition
from symplan_core.llm import PlannerBackend, Sampling
from symplan_core.prompts import build_prompt
from symplan_core.prompts.dialogue import build_dialogue, paraphrase_dialogue
from symplan_core.tasks import list_tasks, load_problem

ROBOTS = ("single", "dual")
Split = Literal["b1k/train", "b1k/test", "b100/test"]
SPLITS: tuple[Split, ...] = ("b1k/train", "b1k/test", "b100/test")
DISTRACTOR_DRAWS = 3
_PARAPHRASE_SAMPLING = Sampling(temperature=0.7, top_p=0.9, max_tokens=384, seed=0)


class _NoCandidate(Exception):
    """The activity offers nothing this augmentation kind could change."""


class FactoryConfig(BaseModel):
    """Settings of one factory run (recorded in the output's ``meta.json``)."""

    model_config = ConfigDict(extra="forbid")

    splits: tuple[Split, ...] = SPLITS
    tasks: tuple[str, ...] | None = Field(default=None, description="only these activities (name or bench/name)")
    seed: int = 0
    distractors: int = Field(default=3, ge=0, description="distractors added per definition")
    init_aug: int = Field(default=1, ge=0, description="valid init-aug definitions wanted per activity")
    object_aug: int = Field(default=1, ge=0, description="valid object-aug definitions wanted per activity")
    attempts: int = Field(default=4, ge=1, description="drafts tried per wanted augmentation")
    augment: tuple[str, ...] = Field(default=("b1k/train", "b1k/test"), description="splits that are augmented")
    train_robots: Literal["one", "both"] = "one"
    max_gold_commands: int | None = Field(default=None, ge=1, description="keep rows with short gold plans only")
    limit: int | None = Field(default=None, ge=1, description="first N activities per split")
    paraphrase: str | None = Field(default=None, description="backend spec that paraphrases the requirement turn")


@dataclass
class Definition:
    benchmark: str
    task: str
    split: str
    source: str
    index: int
    problem: Problem
    augmentation: dict[str, Any] | None = None
    renames: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.benchmark}/{self.task}/{self.source}/{self.index}"


@dataclass
class SplitCounts:
    """The paper's table row plus every exclusion by stage and reason."""

    activities: int = 0
    original: int = 0
    init_aug: int = 0
    object_aug: int = 0
    episodes: int = 0
    excluded: Counter[str] = field(default_factory=Counter)  # "stage:reason" -> count
    paraphrase: Counter[str] = field(default_factory=Counter)  # "accepted" or why the template stayed

    @property
    def total(self) -> int:
        return self.original + self.init_aug + self.object_aug

    def to_json(self) -> dict[str, Any]:
        return {"activities": self.activities, "original": self.original, "init_aug": self.init_aug,
                "object_aug": self.object_aug, "total_defs": self.total, "episodes": self.episodes,
                "excluded": dict(sorted(self.excluded.items())), "paraphrase": dict(sorted(self.paraphrase.items()))}


def split_activities(split: str, test_activities: Collection[str]) -> list[str]:
    benchmark, part = split.split("/")
    names = list_tasks(benchmark)
    if benchmark == "b100":
        return names
    held_out = set(test_activities)
    return [n for n in names if (n in held_out) == (part == "test")]


def robots_for(definition_id: str, split: str, train_robots: str) -> tuple[str, ...]:
    """Both robots on test splits; on train one, drawn from the id (about half each)."""
    if split.endswith("/test") or train_robots == "both":
        return ROBOTS
    return (ROBOTS[hashlib.sha256(definition_id.encode()).digest()[0] % 2],)


def _rng(config: FactoryConfig, *parts: object) -> random.Random:
    # str seeds hash with SHA-512 inside random: reproducible across processes and machines.
    return random.Random("/".join(map(str, (config.seed, *parts))))


class Factory:
    """Runs the stages above; ``rows()`` yields sample rows, ``counts`` fills in as it goes."""

    def __init__(self, config: FactoryConfig, test_activities: Collection[str], placements: PlacementModel | None = None,
                 paraphraser: PlannerBackend | None = None):
        self.config = config
        self.paraphraser = paraphraser  # a backend for config.paraphrase (the caller owns and closes it)
        self.test_activities = frozenset(test_activities)
        self._placements = placements
        self.counts: dict[str, SplitCounts] = {split: SplitCounts() for split in config.splits}

    @property
    def placements(self) -> PlacementModel:
        """Room co-occurrence of the B-1K *training* activities only."""
        if self._placements is None:
            train = split_activities("b1k/train", self.test_activities)
            self._placements = PlacementModel.from_problems(load_problem(f"b1k/{name}") for name in train)
        return self._placements

    def activities(self, split: str) -> list[str]:
        names = split_activities(split, self.test_activities)
        if self.config.tasks is not None:  # "name" (any benchmark) or "benchmark/name"
            wanted = set(self.config.tasks)
            bench = split.split("/")[0]
            names = [n for n in names if n in wanted or f"{bench}/{n}" in wanted]
        return names[: self.config.limit] if self.config.limit else names

    def rows(self, progress: Callable[[str], None] | None = None) -> Iterator[SampleRow]:
        for split in self.config.splits:
            for activity in self.activities(split):
                yield from self.activity_rows(split, activity)
                if progress:
                    progress(split)

    def activity_rows(self, split: str, activity: str) -> Iterator[SampleRow]:
        counts = self.counts[split]
        counts.activities += 1
        benchmark = split.split("/")[0]
        original = Definition(benchmark, activity, split, "original", 0, load_problem(f"{benchmark}/{activity}"))
        for definition in self.definitions(original):
            yield from self.definition_rows(definition)

    # -- stage 1 and 2: the original and its augmentations ------------------------------------
    def definitions(self, original: Definition) -> Iterator[Definition]:
        counts = self.counts[original.split]
        robots = robots_for(original.id, original.split, self.config.train_robots)
        check = validate_definition(original.problem, robots)
        if not check.ok:
            counts.excluded[f"original:{check.reason}"] += 1
            return
        yield original
        if original.split not in self.config.augment:
            return
        seen = {write_problem(original.problem)}
        wanted = (("init_aug", self.config.init_aug), ("object_aug", self.config.object_aug))
        for kind, want in wanted:
            made = 0
            for attempt in range(want * self.config.attempts):
                if made == want:
                    break
                try:
                    definition = self._draft(original, kind, attempt, made + 1, seen)
                except _NoCandidate:  # counted once: no other draw can make one
                    break
                if definition is not None:
                    made += 1
                    yield definition

    def _draft(self, original: Definition, kind: str, attempt: int, index: int, seen: set[str]) -> Definition | None:
        counts = self.counts[original.split]
        rng = _rng(self.config, original.id, kind, attempt)
        draft: Draft = (init_aug(original.problem, rng, self.placements) if kind == "init_aug"
                        else object_aug(original.problem, rng))
        if draft.problem is None:
            counts.excluded[f"{kind}:{draft.reason}"] += 1
            if is_structural(draft.reason):
                raise _NoCandidate
            return None
        problem = replace(draft.problem, name=f"{original.problem.name}-{kind}-{index}")
        text = write_problem(replace(problem, name=original.problem.name))
        if text in seen:
            counts.excluded[f"{kind}:duplicate"] += 1
            return None
        details = dict(draft.details)
        augmentation = {"kind": kind, "method": details.pop("method"), "seed": self.config.seed, "attempt": attempt,
                        "details": json.dumps(details, sort_keys=True)}  # a string: one Arrow type for every row
        definition = Definition(original.benchmark, original.task, original.split, kind, index, problem,
                                augmentation, dict(draft.renames))
        robots = robots_for(definition.id, definition.split, self.config.train_robots)
        check = validate_definition(problem, robots, expect_goal=original.problem.goal if kind == "init_aug" else None,
                                    require_open_goal=True)
        if not check.ok:
            counts.excluded[f"{kind}:{check.reason}"] += 1
            return None
        seen.add(text)
        setattr(counts, kind, getattr(counts, kind) + 1)
        return definition

    # -- stage 3 and 4: distractors and rows ------------------------------------------------------
    def extend(self, definition: Definition, robots: Sequence[str]) -> Validation:
        """The definition with distractors, validated; without them when no draw validates."""
        counts = self.counts[definition.split]
        reason = None
        for draw in range(DISTRACTOR_DRAWS if self.config.distractors else 0):
            rng = _rng(self.config, definition.id, "distractors", draw)
            extension = add_distractors(definition.problem, self.placements, rng, self.config.distractors)
            if not extension.distractors:
                reason = "none_fit"
                break
            check = validate_definition(extension.problem, robots, expect_goal=definition.problem.goal,
                                        irrelevant=extension.added)
            if check.ok:
                return check
            reason = check.reason
        if reason is not None:
            counts.excluded[f"distractors_dropped:{reason}"] += 1
        return validate_definition(definition.problem, robots)

    def definition_rows(self, definition: Definition) -> Iterator[SampleRow]:
        counts = self.counts[definition.split]
        if definition.source == "original":
            counts.original += 1
        robots = robots_for(definition.id, definition.split, self.config.train_robots)
        check = self.extend(definition, robots)
        for robot in robots:
            commands = check.commands[robot]
            if self.config.max_gold_commands and commands > self.config.max_gold_commands:
                counts.excluded["rows:gold_plan_too_long"] += 1
                continue
            task = check.tasks[robot]
            dialogue = build_dialogue(task, definition.task, f"{self.config.seed}/{definition.id}", definition.renames)
            if self.paraphraser is not None:
                rewritten = paraphrase_dialogue(dialogue, self.paraphraser, _PARAPHRASE_SAMPLING)
                counts.paraphrase[rewritten.reason or "accepted"] += 1
                dialogue = rewritten.turns
            messages = build_prompt(task, dialogue=dialogue)
            counts.episodes += 1
            yield SampleRow(
                id=row_id(definition.benchmark, definition.task, robot, definition.source, definition.index),
                prompt=[ChatTurn(**m) for m in messages], task=definition.task,
                benchmark=definition.benchmark, robot=robot,
                split=definition.split.split("/")[1], source=definition.source,
                augmentation=definition.augmentation, action_set=task.action_set_name, bddl=check.bddl,
                gold_tokens=None, gold_commands=commands)

    def table(self) -> list[dict[str, Any]]:
        """The paper's split table: one row per split."""
        return [{"split": split, **counts.to_json()} for split, counts in self.counts.items()]
