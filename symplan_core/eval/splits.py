"""Benchmark splits: which activities an evaluation runs.

* ``b100``: the paper's benchmark, all 100 activities (``test`` and ``all`` are the same).
* ``b1k``: ``all`` = every B-1K activity; ``test`` = the committed held-out split in
  ``b1k_test_split.json``, drawn by :func:`draw_b1k_test_split`:

  1. candidates: every B-1K activity whose name is *not* also a B-100 activity (the shared
     names are the B-100 benchmark itself and must not leak into a held-out B-1K split);
  2. order the candidates by ``sha256("symplan/b1k-test/v1:" + name)`` (hex digest);
  3. take the first 48.

  The rule depends only on the activity names, so anyone can redraw it
  (``python -m symplan_core.eval.splits --check``); the data-factory issue may extend the split
  with augmented task definitions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from symplan_core.tasks import list_tasks

SPLIT_FILE = Path(__file__).with_name("b1k_test_split.json")
SPLIT_SALT = "symplan/b1k-test/v1:"
TEST_SIZE = 48


class SplitFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    benchmark: str
    split: str
    rule: str
    salt: str
    size: int
    excluded_shared_with_b100: int
    activities: list[str]


def split_key(name: str) -> str:
    return hashlib.sha256((SPLIT_SALT + name).encode()).hexdigest()


def draw_b1k_test_split(b1k: list[str], b100: list[str], size: int = TEST_SIZE) -> SplitFile:
    shared = set(b1k) & set(b100)
    candidates = sorted((n for n in b1k if n not in shared), key=split_key)
    return SplitFile(
        benchmark="b1k", split="test",
        rule="B-1K activities not named in B-100, ordered by sha256(salt + name), first `size`",
        salt=SPLIT_SALT, size=size, excluded_shared_with_b100=len(shared),
        activities=sorted(candidates[:size]),
    )


def load_b1k_test_split(path: Path = SPLIT_FILE) -> SplitFile:
    return SplitFile.model_validate_json(path.read_text())


def split_tasks(benchmark: str, split: str = "test") -> list[str]:
    """Activity names of a benchmark split, sorted."""
    if split not in ("test", "all"):
        raise ValueError(f"unknown split {split!r}; choose test or all")
    if benchmark == "b100" or split == "all":
        return list_tasks(benchmark)
    if benchmark != "b1k":
        raise ValueError(f"unknown benchmark {benchmark!r}")
    return list(load_b1k_test_split().activities)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw or check the committed B-1K test split.")
    parser.add_argument("--write", action="store_true", help="(re)write b1k_test_split.json")
    parser.add_argument("--check", action="store_true", help="fail if the committed split differs")
    args = parser.parse_args(argv)
    drawn = draw_b1k_test_split(list_tasks("b1k"), list_tasks("b100"))
    if args.write:
        SPLIT_FILE.write_text(json.dumps(drawn.model_dump(), indent=2) + "\n")
    if args.check and load_b1k_test_split() != drawn:
        print("the committed split differs from the rule's draw")
        return 1
    print(f"{len(drawn.activities)} activities; {drawn.excluded_shared_with_b100} shared with B-100 excluded")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
