"""training/select_rows.py: the SFT mix keeps held-out rows out, prefers the teacher's row per prompt
and drops rows longer than max_length (counted with the student's real tokenizer, SmolLM2 here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "select_rows.py"


def _row(row_id: str, split: str, answer: str) -> dict:
    return {"id": row_id, "split": split,
            "prompt": [{"role": "system", "content": "You plan."}, {"role": "user", "content": f"Task {row_id}."}],
            "completion": [{"role": "assistant", "content": answer}]}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_mix_reads_only_train_rows_prefers_teacher_and_drops_over_long_rows(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.jsonl", [
        _row("a", "train", "<answer>gold a</answer>"),
        _row("b", "train", "<answer>gold b</answer>"),
        _row("held", "test", "<answer>gold held-out</answer>"),
        _row("long", "train", "<answer>" + "navigate(table_1) " * 400 + "</answer>"),
    ])
    teacher = _write(tmp_path / "teacher.jsonl", [_row("b", "train", "<answer>teacher b</answer>"),
                                                  _row("held", "test", "<answer>teacher held-out</answer>")])
    out = tmp_path / "mix.jsonl"
    done = subprocess.run([sys.executable, str(SCRIPT), "--teacher", str(teacher), "--gold", str(gold),
                           "--model", "smollm2", "--max-length", "512", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert set(rows) == {"a", "b"}
    assert rows["b"]["completion"][0]["content"] == "<answer>teacher b</answer>"
    assert rows["a"]["completion"][0]["content"] == "<answer>gold a</answer>"
    summary = json.loads((tmp_path / "mix.jsonl.summary.json").read_text())
    assert summary["rows_by_source"] == {"teacher": 1, "gold": 1}
    assert summary["dropped_longer_than_max_length"] == 1
    assert 0 < summary["tokens"]["max"] <= 512


def test_a_malformed_teacher_file_is_a_one_line_error_naming_its_line(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.jsonl", [_row("a", "train", "<answer>gold a</answer>")])
    for name, text, reason in (("cut.jsonl", json.dumps(_row("b", "train", "x")) + "\n{\"id\": \"c\",\n",
                                "not JSON"),
                               ("list.jsonl", "[1, 2]\n", "not an SFT row")):
        teacher = tmp_path / name
        teacher.write_text(text)
        done = subprocess.run([sys.executable, str(SCRIPT), "--teacher", str(teacher), "--gold", str(gold),
                               "--model", "smollm2", "--max-length", "512", "--out", str(tmp_path / "mix.jsonl")],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1, done.stderr
        assert lines[0].startswith(f"error: {teacher}:") and reason in lines[0]
        assert not (tmp_path / "mix.jsonl").exists()
