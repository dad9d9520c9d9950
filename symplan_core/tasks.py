"""Task registry: which tasks exist, their problems, and synset knowledge.

Answers "which tasks exist in b100/b1k" and "give me the problem for activity X" from
the fetched data directory, and "the ability flags of synset Y" from the synset table
that ships with the package (so a verdict never depends on what was fetched).
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from symplan_core.bddl import Problem, parse_file
from symplan_core.fetch import BENCHMARKS, DataError, data_dir, is_complete

ABILITY_COLUMNS = (
    "breakable", "fillable", "flammable", "openable", "toggleable", "cookable", "heatSource",
    "coldSource", "sliceable", "diceable", "slicer", "assembleable", "meltable", "particleRemover",
    "particleApplier", "particleSource", "needsOrientation", "particleSink", "sceneObject",
    "waterCook", "mixingTool",
)
#: Abilities BEHAVIOR lists per property (``properties_to_synsets.json``) rather than as a
#: ``synsets.csv`` column: ``attachable``, an object with an attachment point (a wall nail, a
#: hanger, a lid, a dartboard). Every ``attached`` literal of the released B-1K goals joins two.
PROPERTY_ABILITIES = ("attachable",)


SUBSTANCE_TYPES = frozenset({"liquid", "macroPhysicalSubstance", "microPhysicalSubstance", "visualSubstance"})


class TaskNotFound(DataError):
    """No such task (or an ambiguous name) in the requested benchmark(s)."""


@dataclass(frozen=True)
class SynsetInfo:
    """Ability flags of one synset (BEHAVIOR's ``synsets.csv``, as packaged)."""

    synset: str
    abilities: frozenset[str]
    object_type: str  # rigidBody, liquid, macroPhysicalParticleSystem, ...
    hypernyms: tuple[str, ...]

    @property
    def is_substance(self) -> bool:
        """Particle systems and liquids; rigid bodies, cloth, soft bodies and ropes are objects."""
        return self.object_type in SUBSTANCE_TYPES


def benchmark_dir(benchmark: str, base: Path | None = None) -> Path:
    if benchmark not in BENCHMARKS:
        raise TaskNotFound(f"unknown benchmark {benchmark!r}; choose from {', '.join(BENCHMARKS)}")
    if not is_complete(benchmark, base):
        raise DataError(f"{benchmark} task data missing in {(base or data_dir())}; run `symplan data fetch`")
    return (base or data_dir()) / benchmark


def list_tasks(benchmark: str) -> list[str]:
    return sorted(p.stem for p in (benchmark_dir(benchmark) / "problems").glob("*.bddl"))


def problem_path(task: str, benchmark: str | None = None) -> tuple[str, Path]:
    """Resolve a task name (``activity``, ``b100/activity``) or a file path.

    Returns ``(benchmark, path)``; benchmark is ``"file"`` for a path. A name
    found in both benchmarks without one given is an error, not a guess.
    """
    as_path = Path(task)
    if task.endswith(".bddl") or as_path.is_file():
        if not as_path.is_file():
            raise TaskNotFound(f"no such BDDL file: {task}")
        return "file", as_path
    if "/" in task:
        benchmark, task = task.split("/", 1)
    candidates = [benchmark] if benchmark else list(BENCHMARKS)
    found = []
    for bench in candidates:
        path = benchmark_dir(bench) / "problems" / f"{task}.bddl"
        if path.is_file():
            found.append((bench, path))
    if not found:
        where = benchmark or " or ".join(BENCHMARKS)
        raise TaskNotFound(f"no task {task!r} in {where}")
    if len(found) > 1:
        raise TaskNotFound(f"task {task!r} exists in both b100 and b1k; pass a benchmark (e.g. b100/{task})")
    return found[0]


@lru_cache(maxsize=2048)
def _cached_parse(path: str, _mtime: float) -> Problem:
    """``_mtime`` is only part of the cache key: a file changed on disk is parsed again."""
    return parse_file(path)


def load_problem(task: str, benchmark: str | None = None) -> Problem:
    """Parsed problem for an activity name, ``bench/activity`` or a .bddl path."""
    _bench, path = problem_path(task, benchmark)
    return _cached_parse(str(path), path.stat().st_mtime)


def task_benchmark(task: str, benchmark: str | None = None) -> str:
    return problem_path(task, benchmark)[0]


#: The synset table shipped with the package (derived from bddl's sdist, MIT licence; see
#: ``behavior_data/LICENSE-bddl.txt``), so affordances never depend on the data directory.
SYNSET_TABLE = "behavior_data/synset_table.json"
SYNSET_SOURCE = "bddl==3.6.0"


class SynsetTableError(DataError, ValueError):
    """The packaged synset table is missing or unreadable (a broken install, not bad input)."""


def derive_synset_table(synsets_csv: Path, hierarchy_json: Path, properties_json: Path) -> dict:
    """The packaged table from BEHAVIOR's ``synsets.csv``, ``output_hierarchy.json`` and
    ``properties_to_synsets.json``: per synset its abilities (the csv's columns, then
    :data:`PROPERTY_ABILITIES`), object type and hypernyms, plus the hierarchy's child -> parent
    map (first parent wins). ``scripts/build_synset_table.py`` writes it."""
    listed = json.loads(properties_json.read_text())
    by_property = {prop: frozenset(listed.get(prop, ())) for prop in PROPERTY_ABILITIES}
    synsets: dict[str, list] = {}
    with synsets_csv.open(newline="") as fh:
        for row in csv.DictReader(fh):
            flags = [c for c in ABILITY_COLUMNS if row.get(c, "0").strip() == "1"]
            abilities = " ".join(flags + [p for p in PROPERTY_ABILITIES if row["synset"] in by_property[p]])
            hypernyms = [h.strip() for h in row["hypernyms"].split(",") if h.strip()]
            synsets[row["synset"]] = [abilities, row["objectType"].strip(), hypernyms]
    parents: dict[str, str] = {}
    stack = [json.loads(hierarchy_json.read_text())]
    while stack:
        node = stack.pop()
        for child in node.get("children", []):
            parents.setdefault(child["name"], node["name"])
            stack.append(child)
    digest = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (synsets_csv, hierarchy_json, properties_json)}
    return {"source": f"{SYNSET_SOURCE} sdist: bddl/generated_data/synsets.csv, output_hierarchy.json, "
                      "properties_to_synsets.json",
            "license": "MIT (c) 2021 Stanford Vision and Learning Lab; full text: LICENSE-bddl.txt",
            "generator": "scripts/build_synset_table.py", "inputs_sha256": digest,
            "columns": ["abilities", "object_type", "hypernyms"],
            "synsets": synsets, "parents": parents}  # source order: lookups that break ties by order keep working


@lru_cache(maxsize=1)
def _packaged_table() -> dict:
    try:
        return json.loads(resources.files("symplan_core").joinpath(SYNSET_TABLE).read_text())
    except (OSError, ValueError) as exc:
        raise SynsetTableError(f"the packaged synset table symplan_core/{SYNSET_TABLE} is unreadable ({exc}); "
                               "reinstall symplan-core (pip install -e .)") from None


@lru_cache(maxsize=1)
def synset_table() -> dict[str, SynsetInfo]:
    """BEHAVIOR's synsets with their ability flags (the packaged table, no data directory needed)."""
    return {name: SynsetInfo(name, frozenset(abilities.split()), object_type, tuple(hypernyms))
            for name, (abilities, object_type, hypernyms) in _packaged_table()["synsets"].items()}


@lru_cache(maxsize=1)
def synset_parents() -> dict[str, str]:
    """Child -> parent in BEHAVIOR's WordNet-style hierarchy (``output_hierarchy.json``; first parent wins)."""
    return dict(_packaged_table()["parents"])


@lru_cache(maxsize=1)
def _known_children() -> dict[str, list[SynsetInfo]]:
    children: dict[str, list[SynsetInfo]] = {}
    for info in synset_table().values():
        for parent in info.hypernyms:
            children.setdefault(parent, []).append(info)
    return children


def kinds_below(synset: str) -> list[SynsetInfo]:
    """The table's synsets whose parent is ``synset`` (``sandwich.n.01``: arepa, club sandwich,
    hamburger, hotdog and their halves and dicings); none for a leaf."""
    return list(_known_children().get(synset, ()))


@lru_cache(maxsize=4096)
def synset_info(synset: str) -> SynsetInfo | None:
    """Ability flags of a synset, resolved in order:

    1. its own row in ``synsets.csv``;
    2. its nearest ancestor with a row (``output_hierarchy.json``);
    3. for B-100 synsets absent from both (``candle.n.01``), the abilities shared
       by all its known kinds in the table (``pillar_candle.n.01`` ...), since
       those are what the general word is sure to have;
    4. None: the synset is in no table; the engine reports objects of it as
       ``UNKNOWN_AFFORDANCE`` diagnostics.
    """
    table = synset_table()
    parents = synset_parents()
    seen = set()
    current: str | None = synset
    while current and current not in seen:
        if current in table:
            return table[current]
        seen.add(current)
        current = parents.get(current)
    kinds = _known_children().get(synset)
    if kinds:
        shared = frozenset.intersection(*(k.abilities for k in kinds))
        types = {k.object_type for k in kinds}
        object_type = types.pop() if len(types) == 1 else "rigidBody"
        return SynsetInfo(synset, shared, object_type, ())
    return None
