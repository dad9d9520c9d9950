"""Symbolic-reward DAPO (+ Short-RL / GroupAdapt) on TRL: the workstation path (docs/rl.md).

    python training/rl.py --config training/configs/rl_smoke.yaml [--set grpo.max_steps=4 ...]
                          [--train-file rows.jsonl] [--out DIR] [--resume [CHECKPOINT]]

Reads planner sample rows (JSONL, ``docs/data.md``: ``prompt`` chat messages, ``bddl``,
``robot``, ``action_set``, ``id``), checks that every row's BDDL compiles, loads the model the way
the ``transformers`` planner backend does (a registry name such as ``smollm2``, a GGUF file or a
model directory; nothing is downloaded), and trains with :class:`SymPlanGRPOTrainer`. Writes
``OUT/checkpoint-N/`` (model, optimizer, trainer state and ``symplan_reward_state.json``),
``OUT/reward_log.jsonl`` (per batch: SP rate, gate, GroupAdapt budgets, rewards) and
``OUT/summary.json``. ``--resume`` continues from the newest checkpoint in OUT (or the one given),
reward state included.

LoRA (``lora:``, optional ``train_top_layers``: the same keys as ``training/sft.py``): TRL wraps the
policy in a peft adapter; only the adapter trains (checkpoints hold the adapter and its optimizer
state), and ``OUT/final`` gets the merged weights, a plain model directory like the full run's. The
reference policy for a KL term (``grpo.beta`` > 0) is then the same network with the adapter
disabled, i.e. the frozen starting model: TRL loads no second copy.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from symplan_core.training.lora import LoraSettings, lora_config

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

#: Columns the trainer keeps (the rest of a sample row is not needed by the rewards).
ROW_COLUMNS = ("id", "prompt", "task", "benchmark", "robot", "action_set", "bddl")


class LengthSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["none", "short_rl", "group_adapt"] = "group_adapt"
    delta_base: int = 200
    tau: float = 0.5
    eps_acc: float = 0.05
    eps: float = 1.0


class SamplingSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enable: bool = True
    max_regen_batches: int = Field(50, ge=0)


class OverlongSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    buffer: int | None = Field(None, description="tokens; null = the paper's 1048/8192 scaled to max length")
    factor: float = 1.0


class RLConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = "smollm2"
    train_file: str
    output_dir: str
    threads: int | None = None
    max_prompt_tokens: int | None = Field(None, ge=1, description="drop rows with longer prompts (paper: 6144)")
    lora: LoraSettings | None = Field(None, description="train a LoRA adapter instead of every weight")
    train_top_layers: int | None = Field(None, ge=1, description="with lora: adapters on the top N decoder layers")
    length: LengthSection = LengthSection()
    dynamic_sampling: SamplingSection = SamplingSection()
    overlong: OverlongSection = OverlongSection()
    grpo: dict[str, Any] = Field(default_factory=dict, description="GRPOConfig keyword arguments")

    @model_validator(mode="after")
    def _top_layers_need_lora(self) -> RLConfig:
        if self.train_top_layers is not None and self.lora is None:
            raise ValueError("train_top_layers needs a lora section (it places the adapters)")
        return self


class ConfigError(ValueError):
    """A configuration or data problem, reported as one line."""


def load_config(path: str, overrides: list[str]) -> RLConfig:
    try:
        raw = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set wants key=value, got {item!r}")
        node = raw
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = yaml.safe_load(value)
    try:
        return RLConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "config"
        raise ConfigError(f"{path}: {where}: {first['msg']}") from None


def load_rows(path: str) -> list[dict[str, Any]]:
    """Prompt rows for RL, each BDDL compiled once up front (a bad row fails here, not mid-run)."""
    from symplan_core.data.samples import SampleFileError, iter_rows
    from symplan_core.training.rewards import SCORER, RewardDataError

    try:
        rows = [row.to_json() for row in iter_rows(Path(path))]
    except SampleFileError as exc:
        raise ConfigError(str(exc)) from None
    if not rows:
        raise ConfigError(f"{path} holds no rows")
    try:
        for row in rows:
            SCORER.task(row["bddl"], row["robot"], row["action_set"], row["id"])
    except RewardDataError as exc:
        raise ConfigError(str(exc)) from None
    return [{k: row[k] for k in ROW_COLUMNS} for row in rows]


def load_model(spec: str):
    """Tokenizer and float32 model from the same directory the ``transformers`` backend uses."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from symplan_core.llm.transformers_backend import ModelNotFoundError, hf_model_directory

    try:
        directory = hf_model_directory(spec)
    except ModelNotFoundError as exc:
        raise ConfigError(str(exc)) from None
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype="float32", local_files_only=True)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model


def drop_long_prompts(rows: list[dict[str, Any]], tokenizer, limit: int | None) -> list[dict[str, Any]]:
    """Rows whose chat-templated prompt fits ``limit`` tokens (TRL 1.16 has no max prompt length)."""
    if limit is None:
        return rows
    kept = [row for row in rows if len(tokenizer.apply_chat_template(
        row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]) <= limit]
    if not kept:
        raise ConfigError(f"every prompt is longer than max_prompt_tokens={limit}")
    if len(kept) < len(rows):
        print(f"dropped {len(rows) - len(kept)} of {len(rows)} rows with prompts over {limit} tokens", file=sys.stderr)
    return kept


def latest_checkpoint(out: Path) -> Path | None:
    found = sorted((p for p in out.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()),
                   key=lambda p: int(p.name.split("-")[-1]))
    return found[-1] if found else None


def run(config: RLConfig, resume: str | None = None) -> dict[str, Any]:
    import torch
    from datasets import Dataset
    from trl import GRPOConfig

    from symplan_core.training.batch import BatchRewarder, scaled_overlong_buffer
    from symplan_core.training.grpo import REWARD_FUNCS, RewardStateCallback, SymPlanGRPOTrainer
    from symplan_core.training.length import LengthConfig

    if config.threads:
        torch.set_num_threads(config.threads)
    out = Path(config.output_dir)
    rows = load_rows(config.train_file)
    tokenizer, model = load_model(config.model)
    rows = drop_long_prompts(rows, tokenizer, config.max_prompt_tokens)
    try:
        grpo_args = GRPOConfig(output_dir=str(out), **config.grpo)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"grpo: {exc}") from None
    max_length = grpo_args.max_completion_length
    if max_length is None:
        raise ConfigError("grpo: max_completion_length must be set (the length reward is scaled to it)")
    rewarder = BatchRewarder(
        LengthConfig(**config.length.model_dump()), max_length=max_length,
        overlong_buffer=config.overlong.buffer or scaled_overlong_buffer(max_length),
        overlong_factor=config.overlong.factor)
    checkpoint = None
    if resume is not None:
        checkpoint = Path(resume) if resume else latest_checkpoint(out)
        if checkpoint is None or not checkpoint.is_dir():
            raise ConfigError(f"no checkpoint to resume from in {out}")
    callback = RewardStateCallback(rewarder.shaper, str(checkpoint) if checkpoint else None)
    try:
        peft_config = lora_config(model, config.lora, config.train_top_layers) if config.lora else None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    trainer = SymPlanGRPOTrainer(
        model=model, processing_class=tokenizer, args=grpo_args, train_dataset=Dataset.from_list(rows),
        reward_funcs=list(REWARD_FUNCS), callbacks=[callback], rewarder=rewarder,
        dynamic_sampling=config.dynamic_sampling.enable,
        max_regen_batches=config.dynamic_sampling.max_regen_batches, reward_log=out / "reward_log.jsonl",
        peft_config=peft_config)
    policy: Any = trainer.model  # the PeftModel with LoRA
    trainable = sum(p.numel() for p in policy.parameters() if p.requires_grad)
    started = time.perf_counter()
    result = trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = out / "final"
    if peft_config is not None and trainer.accelerator.num_processes == 1:
        policy.merge_and_unload().save_pretrained(final)  # a plain model directory, as without LoRA
        tokenizer.save_pretrained(final)
    else:
        trainer.save_model(str(final))  # several processes with LoRA: the adapter (merge: training/sft.py)
    rewarder.shaper.save(final)
    summary = {"global_step": trainer.state.global_step, "train_seconds": round(time.perf_counter() - started, 1),
               "trainable_parameters": trainable, "lora": peft_config is not None,
               "resumed_from": str(checkpoint) if checkpoint else None, "reward_state_restored": callback.restored,
               "train_loss": result.training_loss, "reward_state": rewarder.shaper.state_dict(),
               "log_history": trainer.state.log_history}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    return summary


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="training/rl.py", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="YAML file (training/configs/rl_*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. grpo.max_steps=4 or length.mode=short_rl")
    parser.add_argument("--train-file", help="sample rows (JSONL); overrides train_file")
    parser.add_argument("--out", help="output directory; overrides output_dir")
    parser.add_argument("--resume", nargs="?", const="", default=None,
                        help="resume from the newest checkpoint in the output directory (or this one)")
    args = parser.parse_args(argv)
    overrides = list(args.set)
    if args.train_file:
        overrides.append(f"train_file={args.train_file}")
    if args.out:
        overrides.append(f"output_dir={args.out}")
    try:
        summary = run(load_config(args.config, overrides), args.resume)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary[k] for k in ("global_step", "train_seconds", "resumed_from", "train_loss")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
