"""The GPU environments (vLLM serving, TRL on CUDA, verl on Ray) resolve the way a user installs
them: pip's own resolver, against PyPI, with this machine's pip settings switched off, gives
exactly the pinned set in constraints/gpu-*.txt. No GPU wheel is downloaded (pip reads wheel
metadata by HTTP range requests; scripts/lock_gpu_envs.py says why). About a minute, network-bound."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _lock_module():
    spec = importlib.util.spec_from_file_location("lock_gpu_envs", ROOT / "scripts" / "lock_gpu_envs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


lock = _lock_module()


def test_each_gpu_environment_resolves_to_exactly_its_pinned_set() -> None:
    environments = list(lock.ENVIRONMENTS)
    with ThreadPoolExecutor(len(environments)) as pool:
        outcomes = dict(zip(environments, pool.map(lock.check, environments), strict=True))
    for environment, (resolution, problems) in outcomes.items():
        assert problems == [], (f"{environment}: {problems}; an extra changed? `make gpu-locks` re-resolves "
                                f"constraints/gpu-*.txt from PyPI (review the diff)")
        assert resolution.pins == lock.read_constraints(lock.constraint_file(environment))
    vllm, trl, verl = (outcomes[name][0].pins for name in ("vllm", "trl", "verl"))
    # what each environment is for, and PyPI's CUDA torch (never this machine's local CPU build)
    assert "vllm" in vllm and "trl" in trl and verl["verl"] == "0.9.1" and "vllm" in verl
    for pins in (vllm, trl, verl):
        assert "+cpu" not in pins["torch"] and any(name.startswith("nvidia-") for name in pins)
    # verl's own stack: its transformers pin (< 5.11), which the project's .venv does not meet
    assert verl["transformers"] == "5.9.0" and verl["torch"] == "2.11.0"


def test_the_resolution_rejects_what_verl_does_not_accept() -> None:
    # The combination the test environment once had (verl installed --no-deps beside transformers 5.24).
    with pytest.raises(lock.ResolutionError, match="conflicting dependencies|ResolutionImpossible"):
        lock.resolve_requirements(["verl==0.9.1", "transformers==5.24.0"])


def test_constraint_files_are_name_version_pins_only(tmp_path) -> None:
    for environment in lock.ENVIRONMENTS:
        pins = lock.read_constraints(lock.constraint_file(environment))
        assert len(pins) > 50 and all(version[0].isdigit() for version in pins.values())
    bad = tmp_path / "bad.txt"
    bad.write_text("torch>=2.6\n")
    with pytest.raises(ValueError, match="expected name==version"):
        lock.read_constraints(bad)


def test_pip_check_passes_in_the_test_environment() -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
