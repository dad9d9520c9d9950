"""DAPO on TRL's ``GRPOTrainer`` with the engine's rewards, group-level length shaping and dynamic sampling.

Imports torch and trl: import this module only where training runs (``training/rl.py``, tests).

Reward columns (TRL sums them with ``reward_weights``): ``format_reward`` and ``answer_reward``
are plain per-completion functions; ``length_reward`` and ``overlong_reward`` are placeholders
that return 0 per process and are filled in :meth:`SymPlanGRPOTrainer._calculate_rewards` *after*
TRL's ``gather`` across processes. Why there: TRL hands each reward function only its process's
slice of the batch, but R_len needs the batch SP rate (accuracy gate), each prompt group's SP rate
(GroupAdapt) and the per-task references, so it must see the whole batch; ``_calculate_rewards``
is the one method whose result already holds every process's rows (``gather(rewards_per_func)``)
and whose output is what TRL normalises per group. Every process computes the same values from
the same gathered data, so the length state stays identical on all of them.

Dynamic sampling (TRL has none): :meth:`_generate_and_score_completions` keeps the prompt groups
whose total reward varies, drops the others, and tops up with groups for prompts drawn from the
training set until the batch is full or ``max_regen_batches`` extra generation rounds are spent;
a batch still short then takes dropped groups (advantage 0: they add no gradient) and the
shortfall is logged. Requires whole groups per process: (per-device batch x steps per generation)
divisible by ``num_generations``.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import torch
from accelerate.utils import gather, gather_object
from transformers import TrainerCallback
from trl import GRPOTrainer
from typing_extensions import override

from symplan_core.training.batch import BatchRewarder, informative_groups, overlong_penalty
from symplan_core.training.length import LengthShaper
from symplan_core.training.rewards import SCORER, answer_reward, format_reward

_LEFT_PADDED = {"prompt_ids", "prompt_mask"}
_SUPPORTED = {"prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "advantages", "num_items_in_batch",
              "old_per_token_logps", "ref_per_token_logps", "sampling_per_token_logps"}


def length_reward(prompts: Sequence[Any] | None = None,  # noqa: ARG001 - TRL passes prompts by name
                  completions: Sequence[Any] = (), **_: Any) -> list[float]:
    """Placeholder column for R_len; SymPlanGRPOTrainer fills it after the gather."""
    return [0.0] * len(completions)


def overlong_reward(prompts: Sequence[Any] | None = None,  # noqa: ARG001 - TRL passes prompts by name
                    completions: Sequence[Any] = (), **_: Any) -> list[float]:
    """Placeholder column for DAPO's overlong shaping; SymPlanGRPOTrainer fills it after the gather."""
    return [0.0] * len(completions)


REWARD_FUNCS = (format_reward, answer_reward, length_reward, overlong_reward)


@runtime_checkable
class _Rows(Protocol):
    """A map-style dataset: rows by index (a ``datasets.Dataset``; not an iterable one)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Mapping[str, Any]: ...


class RewardStateCallback(TrainerCallback):
    """Saves the length state next to each checkpoint and restores it when training resumes."""

    def __init__(self, shaper: LengthShaper, resume_from: str | None = None):
        self.shaper, self.resume_from = shaper, resume_from
        self.restored = False

    @override
    def on_train_begin(self, args, state, control, **kwargs):
        if self.resume_from:
            self.restored = self.shaper.load(self.resume_from)
            if not self.restored:
                raise FileNotFoundError(f"{self.resume_from} has no reward state to resume from")

    @override
    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            self.shaper.save(Path(args.output_dir) / f"checkpoint-{state.global_step}")


class SymPlanGRPOTrainer(GRPOTrainer):
    def __init__(self, *args: Any, rewarder: BatchRewarder, dynamic_sampling: bool = True,
                 max_regen_batches: int = 50, reward_log: str | os.PathLike[str] | None = None, **kwargs: Any):
        kwargs.setdefault("reward_funcs", list(REWARD_FUNCS))
        super().__init__(*args, **kwargs)
        names = list(self.reward_func_names)
        if "length_reward" not in names or "overlong_reward" not in names:
            raise ValueError("reward_funcs must include length_reward and overlong_reward (filled after the gather)")
        self._len_col, self._overlong_col = names.index("length_reward"), names.index("overlong_reward")
        self.rewarder = rewarder
        self.dynamic_sampling, self.max_regen_batches = dynamic_sampling, max_regen_batches
        self.reward_log = Path(reward_log) if reward_log else None
        self._topup_rng = random.Random(self.args.seed * 1000 + self.accelerator.process_index)
        self._local_informative: list[bool] = []
        if self.num_generations is None:
            raise ValueError("GRPO scores whole groups: num_generations must be set")
        self._group_train: int = self.num_generations
        self._group_eval: int = self.num_generations_eval or self.num_generations

    @property
    def _training(self) -> bool:
        """The model is in training mode (the trainer holds its model from construction on)."""
        return self.model is not None and self.model.training

    # -- rewards: group-level logic after the gather -----------------------------
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        columns = {k: [row.get(k) for row in inputs] for k in ("bddl", "robot", "action_set", "id")}
        local = SCORER.batch(completions, columns["bddl"], columns["robot"], columns["action_set"], columns["id"])
        device = rewards_per_func.device
        facts = torch.tensor([[float(v.strict_pass), float(v.format_ok), float(len(ids))]
                              for v, ids in zip(local, completion_ids_list, strict=True)], device=device)
        facts = gather(facts)
        keys = gather_object([str(k) for k in columns["id"]])
        lengths = [int(x) for x in facts[:, 2].tolist()]
        group = self._group_train if self._training else self._group_eval
        shaped = self.rewarder.shaper.rewards(
            lengths, [bool(x) for x in facts[:, 0].tolist()], [bool(x) for x in facts[:, 1].tolist()], keys,
            [i // group for i in range(len(lengths))])
        rewards_per_func[:, self._len_col] = torch.tensor(shaped.rewards, dtype=torch.float32, device=device)
        overlong = [overlong_penalty(n, self.rewarder.max_length, self.rewarder.overlong_buffer,
                                     self.rewarder.overlong_factor) for n in lengths]
        rewards_per_func[:, self._overlong_col] = torch.tensor(overlong, dtype=torch.float32, device=device)

        total = (rewards_per_func * self.reward_weights.to(device).unsqueeze(0)).nansum(dim=1).tolist()
        flags = [g for g in informative_groups(total, group) for _ in range(group)]
        start = self.accelerator.process_index * len(prompts)
        self._local_informative = flags[start:start + len(prompts)]
        mode = "train" if self._training else "eval"
        stats = {**shaped.metrics(), "symplan/strict_pass": sum(facts[:, 0].tolist()) / len(lengths),
                 "symplan/format_ok": sum(facts[:, 1].tolist()) / len(lengths),
                 "symplan/informative_groups": sum(flags) / len(flags)}
        for name, value in stats.items():
            self._metrics[mode][name].append(value)
        if self.reward_log and self.accelerator.is_main_process:
            record = {"step": self.state.global_step, "mode": mode, **stats,
                      "budgets": sorted(shaped.group_budgets.values()), "mean_length": sum(lengths) / len(lengths),
                      "mean_total_reward": sum(total) / len(total)}
            with self.reward_log.open("a") as fh:
                fh.write(json.dumps(record) + "\n")
        return rewards_per_func

    # -- dynamic sampling -------------------------------------------------------
    def _generate_and_score_completions(self, inputs):
        if not (self.dynamic_sampling and self._training):
            return super()._generate_and_score_completions(inputs)
        group, target = self._group_train, len(inputs)
        if target % group:
            raise ValueError(f"dynamic sampling needs whole groups per process: {target} rows, groups of {group}")
        kept: list[dict] = []
        spare: list[dict] = []
        count, rounds, batch = 0, 0, inputs
        while True:
            out = super()._generate_and_score_completions(batch)
            informative = self._local_informative
            keep = [i for i, flag in enumerate(informative) if flag]
            drop = [i for i, flag in enumerate(informative) if not flag]
            kept.append(_take(out, keep))
            spare.append(_take(out, drop))
            count += len(keep)
            short = torch.tensor([max(target - count, 0)], device=self.accelerator.device)
            if gather(short).max().item() == 0 or rounds >= self.max_regen_batches:
                break
            rounds += 1
            batch = self._topup_rows(target // group)
        merged = _take(_concat([*kept, *spare], self._pad_id()), list(range(target)))
        loss_mask = merged["completion_mask"]
        merged["num_items_in_batch"] = self.accelerator.gather(loss_mask.sum()).sum()
        self._metrics["train"]["dynamic_sampling/regen_rounds"].append(float(rounds))
        self._metrics["train"]["dynamic_sampling/filled_uninformative_rows"].append(float(max(target - count, 0)))
        return merged

    def _topup_rows(self, groups: int) -> list[dict]:
        dataset = self.train_dataset
        if not isinstance(dataset, _Rows):
            raise ValueError("dynamic sampling draws top-up rows by index: the train dataset must be map-style")
        picks = [self._topup_rng.randrange(len(dataset)) for _ in range(groups)]
        return [dict(dataset[i]) for i in picks for _ in range(self._group_train)]

    def _pad_id(self) -> int:
        tokenizer = getattr(self.processing_class, "tokenizer", self.processing_class)
        pad, eos = getattr(tokenizer, "pad_token_id", None), getattr(tokenizer, "eos_token_id", None)
        token = pad if pad is not None else eos
        if token is None:
            raise ValueError("the processing class has neither a pad nor an end-of-sequence token id")
        return int(token)


def _take(out: dict, rows: list[int]) -> dict:
    unknown = set(out) - _SUPPORTED
    if unknown:
        raise NotImplementedError(f"dynamic sampling does not handle {sorted(unknown)} (multimodal or tools)")
    index = torch.tensor(rows, dtype=torch.long)
    return {k: (v if v is None or v.ndim == 0 else v[index.to(v.device)]) for k, v in out.items()}


def _concat(parts: list[dict], pad_id: int) -> dict:
    out: dict = {}
    for key in parts[0]:
        values = [p[key] for p in parts]
        if values[0] is None or values[0].ndim == 0:
            out[key] = values[0]
            continue
        if values[0].ndim == 1:
            out[key] = torch.cat(values)
            continue
        width = max(v.shape[1] for v in values)
        fill = pad_id if key in ("prompt_ids", "completion_ids") else 0
        padded = []
        for v in values:
            extra = torch.full((v.shape[0], width - v.shape[1]), fill, dtype=v.dtype, device=v.device)
            padded.append(torch.cat([extra, v] if key in _LEFT_PADDED else [v, extra], dim=1))
        out[key] = torch.cat(padded)
    return out
