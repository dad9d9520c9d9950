"""LoRA settings shared by the SFT and RL scripts (``training/sft.py``, ``training/rl.py``).

The YAML ``lora:`` section (r, alpha, dropout, target modules) and ``train_top_layers`` become one
``peft.LoraConfig``: with ``train_top_layers: N`` the adapters sit only on the top N decoder layers,
so on a CPU the backward pass stops there. peft is imported only when a config is built.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class LoraSettings(BaseModel):
    """The ``lora:`` section of a training config."""

    model_config = ConfigDict(extra="forbid")

    r: int = Field(default=16, ge=1)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    target_modules: str | list[str] = "all-linear"


def linear_names(model: Any) -> list[str]:
    """Names of the linear projections inside a decoder layer (``q_proj``, ``up_proj`` ...)."""
    import torch

    layer = model.model.layers[0]
    return sorted({name.rsplit(".", 1)[-1] for name, module in layer.named_modules()
                   if isinstance(module, torch.nn.Linear)})


def top_layer_indices(model: Any, top: int | None) -> list[int] | None:
    """Indices of the top ``top`` decoder layers (None: all layers)."""
    if not top:
        return None
    count = int(model.config.num_hidden_layers)
    if top > count:
        raise ValueError(f"train_top_layers={top}, but the model has {count} decoder layers")
    return list(range(count - top, count))


def lora_config(model: Any, settings: LoraSettings, top_layers: int | None = None) -> Any:
    """A ``peft.LoraConfig`` for a causal LM: the settings, on the top ``top_layers`` layers if given."""
    from peft import LoraConfig

    layers = top_layer_indices(model, top_layers)
    targets = settings.target_modules
    if layers and targets == "all-linear":  # PEFT takes layers_to_transform with named modules only
        targets = linear_names(model)
    return LoraConfig(r=settings.r, lora_alpha=settings.alpha, lora_dropout=settings.dropout,
                      target_modules=targets, task_type="CAUSAL_LM", layers_to_transform=layers)
