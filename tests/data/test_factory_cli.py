"""``symplan data build``, ``symplan data sft`` and ``symplan eval run --dataset`` from the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from symplan_core.cli.main import app
from symplan_core.data.factory import Factory, FactoryConfig
from symplan_core.data.samples import read_rows, write_rows
from symplan_core.eval.harness import EvalConfig, episodes_for, read_records
from symplan_core.llm import FunctionBackend

runner = CliRunner()


def test_build_then_sft_with_the_reference_teacher(tmp_path, behavior_dir) -> None:
    out = tmp_path / "data"
    built = runner.invoke(app, ["data", "build", "--out", str(out), "--split", "b1k/train,b1k/test",
                                "--tasks", "turning_on_radio,b1k/buy_eggs", "--no-progress"])
    assert built.exit_code == 0, built.output
    assert "| b1k/train | 1 |" in built.stdout and "| b1k/test | 1 |" in built.stdout
    rows = read_rows(out / "prompts.jsonl")
    assert {r.task for r in rows} == {"turning_on_radio", "buy_eggs"}
    sft = runner.invoke(app, ["data", "sft", "--teacher", "reference", "--k", "1", "--prompts",
                              str(out / "prompts.jsonl"), "--out", str(tmp_path / "gold"), "--no-progress", "--json"])
    assert sft.exit_code == 0, sft.output
    summary = json.loads(sft.stdout)
    assert summary["kept"] == len(rows) and summary["yield"] == 1.0
    again = runner.invoke(app, ["data", "sft", "--teacher", "reference", "--k", "1", "--prompts",
                                str(out / "prompts.jsonl"), "--out", str(tmp_path / "gold"), "--no-progress"])
    assert again.exit_code == 0 and f"kept {len(rows)} of {len(rows)}" in again.output  # resumed: nothing redone


def test_bad_input_is_one_line(tmp_path, behavior_dir) -> None:
    cases = [
        (["data", "build", "--out", str(tmp_path), "--split", "b1k/nope"], "splits"),
        (["data", "build", "--out", str(tmp_path), "--tasks", "@/no/such/list.txt"], "no task list file"),
        (["data", "sft", "--teacher", "nonsense:", "--prompts", str(tmp_path / "none.jsonl"), "--out",
          str(tmp_path / "o")], "no sample file"),
    ]
    (tmp_path / "bad.jsonl").write_text('{"id": "x"}\n')
    cases.append((["data", "sft", "--teacher", "reference", "--prompts", str(tmp_path / "bad.jsonl"), "--out",
                   str(tmp_path / "o2")], "bad.jsonl:1: not a sample row"))
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error:") and message in result.output, result.output
        assert "Traceback" not in result.output


def test_eval_run_on_a_dataset_uses_each_rows_prompt_and_task(tmp_path, small_dataset) -> None:
    rows = small_dataset[2]
    test_rows = [r for r in rows if r.split == "test"][:4]
    path = tmp_path / "rows.jsonl"
    write_rows(path, [*test_rows, next(r for r in rows if r.split == "train")])
    result = runner.invoke(app, ["eval", "run", "--dataset", str(path), "--split", "test", "--planner", "reference",
                                 "--out", str(tmp_path / "run"), "--no-progress"])
    assert result.exit_code == 0, result.output
    records = read_records(tmp_path / "run" / "samples.jsonl")
    assert [r["episode"] for r in records] == [r.id for r in test_rows]  # the train row is filtered out
    assert all(r["verdict"]["strict_pass"] for r in records)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["config"]["benchmark"] is None  # the rows name their benchmarks, the run does not
    assert f"dataset `{path}`" in (tmp_path / "run" / "report.md").read_text()
    single = episodes_for(EvalConfig(dataset=str(path), robots=("single",), split="all"))
    assert {e.robot for e in single} == {"single"} and all(e.row is not None for e in single)
    refused = runner.invoke(app, ["eval", "run", "--dataset", str(path), "--variant", "forbid",
                                  "--out", str(tmp_path / "r2"), "--no-progress"])
    assert refused.exit_code == 2 and "carry their own prompts" in refused.output


def test_paraphrase_through_a_backend_spec_is_counted_and_never_fatal(tmp_path, test_activities) -> None:
    # The reference "model" cannot paraphrase (it needs a task): every call fails, rows keep the template.
    result = runner.invoke(app, ["data", "build", "--out", str(tmp_path / "p"), "--split", "b1k/train",
                                 "--tasks", "turning_on_radio", "--init-aug", "0", "--object-aug", "0",
                                 "--paraphrase", "reference", "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["table"]
    assert entry["paraphrase"] == {"backend_error": entry["episodes"]} and entry["episodes"] == 1
    factory = Factory(FactoryConfig(splits=("b1k/train",), tasks=("turning_on_radio",), init_aug=0, object_aug=0),
                      test_activities, paraphraser=FunctionBackend(lambda _p: "Please switch radio_receiver_1 on."))
    (row,) = factory.rows()
    assert factory.counts["b1k/train"].paraphrase == {"accepted": 1}
    assert "Please switch radio_receiver_1 on." in [turn.content for turn in row.prompt]
