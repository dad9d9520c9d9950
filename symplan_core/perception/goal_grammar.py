"""A GBNF grammar of the ``(:goal ...)`` formulas over one scene: :func:`goal_grammar`.

Every sentence of the grammar is a goal our BDDL parser reads, fully grounded in the scene:

* atoms use the domain's predicates with their arity (``bddl.vocabulary``), minus the ones a goal
  over perceived objects cannot use (``inroom``: rooms are not objects; ``future``/``real``:
  perception sees no future objects; ``grasped``: the agent is not a scene object); the one
  exception: a top-level ``(real ?x)`` conjunct for each of the ``products`` the caller allows
  (what the scene's ingredients can make, ``additions.scene_additions``);
* the substance place of ``covered``/``saturated``/``filled``/``contains``/``insource``
  (``engine.predicates.SUBSTANCE_ARGUMENT``) takes only a substance (an instance, or a variable over
  a substance type), as in every released file; with no substance in the scene those predicates
  are left out;
* every argument is one of the scene's instances, written as BEHAVIOR writes goal arguments
  (``?apple.n.01_1``), or a variable bound by an enclosing quantifier;
* quantifiers are ``forall``/``exists`` over one variable and ``forpairs`` over two, each variable
  typed by one of the scene's categories (floors aside) and named after it (``(forall (?apple.n.01 -
  apple.n.01) ...)``, the BEHAVIOR style); at most two variables are in scope, and when there
  are two, one of them ranges over a category the scene has at least two instances of (two
  variables over single instances are the same as naming both), so the scopes a body can see are
  enumerated: none, one category, or an ordered pair of categories one of which repeats;
* connectives: a top-level ``and`` of up to :data:`MAX_CONJUNCTS` conjuncts; ``not`` over atoms;
  ``or`` of up to 4 literals or small conjunctions; nesting is bounded (a goal is at most
  8 connectives/quantifiers deep), so the grammar is finite in depth and its size grows with the
  number of objects plus 2 x categories x repeated categories.

The text is compact (single spaces, one line), the form the drafter's examples are written in
(:func:`compact_goal`). It follows the B-1K goals: 52% have no quantifier, 43% one level, 6% two;
``forn`` (22 uses in the corpus) and ``imply`` (5) are left out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from symplan_core.bddl.model import And, Atom, Formula, Imply, Not, Or, Quantifier
from symplan_core.bddl.normalize import FLOOR_TYPES
from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.engine.predicates import SUBSTANCE_ARGUMENT
from symplan_core.engine.world import AGENT_TYPE
from symplan_core.llm.grammar import literal
from symplan_core.perception.synsets import is_substance

#: Predicates a goal over perceived objects cannot use.
EXCLUDED_PREDICATES = frozenset({"inroom", "future", "real", "grasped"})
MAX_CONJUNCTS = 24
_OR_PARTS = "{2,4}"
_AND_PARTS = "{1,6}"


class GoalGrammarError(ValueError):
    """The scene cannot carry a goal grammar (no objects, or a name the grammar cannot write)."""


@dataclass(frozen=True)
class GoalGrammar:
    text: str  # the GBNF grammar
    objects: int
    categories: int  # distinct types of the scene
    repeated: int  # categories with at least two instances (one of two nested variables ranges over one)
    rules: int

    @property
    def size_bytes(self) -> int:
        return len(self.text.encode())


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c in "()?;\"\\" for c in name):
        raise GoalGrammarError(f"{name!r} cannot be written in a goal (whitespace, parenthesis, '?' or quote)")
    return name


def goal_grammar(objects: Mapping[str, str], domain: str = "omnigibson",
                 max_conjuncts: int = MAX_CONJUNCTS, products: Collection[str] = ()) -> GoalGrammar:
    """The grammar of goals over ``objects`` (instance -> type) in ``domain``'s predicates.
    ``products``: instances of ``objects`` that the goal may ask into being with a top-level
    ``(real ?x)`` conjunct (``additions.scene_additions``' future objects)."""
    objects = {i: t for i, t in objects.items() if t != AGENT_TYPE}  # the robot is not what a goal is about
    if not objects:
        raise GoalGrammarError("a goal grammar needs at least one scene object")
    if max_conjuncts < 1:
        raise GoalGrammarError("max_conjuncts must be at least 1")
    instances = sorted(_check_name(i) for i in objects)
    per_type: dict[str, int] = {}
    for typ in objects.values():
        per_type[_check_name(typ)] = per_type.get(typ, 0) + 1
    clash = set(per_type) & set(instances)
    if clash:
        raise GoalGrammarError(f"instance names equal to type names cannot be told from variables: {sorted(clash)}")
    categories = sorted(t for t in per_type if t not in FLOOR_TYPES)  # what a variable may range over
    multi = {t for t, n in per_type.items() if n >= 2}
    vocab = {p: n for p, n in vocabulary(domain).items() if p not in EXCLUDED_PREDICATES}
    unary = sorted(p for p, n in vocab.items() if n == 1)
    # (covered x dust), (filled cup water): a substance in the second place, or no such literal at all
    substances = sorted(i for i, t in objects.items() if is_substance(t, "omnigibson"))
    sub_types = {t for t in per_type if is_substance(t, "omnigibson")}
    with_substance = sorted(p for p, n in vocab.items() if n == 2 and SUBSTANCE_ARGUMENT.get(p) == 1) \
        if substances else []
    binary = sorted(p for p, n in vocab.items() if n == 2 and p not in SUBSTANCE_ARGUMENT)
    if not unary and not binary:
        raise GoalGrammarError(f"domain {domain!r} has no usable predicates")

    rules = [
        'root ::= "(:goal " top ")"',
        f'top ::= "(and" (" " c){{1,{max_conjuncts}}} ")"',
        "obj ::= " + " | ".join(literal("?" + i) for i in instances),
    ]
    if unary:
        rules.append("p1 ::= " + " | ".join(literal(p) for p in unary))
    if binary:
        rules.append("p2 ::= " + " | ".join(literal(p) for p in binary))
    if with_substance:
        rules.append("ps ::= " + " | ".join(literal(p) for p in with_substance))
        rules.append("sub ::= " + " | ".join(literal("?" + i) for i in substances))

    def atom_rules(scope: str, term: str, bound: tuple[str, ...] = ()) -> None:
        alts = []
        if unary:
            alts.append(f'"(" p1 " " {term} ")"')
        if binary:
            alts.append(f'"(" p2 " " {term} " " {term} ")"')
        if with_substance:  # the substance place: a substance instance, or a variable over a substance type
            sub = " | ".join(["sub", *(literal("?" + t) for t in bound if t in sub_types)])
            alts.append(f'"(" ps " " {term} " " ({sub}) ")"')
        rules.append(f"a{scope} ::= " + " | ".join(alts))
        rules.append(f'l{scope} ::= a{scope} | "(not " a{scope} ")"')

    def var(i: int) -> str:
        return literal(f"(?{categories[i]} - {categories[i]})")

    # Ground scope: a conjunct is a literal, a small conjunction, a disjunction or a quantifier.
    atom_rules("", "obj")
    quantifier = " | q" if categories else ""
    made = sorted(p for p in products if p in objects)
    real = ' | "(real " made ")"' if made else ""
    if made:
        rules.append("made ::= " + " | ".join(literal("?" + p) for p in made))
    rules.append(f'c ::= l | "(and" (" " l){_AND_PARTS} ")" | "(or" (" " oc){_OR_PARTS} ")"{quantifier}{real}')
    rules.append(f'oc ::= l | "(and" (" " l){_AND_PARTS} ")"{quantifier}')
    if categories:
        rules.append("q ::= " + " | ".join(f"q{i}" for i in range(len(categories))))
    def pairs_with(i: int) -> list[int]:  # two variables: at least one over a repeated category
        return [j for j, other in enumerate(categories) if j != i and (categories[i] in multi or other in multi)]

    # One variable in scope (any category); two when one of them is over a repeated category.
    for i, typ in enumerate(categories):
        s = f"-{i}"
        others = pairs_with(i)
        head = f'("(forall " | "(exists ") {var(i)} " " b{s} ")"'
        rules.append(f"q{i} ::= {head}" + (f' | "(forpairs " {var(i)} " " qv{s}' if others else ""))
        rules.append(f"t{s} ::= obj | {literal('?' + typ)}")
        atom_rules(s, f"t{s}", (typ,))
        body = [f"l{s}", f'"(and" (" " bc{s}){_AND_PARTS} ")"', f'"(or" (" " bo{s}){_OR_PARTS} ")"']
        inner = [f"l{s}", f'"(or" (" " bo{s}){_OR_PARTS} ")"']
        if others:
            body.append(f"qi{s}")
            inner.append(f"qi{s}")
            rules.append(f'qi{s} ::= ("(forall " | "(exists ") qv{s}')
            rules.append(f"qv{s} ::= " + " | ".join(f'{var(j)} " " b{s}-{j} ")"' for j in others))
        rules.append(f"b{s} ::= " + " | ".join(body))
        rules.append(f"bc{s} ::= " + " | ".join(inner))
        rules.append(f'bo{s} ::= l{s} | "(and" (" " l{s}){_AND_PARTS} ")"')
    for i in range(len(categories)):
        for j in pairs_with(i):
            s = f"-{i}-{j}"
            rules.append(f"t{s} ::= t-{i} | {literal('?' + categories[j])}")
            atom_rules(s, f"t{s}", (categories[i], categories[j]))
            rules.append(f'b{s} ::= l{s} | "(and" (" " l{s}){_AND_PARTS} ")" | "(or" (" " l{s}){_OR_PARTS} ")"')
    text = "\n".join(rules) + "\n"
    return GoalGrammar(text, len(instances), len(per_type), len(multi), len(rules))


def compact_goal(goal: Formula) -> str:
    """A goal formula as one line in the grammar's spacing, wrapped in ``(:goal (and ...))`` (a
    goal that is not a conjunction becomes a one-conjunct ``and``). Instance arguments get a
    ``?``, bound variables are written as they are. The drafter's examples are written this way so
    that the model sees the form it must write."""
    parts = goal.parts if isinstance(goal, And) else (goal,)
    return "(:goal (and " + " ".join(_compact(p, frozenset()) for p in parts) + "))"


def _compact(f: Formula, bound: frozenset[str]) -> str:
    if isinstance(f, Atom):
        args = [a if a in bound else (a if a.startswith("?") else "?" + a) for a in f.args]
        return "(" + " ".join([f.predicate, *args]) + ")"
    if isinstance(f, Not):
        return f"(not {_compact(f.body, bound)})"
    if isinstance(f, (And, Or)):
        head = "and" if isinstance(f, And) else "or"
        return f"({head} " + " ".join(_compact(p, bound) for p in f.parts) + ")"
    if isinstance(f, Imply):
        return f"(imply {_compact(f.antecedent, bound)} {_compact(f.consequent, bound)})"
    if isinstance(f, Quantifier):
        inner = bound | {p.var for p in f.params}
        words = [f.kind] + ([f"({f.count})"] if f.count is not None else [])
        words += [f"({p.var} - {p.type})" for p in f.params]
        return "(" + " ".join([*words, _compact(f.body, inner)]) + ")"
    raise TypeError(f"not a formula: {f!r}")
