"""Local Hugging Face checkpoint directories (e.g. ``training/sft.py``'s ``final/``) as model targets."""

from __future__ import annotations

from pathlib import Path

from symplan_core.llm.base import BackendUnavailableError


class CheckpointError(BackendUnavailableError):
    """A local model directory that no backend can load as it is."""


def local_checkpoint(target: str) -> Path | None:
    """The resolved directory when ``target`` is a local directory (None for a hub id or a file).

    Raises :class:`CheckpointError` for an incomplete directory: one holding only a LoRA adapter,
    or no ``config.json`` or no weights."""
    path = Path(target).expanduser()
    if not path.is_dir():
        return None
    if (path / "adapter_config.json").is_file() and not (path / "config.json").is_file():
        raise CheckpointError(f"{path} holds only a LoRA adapter; load a merged checkpoint (training/sft.py "
                              "writes merged weights to OUTPUT_DIR/final on one process)")
    if not (path / "config.json").is_file():
        raise CheckpointError(f"{path} is not a Hugging Face model directory (no config.json)")
    if not any(path.glob("*.safetensors")) and not any(path.glob("*.bin")):
        raise CheckpointError(f"{path} has a config.json but no weights (*.safetensors or *.bin)")
    return path.resolve()
