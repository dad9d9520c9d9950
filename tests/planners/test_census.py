"""The census CLI over a whole benchmark, and its summary statistics."""

from __future__ import annotations

import json
import subprocess
import sys

from symplan_core.planners.census import percentile, summarize


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4, 5], 0.5) == 3
    assert percentile([10, 20], 0.9) == 19.0
    assert percentile([], 0.9) == 0.0


def test_summary_counts_only_strict_pass_commands():
    rows = [{"benchmark": "b100", "robot": "single", "solved": True, "strict_pass": True, "commands": 4, "seconds": 0.1},
            {"benchmark": "b100", "robot": "single", "solved": False, "strict_pass": False, "commands": 0,
             "seconds": 0.2}]
    s = summarize(rows)["b100/single"]
    assert (s["total"], s["solved"], s["strict_pass"], s["median_commands"]) == (2, 1, 1, 4)


def test_census_of_b100_meets_the_target_and_reverifies():
    proc = subprocess.run([sys.executable, "-m", "symplan_core.cli.main", "solve", "--benchmark", "b100",
                           "--robot", "both", "--actions", "full", "--json", "--workers", "2"],
                          capture_output=True, text=True, check=True)
    report = json.loads(proc.stdout)
    for key in ("b100/single", "b100/dual"):
        s = report["summary"][key]
        assert s["total"] == 100
        # 96: four file faults that docs/census.md quotes: watering_houseplants (no container to
        # carry water from the sink to the fixed plants), making_tea (no water at all to soak the
        # tea bag in), preserving_food (strawberries to cook, no heat source), cleaning_up_after_a_meal
        # (a stained floor, chair and table, no cleaning tool). Any other miss is a planner regression.
        assert s["strict_pass"] == 96
        assert [r["task"] for r in report["tasks"] if r["robot"] == key.split("/")[1] and not r["strict_pass"]] \
            == ["cleaning_up_after_a_meal", "making_tea", "preserving_food", "watering_houseplants"]
        assert s["solved"] == s["strict_pass"]  # every solved plan re-verifies
    assert all(r["reason"] for r in report["tasks"] if not r["strict_pass"])
    dual = report["summary"]["b100/dual"]["mean_commands"]
    single = report["summary"]["b100/single"]["mean_commands"]
    assert dual < single


def test_solve_one_task_prints_the_plan():
    proc = subprocess.run([sys.executable, "-m", "symplan_core.cli.main", "solve", "b1k/boil_water",
                           "--robot", "single"], capture_output=True, text=True, check=True)
    assert "<code>" in proc.stdout and "make(" in proc.stdout
