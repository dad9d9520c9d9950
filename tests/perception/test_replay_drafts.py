"""``scripts/scripted_goal_drafts.py --replay``: a recorded LLM-drafter run re-judged by today's
verifier, with no model; and a file that is not such a run says so."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "scripted_goal_drafts.py"

# A real row of a recorded Qwen 1.5B holdout run (issue 21): "the mustard greens" drafted as one of
# the scene's three, accepted by the verifier of that day. Today's reads the plural as all three
# (goal_mending.widen_plurals), and the widened goal's plan reaches the released goal.
RECORDED = {"task": "b1k/cook_mustard_greens", "instruction": "Cook the mustard greens.", "style": "direct",
            "holdout": True, "accepted": True, "plan_transfer": False, "accepted_wrong": True,
            "drafted_goal": "(:goal (and (cooked ?mustard.n.03_1)))"}


DRAFTS = Path(__file__).parent / "data" / "goal_drafts"
#: Each committed file of real drafts -> (plan-transfer, accepted-but-wrong) as today's verifier
#: judges them: a change that loses a right goal or lets one more wrong goal through fails here.
JUDGED = {
    "qwen2.5-coder-1.5b_untuned13_direct.jsonl": (11, 3),
    "qwen2.5-coder-1.5b_untuned13_casual.jsonl": (9, 4),
    "qwen2.5-coder-1.5b_untuned13_terse.jsonl": (12, 4),
}


def _replay(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--replay", str(path), *flags], capture_output=True,
                          text=True, timeout=300)


def test_a_recorded_draft_is_re_judged_and_the_change_is_named(tmp_path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(RECORDED) + "\n")
    run = _replay(tasks)
    assert run.returncode == 0, run.stderr
    assert "direct: recorded accepted 1, plan-transfer 0, accepted-but-wrong 1 of 1" in run.stdout
    assert "direct: re-judged accepted 1, plan-transfer 1, accepted-but-wrong 0 of 1" in run.stdout
    assert "changed: 'Cook the mustard greens.': accepted True -> True, plan-transfer False -> True" in run.stdout
    two = tmp_path / "two.jsonl"  # two of the three named: which ones is said, so it is not widened
    two.write_text(json.dumps({**RECORDED, "drafted_goal": "(:goal (and (cooked ?mustard.n.03_1) "
                                                           "(cooked ?mustard.n.03_2)))"}) + "\n")
    refused = _replay(two)
    assert "direct: re-judged accepted 0, plan-transfer 0, accepted-but-wrong 0 of 1" in refused.stdout
    assert "covers only mustard.n.03_1, mustard.n.03_2" in refused.stdout


def test_a_request_to_switch_a_thing_off_makes_the_goal_that_does_it_reach_the_released_one(tmp_path) -> None:
    # The camera cannot see that the calculator is on; "switch off" says it is
    # (language.presupposed_states). Without that, the goal would already hold and ask nothing.
    calculator = {"task": "b1k/turn_off_a_normal_school_calculator", "instruction": "Switch off the calculator.",
                  "style": "terse", "holdout": True, "accepted": False, "plan_transfer": False,
                  "accepted_wrong": False, "drafted_goal": "(:goal (and (not (toggled_on ?calculator.n.02_1))))"}
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(calculator) + "\n")
    run = _replay(tasks)
    assert run.returncode == 0, run.stderr
    assert "terse: re-judged accepted 1, plan-transfer 1, accepted-but-wrong 0 of 1" in run.stdout


def test_with_confirm_novel_an_accepted_wrong_draft_is_asked_back_and_declined(tmp_path) -> None:
    # Part of the task only: the released goal also wants the ropes on the kayak.
    kayak = {"task": "b1k/covering_boat", "instruction": "cover the kayak with the tarp", "style": "terse",
             "holdout": True, "accepted": True, "plan_transfer": False, "accepted_wrong": True,
             "drafted_goal": "(:goal (and (overlaid ?tarpaulin.n.01_1 ?kayak.n.01_1)))"}
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(kayak) + "\n")
    never, novel = _replay(tasks), _replay(tasks, "--confirm", "novel")
    assert never.returncode == 0 and novel.returncode == 0, (never.stderr, novel.stderr)
    assert "terse: re-judged accepted 1, plan-transfer 0, accepted-but-wrong 1 of 1" in never.stdout
    assert "re-judged with --confirm" not in never.stdout
    assert "terse: re-judged accepted 0, plan-transfer 0, accepted-but-wrong 0 of 1" in novel.stdout
    assert "terse: re-judged with --confirm novel: asked back 1 (declined 1), done right 0 of 1" in novel.stdout
    assert "Should I make this true: make sure that tarpaulin is spread over kayak?" in novel.stdout


def test_every_committed_draft_file_is_listed_with_its_counts() -> None:
    assert sorted(p.name for p in DRAFTS.glob("*.jsonl")) == sorted(JUDGED)


@pytest.mark.parametrize("name", sorted(JUDGED))
def test_the_committed_real_drafts_keep_their_right_goals_and_let_no_more_wrong_ones_through(name) -> None:
    run = _replay(DRAFTS / name)
    assert run.returncode == 0, run.stderr
    (counts,) = re.findall(r"re-judged accepted \d+, plan-transfer (\d+), accepted-but-wrong (\d+) of 30", run.stdout)
    transfer, wrong = map(int, counts)
    assert (transfer, wrong) == JUDGED[name], run.stdout


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read"),
    ("", "no rows"),
    ('{"task": "b1k/x"\n', ":1: not JSON"),
    ("[1, 2]\n", ":1: not a JSON object"),
    (json.dumps({k: v for k, v in RECORDED.items() if k != "style"}) + "\n", ":1: no str 'style'"),
    (json.dumps({**RECORDED, "task": "cook_mustard_greens"}) + "\n", "is not BENCHMARK/ACTIVITY"),
    (json.dumps(RECORDED) + "\n" + json.dumps({**RECORDED, "holdout": False}) + "\n", "with and without holdout"),
])
def test_a_file_that_is_not_a_recorded_run_is_refused_with_where_and_why(tmp_path, content, message) -> None:
    tasks = tmp_path / "tasks.jsonl"
    if content is not None:
        tasks.write_text(content)
    run = _replay(tasks)
    assert run.returncode == 1
    assert message in run.stderr
    assert "Traceback" not in run.stderr
