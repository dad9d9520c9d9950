"""The paper's symbolic rewards as plain functions of (prompts, completions, **row columns).

Every reward is computed from one engine verdict: the row's ``bddl`` is compiled once per
(BDDL hash, robot, action set) and the completion is scored with
:func:`symplan_core.eval.metrics.score`, the call ``symplan eval`` makes, so a training reward and
an evaluation verdict can never disagree.

* ``R_ans = (-0.5 + 2.5 GCR) - 1[errors] + 0.5 1[EP]`` (the paper's answer reward);
* ``R_fmt = 0`` for a well-formed ``<think>/<answer><steps/><code/></answer>`` response, else
  :data:`FORMAT_PENALTY` (why that value: ``docs/rl.md``).

Signatures follow TRL's reward-function convention (``prompts``, ``completions`` and every other
dataset column as keyword arguments; unknown keywords are ignored), so the functions plug into
``GRPOTrainer`` as they are and are reused by the verl adapter and the benchmark. A completion is
text or chat messages; garbage scores as garbage (format penalty, failure), never an exception.
A row whose BDDL does not compile is a data error: :class:`RewardDataError`, naming the row.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from symplan_core.bddl import parse_problem
from symplan_core.engine.verify import CompiledTask, compile_task
from symplan_core.errors import SymPlanError
from symplan_core.eval.metrics import score

#: R_fmt of a response that breaks the tag format (0 when it is well-formed). -0.5 is the largest
#: penalty that keeps a malformed strict pass (2.0) above every answer that is not a strict pass
#: (R_ans < 2.0): correctness always outweighs format, format breaks ties (docs/rl.md).
FORMAT_PENALTY = -0.5
#: R_ans terms of the paper (eq. answer_reward).
ANSWER_BASE, ANSWER_GCR_WEIGHT, ERROR_PENALTY, EP_BONUS = -0.5, 2.5, 1.0, 0.5


class RewardDataError(SymPlanError, ValueError):
    """A dataset row the rewards cannot use (missing columns, BDDL that does not compile)."""


@dataclass(frozen=True, slots=True)
class EngineVerdict:
    """What the rewards need from one engine verdict of one completion."""

    strict_pass: bool
    engine_pass: bool
    gcr: float
    errors: int
    format_ok: bool
    commands: int

    @property
    def answer_reward(self) -> float:
        return answer_reward_value(self.gcr, self.errors > 0, self.engine_pass)

    @property
    def format_reward(self) -> float:
        return 0.0 if self.format_ok else FORMAT_PENALTY


def answer_reward_value(gcr: float, has_errors: bool, engine_pass: bool) -> float:
    """The paper's R_ans for one outcome (reproduces its reward-landscape table)."""
    return ANSWER_BASE + ANSWER_GCR_WEIGHT * gcr - (ERROR_PENALTY if has_errors else 0.0) \
        + (EP_BONUS if engine_pass else 0.0)


def completion_text(completion: Any) -> str:
    """The assistant text of a TRL completion: a string, or chat messages (the last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        texts = [m.get("content") for m in completion if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        return "".join(t for t in texts[-1:] if isinstance(t, str))
    return ""


class TaskScorer:
    """Compiles each distinct (BDDL, robot, action set) once and memoises recent verdicts.

    TRL calls every reward function on the same batch, so the verdict cache makes R_fmt, R_ans and
    the length reward share one engine run per completion.
    """

    def __init__(self, max_verdicts: int = 8192, max_tasks: int = 2048):
        self._tasks: OrderedDict[tuple[str, str, str], CompiledTask] = OrderedDict()
        self._verdicts: OrderedDict[tuple[tuple[str, str, str], str], EngineVerdict] = OrderedDict()
        self.max_verdicts, self.max_tasks = max_verdicts, max_tasks

    def task(self, bddl: str, robot: str, action_set: str | None, row_id: str = "?") -> tuple[tuple, CompiledTask]:
        if not isinstance(bddl, str) or not bddl.strip():
            raise RewardDataError(f"row {row_id}: no 'bddl' column (the rewards verify against it)")
        key = (hashlib.sha1(bddl.encode()).hexdigest(), robot or "single", action_set or "")
        task = self._tasks.get(key)
        if task is None:
            try:
                task = compile_task(parse_problem(bddl, row_id), robot or "single", action_set or None)
            except SymPlanError as exc:  # BDDLError or TaskError
                raise RewardDataError(f"row {row_id}: its BDDL does not compile: {exc}") from None
            self._tasks[key] = task
            if len(self._tasks) > self.max_tasks:
                self._tasks.popitem(last=False)
        return key, task

    def verdict(self, bddl: str, robot: str, action_set: str | None, text: str, row_id: str = "?") -> EngineVerdict:
        key, task = self.task(bddl, robot, action_set, row_id)
        cached = self._verdicts.get((key, text))
        if cached is not None:
            return cached
        result, _, _ = score(task, text)
        verdict = EngineVerdict(result.strict_pass, result.engine_pass, result.gcr, len(result.errors),
                          result.format_ok, result.commands)
        self._verdicts[(key, text)] = verdict
        if len(self._verdicts) > self.max_verdicts:
            self._verdicts.popitem(last=False)
        return verdict

    def batch(self, completions: Sequence[Any], bddl: Sequence[str], robot: Sequence[str] | None = None,
              action_set: Sequence[str] | None = None, ids: Sequence[str] | None = None) -> list[EngineVerdict]:
        n = len(completions)
        if len(bddl) != n:
            raise RewardDataError(f"{n} completions but {len(bddl)} 'bddl' values")
        robots = robot if robot is not None else ["single"] * n
        actions = action_set if action_set is not None else [None] * n
        names = ids if ids is not None else [str(i) for i in range(n)]
        return [self.verdict(b, r, a, completion_text(c), i)
                for c, b, r, a, i in zip(completions, bddl, robots, actions, names, strict=True)]


#: The process-wide scorer the plain reward functions share.
SCORER = TaskScorer()


def verdicts(completions: Sequence[Any], bddl: Sequence[str], robot: Sequence[str] | None = None,
             action_set: Sequence[str] | None = None, id: Sequence[str] | None = None,  # the row-id column
             **_: Any) -> list[EngineVerdict]:
    """Engine verdicts of a batch of completions against their rows (shared cache)."""
    return SCORER.batch(completions, bddl, robot, action_set, id)


def answer_reward(prompts: Sequence[Any] | None = None,  # noqa: ARG001 - TRL passes prompts by name
                  completions: Sequence[Any] = (), **columns: Any) -> list[float]:
    """R_ans per completion (TRL reward function)."""
    return [v.answer_reward for v in verdicts(completions, **_row_columns(columns))]


def format_reward(prompts: Sequence[Any] | None = None,  # noqa: ARG001 - TRL passes prompts by name
                  completions: Sequence[Any] = (), **columns: Any) -> list[float]:
    """R_fmt per completion (TRL reward function): 0 if well-formed, else FORMAT_PENALTY."""
    return [v.format_reward for v in verdicts(completions, **_row_columns(columns))]


def strict_pass_reward(prompts: Sequence[Any] | None = None,  # noqa: ARG001 - TRL passes prompts by name
                       completions: Sequence[Any] = (),
                       **columns: Any) -> list[float]:
    """1.0 for a strict pass, else 0.0: a weight-0 reward column so trainers log SP per batch."""
    return [float(v.strict_pass) for v in verdicts(completions, **_row_columns(columns))]


def _row_columns(columns: dict[str, Any]) -> dict[str, Any]:
    if "bddl" not in columns:
        raise RewardDataError("the batch has no 'bddl' column (the rewards verify against it)")
    return {k: columns[k] for k in ("bddl", "robot", "action_set", "id") if k in columns}
