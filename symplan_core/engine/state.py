"""Symbolic state: a closed world of ground literals plus the agent.

Physical consistency is structural rather than checked after the fact:
``support`` maps each placed object to its single (relation, target), so an
object can never be on two things or in and on something at once; ``nextto``
is stored as unordered pairs; ``touching`` and ``contains``-from-``filled``
are derived on query, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symplan_core.engine.predicates import ATTACHMENT_RELATIONS, SUPPORT_RELATIONS

__all__ = ["ATTACHMENT_RELATIONS", "SUPPORT_RELATIONS", "State"]


@dataclass
class State:
    facts: set[tuple[str, ...]] = field(default_factory=set)
    support: dict[str, tuple[str, str]] = field(default_factory=dict)
    nextto: set[frozenset[str]] = field(default_factory=set)
    held: list[str] = field(default_factory=list)
    near: frozenset[str] = frozenset()
    at: str | None = None  # target of the last navigate
    future: set[str] = field(default_factory=set)
    # Precondition literals that held at some earlier step (for WRONG_TEMPORAL_ORDER).
    ever: set[tuple[str, ...]] = field(default_factory=set)
    # Substances of the task (shared, never mutated): they have no single support.
    substances: frozenset[str] = frozenset()

    def copy(self) -> State:
        return State(set(self.facts), dict(self.support), set(self.nextto), list(self.held),
                     self.near, self.at, set(self.future), set(self.ever),
                     self.substances)

    # -- queries ----------------------------------------------------------
    def holds(self, pred: str, args: tuple[str, ...]) -> bool:
        """Truth of one ground atom, derived predicates included."""
        if pred in SUPPORT_RELATIONS:
            if len(args) != 2:
                return False
            if args[0] in self.substances:  # a substance is on what it covers, in what it fills
                derived = {"ontop": "covered", "inside": "filled"}.get(pred)
                return (pred, *args) in self.facts or (derived is not None and (derived, args[1], args[0]) in self.facts)
            if self.support.get(args[0]) == (pred, args[1]):
                return True
            # Inside is containment: what rests on something inside a container is inside it too.
            return pred == "inside" and any(link == ("inside", args[1]) for link in self.container_chain(args[0]))
        if pred == "nextto":
            return len(args) == 2 and frozenset(args) in self.nextto
        if pred == "touching":
            return len(args) == 2 and self.touching(args[0], args[1])
        if pred == "contains":  # derived from filled
            return ("contains", *args) in self.facts or ("filled", *args) in self.facts
        if pred == "future":
            return args[0] in self.future
        if pred == "real":
            return args[0] not in self.future
        if pred == "grasped":
            return args[-1] in self.held
        return (pred, *args) in self.facts

    def touching(self, a: str, b: str) -> bool:
        if self.support.get(a, (None, None))[1] == b or self.support.get(b, (None, None))[1] == a:
            return True
        if frozenset((a, b)) in self.nextto:
            return True
        return any((rel, a, b) in self.facts or (rel, b, a) in self.facts for rel in ATTACHMENT_RELATIONS
                   if rel != "under")

    def container_chain(self, obj: str) -> list[tuple[str, str]]:
        """(relation, target) up the support chain of ``obj``, nearest first. (A list: chains are
        short and read on most steps, and a generator costs more to set up than the walk.)"""
        support = self.support
        chain = []
        seen = {obj}
        current = support.get(obj)
        while current is not None and current[1] not in seen:
            chain.append(current)
            seen.add(current[1])
            current = support.get(current[1])
        return chain

    def hands_used(self) -> int:
        return len(self.held)

    # -- mutations used by effects ---------------------------------------
    def detach(self, obj: str) -> None:
        """Remove ``obj``'s support, nextto pairs and attachments (it is being moved)."""
        self.support.pop(obj, None)
        if self.nextto:
            self.nextto = {p for p in self.nextto if obj not in p}
        if self.facts:
            drop = [f for f in self.facts if f[0] in ATTACHMENT_RELATIONS and f[1] == obj]
            self.facts.difference_update(drop)

    def signature(self) -> tuple[object, ...]:
        """The world as it stands, hashable, without history (``ever``): two states with the same
        signature offer the same calls and the same goal verdict (guided decoding's cycle check)."""
        return (frozenset(self.facts), frozenset(self.support.items()), frozenset(self.nextto),
                tuple(self.held), self.near, self.at, frozenset(self.future))

    def literals(self) -> set[tuple[str, ...]]:
        """All stored literals as tuples (support and nextto expanded), for deltas/traces."""
        out = set(self.facts)
        out.update((rel, obj, tgt) for obj, (rel, tgt) in self.support.items())
        for pair in self.nextto:
            ends = sorted(pair)
            out.add(("nextto", ends[0], ends[-1]))
        out.update(("holding", obj) for obj in self.held)
        out.update(("future", obj) for obj in self.future)
        return out
