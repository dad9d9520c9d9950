"""What the LLM-goal rules of the verifier do to known right and known wrong goals (issue 21).

No model: the "LLM" is a scripted backend (``FunctionBackend``) replying, for each instruction,
with a goal we already have, through the real pipeline (``goal: llm``, free decoding, so the
LLM-goal rules apply: ``goal_evidence=False``, every named object the scene lacks is a reason):

* ``right``: the released goal re-grounded on the scene (retrieval's accepted, goal-equivalent
  draft of that instruction with the activity in the corpus);
* ``wrong``: the goal of the wrong activity retrieval drafts for it with the activity held out
  (drafts whose plan does not transfer).

Each set is verified with and without the language checks (``check_language``). Usage:

    python scripts/scripted_goal_drafts.py [--instructions tests/perception/data/instructions_dev.jsonl]

``--keep RUN/tasks.jsonl OUT.jsonl`` writes the fields ``--replay`` reads of a recorded run (plus its
reasons) to a small file to commit: ``tests/perception/data/goal_drafts/`` keeps real drafts so that
anyone can re-judge them at any later commit, without the model.

``--replay RUN/tasks.jsonl`` instead re-judges the goals a real LLM drafted in a recorded
``symplan perceive eval --drafter llm`` run (its ``drafted_goal`` per instruction, replayed through
the same scripted backend, with the run's holdout setting) with today's verifier, and prints the
recorded and the re-judged counts per style: what a verifier change does to real drafts, with no
model. With ``--confirm novel`` the re-judging asks each accepted draft back (docs/perception.md,
"Confirming a goal only the LLM vouches for") and also prints how many were asked, declined and
done right.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter

from symplan_core.llm import FunctionBackend
from symplan_core.perception import PerceptionConfig
from symplan_core.perception.rigs.evaluation import (
    EvalOptions,
    GivenInstruction,
    InstructionFileError,
    evaluate_instructions,
    load_instructions,
    read_json_lines,
)


def _drafted_goals(given, holdout: bool) -> dict[str, tuple[str, bool, bool]]:
    """instruction -> (retrieval's drafted goal, goal-equivalent, plan transfers)."""
    out = {}
    reports, _ = evaluate_instructions(given, EvalOptions(holdout=holdout, perception=PerceptionConfig(
        benchmarks=("b1k",))))
    for r in reports:
        if r.drafted_goal and r.loads:
            out[r.instruction] = (r.drafted_goal, r.goal_equivalent, r.plan_transfer)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instructions", default="tests/perception/data/instructions_dev.jsonl")
    parser.add_argument("--replay", help="tasks.jsonl of a recorded `perceive eval --drafter llm` run")
    parser.add_argument("--keep", nargs=2, metavar=("RUN_TASKS", "OUT"),
                        help="write the fields --replay reads of a recorded run's tasks.jsonl to OUT (JSONL)")
    parser.add_argument("--confirm", choices=("never", "novel"), default="never",
                        help="--replay: re-judge with this PerceptionConfig.confirm (novel: accepted drafts are "
                             "asked back; the simulated person says yes when the plan transfers)")
    args = parser.parse_args()
    if args.keep:
        keep(*args.keep)
        return
    if args.replay:
        replay(args.replay, args.confirm)
        return
    given = load_instructions(args.instructions)
    right = {i: g for i, (g, eq, _t) in _drafted_goals(given, holdout=False).items() if eq}
    wrong = {i: g for i, (g, _eq, transfer) in _drafted_goals(given, holdout=True).items() if not transfer}
    for name, table in (("right", right), ("wrong", wrong)):
        subset = [g for g in given if g.instruction in table]

        def respond(prompt, table=table) -> str:
            (instruction,) = re.findall(r"^Instruction: (.*)$", prompt.messages[-1].content, re.M)
            return table[instruction]

        for language in (False, True):
            config = PerceptionConfig(benchmarks=("b1k",), goal="llm", llm_decoding="free", check_language=language)
            reports, _ = evaluate_instructions(subset, EvalOptions(perception=config),
                                               goal_backend=FunctionBackend(respond, name="scripted"))
            accepted = sum(r.accepted for r in reports)
            transfer = sum(r.accepted and r.plan_transfer for r in reports)
            print(f"{name} goals, check_language={language}: n={len(reports)} accepted={accepted} "
                  f"accepted+plan-transfer={transfer} accepted-but-wrong={sum(r.accepted_wrong for r in reports)} "
                  f"asked={sum(r.asked for r in reports)} asked-and-resolved={sum(r.resolved for r in reports)}",
                  flush=True)
            if language:
                kinds = Counter(re.sub(r"'[^']*'|\([^)]*\)", "_", r.reasons[0])[:80] for r in reports
                                if not r.accepted and r.reasons)
                for kind, count in kinds.most_common(6):
                    print(f"    {count:4d}  {kind}")


_REPLAY_FIELDS = {"task": str, "instruction": str, "style": str, "holdout": bool, "accepted": bool,
                  "plan_transfer": bool, "accepted_wrong": bool}


def load_replay_rows(tasks_file: str) -> list[dict]:
    """The rows of a recorded run's tasks.jsonl, each checked for what ``replay`` reads; a file
    that is not one says where and why (``SystemExit``), never a traceback."""
    try:
        numbered = read_json_lines(tasks_file, "recorded run")
    except InstructionFileError as e:
        raise SystemExit(str(e)) from None
    rows = []
    for number, row in numbered:
        for field, kind in _REPLAY_FIELDS.items():
            if not isinstance(row.get(field), kind):
                raise SystemExit(f"{tasks_file}:{number}: no {kind.__name__} {field!r} (is this the tasks.jsonl "
                                 "of a `symplan perceive eval --drafter llm` run?)")
        if "/" not in row["task"]:
            raise SystemExit(f"{tasks_file}:{number}: task {row['task']!r} is not BENCHMARK/ACTIVITY")
        rows.append(row)
    if not rows:
        raise SystemExit(f"{tasks_file}: no rows")
    if len({r["holdout"] for r in rows}) != 1:
        raise SystemExit(f"{tasks_file}: rows with and without holdout")
    return rows


def keep(tasks_file: str, out: str) -> None:
    """The rows of a recorded run, cut to what ``replay`` reads and what explains a verdict."""
    fields = (*_REPLAY_FIELDS, "drafted_goal", "goal_equivalent", "reasons")
    with open(out, "w") as fh:
        for row in load_replay_rows(tasks_file):
            fh.write(json.dumps({f: row[f] for f in fields if f in row}) + "\n")


def replay(tasks_file: str, confirm: str = "never") -> None:
    rows = load_replay_rows(tasks_file)
    drafted = {r["instruction"]: r["drafted_goal"] for r in rows if r.get("drafted_goal")}
    holdout = {r["holdout"] for r in rows}
    given = [GivenInstruction(activity=r["task"].split("/", 1)[1], instruction=r["instruction"], style=r["style"])
             for r in rows if r["instruction"] in drafted]

    def respond(prompt) -> str:
        (instruction,) = re.findall(r"^Instruction: (.*)$", prompt.messages[-1].content, re.M)
        return drafted[instruction]

    config = PerceptionConfig(benchmarks=("b1k",), goal="llm", llm_decoding="free", confirm=confirm)
    reports, summary = evaluate_instructions(given, EvalOptions(perception=config, holdout=holdout.pop()),
                                             goal_backend=FunctionBackend(respond, name="scripted"))
    now = {r.instruction: r for r in reports}

    def recorded(r: dict) -> tuple[bool, bool, bool]:
        return r["accepted"], r["accepted"] and r["plan_transfer"], r["accepted_wrong"]

    def rejudged(r: dict) -> tuple[bool, bool, bool]:
        t = now.get(r["instruction"])  # no drafted goal: nothing to accept
        return (False, False, False) if t is None else (t.accepted, t.accepted and t.plan_transfer, t.accepted_wrong)

    for style in dict.fromkeys(r["style"] for r in rows):
        mine = [r for r in rows if r["style"] == style]
        for name, judge in (("recorded", recorded), ("re-judged", rejudged)):
            accepted, transfer, wrong = (sum(column) for column in zip(*map(judge, mine), strict=True))
            print(f"{style}: {name} accepted {accepted}, plan-transfer {transfer}, accepted-but-wrong {wrong} "
                  f"of {len(mine)}")
        counts = summary["by_style"].get(style)
        if confirm == "novel" and counts:
            print(f"{style}: re-judged with --confirm novel: asked back {counts['confirm_asked']} (declined "
                  f"{counts['confirm_declined']}), done right {counts['done_right']} of {len(mine)}")
    for r in rows:
        t = now.get(r["instruction"])
        if t is not None and recorded(r) != rejudged(r):
            transfer = (f", plan-transfer {bool(r.get('plan_transfer'))} -> {t.plan_transfer}"
                        if bool(r.get("plan_transfer")) != t.plan_transfer else "")
            print(f"  changed: {r['instruction']!r}: accepted {r['accepted']} -> {t.accepted}{transfer}"
                  + (f" ({t.reasons[0]})" if t.reasons else ""))


if __name__ == "__main__":
    main()
