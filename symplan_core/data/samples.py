"""The planner sample row (``docs/data.md``; shared by the data factory, SFT and RL) and its JSONL.

One JSON object per line, loadable with ``datasets.load_dataset("json", data_files=...)`` and
usable directly by TRL: ``prompt`` / ``completion`` are chat messages (prompt-completion format
for ``SFTTrainer``; ``GRPOTrainer`` reads ``prompt`` and hands every other column to reward
functions). ``bddl`` is the full task the engine verifies against.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from symplan_core.errors import SymPlanError

Source = Literal["original", "init_aug", "object_aug"]


class ChatTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class SampleRow(BaseModel):
    """One planner sample (a prompt row when ``completion`` is empty, an SFT row otherwise)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="benchmark/task/robot/source/index")
    prompt: list[ChatTurn]
    completion: list[ChatTurn] = Field(default_factory=list)
    task: str
    benchmark: Literal["b100", "b1k"]
    robot: Literal["single", "dual"]
    split: Literal["train", "test"]
    source: Source
    augmentation: dict[str, Any] | None = None
    action_set: str
    bddl: str
    gold_tokens: int | None = None
    gold_commands: int | None = None

    def messages(self) -> list[dict[str, str]]:
        return [turn.model_dump() for turn in self.prompt]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class SampleFileError(SymPlanError, ValueError):
    """A sample file that is missing or holds a line that is not a sample row."""


def row_id(benchmark: str, task: str, robot: str, source: str, index: int) -> str:
    return f"{benchmark}/{task}/{robot}/{source}/{index}"


def write_rows(path: Path, rows: Iterable[SampleRow]) -> int:
    """Write rows as JSONL (replacing the file); returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    scratch = path.with_name(path.name + ".partial")
    with scratch.open("w") as fh:
        for row in rows:
            fh.write(json.dumps(row.to_json()) + "\n")
            count += 1
    scratch.replace(path)
    return count


def iter_rows(path: Path) -> Iterator[SampleRow]:
    """Rows of a sample file; a line that is not a valid row is an error naming the line."""
    if not path.is_file():
        raise SampleFileError(f"no sample file {path}")
    with path.open() as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield SampleRow.model_validate_json(line)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(map(str, first["loc"])) or "line"
                raise SampleFileError(f"{path}:{number}: not a sample row ({where}: {first['msg']})") from None


def read_rows(path: Path) -> list[SampleRow]:
    return list(iter_rows(path))
