"""Fixtures of the BDDL tests: every real problem, read and parsed once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from symplan_core.bddl import Problem, parse_problem


@pytest.fixture(scope="session")
def corpus_texts(behavior_files: dict[str, list[Path]]) -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for files in behavior_files.values() for p in files}


@pytest.fixture(scope="session")
def corpus(corpus_texts: dict[Path, str]) -> dict[Path, Problem]:
    """Every real problem parsed; a syntax error here fails every test that uses it."""
    return {p: parse_problem(text, str(p)) for p, text in corpus_texts.items()}


@pytest.fixture(scope="session")
def real_file(behavior_dir: Path) -> Callable[[str, str], Path]:
    """``real_file("b1k", "loading_the_car")`` -> path of that problem file."""
    def resolve(benchmark: str, activity: str) -> Path:
        path = behavior_dir / benchmark / "problems" / f"{activity}.bddl"
        assert path.is_file(), path
        return path
    return resolve
