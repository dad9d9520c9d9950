"""Ask instead of guessing, on the robot: an ambiguous instruction ends a goal with a question, and
a follow-up goal carrying the answer resumes the planning (docs/ros.md, "Clarification").

A scene source raises ``runtime.sources.ClarificationNeeded`` when perception's candidate goals disagree
(``PerceptionResult.needs_clarification``). The planning session keeps the question open
(:class:`OpenQuestion`, one at a time, like goals) and ends the goal with it: nothing is planned or
published. A follow-up goal names the question (``clarification_id``) and carries the answer; the
answer is resolved by ``PerceptionResult.choose`` (the one resolution ``symplan perceive --answer``
uses), and the chosen candidate's result, already verified, becomes the goal's scene. An answer that
names no open question or no candidate is an :class:`AnswerRejected` with the reason; an open
question stays open for a better answer. A goal without an answer closes the open question (it may
change the world the question was asked about).

No rclpy here and no perception import at module level (the vision extra is needed only once a
camera goal has asked).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from symplan_core.runtime.sources import ClarificationNeeded, Scene, SceneError, TaskRequest

if TYPE_CHECKING:
    from symplan_core.perception import PerceptionResult

__all__ = ["AnswerRejected", "Candidate", "ClarificationNeeded", "OpenQuestion", "Question"]


@dataclass(frozen=True)
class Candidate:
    """One reading the question offers; its ``number`` or ``activity`` is a valid answer."""

    number: int
    activity: str
    goal: str  # the goal in English over the scene's objects
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "activity": self.activity, "goal": self.goal, "score": self.score}


@dataclass(frozen=True)
class Question:
    """What a goal that asked reports: the question, its candidates, and the id a follow-up names."""

    clarification_id: str
    question: str
    why: str  # close-scores | top-rejected (perception's reason to ask)
    instruction: str
    candidates: tuple[Candidate, ...]
    robot: str = ""  # the robot the candidates were verified for (the asking goal's)

    def to_json(self) -> dict[str, Any]:
        return {"clarification_id": self.clarification_id, "question": self.question, "why": self.why,
                "instruction": self.instruction, "robot": self.robot,
                "candidates": [c.to_json() for c in self.candidates]}

    def lines(self) -> list[str]:
        """The question and one line per candidate (the node's log, the goal's errors)."""
        return [f"[{self.clarification_id}] {self.question}",
                *(f"({c.number}) {c.activity}: {c.goal}" for c in self.candidates)]


class AnswerRejected(SceneError):
    """A goal's answer cannot resume planning: no open question, another question's id, an answer that
    is none of the candidates, or a goal that mixes an answer with a scene of its own. ``question``:
    the question still open (repeated in the result), None when none is."""

    def __init__(self, message: str, question: Question | None = None) -> None:
        super().__init__(f"answer: {message}")
        self.question = question


@dataclass
class _Pending:
    question: Question
    result: PerceptionResult
    scene_of: Callable[[PerceptionResult], Scene]
    details: dict[str, Any] = field(default_factory=dict)


class OpenQuestion:
    """The question the last goal asked, until it is answered or another goal closes it."""

    def __init__(self) -> None:
        self._pending: _Pending | None = None

    @property
    def question(self) -> Question | None:
        return self._pending.question if self._pending else None

    def ask(self, asked: ClarificationNeeded, robot: str = "") -> Question:
        """Open the question of ``asked`` (closing any earlier one; ``robot``: the asking goal's);
        what the goal reports."""
        clarification = asked.result.clarification
        assert clarification is not None
        candidates = tuple(Candidate(c.number, str(c.activity or ""), c.goal_text, float(c.score or 0.0))
                           for c in clarification.candidates)
        question = Question(uuid.uuid4().hex[:12], clarification.question, clarification.why, asked.instruction,
                            candidates, robot)
        self._pending = _Pending(question, asked.result, asked.scene_of, asked.details)
        return question

    def close(self) -> None:
        self._pending = None

    def answer(self, request: TaskRequest) -> Scene:
        """The scene of the candidate ``request.answer`` chooses for the open question
        ``request.clarification_id`` (the question is then closed). Raises :class:`AnswerRejected`."""
        from symplan_core.perception import PerceptionError  # a question was asked: perception is installed

        pending = self._pending
        question = pending.question if pending else None
        if request.bddl.strip() or request.task_id.strip():
            raise AnswerRejected("a goal with an answer resumes the question it answers; it carries no bddl or "
                                 "task_id", question)
        if not request.answer.strip():
            raise AnswerRejected("the goal names a clarification_id but carries no answer", question)
        if not request.clarification_id.strip():
            raise AnswerRejected("an answer needs the clarification_id of the result that asked", question)
        if pending is None:
            raise AnswerRejected(f"no question is open (clarification_id {request.clarification_id!r} was answered, "
                                 "replaced, or closed by another goal)")
        if request.clarification_id.strip() != pending.question.clarification_id:
            raise AnswerRejected(f"clarification_id {request.clarification_id!r} is not the open question "
                                 f"({pending.question.clarification_id})", question)
        if request.instruction.strip() and request.instruction.strip() != pending.question.instruction.strip():
            raise AnswerRejected(f"the goal's instruction differs from the one asked about "
                                 f"({pending.question.instruction!r}); leave it empty or repeat it", question)
        if request.robot.strip() and pending.question.robot and request.robot.strip() != pending.question.robot:
            raise AnswerRejected(f"the goal's robot {request.robot.strip()!r} is not the one the candidates were "
                                 f"verified for ({pending.question.robot!r}); leave it empty or repeat it", question)
        try:
            chosen = pending.result.choose(request.answer)  # the CLI's --answer resolution
        except PerceptionError as exc:
            raise AnswerRejected(str(exc), question) from None
        if not chosen.accepted or chosen.problem is None or chosen.bddl is None:  # only passing ones are offered
            raise AnswerRejected(f"the chosen reading was not accepted ({'; '.join(chosen.reasons)})", question)
        scene = pending.scene_of(chosen)
        self._pending = None
        details = {**scene.details, "clarification": {**pending.question.to_json(), "answer": request.answer.strip(),
                                                      "chosen": chosen.provenance.get("goal", {}).get("activity")}}
        return Scene(scene.problem, scene.bddl_text, f"{scene.origin}, answered", details, scene.goal_evidence)
