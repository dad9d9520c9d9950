"""Goal evaluation with exact BDDL semantics.

* ``forall``/``exists`` over the instances of a type;
* ``forn n``: at least n instances satisfy the body (BDDL docs; bddl's code
  checks "exactly n");
* ``forpairs``: a one-to-one matching between the two types' instances covers
  the smaller side (bipartite matching; bddl only checks row/column coverage);
* ``fornpairs n``: a one-to-one matching of size >= n exists.
No grounding is truncated.
"""

from __future__ import annotations

from collections.abc import Callable

from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Quantifier

Holds = Callable[[str, tuple[str, ...]], bool]


def _max_matching(left: list[str], right: list[str], ok: Callable[[str, str], bool]) -> int:
    """Size of a maximum bipartite matching (Kuhn's augmenting paths; sizes are tiny)."""
    adj = {a: [b for b in right if ok(a, b)] for a in left}
    match_of: dict[str, str] = {}

    def augment(a: str, seen: set[str]) -> bool:
        for b in adj[a]:
            if b in seen:
                continue
            seen.add(b)
            if b not in match_of or augment(match_of[b], seen):
                match_of[b] = a
                return True
        return False

    return sum(1 for a in left if augment(a, set()))


class GoalEvaluator:
    """Evaluates formulas of one task against a fact oracle ``holds(pred, args)``."""

    def __init__(self, by_type: dict[str, list[str]]):
        self.by_type = by_type

    def evaluate(self, f: Formula, holds: Holds, env: dict[str, str] | None = None) -> bool:
        env = env or {}
        if isinstance(f, Atom):
            return holds(f.predicate, tuple([env.get(a, a) for a in f.args]) if env else f.args)
        if isinstance(f, And):
            return all(self.evaluate(p, holds, env) for p in f.parts)
        if isinstance(f, Or):
            return any(self.evaluate(p, holds, env) for p in f.parts)
        if isinstance(f, Not):
            return not self.evaluate(f.body, holds, env)
        if isinstance(f, Imply):
            return not self.evaluate(f.antecedent, holds, env) or self.evaluate(f.consequent, holds, env)
        return self._quantifier(f, holds, env)

    def _quantifier(self, q: Quantifier, holds: Holds, env: dict[str, str]) -> bool:
        first, body, evaluate = q.params[0].var, q.body, self.evaluate
        domain = self.by_type.get(q.params[0].type, [])
        if q.kind == "forall":
            return all(evaluate(body, holds, {**env, first: x}) for x in domain)
        if q.kind == "exists":
            return any(evaluate(body, holds, {**env, first: x}) for x in domain)
        if q.kind == "forn":
            return sum(1 for x in domain if evaluate(body, holds, {**env, first: x})) >= (q.count or 0)
        second = q.params[1].var
        other = self.by_type.get(q.params[1].type, [])
        size = _max_matching(domain, other, lambda a, b: evaluate(body, holds, {**env, first: a, second: b}))
        if q.kind == "forpairs":
            return size >= min(len(domain), len(other))
        return size >= (q.count or 0)  # fornpairs

    def conjuncts(self, goal: Formula) -> tuple[Formula, ...]:
        """Top-level conjuncts: the unit of GCR."""
        return goal.parts if isinstance(goal, And) else (goal,)

    def leaves(self, f: Formula, env: dict[str, str] | None = None) -> list[tuple[Formula, dict[str, str]]]:
        """Ground the conjunctive skeleton (``and``/``forall``) into leaves for the
        grounded-literal fraction; disjunctive parts count as one leaf each."""
        env = env or {}
        if isinstance(f, And):
            return [leaf for p in f.parts for leaf in self.leaves(p, env)]
        if isinstance(f, Quantifier) and f.kind == "forall":
            var = f.params[0]
            return [leaf for x in self.by_type.get(var.type, []) for leaf in self.leaves(f.body, {**env, var.var: x})]
        return [(f, env)]
