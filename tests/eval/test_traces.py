"""The per-episode trace view of `symplan eval` reports: every plan step coloured by the engine's verdict."""

from __future__ import annotations

import re

import pytest

from symplan_core.engine.plan_text import format_call
from symplan_core.engine.verify import compile_task
from symplan_core.eval.metrics import score
from symplan_core.eval.report import TRACES_FILE, markdown, step_trace, traces_html, write_report
from symplan_core.planners.reference import plan_task
from symplan_core.tasks import load_problem

TASK = "b100/putting_away_Halloween_decorations"


@pytest.fixture(scope="module")
def task(behavior_dir):
    return compile_task(load_problem(TASK), "single")


def _record(task, response: str, sample: int = 0, episode: str = "e1") -> dict:
    _result, verdict, errors = score(task, response)
    return {"episode": episode, "robot": "single", "variant": "full", "sample": sample, "response": response,
            "backend_error": None, "verdict": verdict, "errors": errors}


def _classes(page: str, episode_index: int = 0) -> list[list[str]]:
    block = page.split(f'id="e{episode_index}"', 1)[1].split('<div class="ep"', 1)[0]
    return [re.findall(r'<li class="(\w+)">', ol) for ol in block.split('<ol class="steps">')[1:]]


def test_each_step_is_coloured_by_the_engines_verdict_on_it(task) -> None:
    plan = plan_task(task)
    assert plan.strict_pass
    calls = [format_call(a, args) for a, args in plan.calls]
    good = _record(task, "\n".join(calls))
    broken_lines = [calls[1], calls[0], "dance(wildly)", "grasp(unicorn.n.01_1)", *calls[2:]]
    broken = _record(task, "\n".join(broken_lines), sample=1)
    assert [s["status"] for s in step_trace(good)] == ["ok"] * len(calls)
    statuses = [s["status"] for s in step_trace(broken)]
    assert statuses[2:4] == ["skipped", "skipped"]  # an unknown action, a hallucinated object: not executed
    assert "error" in statuses[:2]  # the swapped pair: a precondition fails, effects applied anyway
    page = traces_html([good, broken])
    first, second = _classes(page)
    assert first == ["ok"] * len(calls) and second == statuses
    assert "strict pass" in page and "UNKNOWN_ACTION" in page and "UNKNOWN_OBJECT" in page


def test_model_text_is_escaped_and_backend_errors_are_shown(task) -> None:
    nasty = _record(task, "<script>alert(1)</script>\nopen(<b>x</b>)", episode="e2")
    failed = {"episode": "e3", "robot": "dual", "sample": 0, "response": None, "backend_error": "timeout <after 300 s>",
              "verdict": {"strict_pass": False, "engine_pass": False, "gcr": 0.0}, "errors": []}
    page = traces_html([nasty, failed])
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>x</b>" not in page
    assert "timeout &lt;after 300 s&gt;" in page and "backend error" in page


def test_the_report_links_the_traces_file(task, tmp_path) -> None:
    plan = plan_task(task)
    record = _record(task, "\n".join(format_call(a, args) for a, args in plan.calls))
    summary = {"config": {"planner": "reference"}, "SP": 100.0, "by_robot": {}}
    write_report(tmp_path, [record], summary)
    assert (tmp_path / TRACES_FILE).read_text().count('<li class="ok">') == plan.commands
    assert f"]({TRACES_FILE})" in markdown(summary) and f"]({TRACES_FILE})" in (tmp_path / "report.md").read_text()
