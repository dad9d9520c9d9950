"""The prompt builder: embodiment rules, spec-generated actions, environment, no goal formula."""

from __future__ import annotations

import re

import pytest

from symplan_core.bddl.writer import write_formula
from symplan_core.engine import verify
from symplan_core.prompts import OUTPUT_FORMAT, build_prompt, repair_conversation, repair_message

TASKS = ["b100/assembling_gift_baskets", "b100/bottling_fruit", "b100/chopping_vegetables",
         "b1k/clearing_food_from_table_into_fridge", "b1k/can_vegetables", "b1k/recycling_office_papers"]


def _text(messages) -> str:
    return "\n".join(m["content"] for m in messages)


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("robot", ["single", "dual"])
def test_prompt_never_contains_the_goal_formula(compiled, name: str, robot: str) -> None:
    task = compiled(name, robot)
    text = _text(build_prompt(task))
    assert "?" not in text.split("Task:")[1]  # no quantified variables
    for keyword in ("forall", "exists", "forpairs", "fornpairs", "forn", ":goal", "imply"):
        assert re.search(rf"\b{keyword}\b", text) is None, keyword
    goal_source = write_formula(task.source_problem.goal)
    assert goal_source not in text
    for full in task.names.to_short:
        if task.names.short(full) != full:
            assert full not in text, f"full name {full} leaked"


@pytest.mark.parametrize("name", TASKS)
def test_allowed_actions_are_exactly_the_task_action_specs(compiled, name: str) -> None:
    task = compiled(name)
    system = build_prompt(task)[0]["content"]
    block = system.split("Allowed actions:\n")[1].split("\n\n")[0]
    listed = [line[2:].split(":")[0] for line in block.splitlines()]
    assert listed == [spec.signature for spec in task.specs.values()]
    for spec in task.specs.values():
        assert f"- {spec.signature}: {spec.doc}" in block


def test_b1k_prompt_lists_more_actions_than_b100(compiled) -> None:
    b100 = build_prompt(compiled("b100/bottling_fruit"))[0]["content"]
    b1k = build_prompt(compiled("b1k/can_vegetables"))[0]["content"]
    assert b1k.count("\n- ") > b100.count("\n- ")


def test_system_prompt_states_the_hand_capacity_per_embodiment(compiled) -> None:
    single = build_prompt(compiled("b100/bottling_fruit", "single"))[0]["content"]
    dual = build_prompt(compiled("b100/bottling_fruit", "dual"))[0]["content"]
    assert "ONE hand" in single and "at most one object" in single and "TWO hands" not in single
    assert "TWO hands" in dual and "at most two objects" in dual
    for text in (single, dual):
        assert "grasp needs a free hand" in text
        assert "placing (place_*) needs the object to be in your hand" in text
        assert OUTPUT_FORMAT in text


def test_user_prompt_has_environment_and_english_request(compiled) -> None:
    task = compiled("b100/assembling_gift_baskets")
    user = build_prompt(task)[1]["content"]
    assert "(define (environment)" in user and "(ontop candle_1 table_1)" in user
    assert "- Put one candle inside each basket." in user


def test_forbid_variant_adds_forbidden_rules_and_guided_does_not(compiled) -> None:
    task = compiled("b100/bottling_fruit")
    guided = build_prompt(task, variant="guided")[0]["content"]
    forbid = build_prompt(task, variant="forbid")[0]["content"]
    assert "Forbidden:" not in guided and "Forbidden:" in forbid
    with pytest.raises(ValueError, match="unknown prompt variant"):
        build_prompt(task, variant="chatty")  # type: ignore[arg-type]


def test_robot_argument_must_match_the_compiled_task(compiled) -> None:
    with pytest.raises(ValueError, match="compiled for the single robot"):
        build_prompt(compiled("b100/bottling_fruit", "single"), robot="dual")


def test_distractors_are_listed_as_objects(compiled) -> None:
    task = compiled("b100/bottling_fruit")
    user = build_prompt(task, distractors={"vase_9": "vase.n.01"})[1]["content"]
    objects = user.split("(:objects")[1].split("(:init")[0]
    assert "vase_9 - vase.n.01" in objects


def test_prompt_is_deterministic(compiled) -> None:
    task = compiled("b1k/can_vegetables", "dual")
    assert build_prompt(task) == build_prompt(task)


def _after(task, *lines: str):
    """The task's state after executing ``lines`` (plan-grammar calls) in the engine."""
    from symplan_core.engine import parse_plan

    state = task.initial_state()
    for call in parse_plan("\n".join(lines)).calls:
        assert not task.apply(state, call).errors, call.text
    return state


def test_replan_prompt_shows_the_live_state_and_the_executed_steps(compiled) -> None:
    task = compiled("b100/assembling_gift_baskets")
    steps = ("navigate(candle_1)", "grasp(candle_1)")
    state = _after(task, *steps)
    first = build_prompt(task)[1]["content"]
    replan = build_prompt(task, state=state, history=steps)
    user = replan[1]["content"]
    assert replan[0] == build_prompt(task)[0]  # same system prompt and actions
    assert "(holding candle_1)" in user and "(ontop candle_1 table_1)" not in user
    assert "(ontop candle_1 table_1)" in first and "(holding candle_1)" not in first
    assert "Executed so far:\n- navigate(candle_1)\n- grasp(candle_1)" in user
    assert "The robot is now next to candle_1." in user
    assert user.split("Task:")[1] == first.split("Task:")[1].replace(
        "Write the plan.", "Write a new complete plan that reaches the goal from the current state.")


def test_replan_prompt_from_the_initial_state_lists_the_same_literals(compiled) -> None:
    task = compiled("b1k/can_vegetables")

    def init_lines(user: str) -> set[str]:
        block = user.split("(:init")[1].split("\n    )")[0]
        return {line.strip() for line in block.splitlines() if line.strip()}

    first = build_prompt(task)[1]["content"]
    replan = build_prompt(task, state=task.initial_state())[1]["content"]
    assert "- (nothing yet)" in replan
    assert init_lines(first) <= init_lines(replan)  # plus literals the engine derives at compile time


def test_repair_message_carries_engine_errors_and_hints(compiled) -> None:
    task = compiled("b100/bottling_fruit")
    response = "<think>x</think><answer><steps>1.</steps><code>\ngrasp(jar_1)\nfly(jar_1)\n</code></answer>"
    result = verify(task, response)
    message = repair_message(result)
    assert message["role"] == "user"
    assert "step 1 `grasp(jar_1)`: MISSING_STEP" in message["content"]
    assert "hint: navigate(jar_1) first" in message["content"]
    assert "UNKNOWN_ACTION" in message["content"]
    conversation = repair_conversation(build_prompt(task), response, result)
    assert [m["role"] for m in conversation] == ["system", "user", "assistant", "user"]
    assert conversation[2]["content"] == response
