"""Build an SFT training file from teacher rows and reference-planner gold rows (one row per prompt).

    python training/select_rows.py --teacher runs/teacher/sft.jsonl --gold runs/gold/sft.jsonl \\
        --model qwen2.5-coder-0.5b --max-length 2048 --rows 1200 --out runs/qwen-student/mix.jsonl

Per prompt id the teacher's row (the shortest strict pass `symplan data sft` kept) is taken when
there is one, else the gold row: both are engine-verified strict passes of the same prompt. Rows
longer than ``--max-length`` tokens (the student's chat template over prompt and completion, as
``sft.py`` renders them) are dropped rather than truncated, since a truncated row teaches a plan
cut off mid-way. Only rows of ``--split`` (default ``train``) are read: a prompt file from
``symplan data build`` also holds the held-out test rows, which must never be trained on. ``--rows N`` keeps a seeded random N of the rest. ``OUT.summary.json`` records the
counts by source, the dropped rows and the token lengths.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path


def read_rows(path: Path | None, split: str) -> dict[str, dict]:
    if path is None:
        return {}
    rows: dict[str, dict] = {}
    with path.open() as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
                if not isinstance(row, dict) or "id" not in row or "prompt" not in row or "completion" not in row:
                    raise ValueError(f"{path}:{number}: not an SFT row (id, prompt, completion)")
                if row.get("split") == split:
                    rows[row["id"]] = row
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teacher", type=Path, help="sft.jsonl of a teacher run")
    parser.add_argument("--gold", type=Path, help="sft.jsonl of `symplan data sft --teacher reference`")
    parser.add_argument("--model", required=True, help="student (transformers: target) whose tokenizer counts tokens")
    parser.add_argument("--max-length", type=int, required=True, help="sft.py's max_length")
    parser.add_argument("--rows", type=int, help="keep a seeded random N rows (default all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", default="train", help="the rows' split to keep (default train)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.teacher is None and args.gold is None:
        parser.error("give --teacher, --gold or both")
    try:
        teacher, gold = read_rows(args.teacher, args.split), read_rows(args.gold, args.split)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    from transformers import AutoTokenizer

    from symplan_core.llm.transformers_backend import hf_model_directory

    tokenizer = AutoTokenizer.from_pretrained(hf_model_directory(args.model.removeprefix("transformers:")),
                                              local_files_only=True)
    chosen = {**gold, **teacher}  # the teacher's row wins for a prompt both have
    kept, lengths, too_long = [], [], 0
    for key in sorted(chosen):
        row = chosen[key]
        text = tokenizer.apply_chat_template(row["prompt"] + row["completion"], tokenize=False)
        length = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        if length > args.max_length:
            too_long += 1
            continue
        kept.append((row, "teacher" if key in teacher else "gold", length))
    random.Random(args.seed).shuffle(kept)
    if args.rows is not None:
        kept = kept[:args.rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as handle:
        for row, _, _ in kept:
            handle.write(json.dumps(row) + "\n")
    lengths = [length for _, _, length in kept]
    summary = {
        "teacher_file": str(args.teacher) if args.teacher else None, "gold_file": str(args.gold) if args.gold else None,
        "teacher_prompts": len(teacher), "gold_prompts": len(gold), "prompts": len(chosen),
        "dropped_longer_than_max_length": too_long, "max_length": args.max_length, "rows": len(kept),
        "rows_by_source": {source: sum(1 for _, s, _ in kept if s == source) for source in ("teacher", "gold")},
        "tokens": {"total": sum(lengths), "mean": round(statistics.mean(lengths)) if lengths else None,
                   "max": max(lengths, default=None)},
        "seed": args.seed, "split": args.split, "model": args.model,
    }
    args.out.with_name(args.out.name + ".summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
