"""Shared CLI plumbing: one-line errors, JSON output, benchmark options."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

console = Console(stderr=True)


class Benchmark(str, Enum):
    b100 = "b100"
    b1k = "b1k"


class BenchmarkOrAll(str, Enum):
    b100 = "b100"
    b1k = "b1k"
    all = "all"


class ActionSetName(str, Enum):
    default = "default"
    b100 = "b100"
    b1k = "b1k"
    full = "full"


def benchmarks_of(choice: BenchmarkOrAll) -> list[str]:
    return ["b100", "b1k"] if choice is BenchmarkOrAll.all else [choice.value]


def fail(message: str, code: int = 2) -> NoReturn:
    """Usage/input errors: one clear line on stderr, non-zero exit."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def with_decoding_flags(spec: str, decoding: str | None, think: str | None, steps: str | None) -> str:
    """``spec`` with ``--decoding``/``--think``/``--steps`` applied (``llm.spec.with_decoding``); a
    bad combination fails, and budgets that free decoding ignores get a note on stderr."""
    from symplan_core.llm import BackendSpecError
    from symplan_core.llm.spec import unused_budgets, with_decoding

    try:
        result = with_decoding(spec, decoding, think, steps)
        note = unused_budgets(result, think, steps)
    except BackendSpecError as exc:
        fail(str(exc))
    if note:
        console.print(escape(note), highlight=False, soft_wrap=True)
    return result


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")


# Typer vendors its own click; its UsageError is reachable publicly only as a base of BadParameter.
_UsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


class OneLineUsageErrors(TyperGroup):
    """A command group whose subcommands report usage errors as one ``error:`` line (exit 2).

    Typer's default is a multi-line rich panel; scripts and logs want one line, the same
    shape as every other input error of the CLI.
    """

    # Typer passes its own typer.Context, a subclass of the Context of the click it vendors,
    # which has no public name to annotate with.
    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except _UsageError as exc:
            sub = getattr(exc, "ctx", None) or ctx
            fail(f"{exc.format_message()} (see '{sub.command_path} --help')",  # type: ignore[attr-defined]
                 getattr(exc, "exit_code", 2))
