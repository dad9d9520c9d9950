"""Sample rows for real BEHAVIOR tasks (prompt builder + BDDL writer, as the data factory writes
them) and responses in the paper's format, shared by the RL tests."""

from __future__ import annotations

from symplan_core.bddl.writer import write_problem
from symplan_core.data.samples import ChatTurn, SampleRow
from symplan_core.engine import compile_task
from symplan_core.prompts import build_prompt
from symplan_core.tasks import load_problem


def wrap(lines: list[str], think: str = "plan") -> str:
    code = "\n".join(lines)
    return f"<think>{think}</think><answer><steps>\n1. do it\n</steps><code>\n{code}\n</code></answer>"


def prompt_row(task: str, robot: str = "single") -> SampleRow:
    benchmark, activity = task.split("/")
    problem = load_problem(task)
    compiled = compile_task(problem, robot)
    return SampleRow(id=f"{task}/{robot}/original/0", prompt=[ChatTurn(**m) for m in build_prompt(compiled)],
                     task=activity, benchmark=benchmark, robot=robot, split="test", source="original",  # type: ignore[arg-type]
                     action_set=compiled.action_set_name, bddl=write_problem(problem))


def columns(rows: list[SampleRow], n_each: int = 1) -> dict[str, list]:
    """The keyword columns TRL passes to reward functions, each row repeated n_each times."""
    out: dict[str, list] = {k: [] for k in ("id", "bddl", "robot", "action_set", "task")}
    for row in rows:
        for _ in range(n_each):
            for key in out:
                out[key].append(getattr(row, key))
    return out
