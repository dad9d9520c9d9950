"""Shared CLI plumbing: one-line errors, JSON output, benchmark options."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any, NoReturn

import typer
from rich.console import Console

console = Console(stderr=True)


class Benchmark(str, Enum):
    b100 = "b100"
    b1k = "b1k"


class BenchmarkOrAll(str, Enum):
    b100 = "b100"
    b1k = "b1k"
    all = "all"


def benchmarks_of(choice: BenchmarkOrAll) -> list[str]:
    return ["b100", "b1k"] if choice is BenchmarkOrAll.all else [choice.value]


def fail(message: str, code: int = 2) -> NoReturn:
    """Usage/input errors: one clear line on stderr, non-zero exit."""
    console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")
