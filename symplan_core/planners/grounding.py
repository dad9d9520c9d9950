"""Choose a ground target set for a goal formula: the literals a plan must make true.

Choices (``exists``, ``forn``, ``or``, ``forpairs`` partners) are made in order
of preference -- already true first, then declaration order -- and each choice
must be consistent with the targets committed so far: no literal wanted both
true and false, no object wanted on/in/under two different things. A choice
that conflicts is undone and the next option tried, so two ``forn`` over the
same candles pick different candles. The result is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

from symplan_core.bddl.checks import iter_nodes
from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Quantifier
from symplan_core.engine.execute import floor_of
from symplan_core.engine.goals import GoalEvaluator
from symplan_core.engine.predicates import IMPLIES, OBJECT_RELATIONS, SUPPORT_RELATIONS
from symplan_core.engine.state import State
from symplan_core.engine.world import World

#: One per object: what it rests on or hangs from.
_EXCLUSIVE = frozenset(SUPPORT_RELATIONS + ("attached", "draped", "overlaid"))


@dataclass(frozen=True, slots=True)
class Target:
    predicate: str
    args: tuple[str, ...]
    positive: bool = True

    def __str__(self) -> str:
        atom = f"({self.predicate} {' '.join(self.args)})"
        return atom if self.positive else f"(not {atom})"


class _Conflict(Exception):
    pass


class Grounder:
    def __init__(self, evaluator: GoalEvaluator, state: State, world: World | None = None):
        self.ev = evaluator
        self.state = state
        self.world = world  # fixtures and floors: what cannot move, and where things set by them stand
        self.targets: list[Target] = []
        self._polarity: dict[tuple, bool] = {}
        self._support: dict[str, tuple[str, str]] = {}
        self._within: dict[str, str] = {}  # object -> container it is inside, resting on something
        self._placed: dict[str, tuple[str, str]] = {}  # object -> the under/nextto-a-fixture it is moved to
        self._trying = 0  # depth of nested choices being tried
        self.lenient = 0  # choices kept although they conflict with a committed target

    # -- commitment ---------------------------------------------------------
    def _snapshot(self):
        return len(self.targets), dict(self._polarity), dict(self._support), dict(self._within), dict(self._placed)

    def _restore(self, snap) -> None:
        n, pol, sup, within, placed = snap
        del self.targets[n:]
        self._polarity, self._support, self._within, self._placed = pol, sup, within, placed

    def _commit(self, t: Target) -> None:
        key = (t.predicate, t.args)
        if t.positive and len(t.args) == 2 and t.args[0] == t.args[1] and t.predicate in OBJECT_RELATIONS:
            raise _Conflict(str(t))  # nothing is on, in, under or next to itself
        if self._polarity.get(key, t.positive) != t.positive or self._contradicts_implied(t):
            raise _Conflict(str(t))
        if t.positive and t.predicate == "covered" and len(t.args) == 2 and not self._coatable(t):
            raise _Conflict(str(t))
        if t.positive and t.predicate in _EXCLUSIVE and len(t.args) == 2:
            self._commit_support(t)
        if t.positive and t.predicate in ("under", "nextto") and len(t.args) == 2:
            self._commit_placement(t)
        if key not in self._polarity:
            self._polarity[key] = t.positive
            self.targets.append(t)

    def _coatable(self, t: Target) -> bool:
        """A covering the plan could make or keep: it holds already, or its substance fills a
        container and so can be poured (nothing in the action library applies dust or a stain)."""
        substance = t.args[1]
        return (self.world is None or self.state.holds("covered", t.args) or substance not in self.world.affordances
                or self.world.allows(substance, "bulk"))

    def _contradicts_implied(self, t: Target) -> bool:
        """(filled a s) with (not (contains a s)), (ontop a b) with (not (touching a b)), ..."""
        if t.positive:
            return any(self._polarity.get((q, t.args)) is False for q in IMPLIES.get(t.predicate, ()))
        return any(self._polarity.get((p, t.args)) is True for p, qs in IMPLIES.items() if t.predicate in qs)

    def _commit_support(self, t: Target) -> None:
        """One direct support or attachment per object (an attached, draped or overlaid object
        hangs on its target and rests on nothing else), except that an object stacked on
        something may also be wanted inside a container (the engine derives inside through
        what it rests on)."""
        a, b = t.args
        if a == b or self._support.get(b, ("", ""))[1] == a:  # on itself, or a two-cycle
            raise _Conflict(str(t))
        want = (t.predicate, b)
        have = self._support.get(a, want)
        if have == want or have[0] == want[0] == "overlaid":  # one cloth can cover several things
            self._support.setdefault(a, want)
        elif t.predicate == "inside" and have[0] == "ontop" and self._within.get(a, b) == b:
            self._within[a] = b
        elif t.predicate == "ontop" and have[0] == "inside" and self._within.get(a, have[1]) == have[1]:
            self._within[a], self._support[a] = have[1], want
        else:
            raise _Conflict(str(t))

    def _commit_placement(self, t: Target) -> None:
        """A placement puts the moved object under, or next to, one thing: an object cannot be
        both under a table and next to it, or next to two fixtures (what moves is the one that
        is not fixed; two movable objects can meet anywhere)."""
        a, b = t.args
        if t.predicate == "nextto" and self.fixed(a) and not self.fixed(b):
            a, b = b, a
        if t.predicate == "nextto" and not self.fixed(b):
            return
        want = (t.predicate, b)
        if self._placed.setdefault(a, want) != want:
            raise _Conflict(str(t))
        if self.world is not None and not self.fixed(a):  # it stands where the fixture stands
            rel, base = self.state.support.get(b) or ("ontop", floor_of(self.world, b))
            if base is not None and base != a:
                self._commit_support(Target(rel, (a, base)))

    def fixed(self, obj: str) -> bool:
        return self.world is not None and self.world.is_fixture(obj)

    def _try(self, f: Formula, env: dict[str, str], positive: bool) -> bool:
        snap = self._snapshot()
        self._trying += 1
        try:
            self._ground(f, env, positive)
            return True
        except _Conflict:
            self._restore(snap)
            return False
        finally:
            self._trying -= 1

    def _choose(self, options: list[tuple[Formula, dict[str, str]]], positive: bool, count: int = 1) -> None:
        """Ground ``count`` options, preferring true ones, then ones whose object is not yet
        related to anything by another target (one price tag per product, not one for all),
        skipping conflicting ones."""
        shared = set.intersection(*(set(env.items()) for _f, env in options)) if options else set()
        busy: dict[str, int] = {}
        for t in self.targets:
            if t.positive and t.predicate in OBJECT_RELATIONS:
                for arg in t.args:
                    busy[arg] = busy.get(arg, 0) + 1

        def rank(option: tuple[Formula, dict[str, str]]) -> tuple[bool, int]:
            f, env = option
            return self.holds(f, env) != positive, sum(busy.get(v, 0) for k, v in env.items() if (k, v) not in shared)

        ranked = sorted(options, key=rank)
        chosen = 0
        for f, env in ranked:
            if chosen >= count:
                return
            if self._try(f, env, positive):
                chosen += 1
        if chosen < count and self._trying:  # inside another choice: let that choice move on
            raise _Conflict(f"no consistent choice of {count}")
        if chosen < count:
            self.lenient += 1
        for f, env in ranked[:count - chosen]:  # nothing consistent: keep the preferred option
            self._ground_lenient(f, env, positive)

    def _ground_lenient(self, f: Formula, env: dict[str, str], positive: bool) -> None:
        try:
            self._ground(f, env, positive)
        except _Conflict:
            self.lenient += 1

    # -- grounding ------------------------------------------------------------
    def holds(self, f: Formula, env: dict[str, str]) -> bool:
        return self.ev.evaluate(f, self.state.holds, env)

    def ground(self, f: Formula) -> list[Target]:
        """Targets for ``f``: top-level conjuncts left to right, except that a ``forall`` whose
        members each choose (``forall x: a or b``) goes last, so it fits around the rest.
        Greedy choices are not undone across conjuncts; instead, when a conjunct finds no
        consistent choice, grounding restarts with it first (at most once per conjunct) and
        the grounding with the fewest such conjuncts is kept."""
        order = sorted(f.parts if isinstance(f, And) else (f,), key=_chooses_per_member)
        best: tuple[int, list[Target]] | None = None
        for _ in range(len(order)):
            self._restore((0, {}, {}, {}, {}))
            failed = []
            for part in order:
                before = self.lenient
                self._ground_lenient(part, {}, True)
                if self.lenient > before:
                    failed.append(part)
            if best is None or len(failed) < best[0]:
                best = (len(failed), list(self.targets))
            if not failed:
                break
            # A conjunct that found no consistent choice is grounded first next time, so the
            # greedy choices of the others fit around it.
            order = [failed[0], *(p for p in order if p is not failed[0])]
        return best[1] if best else []

    def _ground(self, f: Formula, env: dict[str, str], positive: bool) -> None:
        if isinstance(f, Atom):
            self._commit(Target(f.predicate, tuple(env.get(a, a) for a in f.args), positive))
        elif isinstance(f, Not):
            self._ground(f.body, env, not positive)
        elif isinstance(f, Imply):
            self._ground(Or((Not(f.antecedent), f.consequent)), env, positive)
        elif isinstance(f, (And, Or)):
            if isinstance(f, And) == positive:  # a conjunction (De Morgan under negation)
                for part in f.parts:
                    self._ground(part, env, positive)
            else:
                self._choose([(p, env) for p in f.parts], positive)
        else:
            self._quantifier(f, env, positive)

    def _quantifier(self, q: Quantifier, env: dict[str, str], positive: bool) -> None:
        var = q.params[0]
        domain = self.ev.by_type.get(var.type, [])
        binds = [(q.body, {**env, var.var: x}) for x in domain]
        if q.kind in ("forall", "exists"):
            if (q.kind == "forall") == positive:
                for body, b in binds:
                    self._ground(body, b, positive)
            else:
                self._choose(binds, positive)
        elif q.kind == "forn":
            self._choose(binds, positive, q.count or 0)
        else:
            self._pairs(q, env, positive)

    def _pairs(self, q: Quantifier, env: dict[str, str], positive: bool) -> None:
        a_var, b_var = q.params
        left = self.ev.by_type.get(a_var.type, [])
        right = self.ev.by_type.get(b_var.type, [])
        need = min(len(left), len(right)) if q.kind == "forpairs" else (q.count or 0)
        used: set[str] = set()
        made = 0
        for a in left:
            if made >= need:
                return
            partners = sorted((b for b in right if b not in used),
                              key=lambda b: self.holds(q.body, {**env, a_var.var: a, b_var.var: b}) != positive)
            for b in partners:
                if self._try(q.body, {**env, a_var.var: a, b_var.var: b}, positive):
                    used.add(b)
                    made += 1
                    break


def _chooses_per_member(f: Formula) -> bool:
    """``forall`` over a body that holds a choice (``or``, ``imply``, ``exists``, ``forn``...)."""
    return isinstance(f, Quantifier) and f.kind == "forall" and any(
        isinstance(node, (Or, Imply)) or (isinstance(node, Quantifier) and node.kind != "forall")
        for node in iter_nodes(f.body))
