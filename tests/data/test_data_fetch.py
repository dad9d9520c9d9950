"""BEHAVIOR data fetch: a no-op without network once complete; hashes catch corrupt data.

Tests that modify data work on a copy under tmp_path; the real cache is only read.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from symplan_core import fetch as fetch_mod
from symplan_core.cli.main import app
from symplan_core.fetch import DataError, fetch, is_complete, manifest, tree_digest


def data_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != ".complete")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to run pip (or any subprocess) from the fetch module fails the test."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"fetch tried to run a subprocess: {args!r}")
    monkeypatch.setattr(fetch_mod.subprocess, "run", refuse)


@pytest.fixture
def b100_copy(behavior_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A complete copy of B-100 in a temporary SYMPLAN_DATA_DIR."""
    shutil.copytree(behavior_dir / "b100", tmp_path / "b100")
    monkeypatch.setenv("SYMPLAN_DATA_DIR", str(tmp_path))
    return tmp_path


def test_manifest_records_counts_requirements_and_hashes() -> None:
    m = manifest()
    assert (m["b100"]["problems"], m["b1k"]["problems"]) == (100, 1016)
    assert (m["b100"]["requirement"], m["b1k"]["requirement"]) == ("bddl==1.0.1", "bddl==3.6.0")
    for name, entry in m.items():
        # Every download is pinned by its hash, whatever its kind (sdist, wheel, npm tarball, .deb).
        download_hashes = [value for key, value in entry.items() if key.endswith("sha256") and key != "tree_sha256"]
        download_hashes += [part["sha256"] for part in entry.values() if isinstance(part, dict) and "sha256" in part]
        assert download_hashes, f"{name} records no hash of what it downloads"
        assert all(len(h) == 64 for h in download_hashes) and len(entry["tree_sha256"]) == 64


def test_fetch_is_a_no_op_when_complete(behavior_dir: Path, no_network: None) -> None:
    for bench, count in (("b100", 100), ("b1k", 1016)):
        report = fetch(bench)
        assert (report.fetched, report.problems, report.path) == (False, count, behavior_dir / bench)


def test_cli_fetch_is_a_no_op_when_complete(behavior_dir: Path, no_network: None) -> None:
    result = CliRunner().invoke(app, ["data", "fetch"])
    assert result.exit_code == 0, result.output
    assert "already present" in result.output and "fetched in" not in result.output


def test_real_cache_matches_the_recorded_tree_hashes(behavior_dir: Path) -> None:
    for bench in ("b100", "b1k"):
        root = behavior_dir / bench
        assert tree_digest(root, data_files(root)) == manifest()[bench]["tree_sha256"]


def test_modified_file_changes_the_tree_hash(b100_copy: Path) -> None:
    root = b100_copy / "b100"
    victim = root / "problems" / "assembling_gift_baskets.bddl"
    victim.write_text(victim.read_text().replace("basket.n.01_4", "basket.n.01_5", 1))
    assert tree_digest(root, data_files(root)) != manifest()["b100"]["tree_sha256"]


def test_data_verify_accepts_an_intact_copy(b100_copy: Path) -> None:
    result = CliRunner().invoke(app, ["data", "verify", "--benchmark", "b100"])
    assert result.exit_code == 0, result.output
    assert "b100: 100 files match" in result.output


@pytest.mark.parametrize("damage", ["modify", "delete", "add"])
def test_data_verify_detects_corrupt_data(b100_copy: Path, damage: str) -> None:
    problems = b100_copy / "b100" / "problems"
    victim = problems / "assembling_gift_baskets.bddl"
    if damage == "modify":
        victim.write_bytes(victim.read_bytes() + b" ")
    elif damage == "delete":
        victim.unlink()
    else:
        (problems / "extra.bddl").write_text("(define)")
    result = CliRunner().invoke(app, ["data", "verify", "--benchmark", "b100"])
    assert result.exit_code == 1
    assert "b100" in result.output and "do not match" in result.output
    assert result.output.count("\n") == 1  # one line


def test_missing_stamp_means_incomplete_and_triggers_a_download(b100_copy: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (b100_copy / "b100" / ".complete").unlink()
    assert not is_complete("b100")
    calls = []

    def offline(requirement: str, dest: Path, wheel: bool = False) -> Path:
        calls.append(requirement)
        raise DataError(f"pip download {requirement} failed: offline")
    monkeypatch.setattr(fetch_mod, "_pip_download", offline)
    with pytest.raises(DataError, match="offline"):
        fetch("b100")
    assert calls == ["bddl==1.0.1"]
    assert (b100_copy / "b100" / "problems").is_dir()  # a failed fetch leaves old files alone


def test_sdist_with_the_wrong_hash_is_rejected(b100_copy: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (b100_copy / "b100" / ".complete").unlink()
    fake = tmp_path / "bddl-1.0.1.tar.gz"
    with tarfile.open(fake, "w:gz") as tar:
        tar.add(b100_copy / "b100" / "problems", arcname="bddl-1.0.1/bddl/activity_definitions")

    def local_sdist(requirement: str, dest: Path, wheel: bool = False) -> Path:
        return Path(shutil.copy(fake, dest))
    monkeypatch.setattr(fetch_mod, "_pip_download", local_sdist)
    with pytest.raises(DataError, match="does not match the recorded"):
        fetch("b100")
    assert hashlib.sha256(fake.read_bytes()).hexdigest() != manifest()["b100"]["sdist_sha256"]


def test_unknown_benchmark_is_a_data_error() -> None:
    with pytest.raises(DataError, match="unknown benchmark"):
        fetch("b2k")


def test_no_network_fixture_catches_a_real_fetch(b100_copy: Path, no_network: None) -> None:
    # Guards the no-op tests above: were fetch to download, the fixture would fail them.
    (b100_copy / "b100" / ".complete").unlink()
    with pytest.raises(AssertionError, match="tried to run a subprocess"):
        fetch("b100")
