"""Deterministic goal-to-English rewrite: the request a planner reads instead of the formula.

Every top-level conjunct becomes one instruction ("put one candle inside each basket",
"make sure at least 3 candles are on top of table_1"). Instances appear under their short
names, quantified variables as type words ("each candle", "the basket"); the BDDL formula,
its variables (``?x``) and its keywords never appear. The rewrite is a pure function of the
formula (and, for ``forpairs``, of how many instances each type has), so prompts are
reproducible; the data factory may later replace it with LLM paraphrases.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Quantifier

# predicate -> template; {0}/{1} are argument phrases, {be} is "is", "are", "is not" or "are not".
_PHRASES: dict[str, str] = {
    "ontop": "{0} {be} on top of {1}",
    "inside": "{0} {be} inside {1}",
    "nextto": "{0} {be} next to {1}",
    "under": "{0} {be} under {1}",
    "touching": "{0} {be} touching {1}",
    "covered": "{0} {be} covered with {1}",
    "filled": "{0} {be} filled with {1}",
    "contains": "{0} {be} holding some {1}",
    "saturated": "{0} {be} soaked with {1}",
    "attached": "{0} {be} attached to {1}",
    "draped": "{0} {be} draped over {1}",
    "overlaid": "{0} {be} spread over {1}",
    "inroom": "{0} {be} in the {1}",
    "open": "{0} {be} open",
    "cooked": "{0} {be} cooked",
    "sliced": "{0} {be} sliced",
    "diced": "{0} {be} diced",
    "frozen": "{0} {be} frozen",
    "hot": "{0} {be} hot",
    "folded": "{0} {be} folded",
    "unfolded": "{0} {be} unfolded",
    "toggled_on": "{0} {be} switched on",
    "broken": "{0} {be} broken",
    "burnt": "{0} {be} burnt",
    "on_fire": "{0} {be} on fire",
    "stained": "{0} {be} stained",
    "dusty": "{0} {be} dusty",
    "soaked": "{0} {be} soaked",
    "real": "{0} {be} made (it must exist)",
    "future": "{0} {be} not made yet",
}
# Placement predicates read better as commands when a whole group is distributed.
_PUT = {"inside": "inside", "ontop": "on top of", "nextto": "next to", "under": "under",
        "attached": "attached to", "draped": "draped over", "overlaid": "spread over"}
_SENSE = re.compile(r"\.n\.\d+$")


def type_word(synset: str) -> str:
    """``hard-boiled_egg.n.01`` -> ``hard-boiled egg``."""
    return " ".join(_SENSE.sub("", synset).replace("_", " ").split())


def plural(word: str) -> str:
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


@dataclass(frozen=True)
class _NP:
    """A noun phrase and whether it takes a plural verb."""

    text: str
    plural: bool = False


@dataclass
class GoalRewriter:
    """Renders formulas of one task. ``short`` maps instance names to what planners see;
    ``counts`` (instances per type) lets ``forpairs`` say which side is fully covered."""

    short: Callable[[str], str] = lambda name: name
    counts: Mapping[str, int] = field(default_factory=dict)

    # -- public ---------------------------------------------------------------
    def instructions(self, goal: Formula) -> list[str]:
        """One imperative sentence (no final period) per top-level conjunct."""
        parts = goal.parts if isinstance(goal, And) else (goal,)
        return [self.instruction(part) for part in parts]

    def instruction(self, f: Formula) -> str:
        if isinstance(f, Quantifier) and f.kind in ("forpairs", "fornpairs"):
            command = self._pair_command(f, {})
            if command:
                return command
        clause = self.clause(f, {})
        return "make sure that" + ("," if clause.startswith("for ") else "") + " " + clause

    # -- clauses ---------------------------------------------------------------
    def clause(self, f: Formula, env: Mapping[str, _NP]) -> str:
        if isinstance(f, Atom):
            return self._atom(f, env, negated=False)
        if isinstance(f, Not):
            if isinstance(f.body, Atom):
                return self._atom(f.body, env, negated=True)
            return "it is not the case that " + self.clause(f.body, env)
        if isinstance(f, And):
            return _join([self.clause(p, env) for p in f.parts], "and")
        if isinstance(f, Or):
            items = [self.clause(p, env) for p in f.parts]
            if len(items) == 2:
                return f"either {items[0]} or {items[1]}"
            return "at least one of these holds: " + "; ".join(items)
        if isinstance(f, Imply):
            return f"if {self.clause(f.antecedent, env)}, then {self.clause(f.consequent, env)}"
        return self._quantifier(f, env)

    def _arg(self, arg: str, env: Mapping[str, _NP]) -> _NP:
        if arg in env:
            return env[arg]
        return _NP(self.short(arg))

    def _atom(self, atom: Atom, env: Mapping[str, _NP], negated: bool) -> str:
        args = [self._arg(a, env) for a in atom.args]
        subject_plural = bool(args) and args[0].plural
        be = ("are" if subject_plural else "is") + (" not" if negated else "")
        template = _PHRASES.get(atom.predicate)
        if template is None or template.count("{") - 1 != len(args):
            words = atom.predicate.replace("_", " ")
            listed = _join([a.text for a in args], "and")
            return f"{words} {'does not hold' if negated else 'holds'} for {listed}"
        return template.format(*(a.text for a in args), be=be)

    def _names(self, q: Quantifier, env: Mapping[str, _NP]) -> dict[str, str]:
        """Words for the quantified variables: ``basket``, or ``first/second basket``."""
        words = {p.var: type_word(p.type) for p in q.params}
        taken = {np.text for np in env.values()}
        if len(q.params) == 2 and q.params[0].type == q.params[1].type:
            words = {q.params[0].var: "first " + words[q.params[0].var],
                     q.params[1].var: "second " + words[q.params[1].var]}
        for var, word in words.items():
            if f"the {word}" in taken:
                words[var] = "other " + word
        return words

    def _quantifier(self, q: Quantifier, env: Mapping[str, _NP]) -> str:
        words = self._names(q, env)
        var = q.params[0].var
        word = words[var]
        simple = _subject_atom(q.body, var, env)
        if q.kind in ("forall", "exists", "forn") and simple is not None:
            atom, negated = simple
            if q.kind == "forall":
                subject, neg = (_NP(f"no {word}"), False) if negated else (_NP(f"every {word}"), False)
            elif q.kind == "exists":
                subject, neg = _NP(f"at least one {word}"), negated
            else:
                subject, neg = _NP(f"at least {q.count} {plural(word)}", plural=(q.count or 0) != 1), negated
            return self._atom(atom, {**env, var: subject}, negated=neg)
        inner = {**env, **{p.var: _NP(f"the {words[p.var]}") for p in q.params}}
        body = self.clause(q.body, inner)
        if q.kind == "forall":
            return f"for every {word}, {body}"
        if q.kind == "exists":
            return f"there is a {word} such that {body}"
        if q.kind == "forn":
            return f"for at least {q.count} different {plural(word)}, {body}"
        command = self._pair_command(q, env)
        if command:
            return command
        a, b = (words[p.var] for p in q.params)
        if q.kind == "forpairs":
            return (f"each {a} is paired with a different {b} (one-to-one, covering the smaller group) "
                    f"so that {body}")
        return f"at least {q.count} one-to-one pairs of a {a} and a {b} exist such that {body}"

    def _pair_command(self, q: Quantifier, env: Mapping[str, _NP]) -> str | None:
        """``put one candle inside each basket`` for a pairing whose body is one placement."""
        body = q.body
        if not (isinstance(body, Atom) and body.predicate in _PUT and len(body.args) == 2):
            return None
        first, second = q.params
        roles = {first.var: first, second.var: second}
        if set(body.args) != set(roles) or body.args[0] == body.args[1]:
            return None
        moved, target = roles[body.args[0]], roles[body.args[1]]
        words = self._names(q, env)
        what, where = words[moved.var], words[target.var]
        relation = _PUT[body.predicate]
        verb = "put" if body.predicate not in ("attached",) else "attach"
        relation = relation if verb == "put" else "to"
        if q.kind == "fornpairs":
            return (f"{verb} a different {what} {relation} each of at least {q.count} "
                    f"different {plural(where)}")
        n_moved, n_target = self.counts.get(moved.type), self.counts.get(target.type)
        if n_moved is not None and n_target is not None and n_moved < n_target:
            return f"{verb} each {what} {relation} a different {where}"
        return f"{verb} one {what} {relation} each {where}"


def _subject_atom(body: Formula, var: str, env: Mapping[str, _NP]) -> tuple[Atom, bool] | None:
    """The body as ``(pred var const...)`` or its negation, with var only as the subject."""
    negated = isinstance(body, Not)
    atom = body.body if isinstance(body, Not) else body
    if not isinstance(atom, Atom) or not atom.args or atom.args[0] != var:
        return None
    if any(a == var or a.startswith("?") and a not in env for a in atom.args[1:]):
        return None
    return atom, negated


def _join(items: list[str], word: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} {word} {items[1]}"
    return ", ".join(items[:-1]) + f", {word} {items[-1]}"


def goal_instructions(task) -> list[str]:
    """Instructions for a :class:`~symplan_core.engine.CompiledTask` (short names, no formula)."""
    counts = {typ: len(insts) for typ, insts in task.world.by_type.items()}
    rewriter = GoalRewriter(short=task.names.short, counts=counts)
    return rewriter.instructions(task.problem.goal)


def goal_to_english(task) -> str:
    """The request as one bulleted block of sentences."""
    return "\n".join(f"- {sentence[0].upper()}{sentence[1:]}." for sentence in goal_instructions(task))
