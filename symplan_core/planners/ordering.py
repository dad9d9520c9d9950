"""Goal ordering with protection: achieve ground targets so that none undoes another.

The reference planner achieves one target at a time. Taken in a fixed priority order, a
later target can undo an earlier one (a shoe moved next to the table is no longer under it;
the fridge closed before the last item went in). Here each next target is tried on a copy of
the plan: it is kept only if every target achieved so far still holds, else it waits and the
next one is tried. Only when no remaining target fits is one achieved regardless (a later
re-grounding pass may then pick other objects).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from symplan_core.planners.grounding import Target


class PlanningFailed(Exception):
    """Raised inside the planner with the human-readable reason."""


class Searcher(Protocol):
    pending: list[Target]

    def holds(self, target: Target) -> bool: ...
    def achieve(self, target: Target) -> None: ...
    def ways(self, target: Target) -> list[Callable[[], None]]: ...
    def snapshot(self) -> Any: ...  # whatever restore() takes back
    def restore(self, snap: Any) -> None: ...


def achieve_in_order(search: Searcher, targets: list[Target]) -> None:
    """Achieve ``targets`` (in preference order) without undoing one already achieved."""
    remaining = list(targets)
    search.pending = remaining
    done: list[Target] = []
    while remaining:
        chosen = _first_that_fits(search, remaining, done)
        if chosen is None:  # every remaining target undoes an achieved one: take the first anyway
            chosen = remaining[0]
            search.achieve(chosen)
        remaining.remove(chosen)
        done.append(chosen)


def _first_that_fits(search: Searcher, remaining: list[Target], done: list[Target]) -> Target | None:
    first_error: PlanningFailed | None = None
    for target in remaining:
        if search.holds(target):
            return target
        for way in search.ways(target):  # e.g. move a next to b, or b next to a
            snap = search.snapshot()
            try:
                way()
            except PlanningFailed as exc:
                search.restore(snap)
                first_error = first_error or exc
                continue
            if search.holds(target) and all(search.holds(d) for d in done):
                return target
            search.restore(snap)
    if first_error is not None and all(not search.holds(t) for t in remaining):
        raise first_error
    return None
