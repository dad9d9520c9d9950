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
* with ``places`` (:func:`scene_places`, the engine's :func:`~symplan_core.engine.goal_places.goal_places`),
  a place of a predicate that actions make true takes only the objects some such action accepts
  there (``open`` an openable, ``inside`` a container in the second place, ``on_fire`` something
  flammable; ``contains``, derived from ``filled``, a fillable holder), and a variable there only
  over a category with one of them: the drafter cannot
  ask for what no action can do (a fixture is never put anywhere; nothing cooks in a scene with no
  heat source). Over its own scene and initial state, 822 of the 841 released B-1K goals that the
  plain grammar admits are still admitted; the other 19 move something BEHAVIOR lists as a fixture
  (a car, a lawn chair, a potted plant: only the curated goal's own evidence makes it movable, and
  a drafted goal has none) or cook with no heat source in the file (``make_stewed_fruit``);
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

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from symplan_core.bddl.model import And, Atom, Formula, Imply, Literal, Not, Or, Problem, Quantifier
from symplan_core.bddl.normalize import FLOOR_TYPES
from symplan_core.bddl.vocabulary import vocabulary
from symplan_core.engine.predicates import SUBSTANCE_ARGUMENT
from symplan_core.engine.world import AGENT_TYPE
from symplan_core.llm.grammar import literal
from symplan_core.perception.synsets import is_substance

#: A place any scene instance (ANY) or any substance (SUB) may fill.
ANY, SUB = "any", "substance"
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
    mentions: int = 0  # the ``mentions`` sets the next conjunct may mention (0: none could be)

    @property
    def size_bytes(self) -> int:
        return len(self.text.encode())


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c in "()?;\"\\" for c in name):
        raise GoalGrammarError(f"{name!r} cannot be written in a goal (whitespace, parenthesis, '?' or quote)")
    return name


#: Per predicate, per argument place: the instances that may stand there, or None for any
#: (``engine.goal_places``: what some action that makes the literal true accepts).
Places = Mapping[str, tuple[frozenset[str] | None, ...]]


def scene_places(objects: Mapping[str, str], init: Sequence[Literal] = (), domain: str = "omnigibson") -> Places:
    """:func:`goal_places` of the engine for a scene: its objects, and what its observed initial state
    proves (an object seen with something inside it is a container). The goal itself vouches for
    nothing (``goal_evidence=False``), as for every drafted goal."""
    from symplan_core.engine.goal_places import goal_places
    from symplan_core.engine.world import build_world

    scene = Problem("scene", domain, dict(objects), tuple(init), And(()))
    return goal_places(build_world(scene, goal_evidence=False), vocabulary(domain))


@dataclass(frozen=True)
class StateAnswer:
    """A literal that answers a state word of the request: ``(predicate ...)`` (or its negation),
    with, where ``substances`` is given, one of those instances in the substance place ("spray it
    with disinfectant": a covering with something applied, not with dust), where ``subjects``
    is given, one of those instances (or a variable over one's type) in the first place: what the
    request names, so that "disinfect the vacuum" is not answered by covering the bottle; and
    where ``places`` is given, one of those instances in the second place (a placement the request
    states: ``placements.requested_placements``)."""

    predicate: str
    positive: bool = True
    substances: frozenset[str] | None = None
    subjects: frozenset[str] | None = None
    places: frozenset[str] | None = None  # the second place's instances: "throw the rod in the boat"


def goal_grammar(objects: Mapping[str, str], domain: str = "omnigibson",
                 max_conjuncts: int = MAX_CONJUNCTS, products: Collection[str] = (),
                 places: Places | None = None, mentions: Sequence[Collection[str]] = (),
                 held: Collection[Atom] = (), said: str = "",
                 states: Sequence[Collection[StateAnswer]] = (), close: bool = False) -> GoalGrammar:
    """The grammar of goals over ``objects`` (instance -> type) in ``domain``'s predicates.
    ``products``: instances of ``objects`` that the goal may ask into being with a top-level
    ``(real ?x)`` conjunct (``additions.scene_additions``' future objects). ``places``
    (:func:`scene_places`): a predicate's argument place takes only the instances listed there,
    and a variable only over a category with one of them; a predicate with a place nothing can
    fill is left out.

    A *continuation* (``mentions``, the sets of types a goal has yet to mention,
    ``object_words.goal_must_mention``): the top conjunction starts with ``said`` (the conjuncts the
    model already wrote, each with its leading space), goes on with one conjunct that mentions one
    of the sets (:func:`_mention_rules`), then any. ``held``: the atoms the initial state makes
    true; a negated ground literal mentions a set only over one of them (negating what is already
    false asks nothing: ``goal_reading.idle_negation``). ``states``: state words the goal has yet to
    answer, each a set of :class:`StateAnswer` any one of which answers it
    (``verbs.asked_states``); the next conjunct may instead be one with such a literal, ground,
    in an ``and``, or in a quantifier's body. ``GoalGrammar.mentions`` counts the object sets and
    state words some conjunct of this scene can answer; where it is 0 the top rule is the plain one.
    ``close``: a continuation ends right after that one conjunct (a model that went on looping past
    it until its tokens ran out said what it was asked for in that conjunct)."""
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
    # (covered x dust), (filled cup water): a substance in the substance place, or no such literal at all
    substances = sorted(i for i, t in objects.items() if is_substance(t, "omnigibson"))
    # Each place of each predicate: ANY instance, SUB (any substance), or the instances that fit it
    # (``places``); predicates with the same places share one alternative of every atom rule.
    groups: dict[tuple[str | tuple[str, ...], ...], list[str]] = {}
    for pred, arity in sorted(vocab.items()):
        allowed_places = (places or {}).get(pred) or (None,) * arity
        fitted: list[str | tuple[str, ...]] = []
        for i, allowed in enumerate(allowed_places[:arity]):
            pool, whole = (substances, SUB) if SUBSTANCE_ARGUMENT.get(pred) == i else (instances, ANY)
            fits = [x for x in pool if allowed is None or x in allowed]
            if not fits:
                break
            fitted.append(whole if fits == pool else tuple(fits))
        if len(fitted) == arity:  # every place has something to fill it
            groups.setdefault(tuple(fitted), []).append(pred)
    if not groups:
        raise GoalGrammarError(f"domain {domain!r} has no usable predicates")

    rules = [
        'root ::= "(:goal " top ")"',
        "obj ::= " + " | ".join(literal("?" + i) for i in instances),
    ]
    if substances:
        rules.append("sub ::= " + " | ".join(literal("?" + i) for i in substances))
    fit_rule: dict[str | tuple[str, ...], str] = {}
    for k, (signature, preds) in enumerate(groups.items()):
        rules.append(f"p{k} ::= " + " | ".join(literal(p) for p in preds))
        for place in signature:
            if place not in (ANY, SUB) and place not in fit_rule:
                fit_rule[place] = f"r{len(fit_rule)}"
                rules.append(f"{fit_rule[place]} ::= " + " | ".join(literal("?" + x) for x in place))

    # The types of each restricted place's instances: a variable over one of them may stand there.
    fit_types = {place: {objects[x] for x in (substances if place == SUB else place)}
                 for place in (*fit_rule, SUB)}

    def place_term(fits: str | tuple[str, ...], term: str, bound: tuple[str, ...]) -> str:
        """One argument place in a scope: its instances, or a bound variable over a type among them."""
        if fits == ANY:
            return term
        choices = ["sub" if fits == SUB else fit_rule[fits]]
        choices += [literal("?" + t) for t in bound if t in fit_types[fits]]
        return choices[0] if len(choices) == 1 else "(" + " | ".join(choices) + ")"

    def atom_rules(scope: str, term: str, bound: tuple[str, ...] = ()) -> None:
        alts = [f'"(" p{k} " " ' + ' " " '.join(place_term(f, term, bound) for f in signature) + ' ")"'
                for k, signature in enumerate(groups)]
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
    negatable = [a for a in held if a.predicate in vocab and len(a.args) == vocab[a.predicate]
                 and all(x in objects for x in a.args)]
    named = _mention_rules(rules, mentions, objects, instances, substances, groups, categories, pairs_with,
                           place_term, var, negatable, lambda fits, typ: fits == ANY or typ in fit_types[fits])
    named += _state_rules(rules, states, objects, instances, substances, groups, categories, pairs_with,
                          place_term, var)
    if named:
        rules.append("mention ::= " + " | ".join(named))
        before = f" {literal(said)}" if said else ""
        more = "" if close else f' (" " c){{0,{max_conjuncts}}}'
        rules.insert(1, f'top ::= "(and"{before} " " mention{more} ")"')
    else:
        rules.insert(1, f'top ::= "(and" (" " c){{1,{max_conjuncts}}} ")"')
    text = "\n".join(rules) + "\n"
    return GoalGrammar(text, len(instances), len(per_type), len(multi), len(rules), len(named))


_EITHER = '("(forall " | "(exists ")'


def _among_others(item: str, scope: str) -> str:
    """An ``and`` with ``item`` among up to five other literals of ``scope`` on either side."""
    return f'"(and" (" " l{scope}){{0,5}} " " {item} (" " l{scope}){{0,5}} ")"'


def _two_variables(first: str, second: str, body: str) -> list[str]:
    """A body over two variables, as the grammar writes it: nested ``forall``/``exists``, or ``forpairs``."""
    return [f'{_EITHER} {first} " " {_EITHER} {second} " " {body} ")" ")"',
            f'"(forpairs " {first} " " {second} " " {body} ")"']


def _mention_rules(rules: list[str], mentions: Sequence[Collection[str]], objects: Mapping[str, str],
                   instances: Sequence[str], substances: Sequence[str],
                   groups: Mapping[tuple[str | tuple[str, ...], ...], list[str]], categories: Sequence[str],
                   pairs_with, place_term, var, negatable: Sequence[Atom], var_fits) -> list[str]:
    """Add a rule ``m<k>`` for each of ``mentions`` (sets of types) a conjunct can mention, and
    return their names. A conjunct mentions set k when it is a literal with an instance of one of
    its types, an ``and`` of literals with one such, a quantifier over one of its types whose body
    uses its variable, or a quantifier over another category whose body is such a literal (or an
    ``and`` with one) or a second quantifier over one of its types that uses it: the BEHAVIOR forms
    (``(forall (?apple - apple) (inside ?apple ?bowl_1))``). A negated ground literal mentions a
    set only over one of the ``negatable`` atoms (those that hold initially); a variable its body
    never uses mentions nothing (``goal_reading.goal_types`` reads both the same way). ``var_fits(fits,
    typ)``: a variable over ``typ`` may stand in a place that ``fits``."""
    def mention_atoms(name: str, k_types: Collection[str], term: str, bound: tuple[str, ...]) -> bool:
        alts = []
        for g, signature in enumerate(groups):
            for p, fits in enumerate(signature):
                pool = substances if fits == SUB else (instances if fits == ANY else fits)
                hits = [x for x in pool if objects[x] in k_types]
                if not hits:
                    continue
                args = ["(" + " | ".join(literal("?" + x) for x in hits) + ")" if q == p else place_term(f, term, bound)
                        for q, f in enumerate(signature)]
                alts.append(f'"(" p{g} " " ' + ' " " '.join(args) + ' ")"')
        if not alts:
            return False
        rules.append(f"ma{name} ::= " + " | ".join(alts))
        if bound:  # a body over a variable: any negation (the verifier reads it as a mention too)
            rules.append(f'ml{name} ::= ma{name} | "(not " ma{name} ")"')
            return True
        undone = sorted({_compact(a, frozenset()) for a in negatable if any(objects[x] in k_types for x in a.args)})
        if undone:
            rules.append(f"mh{name} ::= " + " | ".join(literal(a) for a in undone))
        rules.append(f"ml{name} ::= ma{name}" + (f' | "(not " mh{name} ")"' if undone else ""))
        return True

    def using(name: str, typ: str, scope: str, bound: tuple[str, ...]) -> bool:
        """``mu<name>``: a body in ``scope`` with a literal that uses the variable over ``typ``."""
        alts = []
        for g, signature in enumerate(groups):
            for p, fits in enumerate(signature):
                if var_fits(fits, typ):
                    args = [literal("?" + typ) if q == p else place_term(f, f"t{scope}", bound)
                            for q, f in enumerate(signature)]
                    alts.append(f'"(" p{g} " " ' + ' " " '.join(args) + ' ")"')
        if not alts:
            return False
        rules.append(f"mv{name} ::= " + " | ".join(alts))
        rules.append(f'mu{name} ::= mv{name} | "(not " mv{name} ")" | '
                     + _among_others(f'(mv{name} | "(not " mv{name} ")")', scope))
        return True

    named: list[str] = []
    for k_types in mentions:
        k = len(named)
        alts = []
        if mention_atoms(str(k), k_types, "obj", ()):
            alts += [f"ml{k}", _among_others(f"ml{k}", "")]
        for i, typ in enumerate(categories):
            if typ in k_types:
                if using(f"{k}-{i}", typ, f"-{i}", (typ,)):
                    alts.append(f'{_EITHER} {var(i)} " " mu{k}-{i} ")"')
                for j in pairs_with(i):
                    if using(f"{k}-{i}-{j}", typ, f"-{i}-{j}", (typ, categories[j])):
                        alts += _two_variables(var(i), var(j), f"mu{k}-{i}-{j}")
                continue
            if mention_atoms(f"{k}-{i}", k_types, f"t-{i}", (typ,)):
                rules.append(f"mb{k}-{i} ::= ml{k}-{i} | " + _among_others(f"ml{k}-{i}", f"-{i}"))
                alts.append(f'{_EITHER} {var(i)} " " mb{k}-{i} ")"')
            for j in pairs_with(i):
                if categories[j] in k_types and using(f"{k}-{i}-{j}-second", categories[j], f"-{i}-{j}",
                                                      (typ, categories[j])):
                    alts += _two_variables(var(i), var(j), f"mu{k}-{i}-{j}-second")
        if alts:
            rules.append(f"m{k} ::= " + " | ".join(alts))
            named.append(f"m{k}")
    return named


def _state_rules(rules: list[str], states: Sequence[Collection[StateAnswer]], objects: Mapping[str, str],
                 instances: Sequence[str], substances: Sequence[str],
                 groups: Mapping[tuple[str | tuple[str, ...], ...], list[str]], categories: Sequence[str],
                 pairs_with, place_term, var) -> list[str]:
    """Add a rule ``w<k>`` for each of ``states`` some conjunct can answer, and return their names.
    A conjunct answers state k when it is one of its literals over the scene's instances, an ``and``
    with one, or a quantifier (one variable, two nested, or ``forpairs``) whose body is one or an
    ``and`` with one: the forms :func:`_mention_rules` accepts for objects."""
    signature_of = {pred: signature for signature, preds in groups.items() for pred in preds}
    named: list[str] = []

    def answer_atoms(answers: Collection[StateAnswer], name: str, term: str, bound: tuple[str, ...]) -> bool:
        alts = []
        for answer in sorted(answers, key=lambda a: (a.predicate, a.positive)):
            signature = signature_of.get(answer.predicate)
            if signature is None:  # not a predicate of the grammar, or nothing in this scene fits it
                continue
            args = []
            for p, fits in enumerate(signature):
                if answer.substances is not None and SUBSTANCE_ARGUMENT.get(answer.predicate) == p:
                    chosen = answer.substances
                elif answer.subjects is not None and p == 0:
                    chosen = answer.subjects
                elif answer.places is not None and p == 1:
                    chosen = answer.places
                else:
                    args.append(place_term(fits, term, bound))
                    continue
                pool = [x for x in (substances if fits == SUB else instances if fits == ANY else fits) if x in chosen]
                kinds = {objects[x] for x in pool}
                choices = [literal("?" + x) for x in pool] + [literal("?" + t) for t in bound if t in kinds]
                if not choices:
                    break
                args.append("(" + " | ".join(choices) + ")")
            else:
                atom = f'"({answer.predicate} " ' + ' " " '.join(args) + ' ")"'
                alts.append(atom if answer.positive else f'"(not " {atom} ")"')
        if alts:
            rules.append(f"wl{name} ::= " + " | ".join(alts))
        return bool(alts)

    def with_one(name: str, scope: str) -> str:
        return f"wl{name} | " + _among_others(f"wl{name}", scope)

    for k, answers in enumerate(states):
        alts = [with_one(str(k), "")] if answer_atoms(answers, str(k), "obj", ()) else []
        for i, typ in enumerate(categories):
            if answer_atoms(answers, f"{k}-{i}", f"t-{i}", (typ,)):
                rules.append(f"wb{k}-{i} ::= " + with_one(f"{k}-{i}", f"-{i}"))
                alts.append(f'{_EITHER} {var(i)} " " wb{k}-{i} ")"')
            for j in pairs_with(i):
                if answer_atoms(answers, f"{k}-{i}-{j}", f"t-{i}-{j}", (typ, categories[j])):
                    rules.append(f"wb{k}-{i}-{j} ::= " + with_one(f"{k}-{i}-{j}", f"-{i}-{j}"))
                    alts += _two_variables(var(i), var(j), f"wb{k}-{i}-{j}")
        if alts:
            rules.append(f"w{k} ::= " + " | ".join(alts))
            named.append(f"w{k}")
    return named


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
