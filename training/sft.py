"""Supervised fine-tuning of a planner on engine-verified samples (TRL ``SFTTrainer``).

One script for a CPU smoke run and a GPU run; only the YAML config differs:

    python training/sft.py --config training/configs/sft_smollm2_cpu.yaml
    accelerate launch --config_file training/configs/sft_accelerate_zero3.yaml \\
        training/sft.py --config training/configs/sft_qwen3_8b.yaml          # multi-GPU

The data are SFT rows from ``symplan data sft`` (prompt-completion chat format, see
``docs/data.md``). The tokenizer's chat template renders them exactly as the ``transformers``
backend renders prompts at evaluation time, and the loss covers the completion only. LoRA is
optional (``lora:``); ``train_top_layers`` freezes all but the top decoder layers (on CPU this
skips most of the backward pass). The final model (LoRA merged) and tokenizer are saved to
``OUTPUT_DIR/final``, a plain Hugging Face directory that ``symplan eval`` loads with
``--planner transformers:OUTPUT_DIR/final`` or ``vllm:OUTPUT_DIR/final``.

``--set key=value`` overrides a config entry (YAML syntax), e.g. ``--set max_steps=2``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from symplan_core.training.lora import LoraSettings, lora_config


class SFTRunConfig(BaseModel):
    """The YAML config (``training/configs/sft_*.yaml``)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="a transformers: target: registry name (smollm2), GGUF file or HF directory")
    train_file: str = Field(description="SFT rows (JSONL) from `symplan data sft`")
    output_dir: str
    eval_file: str | None = None
    max_length: int = Field(default=2048, ge=16)
    epochs: float = Field(default=1.0, gt=0)
    max_steps: int = Field(default=-1, description="> 0 overrides epochs")
    learning_rate: float = Field(default=2e-5, gt=0)
    lr_scheduler: str = "cosine"
    warmup_ratio: float = Field(default=0.0, ge=0.0, lt=1.0, description="share of steps for linear warmup")
    weight_decay: float = Field(default=0.0, ge=0.0)
    batch_size: int = Field(default=1, ge=1, description="per device")
    gradient_accumulation_steps: int = Field(default=1, ge=1)
    precision: Literal["float32", "bf16"] = Field(default="bf16", description="bf16: mixed precision (AMX on CPU)")
    gradient_checkpointing: bool = False
    train_top_layers: int | None = Field(default=None, ge=1, description="freeze all but the top N decoder layers")
    lora: LoraSettings | None = None
    device: Literal["auto", "cpu"] = "auto"
    threads: int | None = Field(default=None, ge=1, description="CPU threads (torch.set_num_threads)")
    seed: int = 0
    logging_steps: int = Field(default=5, ge=1)
    save_steps: int | None = Field(default=None, ge=1, description="intermediate checkpoints (resumable)")
    shuffle: bool = True
    deepspeed: str | None = Field(default=None, description="DeepSpeed JSON config (multi-GPU)")


def load_config(path: Path, overrides: list[str]) -> SFTRunConfig:
    data = yaml.safe_load(path.read_text()) or {}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set needs key=value, got {item!r}")
        data[key.strip()] = yaml.safe_load(value)
    return SFTRunConfig.model_validate(data)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _freeze_below(model: Any, top: int) -> int:
    """Train only the top ``top`` decoder layers and the final norm; returns the trainable count."""
    layers = model.model.layers
    keep = {id(p) for layer in layers[len(layers) - top:] for p in layer.parameters()}
    keep |= {id(p) for p in model.model.norm.parameters()}
    for param in model.parameters():
        param.requires_grad = id(param) in keep
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def train(config: SFTRunConfig) -> dict[str, Any]:
    import torch
    from datasets import load_dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from symplan_core.llm.transformers_backend import hf_model_directory

    if config.threads:
        torch.set_num_threads(config.threads)
    use_cpu = config.device == "cpu" or not torch.cuda.is_available()
    base = hf_model_directory(config.model.removeprefix("transformers:"))
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(f"{base} has no chat template: the samples are chat conversations")
    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True, dtype=torch.float32 if use_cpu
                                                 or config.precision == "float32" else torch.bfloat16)
    peft_config = None
    if config.lora is not None:
        peft_config = lora_config(model, config.lora, config.train_top_layers)
    elif config.train_top_layers:
        _freeze_below(model, config.train_top_layers)
    files = {"train": config.train_file, **({"eval": config.eval_file} if config.eval_file else {})}
    data = load_dataset("json", data_files=files)
    keep = ["prompt", "completion"]
    data = data.remove_columns([c for c in data["train"].column_names if c not in keep])
    args = SFTConfig(
        output_dir=config.output_dir, num_train_epochs=config.epochs, max_steps=config.max_steps,
        learning_rate=config.learning_rate, lr_scheduler_type=config.lr_scheduler, warmup_steps=config.warmup_ratio,
        weight_decay=config.weight_decay, per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps, max_length=config.max_length,
        completion_only_loss=True, bf16=config.precision == "bf16", fp16=False,
        gradient_checkpointing=config.gradient_checkpointing, use_cpu=use_cpu, seed=config.seed,
        logging_steps=config.logging_steps, save_strategy="steps" if config.save_steps else "no",
        save_steps=config.save_steps or 500, report_to=[], shuffle_dataset=config.shuffle,
        deepspeed=config.deepspeed, dataloader_num_workers=0, disable_tqdm=False,
    )
    trainer = SFTTrainer(model=model, args=args, train_dataset=data["train"], eval_dataset=data.get("eval"),
                         processing_class=tokenizer, peft_config=peft_config)
    trained: Any = trainer.model  # a PEFT wrapper under LoRA: its methods are not in transformers' types
    trainable = sum(int(p.numel()) for p in trained.parameters() if p.requires_grad)
    started = time.perf_counter()
    resume = config.save_steps is not None and any(Path(config.output_dir).glob("checkpoint-*"))
    result = trainer.train(resume_from_checkpoint=True if resume else None)
    seconds = time.perf_counter() - started
    final = Path(config.output_dir) / "final"
    if peft_config is not None and trainer.accelerator.num_processes == 1:
        merged = trained.merge_and_unload()
        merged.save_pretrained(final)
    else:
        trainer.save_model(str(final))  # gathers sharded (DeepSpeed/FSDP) weights; LoRA: the adapter
    if trainer.accelerator.is_main_process:
        tokenizer.save_pretrained(final)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    report = {
        "model": config.model, "base_directory": str(base), "final": str(final),
        "train_file": config.train_file, "train_sha256": _sha256(Path(config.train_file)),
        "train_rows": len(data["train"]), "steps": trainer.state.global_step, "epochs": trainer.state.epoch,
        "train_seconds": round(seconds, 1), "train_loss": result.training_loss,
        "first_logged_loss": losses[0] if losses else None, "last_logged_loss": losses[-1] if losses else None,
        "trainable_parameters": trainable, "device": "cpu" if use_cpu else "cuda",
        "processes": trainer.accelerator.num_processes, "config": config.model_dump(mode="json"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
    }
    if trainer.accelerator.is_main_process:
        (final / "symplan-sft.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def merge_adapter(config: SFTRunConfig, adapter: Path) -> Path:
    """Fold a saved LoRA adapter into the base model; writes ``OUTPUT_DIR/final`` (one process)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from symplan_core.llm.transformers_backend import hf_model_directory

    base = hf_model_directory(config.model.removeprefix("transformers:"))
    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True, dtype="auto")
    merged = PeftModel.from_pretrained(model, adapter).merge_and_unload()
    tokenizer = AutoTokenizer.from_pretrained(adapter if (adapter / "tokenizer_config.json").is_file() else base,
                                              local_files_only=True)
    final = Path(config.output_dir) / "final"
    merged.save_pretrained(final)
    tokenizer.save_pretrained(final)
    for leftover in ("adapter_config.json", "adapter_model.safetensors", "adapter_model.bin"):
        (final / leftover).unlink(missing_ok=True)  # else loaders would take final/ for an adapter again
    return final


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True, help="YAML config (training/configs/sft_*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config entry")
    parser.add_argument("--merge-adapter", type=Path, metavar="DIR",
                        help="only merge a LoRA adapter saved by a multi-process run into OUTPUT_DIR/final")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded at run time
    try:
        config = load_config(args.config, args.set)
    except (OSError, ValueError, ValidationError, yaml.YAMLError) as exc:
        print(f"error: bad config {args.config}: {exc}", file=sys.stderr)
        return 2
    if args.merge_adapter is not None:
        try:
            print(merge_adapter(config, args.merge_adapter))
        except (OSError, ValueError) as exc:
            print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        return 0
    for path in filter(None, (config.train_file, config.eval_file)):
        if not Path(path).is_file():
            print(f"error: no data file {path} (make it with `symplan data sft`)", file=sys.stderr)
            return 2
    try:
        report = train(config)
    except (OSError, ValueError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({k: report[k] for k in ("final", "steps", "train_seconds", "train_loss",
                                             "first_logged_loss", "last_logged_loss")}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
