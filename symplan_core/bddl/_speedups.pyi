# Types of the C extension built from _speedups.c (see that file and build.py).
from collections.abc import Callable
from typing import Any

from symplan_core.bddl.model import Literal

class Maker:
    def __init__(self, cls: type, fields: tuple[str, ...], /) -> None: ...
    def __call__(self, *values: object) -> Any: ...

def split_tokens(text: str, /) -> list[str]: ...
def canonical_init(
    toks: tuple[str, ...], src: object, i: int, make_atom: Callable[..., Any], make_literal: Callable[..., Any], /
) -> tuple[tuple[Literal, ...], int] | None: ...
