"""Parse every BEHAVIOR problem (B-100 + B-1K) with SymPlan's parser and with bddl's.

Both parsers get the same in-memory texts (read once up front, so file I/O is excluded
for both) in the same process, interleaved repeat by repeat so that machine load hits
both alike. Reports per-file median and min of wall time and of process CPU time, and
the ratio ours / bddl (issue 22 target: <= 0.5). Usage::

    .venv/bin/python bench/bench_parse.py [--repeats 21] [--json]

bddl's ``parse_problem`` returns raw nested lists; ours returns the typed model (with
lazily resolved positions and declarations, see docs/bddl.md).

``--floor`` also times, in the same interleaved loop, the two parts of our parse that no
parsing logic can avoid: splitting the text into tokens, and building the model's nodes
(every Atom, Literal, connective, quantifier, Param and the Problem, with the parser's own
fast constructors, from already parsed values). Their sum over bddl's time is the lowest
ratio this model can reach in pure Python.

``--baseline FILE`` also times, in the same loop, the ``parse_problem`` of another version of
``symplan_core/bddl/parser.py`` (for a before/after comparison in one run)::

    git show <commit>:symplan_core/bddl/parser.py > /tmp/parser_before.py
    .venv/bin/python bench/bench_parse.py --baseline /tmp/parser_before.py
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable

from bddl.parsing import parse_problem as bddl_parse_problem

from symplan_core.bddl import build, parse_problem
from symplan_core.bddl.model import And, Atom, Deferred, Formula, Imply, Not, Or, Problem
from symplan_core.bddl.tokens import END, split_tokens
from symplan_core.fetch import BENCHMARKS, data_dir


def load_texts() -> list[tuple[str, str]]:
    files = [p for b in BENCHMARKS for p in sorted((data_dir() / b / "problems").glob("*.bddl"))]
    if not files:
        sys.exit(f"no BEHAVIOR files under {data_dir()}; run `symplan data fetch`")
    return [(str(p), p.read_text(encoding="utf-8")) for p in files]


def rebuild_formula(f: Formula) -> Formula:
    """``f`` built again node by node the way the parser builds nodes (no parsing)."""
    if isinstance(f, Atom):
        return build.make_atom(f.predicate, f.args, (None, 0))
    if isinstance(f, And):
        return build.make_and(tuple([rebuild_formula(p) for p in f.parts]), (None, 0))
    if isinstance(f, Or):
        return build.make_or(tuple([rebuild_formula(p) for p in f.parts]), (None, 0))
    if isinstance(f, Not):
        return build.make_not(rebuild_formula(f.body), (None, 0))
    if isinstance(f, Imply):
        return build.make_imply(rebuild_formula(f.antecedent), rebuild_formula(f.consequent), (None, 0))
    params = tuple([build.make_param(p.var, p.type, (None, 0)) for p in f.params])
    return build.make_quantifier(f.kind, params, rebuild_formula(f.body), f.count, (None, 0))


def rebuild_problem(values: tuple) -> Problem:
    """The Problem built again from (name, domain, objects, init rows, goal): every node, no parsing."""
    name, domain, objects, rows, goal = values
    make_atom, make_literal = build.make_atom, build.make_literal
    init = tuple([make_literal(make_atom(predicate, args, (None, 0)), negated) for predicate, args, negated in rows])
    return build.new_problem(name, domain, dict(objects), init, rebuild_formula(goal),
                             Deferred(tuple), (), name, ())


def time_pass(fn: Callable[[], None]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--floor", action="store_true",
                    help="also time tokenizing alone and building the model's nodes alone (the floor)")
    ap.add_argument("--baseline", metavar="FILE",
                    help="a parser.py of another version, timed as 'baseline' in the same loop")
    args = ap.parse_args()

    texts = load_texts()
    domains = [parse_problem(text, name).domain for name, text in texts]
    n = len(texts)

    def ours() -> None:
        for name, text in texts:
            parse_problem(text, name)

    def theirs() -> None:
        # bddl prints unrecognized sections (wash_a_baseball_cap's stray '\') to stdout.
        with contextlib.redirect_stdout(io.StringIO()):
            for (_, text), domain in zip(texts, domains, strict=True):
                bddl_parse_problem(None, None, domain, predefined_problem=text)

    parsed = [parse_problem(text, name) for name, text in texts]
    values = [(p.name, p.domain, p.objects, [(lit.predicate, lit.args, lit.negated) for lit in p.init], p.goal)
              for p in parsed]

    def tokens_only() -> None:
        for _, text in texts:
            toks = split_tokens(text)
            toks.extend([END] * 6)
            tuple(toks)

    def nodes_only() -> None:
        for v in values:
            rebuild_problem(v)

    passes: dict[str, Callable[[], None]] = {"symplan": ours, "bddl": theirs}
    if args.baseline:
        spec = importlib.util.spec_from_file_location("baseline_parser", args.baseline)
        assert spec is not None and spec.loader is not None
        baseline = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(baseline)
        for (name, text), mine in zip(texts, parsed, strict=True):
            if baseline.parse_problem(text, name) != mine:
                sys.exit(f"the baseline parser reads {name} differently")

        def before() -> None:
            for name, text in texts:
                baseline.parse_problem(text, name)

        passes["baseline"] = before
    if args.floor:
        passes.update({"tokens_only": tokens_only, "nodes_only": nodes_only})
    for fn in passes.values():  # warm-up: imports, regex compilation, caches
        fn()
    samples: dict[str, list[tuple[float, float]]] = {who: [] for who in passes}
    for _ in range(args.repeats):
        for who, fn in passes.items():
            samples[who].append(time_pass(fn))

    def per_file_ms(values: list[float]) -> dict[str, float]:
        return {"median": statistics.median(values) / n * 1e3, "min": min(values) / n * 1e3}

    summary: dict = {"files": n, "repeats": args.repeats, "python": platform.python_version(),
                     "machine": platform.machine(), "node_makers": "C" if build.COMPILED else "Python",
                     "ms_per_file": {}}
    for who, runs in samples.items():
        summary["ms_per_file"][who] = {"wall": per_file_ms([w for w, _ in runs]),
                                       "cpu": per_file_ms([c for _, c in runs])}
    ms = summary["ms_per_file"]
    summary["ratio"] = {kind: round(ms["symplan"][kind]["median"] / ms["bddl"][kind]["median"], 3)
                        for kind in ("wall", "cpu")}
    if args.baseline:
        summary["baseline_ratio"] = {kind: round(ms["baseline"][kind]["median"] / ms["bddl"][kind]["median"], 3)
                                     for kind in ("wall", "cpu")}
    if args.floor:
        summary["floor_ratio_cpu"] = round(sum(ms[w]["cpu"]["median"] for w in ("tokens_only", "nodes_only"))
                                           / ms["bddl"]["cpu"]["median"], 3)
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{n} files, {args.repeats} repeats, Python {summary['python']} ({summary['machine']}), "
          f"node makers: {summary['node_makers']}")
    for who in passes:
        w, c = ms[who]["wall"], ms[who]["cpu"]
        print(f"  {who:11s} wall median {w['median']:.4f} ms/file (min {w['min']:.4f})   "
              f"cpu median {c['median']:.4f} ms/file (min {c['min']:.4f})")
    print(f"  ratio symplan/bddl (medians): wall {summary['ratio']['wall']:.2f}, cpu {summary['ratio']['cpu']:.2f}"
          f"  -> {1 / summary['ratio']['cpu']:.2f}x")
    if args.baseline:
        print(f"  ratio baseline/bddl (medians): wall {summary['baseline_ratio']['wall']:.2f}, "
              f"cpu {summary['baseline_ratio']['cpu']:.2f}")
    if args.floor:
        print(f"  floor (tokens_only + nodes_only) / bddl, cpu: {summary['floor_ratio_cpu']:.2f}")


if __name__ == "__main__":
    main()
