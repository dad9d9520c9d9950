"""Pinned package sets (constraint files) for the three GPU environments, and the check that each
still resolves the way a user installs it.

    python scripts/lock_gpu_envs.py              # re-resolve from PyPI, rewrite constraints/gpu-*.txt
    python scripts/lock_gpu_envs.py --check      # resolve each against its file (what `make test` runs)
    python scripts/lock_gpu_envs.py --check vllm # one environment

A user installs an environment with the same command the check resolves:

    pip install -c constraints/gpu-vllm.txt -e ".[eval,vllm]"     # vLLM serving + the vllm: backend
    pip install -c constraints/gpu-trl.txt  -e ".[llm,train]"     # TRL (SFT, GRPO) on CUDA torch
    pip install -c constraints/gpu-verl.txt -e ".[verl-gpu]"      # verl 0.9.1 on Ray (its vLLM stack)

Resolution is pip's own (``pip install --dry-run --ignore-installed --report``), with every pip
setting of this machine switched off (config files, find-links, constraints: its local CPU torch
must not stand in for PyPI's), so it sees PyPI as a user's machine does. No GPU wheel is
downloaded: pip reads each wheel's metadata with HTTP range requests (``--use-feature=fast-deps``),
because the index this project reaches serves no separate metadata files (PEP 658), and without
them pip downloads every wheel whole (about 4.7 GB for the vLLM environment). The files are
resolved for CPython 3.11 on Linux x86_64 (manylinux), the project's interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints"

#: environment -> the project's extras installed in it
ENVIRONMENTS: dict[str, str] = {
    "vllm": "eval,vllm",
    "trl": "llm,train",
    "verl": "verl-gpu",
}

#: pip settings kept from the caller's environment: transport only, never what is resolved
_KEPT_PIP_VARIABLES = {"PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_DISABLE_PIP_VERSION_CHECK", "PIP_CACHE_DIR"}


class ResolutionError(RuntimeError):
    """pip could not resolve an environment (its message is in the error)."""


@dataclass(frozen=True)
class Resolution:
    environment: str
    pins: dict[str, str]  # canonical name -> version
    seconds: float


def constraint_file(environment: str) -> Path:
    return CONSTRAINTS / f"gpu-{environment}.txt"


def clean_pip_environment() -> dict[str, str]:
    """The caller's environment with every resolution-affecting pip setting removed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") or k in _KEPT_PIP_VARIABLES}
    env["PIP_CONFIG_FILE"] = os.devnull  # no global/site/user pip.conf (find-links, constraints, indexes)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def resolve_requirements(requirements: list[str], constraints: Path | None = None, label: str = "") -> dict[str, str]:
    """What ``pip install [-c constraints] REQUIREMENTS`` would install on a clean machine:
    canonical name -> version, from pip's own resolver (``--dry-run --report``)."""
    with tempfile.TemporaryDirectory(prefix="symplan-lock-") as scratch:
        report = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                   "--use-feature=fast-deps", "--report", str(report)]
        if constraints is not None:
            command += ["-c", str(constraints)]
        done = subprocess.run([*command, *requirements], env=clean_pip_environment(), capture_output=True,
                              text=True, check=False)
        if done.returncode != 0 or not report.is_file():
            message = "\n".join(line for line in (done.stderr + done.stdout).splitlines()
                                if "lazily downloaded wheels" not in line)
            raise ResolutionError(f"pip could not resolve {label or ' '.join(requirements)} "
                                  f"(exit {done.returncode}):\n{message.strip()}")
        installs = json.loads(report.read_text())["install"]
    pins = {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"] for item in installs}
    pins.pop(canonicalize_name("symplan-core"), None)
    return dict(sorted(pins.items()))


def resolve(environment: str, constraints: Path | None = None) -> Resolution:
    """What ``pip install [-c constraints] .[extras]`` would install for one GPU environment."""
    started = time.perf_counter()
    pins = resolve_requirements([f"{ROOT}[{ENVIRONMENTS[environment]}]"], constraints,
                                label=f"the {environment} environment")
    return Resolution(environment, pins, time.perf_counter() - started)


def read_constraints(path: Path) -> dict[str, str]:
    """``name==version`` lines of a constraint file (comments and blank lines skipped)."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise ValueError(f"{path}:{number}: expected name==version, got {raw!r}")
        pins[canonicalize_name(name.strip())] = version.strip()
    return pins


def write_constraints(resolution: Resolution) -> Path:
    path = constraint_file(resolution.environment)
    extras = ENVIRONMENTS[resolution.environment]
    header = [
        f"# GPU environment '{resolution.environment}': every package `pip install -e \".[{extras}]\"` installs,",
        "# pinned. Install with:",
        f"#   pip install -c constraints/{path.name} -e \".[{extras}]\"",
        "# Resolved from PyPI for CPython 3.11, Linux x86_64, by scripts/lock_gpu_envs.py on "
        f"{datetime.now(UTC):%Y-%m-%d}",
        "# (re-run it to refresh; `make test` checks the file still resolves: tests/install/).",
    ]
    body = [f"{name}=={version}" for name, version in resolution.pins.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(header + body) + "\n")
    return path


def check(environment: str) -> tuple[Resolution, list[str]]:
    """Resolve against the constraint file; the differences (empty when the file is exact)."""
    path = constraint_file(environment)
    locked = read_constraints(path)
    resolution = resolve(environment, constraints=path)
    problems = [f"{name}=={version} is installed but not pinned in {path.name}"
                for name, version in resolution.pins.items() if name not in locked]
    problems += [f"{name} is pinned in {path.name} but no longer installed" for name in locked
                 if name not in resolution.pins]
    problems += [f"{name}: pinned {locked[name]}, resolved {version}" for name, version in resolution.pins.items()
                 if name in locked and locked[name] != version]
    return resolution, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="resolve against the files instead of rewriting them")
    parser.add_argument("environments", nargs="*", metavar="ENV", help=f"some of {', '.join(ENVIRONMENTS)} (default all)")
    args = parser.parse_args(argv)
    environments = args.environments or list(ENVIRONMENTS)
    unknown = [env for env in environments if env not in ENVIRONMENTS]
    if unknown:
        parser.error(f"unknown environment(s) {', '.join(unknown)}; known: {', '.join(ENVIRONMENTS)}")
    failed = False
    with ThreadPoolExecutor(len(environments)) as pool:
        jobs = {env: pool.submit(check if args.check else resolve, env) for env in environments}
        for env, job in jobs.items():
            try:
                outcome = job.result()
            except ResolutionError as exc:
                print(f"error: {exc}", file=sys.stderr)
                failed = True
                continue
            if args.check:
                resolution, problems = outcome
                for problem in problems:
                    print(f"error: {env}: {problem}", file=sys.stderr)
                failed |= bool(problems)
                state = "differs from" if problems else "matches"
                print(f"{env}: {len(resolution.pins)} packages, {resolution.seconds:.1f} s, {state} "
                      f"{constraint_file(env).relative_to(ROOT)}")
            else:
                path = write_constraints(outcome)
                print(f"{env}: {len(outcome.pins)} packages, {outcome.seconds:.1f} s -> {path.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
