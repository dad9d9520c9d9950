"""Goal drafting by retrieval: instruction (+ what was seen) -> the closest BEHAVIOR activity, whose
goal is then re-grounded on the observed instances.

BEHAVIOR files carry no instruction text, so each activity is described by its name, its goal
rewritten to English (:class:`symplan_core.prompts.GoalRewriter`, type words instead of
instance names) and its object types. The score is the TF-IDF cosine between the instruction and
that text, plus half the F1 between the activity's object types and the seen synsets (a seen
synset counts for a type when it is that type or a kind of it). The index over every activity is
built once per process.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from symplan_core.bddl.model import Problem
from symplan_core.bddl.normalize import FLOOR_TYPES
from symplan_core.perception.synsets import ancestors, words_of
from symplan_core.prompts.goal_text import GoalRewriter, type_word
from symplan_core.tasks import list_tasks, load_problem

OBJECT_WEIGHT = 0.5
_STOP = frozenset("a an the of to and or is are be it its in on into onto at for with that this make sure "
                  "each every all some not no one".split())


def _tokens(text: str) -> Counter:
    return Counter(w for w in words_of(text) if w not in _STOP and len(w) > 1)


@dataclass(frozen=True)
class Activity:
    task: str  # bench/activity
    name: str
    domain: str
    types: frozenset[str]  # object types the activity needs to see (no agent, floors, future objects)


@dataclass(frozen=True)
class Match:
    task: str
    score: float
    text_score: float
    object_score: float


def describe(problem: Problem, name: str) -> str:
    """The text an activity is retrieved by: name, goal in English (type words), object types."""
    rewriter = GoalRewriter(short=lambda inst: type_word(problem.objects.get(inst, inst)))
    sentences = " ".join(rewriter.instructions(problem.goal))
    types = " ".join(type_word(t) for t in dict.fromkeys(problem.objects.values()))
    return f"{name} {name} {sentences} {types}"


def visible_types(problem: Problem) -> frozenset[str]:
    future = {lit.args[0] for lit in problem.init if lit.predicate == "future" and not lit.negated}
    return frozenset(t for i, t in problem.objects.items()
                     if i not in future and t not in FLOOR_TYPES and t != "agent.n.01")


class ActivityIndex:
    def __init__(self, benchmarks: tuple[str, ...]) -> None:
        self.activities: list[Activity] = []
        docs: list[Counter] = []
        for bench in benchmarks:
            for name in list_tasks(bench):
                problem = load_problem(f"{bench}/{name}")
                words = name.replace("_", " ")
                self.activities.append(Activity(f"{bench}/{name}", name, problem.domain, visible_types(problem)))
                docs.append(_tokens(describe(problem, words)))
        df: Counter = Counter()
        for doc in docs:
            df.update(doc.keys())
        n = len(docs)
        self.idf = {w: math.log((n + 1) / (c + 1)) + 1.0 for w, c in df.items()}
        # Inverted indexes: word -> [(activity, weight)], type -> [activity].
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, doc in enumerate(docs):
            for w, v in self._vector(doc).items():
                self.postings.setdefault(w, []).append((i, v))
        self.by_type: dict[str, list[int]] = {}
        for i, activity in enumerate(self.activities):
            for t in activity.types:
                self.by_type.setdefault(t, []).append(i)

    def _vector(self, counts: Counter) -> dict[str, float]:
        vec = {w: (1.0 + math.log(c)) * self.idf.get(w, 0.0) for w, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {w: v / norm for w, v in vec.items() if v}

    def search(self, instruction: str, seen: set[str] | frozenset[str] = frozenset(), k: int = 5,
               exclude: frozenset[str] | set[str] | tuple[str, ...] = ()) -> list[Match]:
        """The ``k`` best activities; ``exclude`` (``bench/name``) are left out (the novel-task setting)."""
        n = len(self.activities)
        seen = {s for s in seen if s not in FLOOR_TYPES and s != "agent.n.01"}  # every activity has them
        text = [0.0] * n
        for w, q in self._vector(_tokens(instruction)).items():
            for i, v in self.postings.get(w, ()):
                text[i] += q * v
        covered = [0] * n  # activity types a seen synset is (a kind of)
        explained = [0] * n  # seen synsets that are (a kind of) one of the activity's types
        closure: set[str] = set()
        for s in seen:
            lineage = (s, *ancestors(s))
            closure.update(lineage)
            for i in {i for t in lineage for i in self.by_type.get(t, ())}:
                explained[i] += 1
        for t in closure:
            for i in self.by_type.get(t, ()):
                covered[i] += 1
        out = []
        for i, activity in enumerate(self.activities):
            if activity.task in exclude:
                continue
            obj = 0.0
            if seen and activity.types and covered[i]:
                recall, precision = covered[i] / len(activity.types), explained[i] / len(seen)
                obj = 2 * recall * precision / (recall + precision)
            out.append(Match(activity.task, text[i] + OBJECT_WEIGHT * obj, text[i], obj))
        out.sort(key=lambda m: (-m.score, m.task))
        return out[:k]


@lru_cache(maxsize=4)
def activity_index(benchmarks: tuple[str, ...] = ("b1k", "b100")) -> ActivityIndex:
    return ActivityIndex(benchmarks)
