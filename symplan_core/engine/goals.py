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


#: A goal formula compiled for one task: ``test(holds) -> bool`` (see ``GoalEvaluator.compile``)
GoalTest = Callable[[Holds], bool]
#: Ground nodes ``compile`` builds per formula at most; past it the formula is evaluated as is.
MAX_GROUND_NODES = 20_000


class _TooBig(Exception):
    pass


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

    def compile(self, f: Formula, env: dict[str, str] | None = None) -> GoalTest:
        """``f`` under ``env`` as a test of a state's ``holds``, equal to ``evaluate(f, holds, env)``:
        quantifiers are expanded over this task's instances once, and atoms get their ground
        arguments, so a plan's goal check does no binding or type dispatch. A formula whose
        expansion would exceed ``MAX_GROUND_NODES`` keeps the plain evaluation."""
        env = env or {}
        try:
            return self._compile(f, env, [0])
        except _TooBig:
            evaluate = self.evaluate
            return lambda holds: evaluate(f, holds, env)

    def _compile(self, f: Formula, env: dict[str, str], size: list[int]) -> GoalTest:
        size[0] += 1
        if size[0] > MAX_GROUND_NODES:
            raise _TooBig
        if isinstance(f, Atom):
            pred, args = f.predicate, tuple([env.get(a, a) for a in f.args])
            return lambda holds: holds(pred, args)
        if isinstance(f, Not):
            body = self._compile(f.body, env, size)
            return lambda holds: not body(holds)
        if isinstance(f, Imply):
            antecedent, consequent = self._compile(f.antecedent, env, size), self._compile(f.consequent, env, size)
            return lambda holds: not antecedent(holds) or consequent(holds)
        if isinstance(f, (And, Or)):
            return _all_or_any(isinstance(f, And), [self._compile(p, env, size) for p in f.parts])
        first, domain = f.params[0].var, self.by_type.get(f.params[0].type, [])
        if f.kind in ("forall", "exists", "forn"):
            tests = [self._compile(f.body, {**env, first: x}, size) for x in domain]
            if f.kind == "forn":
                count = f.count or 0
                return lambda holds: sum(1 for t in tests if t(holds)) >= count
            return _all_or_any(f.kind == "forall", tests)
        second, other = f.params[1].var, self.by_type.get(f.params[1].type, [])
        cells = {(a, b): self._compile(f.body, {**env, first: a, second: b}, size) for a in domain for b in other}
        need = min(len(domain), len(other)) if f.kind == "forpairs" else (f.count or 0)
        return lambda holds: _max_matching(domain, other, lambda a, b: cells[a, b](holds)) >= need

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


def _all_or_any(conjunction: bool, tests: list[GoalTest]) -> GoalTest:
    """All (``and``, ``forall``) or any (``or``, ``exists``) of ``tests``."""
    if conjunction:
        def every(holds: Holds) -> bool:
            for test in tests:
                if not test(holds):
                    return False
            return True
        return every

    def some(holds: Holds) -> bool:
        for test in tests:
            if test(holds):
                return True
        return False
    return some
