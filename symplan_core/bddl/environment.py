"""Planner-facing views of a task: reversible short names and the environment block.

``candle.n.01_1`` is shown to planners as ``candle_1``. The mapping is built
per task and is never ambiguous: when two instances would shorten to the same
name (``table.n.01_1``, ``table.n.02_1``), both keep their full names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from symplan_core.bddl.model import Literal, Problem

_SENSE = re.compile(r"\.n\.\d+(?=_)")


def shorten(instance: str) -> str:
    """``candle.n.01_1`` -> ``candle_1`` (no task context; see :class:`NameMap`)."""
    return _SENSE.sub("", instance, count=1)


@dataclass(frozen=True)
class NameMap:
    """Bidirectional full <-> short instance names for one task."""

    to_short: dict[str, str]
    to_full: dict[str, str]

    @classmethod
    def for_objects(cls, instances: Iterable[str]) -> NameMap:
        instances = list(instances)
        proposed: dict[str, list[str]] = {}
        for inst in instances:
            proposed.setdefault(shorten(inst), []).append(inst)
        full_names = set(instances)
        to_short = {}
        for short, owners in proposed.items():
            # Ambiguous, or colliding with some other instance's full name: keep full names.
            clash = len(owners) > 1 or (short in full_names and owners != [short])
            for inst in owners:
                to_short[inst] = inst if clash else short
        return cls(to_short, {s: f for f, s in to_short.items()})

    def short(self, instance: str) -> str:
        return self.to_short.get(instance, instance)

    def full(self, name: str) -> str | None:
        """Full instance name for a short or full name; None if not in the task."""
        if name in self.to_short:
            return name
        return self.to_full.get(name)


def _render_literal(lit: Literal, names: NameMap) -> str:
    args = " ".join(names.short(a) if k == 0 or lit.predicate != "inroom" else a
                    for k, a in enumerate(lit.args))
    atom = f"({lit.predicate} {args})"
    return f"(not {atom})" if lit.negated else atom


def render_environment(problem: Problem, names: NameMap | None = None,
                       hide: frozenset[str] = frozenset({"agent.n.01"})) -> str:
    """``(define (environment) (:objects ...) (:init ...))`` with short names, no goal.

    Objects of types in ``hide`` (the agent itself) are left out, with their literals.
    """
    names = names or NameMap.for_objects(problem.objects)
    hidden = {i for i, t in problem.objects.items() if t in hide}
    by_type: dict[str, list[str]] = {}
    for inst, typ in problem.objects.items():
        if inst not in hidden:
            by_type.setdefault(typ, []).append(names.short(inst))
    lines = ["(define (environment)", "    (:objects"]
    lines += [f"        {' '.join(insts)} - {typ}" for typ, insts in by_type.items()]
    lines += ["    )", "    (:init"]
    lines += [f"        {_render_literal(lit, names)}" for lit in problem.init
              if not any(a in hidden for a in lit.args)]
    lines += ["    )", ")"]
    return "\n".join(lines)
