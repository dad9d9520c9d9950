"""training/run_cpu_recipe.sh: the whole CPU recipe in order; --dry-run prints each step's command
and touches nothing; a step recorded as done with the same command is skipped, with another
command it runs again; bad arguments stop it before anything runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "run_cpu_recipe.sh"
ORDER = ["prompts", "train-prompts", "gold", "teacher", "mix", "sft", "export", "eval-base-free",
         "eval-base-guided", "eval-student-free", "eval-student-guided", "rl"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, check=False, timeout=60)


def _steps(stdout: str) -> dict[str, str]:
    lines = [line.removeprefix("== ") for line in stdout.splitlines() if line.startswith("== ")]
    return dict(line.split(": ", 1) for line in lines)


def test_dry_run_prints_every_step_in_order_and_writes_nothing(tmp_path) -> None:
    out = tmp_path / "recipe"
    done = _run("--dry-run", "--out", str(out), "--teacher-prompts", "5", "--rows", "7", "--episodes", "3")
    assert done.returncode == 0, done.stderr
    steps = _steps(done.stdout)
    assert list(steps) == ORDER
    assert not out.exists()
    teacher = steps["teacher"]
    assert teacher.startswith("serve qwen2.5-coder-1.5b ")
    for flag in ("--decoding guided", "--k 4", "--limit 5", f"--prompts {out}/data/train_prompts.jsonl"):
        assert flag in teacher, flag
    assert "--rows 7" in steps["mix"] and f"--gold {out}/gold/sft.jsonl" in steps["mix"]
    assert f"--teacher {out}/teacher/sft.jsonl" in steps["mix"]
    assert "sft_qwen0.5b_cpu.yaml" in steps["sft"] and f"train_file={out}/mix.jsonl" in steps["sft"]
    assert f"export_gguf.py {out}/sft/final --out {out}/student-q4_k_m.gguf" in steps["export"]
    for who, model in (("base", "qwen2.5-coder-0.5b"), ("student", f"{out}/student-q4_k_m.gguf")):
        for mode in ("free", "guided"):
            command = steps[f"eval-{who}-{mode}"]
            assert command.startswith(f"serve {model} ")
            for flag in ("--benchmark b1k --split test", f"--decoding {mode}", "--limit 3",
                         f"--out {out}/eval-{who}-{mode}"):
                assert flag in command, flag
    assert "rl_qwen0.5b_cpu.yaml" in steps["rl"] and f"model={out}/sft/final" in steps["rl"]


def test_a_step_done_with_the_same_command_is_skipped_and_reruns_when_the_command_changes(tmp_path) -> None:
    out = tmp_path / "recipe"
    first = _steps(_run("--dry-run", "--out", str(out), "--until", "teacher").stdout)
    assert list(first) == ORDER[:4]
    (out / "done").mkdir(parents=True)
    (out / "done" / "prompts").write_text(first["prompts"] + "\n")
    (out / "done" / "teacher").write_text(first["teacher"] + "\n")
    again = _steps(_run("--dry-run", "--out", str(out), "--until", "teacher").stdout)
    assert again["prompts"].startswith("done, skipped") and again["teacher"].startswith("done, skipped")
    assert again["gold"] == first["gold"]
    more = _steps(_run("--dry-run", "--out", str(out), "--until", "teacher", "--teacher-prompts", "40").stdout)
    assert more["prompts"].startswith("done, skipped") and "--limit 40" in more["teacher"]
    ranged = _steps(_run("--dry-run", "--out", str(out), "--from", "mix", "--until", "export").stdout)
    assert list(ranged) == ["mix", "sft", "export"]


def test_bad_arguments_stop_before_anything_runs(tmp_path) -> None:
    for args, message in ((["--gpus", "8"], "unknown argument --gpus"), (["--from", "distill"], "no step distill"),
                          (["--rows", "0"], "not a positive whole number")):
        done = _run("--out", str(tmp_path / "recipe"), *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
    assert not (tmp_path / "recipe").exists()


def test_a_failing_step_is_logged_with_its_status_and_stops_the_run(tmp_path) -> None:
    out = tmp_path / "recipe"
    done = _run("--out", str(out), "--from", "mix")  # no teacher or gold rows yet: select_rows fails
    assert done.returncode != 0 and f"FAILED with {done.returncode}" in done.stderr
    table = (out / "steps.tsv").read_text().splitlines()
    assert table[0].split("\t") == ["step", "status", "seconds", "load", "command"]
    assert [row.split("\t")[:2] for row in table[1:]] == [["mix", str(done.returncode)]]
    assert (out / "logs" / "mix.log").read_text().strip()  # the step's own error message
    assert not (out / "done" / "mix").exists() and "== sft" not in done.stdout
