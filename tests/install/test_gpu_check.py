"""scripts/gpu_check.sh, the GPU sequence (vLLM eval per decoding mode, TRL GRPO, verl DAPO), stops
before doing anything when there is no GPU, with a message that says so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has nvidia-smi (a GPU machine)")
def test_gpu_check_refuses_to_run_without_a_gpu(tmp_path) -> None:
    out = tmp_path / "gpu"
    done = subprocess.run([str(ROOT / "scripts" / "gpu_check.sh"), "--out", str(out)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2
    assert "error: no NVIDIA GPU" in done.stderr
    assert not out.exists()  # nothing installed, nothing written


def test_gpu_check_rejects_unknown_arguments() -> None:
    done = subprocess.run([str(ROOT / "scripts" / "gpu_check.sh"), "--gpus", "8"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2 and "unknown argument --gpus" in done.stderr
