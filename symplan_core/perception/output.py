"""Atomic outputs: ``task.bddl`` and its provenance sidecar ``task.provenance.json``, or nothing.

Both files are written to temporary names in the target directory, flushed to disk, then
renamed into place (sidecar first): a reader never sees a partial file, and a BDDL file never
appears without its sidecar. A rejected draft is never written.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from symplan_core.perception.errors import OutputError


def sidecar_path(out: Path) -> Path:
    """``task.bddl`` -> ``task.provenance.json`` (beside it)."""
    return out.with_name(out.stem + ".provenance.json")


def _staged(directory: Path, name: str, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_outputs(result, out: str | Path) -> tuple[Path, Path]:
    """Write an accepted result's BDDL and sidecar atomically; returns their paths."""
    out = Path(out)
    if not result.accepted or result.bddl is None:
        reasons = "; ".join(result.reasons) or "no parsable draft"
        raise OutputError(f"the draft was rejected, nothing written ({reasons})")
    sidecar = sidecar_path(out)
    staged: list[Path] = []
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staged.append(_staged(out.parent, sidecar.name, json.dumps(result.provenance, indent=2) + "\n"))
        staged.append(_staged(out.parent, out.name, result.bddl))
        os.replace(staged[0], sidecar)
        os.replace(staged[1], out)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        for tmp in staged:
            tmp.unlink(missing_ok=True)
    return out, sidecar
