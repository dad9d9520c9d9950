"""The LLM goal path and judge: replies are data, parsed by our parser; garbage is a rejected draft."""

from __future__ import annotations

import pytest
from car_task import INSTRUCTION

from symplan_core.bddl.writer import write_formula
from symplan_core.llm import FunctionBackend
from symplan_core.perception import PerceptionConfig, make_detector, perceive
from symplan_core.perception.llm_goal import extract_goal, parse_goal


def _run(scene, reply: str, judge_reply: str | None = None, **config):
    goal_backend = FunctionBackend(lambda _prompt: reply, name="scripted")
    judge_backend = FunctionBackend(lambda _prompt: judge_reply, name="judge") if judge_reply is not None else None
    return perceive(scene.frames(2), INSTRUCTION, make_detector("fiducial", fiducial_map=scene.fiducial_map),
                    scene.intrinsics, PerceptionConfig(benchmarks=("b1k",), goal="llm", llm_decoding="free", **config),
                    goal_backend=goal_backend, judge_backend=judge_backend)


def test_a_well_formed_llm_goal_goes_through_the_same_checks(car_scene, car_problem) -> None:
    reply = f"Here you go:\n(:goal\n{write_formula(car_problem.goal)}\n)\nDone."
    result = _run(car_scene, reply)
    assert result.accepted, result.reasons
    assert result.problem.goal == car_problem.goal
    assert result.provenance["goal"]["reply"] == reply and result.provenance["goal"]["source"] == "llm"


@pytest.mark.parametrize(("reply", "reason"), [
    ("I would put the camera in the box.", "LLM goal rejected: the reply contains no formula"),
    ("(:goal (and (inside ?digital_camera.n.01_1 ?container.n.01_1)", "not closed (unbalanced parentheses)"),
    ("(:goal (and (inside ?digital_camera.n.01_1)))", "inside takes 2 argument(s), got 1"),
    ("(:goal (and (inside ?hamster.n.01_1 ?car.n.01_1)))", "'hamster.n.01_1' in :goal is not declared"),
    ("(:goal (forall (?x - ) (inside ?x ?car.n.01_1)))", "LLM goal does not parse"),
])
def test_llm_goals_that_do_not_hold_up_are_rejected_with_the_reason(car_scene, reply, reason) -> None:
    result = _run(car_scene, reply)
    assert not result.accepted
    assert any(reason in r for r in result.reasons), result.reasons


def test_only_the_goal_block_of_a_reply_is_read() -> None:
    block, _ = extract_goal("(:goal (and (open ?car.n.01_1))) (:init (open car.n.01_1)) )")
    assert block == "(:goal (and (open ?car.n.01_1)))"
    goal = parse_goal(block, {"car.n.01_1": "car.n.01"}, "omnigibson")
    assert goal.to_list() == ["and", ["open", "car.n.01_1"]]
    assert extract_goal("(and (open ?car.n.01_1))")[0] == "(:goal (and (open ?car.n.01_1)))"


def test_the_judge_axis_accepts_only_an_explicit_accept(car_scene, car_problem) -> None:
    reply = f"(:goal {write_formula(car_problem.goal)})"
    assert _run(car_scene, reply, judge_reply="ACCEPT").accepted
    rejected = _run(car_scene, reply, judge_reply="REJECT: the camera should go in the car")
    judge = next(v for v in rejected.verdicts if v.axis == "judge")
    assert judge.passed is False and judge.reasons == ["the camera should go in the car"]
    garbage = _run(car_scene, reply, judge_reply="The task is about a car.")
    assert not garbage.accepted and "judge: the judge gave no verdict" in garbage.reasons[0]


@pytest.mark.slow
def test_smollm2_drafts_a_goal_that_the_verifier_rejects_with_reasons(car_scene) -> None:
    pytest.importorskip("transformers", reason="transformers is not installed (pip install 'symplan-core[llm]')")
    from symplan_core.llm.models import locate_model

    if locate_model("smollm2") is None:
        pytest.skip("SmolLM2 is not installed (symplan models install smollm2)")
    config = PerceptionConfig(benchmarks=("b1k",), goal="llm", llm="transformers:smollm2?device=cpu&dtype=float32",
                              llm_max_tokens=40, llm_decoding="free")
    result = perceive(car_scene.frames(2), INSTRUCTION, make_detector("fiducial", fiducial_map=car_scene.fiducial_map),
                      car_scene.intrinsics, config)
    reply = result.provenance["goal"]["reply"]
    assert reply.strip(), "the model said nothing"
    assert not result.accepted and result.reasons
