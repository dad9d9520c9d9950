"""Ask instead of guessing in the planning session, without DDS: real rendered frames of
`putting_up_Christmas_lights_outside` go through the camera intake and perception; "hang the
christmas lights" fits several activities, so the goal ends with an open question; follow-up goals
carrying answers resume it through `PerceptionResult.choose` (the CLI's `--answer`), or are rejected
with a typed `AnswerRejected` naming the reason while the question stays open."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest

from symplan_core.tasks import load_problem

TASK = "b1k/putting_up_Christmas_lights_outside"
INSTRUCTION = "hang the christmas lights"


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    from symplan_core.perception import make_detector
    from symplan_core.perception.rigs import render_task
    from symplan_core.rosio.images import numpy_to_image_fields
    from symplan_core.runtime.camera import CameraFeed
    from symplan_core.runtime.config import CameraSection, PerceptionSection, RuntimeConfig
    from symplan_core.runtime.session import PlanningSession
    from symplan_core.runtime.sources import BddlSceneSource, CameraSceneSource

    shown = render_task(load_problem(TASK), seed=0)  # what the camera simulator streams
    map_file = tmp_path_factory.mktemp("clarify") / "map.yaml"
    shown.fiducial_map.dump(str(map_file))
    feed = CameraFeed(CameraSection(rgb_topic="/rgb", depth_topic="/depth", info_topic="/info", window_s=3600.0,
                                    max_rate_hz=1000.0, min_frames=2), required=True)
    k = shown.intrinsics
    feed.on_info(SimpleNamespace(k=list(k.matrix().reshape(-1)), width=k.width, height=k.height))
    for frame in shown.frames(2, None):  # what a camera driver would send
        t = time.time()
        stamp = SimpleNamespace(header=SimpleNamespace(stamp=SimpleNamespace(sec=int(t), nanosec=int(t % 1 * 1e9))))
        depth = np.nan_to_num(frame.depth * 1000.0, nan=0.0).clip(0, 65535).round().astype(np.uint16)
        assert feed.on_depth(SimpleNamespace(**vars(stamp), **numpy_to_image_fields(depth, "16UC1"))) is None
        assert feed.on_rgb(SimpleNamespace(**vars(stamp), **numpy_to_image_fields(frame.rgb, "rgb8"))) is None
        time.sleep(0.01)
    source = CameraSceneSource(BddlSceneSource(), feed, PerceptionSection(), make_detector(f"fiducial:{map_file}"))
    session = PlanningSession.from_config(RuntimeConfig())  # the reference planner
    return SimpleNamespace(source=source, session=session)


def _run(rig, **request):
    from symplan_core.runtime.sources import TaskRequest

    dispatched: list = []
    result = rig.session.run(TaskRequest(**request), rig.source, lambda sub: dispatched.append(sub),
                             lambda *_a: None)
    assert not dispatched  # execute=False below, and nothing is dispatched for a question
    return result


def test_an_ambiguous_instruction_ends_the_goal_with_an_open_question(rig) -> None:
    result = _run(rig, instruction=INSTRUCTION, execute=False)
    assert not result.success and result.outcome == "needs_clarification"
    question = result.question
    assert question is not None and rig.session.questions.question == question
    assert question.question.startswith("Which do you mean?") and question.why == "close-scores"
    assert [c.number for c in question.candidates] == list(range(1, len(question.candidates) + 1))
    assert TASK in [c.activity for c in question.candidates]
    assert result.message == f"needs clarification: {question.question}" and not result.bddl and not result.plans
    assert result.errors[0] == f"clarification: [{question.clarification_id}] {question.question}"
    assert result.scene["provenance"]["objects"]  # what perception saw is kept


@pytest.mark.parametrize(("request_fields", "reason"), [
    ({"answer": "9"}, "'9' is none of the candidates"),
    ({"answer": "b1k/bringing_in_wood"}, "is none of the candidates"),
    ({"answer": "1", "clarification_id": "other"}, "clarification_id 'other' is not the open question"),
    ({"answer": "1", "clarification_id": ""}, "needs the clarification_id"),
    ({"answer": ""}, "carries no answer"),
    ({"answer": "1", "task_id": "bringing_in_wood"}, "carries no bddl or task_id"),
    ({"answer": "1", "instruction": "wash the dishes"}, "differs from the one asked about"),
    ({"answer": "1", "robot": "dual"}, "is not the one the candidates were verified for ('single')"),
])
def test_a_bad_answer_is_rejected_with_its_reason_and_the_question_stays_open(rig, request_fields, reason) -> None:
    from symplan_core.runtime.clarify import AnswerRejected
    from symplan_core.runtime.sources import SceneError, TaskRequest

    asked = _run(rig, instruction=INSTRUCTION, execute=False).question
    assert asked is not None
    fields = {"clarification_id": asked.clarification_id, "execute": False, **request_fields}
    result = _run(rig, **fields)
    assert result.outcome == "answer_rejected" and result.message.startswith("answer: ")
    assert reason in result.message, result.message
    assert result.question == asked and rig.session.questions.question == asked  # still open, repeated
    assert not result.plans
    with pytest.raises(AnswerRejected, match="answer: ") as raised:  # the typed error behind the outcome
        rig.session.questions.answer(TaskRequest(**fields))
    assert isinstance(raised.value, SceneError) and raised.value.question == asked


def test_the_answer_resumes_planning_with_the_chosen_reading_and_closes_the_question(rig) -> None:
    asked = _run(rig, instruction=INSTRUCTION, execute=False).question
    assert asked is not None
    (wanted,) = [c for c in asked.candidates if c.activity == TASK]
    result = _run(rig, answer=TASK.split("/", 1)[1], clarification_id=asked.clarification_id,
                  instruction=INSTRUCTION, execute=False)
    assert result.success and result.strict_pass and result.outcome == "succeeded", (result.message, result.errors)
    assert result.scene["provenance"]["goal"]["activity"] == TASK
    assert result.scene["clarification"]["chosen"] == TASK and wanted.number >= 1
    assert rig.session.questions.question is None
    again = _run(rig, answer="1", clarification_id=asked.clarification_id, execute=False)
    assert again.outcome == "answer_rejected" and "no question is open" in again.message and again.question is None


def test_a_goal_without_an_answer_closes_the_open_question(rig) -> None:
    asked = _run(rig, instruction=INSTRUCTION, execute=False).question
    assert asked is not None
    other = _run(rig, task_id="bringing_in_wood", benchmark="b100", execute=False)
    assert other.success and rig.session.questions.question is None
    result = _run(rig, answer="1", clarification_id=asked.clarification_id, execute=False)
    assert result.outcome == "answer_rejected" and "no question is open" in result.message
