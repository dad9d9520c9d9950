"""Plan text is data: a restricted grammar, PARSE errors for anything else, format reported apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from plans import gift_baskets_single, kinds, plan_text

import symplan_core
from symplan_core.engine import check_format, parse_plan, verify

GIFTS = "b100/assembling_gift_baskets"


def test_python_injection_line_is_a_parse_error_and_never_runs(compiled, tmp_path):
    marker = tmp_path / "pwned_x"
    line = f"__import__('os').system('touch {marker}')"
    result = verify(compiled(GIFTS), plan_text("navigate(candle_1)", line, "grasp(candle_1)"))
    assert kinds(result) == ["PARSE"]
    assert result.errors[0].step == 1 and result.errors[0].call == line
    assert not marker.exists()
    assert [c.text for c in result.calls] == ["navigate(candle_1)", "grasp(candle_1)"]


@pytest.mark.parametrize("line", [
    "__import__('os').system('touch /tmp/pwned_x')",
    "grasp(candle_1).__class__",
    "grasp(open('x'))",
    "grasp(candle_1); import os",
    "exec('print(1)')(candle_1)x",
    "grasp(candle_1 + basket_1)",
    "grasp(lambda: 0)",
    "os.system('id')",
    "grasp(candle_1)) or (1",
])
def test_non_call_lines_are_parse_errors(line):
    plan = parse_plan(line)
    assert plan.calls == [] and len(plan.items) == 1


def test_engine_source_has_no_eval_or_exec():
    """No call to eval/exec/compile/__import__ anywhere in symplan_core (checked on the AST)."""
    root = Path(symplan_core.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("eval", "exec", "compile", "__import__"):
                offenders.append(f"{path.relative_to(root)}:{node.lineno} {node.func.id}")
    assert offenders == []


def test_numbering_quotes_bullets_semicolons_and_comments_are_accepted():
    plan = parse_plan("1. navigate(candle_1)\n2) grasp('candle_1');\n- place_inside(\"candle_1\", basket_1)  # in\n")
    assert [(c.action, c.args) for c in plan.calls] == [
        ("navigate", ("candle_1",)), ("grasp", ("candle_1",)), ("place_inside", ("candle_1", "basket_1"))]


def test_blank_lines_comments_and_code_fences_are_not_steps():
    plan = parse_plan("```python\n# go\n\nnavigate(candle_1)\n```\n")
    assert [c.step for c in plan.calls] == [0] and len(plan.items) == 1


def test_bare_code_is_parsed_but_format_is_not_ok():
    plan = parse_plan(plan_text(*gift_baskets_single()))
    assert not plan.format_ok and plan.format_issues
    assert len(plan.calls) == len(gift_baskets_single())


def test_well_formed_response_has_no_format_issues():
    text = "<think>t</think>\n<answer>\n<steps>1. go</steps>\n<code>\nnavigate(candle_1)\n</code>\n</answer>"
    plan = parse_plan(text)
    assert plan.format_ok and check_format(text) == []
    assert plan.steps_text == "1. go" and plan.think_text == "t"
    assert [c.text for c in plan.calls] == ["navigate(candle_1)"]


@pytest.mark.parametrize(("text", "problem"), [
    ("<answer><steps>s</steps><code>navigate(candle_1)</code></answer>", "<think>"),
    ("<think>t</think><answer><steps>s</steps><code>navigate(candle_1)</answer>", "<code>"),
    ("<think>t</think><answer><code>navigate(candle_1)</code><steps>s</steps></answer>", "out of order"),
    ("<think>t</think><steps>s</steps><code>navigate(candle_1)</code><answer></answer>", "inside <answer>"),
])
def test_format_problems_are_reported_and_calls_still_parsed(text, problem):
    plan = parse_plan(text)
    assert not plan.format_ok
    assert any(problem in issue for issue in plan.format_issues), plan.format_issues
    assert [c.text for c in plan.calls] == ["navigate(candle_1)"]


def test_format_is_independent_of_plan_correctness(compiled):
    good = verify(compiled(GIFTS), plan_text(*gift_baskets_single()))
    assert good.strict_pass and not good.format_ok
    bad = verify(compiled(GIFTS), "<think>t</think><answer><steps>s</steps><code>grasp(floor_1)</code></answer>")
    assert bad.format_ok and not bad.strict_pass


@pytest.mark.parametrize("line", [
    "grasp(" + "a" * 5000, "grasp(" + "a, " * 3000 + "(", "g(" + "a," * 3000 + ",)", "x" * 5000 + "(",
    "g(" + "candle_1 " * 2000 + ")",
])
def test_long_malformed_lines_are_rejected_without_backtracking_blowup(line):
    """Regression: an optional separator in the fast-path pattern made these exponential."""
    plan = parse_plan(line)
    assert plan.calls == [] and len(plan.items) == 1


def test_long_well_formed_line_is_parsed():
    args = ", ".join(f"obj_{i}" for i in range(2000))
    assert parse_plan(f"grasp({args})").calls[0].args[-1] == "obj_1999"
