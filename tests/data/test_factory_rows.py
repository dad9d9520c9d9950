"""The factory's output on real tasks: the split table, the sample schema, and no test leakage."""

from __future__ import annotations

import json
import re

from factory_helpers import HELD_OUT

from symplan_core.bddl import parse_problem
from symplan_core.bddl.writer import write_formula
from symplan_core.data.factory import split_activities
from symplan_core.data.samples import SampleRow
from symplan_core.engine import compile_task
from symplan_core.tasks import list_tasks

_GOAL_SYNTAX = re.compile(r"\?[A-Za-z]|\((?:forall|exists|forn|forpairs|fornpairs|imply|:goal)\b")


def test_table_counts_match_the_rows_and_every_exclusion_has_a_reason(small_dataset) -> None:
    out, meta, rows = small_dataset
    table = {entry["split"]: entry for entry in meta["table"]}
    for split, entry in table.items():
        bench, part = split.split("/")
        mine = [r for r in rows if r.benchmark == bench and r.split == part]
        assert entry["episodes"] == len(mine)
        defs = {r.id.replace(f"/{r.robot}/", "/") for r in mine}
        assert entry["total_defs"] == len(defs) == entry["original"] + entry["init_aug"] + entry["object_aug"]
        assert all(":" in reason and n > 0 for reason, n in entry["excluded"].items())
    assert table["b1k/train"]["init_aug"] > 0 and table["b1k/train"]["object_aug"] > 0
    assert table["b100/test"]["init_aug"] == table["b100/test"]["object_aug"] == 0  # as in the paper
    assert "| b1k/train (paper) | 959 | 376 | 782 | 2117 | 2117 |" in (out / "README.md").read_text()
    assert json.loads((out / "meta.json").read_text())["rows"] == len(rows)


def test_training_definitions_get_one_robot_and_test_definitions_both(small_dataset) -> None:
    _, _, rows = small_dataset
    robots: dict[str, set[str]] = {}
    for row in rows:
        robots.setdefault(row.id.replace(f"/{row.robot}/", "/"), set()).add(row.robot)
        assert row.id == f"{row.benchmark}/{row.task}/{row.robot}/{row.source}/{row.id.rsplit('/', 1)[1]}"
    for definition, seen in robots.items():
        split = next(r.split for r in rows if r.id.replace(f"/{r.robot}/", "/") == definition)
        assert len(seen) == (1 if split == "train" else 2), definition
    assert len({r.id for r in rows}) == len(rows)


def test_rows_follow_the_schema_and_the_prompt_never_shows_the_goal(small_dataset) -> None:
    _, _, rows = small_dataset
    for row in rows:
        SampleRow.model_validate(row.to_json())
        roles = [turn.role for turn in row.prompt]
        assert roles == ["system", "user", "assistant", "user"], row.id
        assert row.completion == [] and row.gold_tokens is None and row.gold_commands >= 1
        problem = parse_problem(row.bddl)
        text = "\n".join(turn.content for turn in row.prompt)
        assert not _GOAL_SYNTAX.search(text), row.id
        assert write_formula(problem.goal) not in text
        assert "(define (environment)" in row.prompt[1].content
        task = compile_task(problem, row.robot, row.action_set)
        assert task.action_set_name == row.action_set == row.benchmark


def test_rows_load_with_hugging_face_datasets(small_dataset) -> None:
    from datasets import load_dataset

    out, _, rows = small_dataset
    data = load_dataset("json", data_files=str(out / "prompts.jsonl"))["train"]
    assert data.num_rows == len(rows)
    assert {"prompt", "completion", "bddl", "task", "robot", "split", "source", "augmentation",
            "gold_tokens", "gold_commands"} <= set(data.column_names)
    augmented = [a for a in data["augmentation"] if a]
    assert augmented and all(set(a) == {"kind", "method", "seed", "attempt", "details"} for a in augmented)


def test_held_out_activities_and_their_derivatives_never_reach_train(small_dataset, test_activities) -> None:
    # On names: the training split of the whole B-1K is disjoint from the committed test split.
    train = split_activities("b1k/train", test_activities)
    assert not set(train) & set(test_activities)
    assert sorted(train + split_activities("b1k/test", test_activities)) == list_tasks("b1k")
    # On derivatives: every definition made from a held-out activity (augmented ones too) is test,
    # and no training row holds a held-out task under another name.
    _, _, rows = small_dataset
    held = [r for r in rows if r.benchmark == "b1k" and r.task in HELD_OUT]
    assert {r.source for r in held} >= {"original", "object_aug"} and {r.split for r in held} == {"test"}
    train_rows = [r for r in rows if r.split == "train"]
    assert not {r.task for r in train_rows} & set(test_activities)
    assert not any(parse_problem(r.bddl).name.split("-")[0] in test_activities for r in train_rows)


def test_the_room_model_reads_only_training_files(small_dataset, test_activities) -> None:
    _, meta, _ = small_dataset
    assert meta["placement_model_problems"] == len(split_activities("b1k/train", test_activities))
