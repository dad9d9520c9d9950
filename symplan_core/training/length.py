"""Correctness-gated length reward (Short-RL) and its group-adaptive tolerance (GroupAdapt).

The stateful parts are explicit objects with a JSON state, saved next to every checkpoint and
restored on resume:

* :class:`AccuracyGate`: the running best batch Strict-Pass rate ``a*``; the gate is open when the
  batch rate ``a_b >= a* - eps_acc``;
* :class:`LengthReferences`: per-task ``(l_min, l_max)`` over strict-pass responses only;
* :class:`LengthShaper`: both, plus the budget schedule, turning one *whole* batch (every group
  of every process) into ``R_len`` values.

``R_len`` is 0 unless the gate is open and the response is a well-formed strict pass; then it is
0.5 within ``l_min + delta_t`` tokens and ``0.5 - (l - l_min) / (l_max - l_min + eps)`` beyond.
``delta_t`` is 200 for every prompt (Short-RL), or 200 when the group's SP rate ``rho_t >= tau``
and 400 otherwise (GroupAdapt). References are updated with the batch *before* its rewards are
computed, so ``l <= l_max`` and ``R_len`` lies in ``(-0.5, 0.5]``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

LengthMode = Literal["none", "short_rl", "group_adapt"]
_LENGTH_MODES: dict[str, LengthMode] = {"none": "none", "short_rl": "short_rl", "group_adapt": "group_adapt"}
STATE_FILE = "symplan_reward_state.json"
_STATE_VERSION = 1


def length_mode(text: str) -> LengthMode:
    """``text`` as a length mode (from an environment variable or a flag); ValueError otherwise."""
    mode = _LENGTH_MODES.get(text)
    if mode is None:
        raise ValueError(f"length mode must be none, short_rl or group_adapt, not {text!r}")
    return mode


@dataclass(frozen=True)
class LengthConfig:
    """The length term's settings (paper defaults; eps_acc and eps are ours, see docs/rl.md)."""

    mode: LengthMode = "group_adapt"
    delta_base: int = 200  # easy budget (tokens); the hard budget is twice this
    tau: float = 0.5  # GroupAdapt: a group is easy when its SP rate >= tau
    eps_acc: float = 0.05  # accuracy-gate tolerance below the running best batch SP rate
    eps: float = 1.0  # tokens added to l_max - l_min so the decay never divides by zero
    value: float = 0.5  # R_len inside the budget

    def __post_init__(self) -> None:
        length_mode(self.mode)
        if self.delta_base < 0 or self.eps <= 0 or not 0.0 <= self.tau <= 1.0 or self.eps_acc < 0:
            raise ValueError("need delta_base >= 0, eps > 0, 0 <= tau <= 1 and eps_acc >= 0")

    def budget(self, group_sp_rate: float) -> int:
        """delta_t for a group with this strict-pass rate."""
        if self.mode == "group_adapt" and group_sp_rate < self.tau:
            return 2 * self.delta_base
        return self.delta_base


@dataclass
class AccuracyGate:
    eps_acc: float
    best: float | None = None  # a*: the running best batch SP rate

    def update(self, batch_sp_rate: float) -> bool:
        """Record a batch's SP rate; True when the length reward may apply to it."""
        self.best = batch_sp_rate if self.best is None else max(self.best, batch_sp_rate)
        return batch_sp_rate >= self.best - self.eps_acc


@dataclass
class LengthReferences:
    """Shortest and longest strict-pass response length seen per task."""

    table: dict[str, list[int]] = field(default_factory=dict)

    def update(self, key: str, length: int) -> None:
        ref = self.table.get(key)
        if ref is None:
            self.table[key] = [length, length]
        else:
            ref[0], ref[1] = min(ref[0], length), max(ref[1], length)

    def get(self, key: str) -> tuple[int, int] | None:
        ref = self.table.get(key)
        return (ref[0], ref[1]) if ref else None


@dataclass
class LengthBatch:
    """One batch's length rewards and what produced them (logged by the trainers)."""

    rewards: list[float]
    gate_open: bool
    batch_sp_rate: float
    best_sp_rate: float
    group_sp_rates: dict[Hashable, float]
    group_budgets: dict[Hashable, int]
    hard_groups: int = 0  # groups given the wider (GroupAdapt hard) budget

    def metrics(self) -> dict[str, float]:
        budgets = list(self.group_budgets.values())
        return {
            "length/gate_open": float(self.gate_open), "length/batch_sp_rate": self.batch_sp_rate,
            "length/best_sp_rate": self.best_sp_rate,
            "length/mean_budget": sum(budgets) / len(budgets) if budgets else 0.0,
            "length/hard_groups": float(self.hard_groups),
            "length/mean_reward": sum(self.rewards) / len(self.rewards) if self.rewards else 0.0,
        }


class LengthShaper:
    """The stateful length reward of one training run."""

    def __init__(self, config: LengthConfig | None = None):
        self.config = config or LengthConfig()
        self.gate = AccuracyGate(self.config.eps_acc)
        self.references = LengthReferences()
        self.batches = 0

    def rewards(self, lengths: Sequence[int], strict_pass: Sequence[bool], well_formed: Sequence[bool],
                task_keys: Sequence[str], group_ids: Sequence[Hashable]) -> LengthBatch:
        """R_len for a whole batch (all groups, after any gather across processes)."""
        n = len(lengths)
        if not n == len(strict_pass) == len(well_formed) == len(task_keys) == len(group_ids):
            raise ValueError("lengths, strict_pass, well_formed, task_keys and group_ids differ in length")
        self.batches += 1
        rate = sum(map(bool, strict_pass)) / n if n else 0.0
        gate_open = self.gate.update(rate)
        for length, sp, key in zip(lengths, strict_pass, task_keys, strict=True):
            if sp:
                self.references.update(key, int(length))
        members: dict[Hashable, list[bool]] = {}
        for gid, sp in zip(group_ids, strict_pass, strict=True):
            members.setdefault(gid, []).append(bool(sp))
        rates = {gid: sum(v) / len(v) for gid, v in members.items()}
        budgets = {gid: self.config.budget(r) for gid, r in rates.items()}
        out = []
        for length, sp, ok, key, gid in zip(lengths, strict_pass, well_formed, task_keys, group_ids, strict=True):
            if self.config.mode == "none" or not (gate_open and sp and ok):
                out.append(0.0)
                continue
            out.append(self.value(int(length), key, budgets[gid]))
        hard = sum(b > self.config.delta_base for b in budgets.values())
        return LengthBatch(out, gate_open, rate, self.gate.best or 0.0, rates, budgets, hard)

    def value(self, length: int, key: str, budget: int) -> float:
        """R_len of one strict-pass response of ``length`` tokens under ``budget``."""
        ref = self.references.get(key)
        if ref is None:
            return self.config.value  # no reference yet: the response becomes it (l = l_min)
        low, high = ref
        if length <= low + budget:
            return self.config.value
        return self.config.value - (length - low) / (high - low + self.config.eps)

    # -- state ------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"version": _STATE_VERSION, "config": self.config.__dict__, "best_sp_rate": self.gate.best,
                "batches": self.batches, "references": self.references.table}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("version") != _STATE_VERSION:
            raise ValueError(f"reward state version {state.get('version')!r} is not {_STATE_VERSION}")
        self.gate.best = state["best_sp_rate"]
        self.batches = int(state["batches"])
        self.references.table = {str(k): [int(v[0]), int(v[1])] for k, v in state["references"].items()}

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write the state as ``symplan_reward_state.json`` in ``directory`` (atomically)."""
        path = Path(directory) / STATE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(path.name + ".partial")
        scratch.write_text(json.dumps(self.state_dict(), indent=1, sort_keys=True))
        scratch.replace(path)
        return path

    def load(self, directory: str | os.PathLike[str]) -> bool:
        """Restore the state saved in ``directory``; False when there is none."""
        path = Path(directory) / STATE_FILE
        if not path.is_file():
            return False
        try:
            self.load_state_dict(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"{path}: not a reward state ({exc})") from None
        return True
