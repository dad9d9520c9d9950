"""Scoring one response and summarising sample records into the paper's metrics.

A *sample record* is one JSON object per sampled response (see ``docs/eval.md``). Metrics:

* SP% (Strict-Pass), EP% (Engine-Pass), GCR% (mean Goal Completion Rate): over **all**
  samples; a sample whose backend failed scores 0 on each.
* Err%: share of **valid** samples (the backend returned a response) with any engine error.
* mean response tokens: over samples whose backend reported a completion token count.
* mean commands: over valid samples (code lines, malformed ones included).
* with n > 1 samples per episode: unbiased pass@k of Strict-Pass for k in {1,2,3,5,10}, k <= n,
  and the always/sometimes/never-pass buckets.
* with repair: SP after r rounds (r = 0..k) and SP with the reference fallback.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from symplan_core.engine.verify import CompiledTask, VerifyResult, verify
from symplan_core.eval.passk import DEFAULT_KS, SampleCounts, consistency_buckets, pass_at_k_table
from symplan_core.runtime.repair import verdict_of

Record = dict[str, Any]


def score(task: CompiledTask, response: str) -> tuple[VerifyResult, dict[str, Any], list[dict]]:
    """Verify a response: the engine result, its verdict dict and its errors as JSON."""
    result = verify(task, response)
    return result, verdict_of(result), [e.to_json() for e in result.errors]


def failed_verdict() -> dict[str, Any]:
    """Verdict of a sample without a response (backend failure or an uncompilable task)."""
    return {"strict_pass": False, "engine_pass": False, "gcr": 0.0, "format_ok": False,
            "commands": 0, "error_count": 0, "warning_count": 0}


def _pct(values: Sequence[bool | float]) -> float | None:
    return round(100.0 * sum(values) / len(values), 2) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in [0, 100])."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return float(ordered[int(rank) - 1])


def is_valid(record: Record) -> bool:
    return record.get("backend_error") is None


def group_metrics(records: Sequence[Record], ks: Iterable[int] = DEFAULT_KS, repair_rounds: int = 0) -> dict[str, Any]:
    verdicts = [r["verdict"] for r in records]
    valid = [r for r in records if is_valid(r)]
    commands = [r["verdict"]["commands"] for r in valid]
    tokens = [r["completion_tokens"] for r in records if r.get("completion_tokens") is not None]
    episodes: dict[str, list[Record]] = {}
    for record in records:
        episodes.setdefault(record["episode"], []).append(record)
    out: dict[str, Any] = {
        "episodes": len(episodes), "samples": len(records), "valid_samples": len(valid),
        "backend_errors": len(records) - len(valid),
        "SP": _pct([v["strict_pass"] for v in verdicts]),
        "EP": _pct([v["engine_pass"] for v in verdicts]),
        "GCR": _pct([v["gcr"] for v in verdicts]),
        "Err": _pct([r["verdict"]["error_count"] > 0 for r in valid]),
        "format_ok": _pct([r["verdict"]["format_ok"] for r in valid]),
        "mean_response_tokens": _mean(tokens),
        "mean_commands": _mean(commands),
        "median_commands": percentile(commands, 50),
        "p90_commands": percentile(commands, 90),
    }
    counts = [SampleCounts(len(rs), sum(r["verdict"]["strict_pass"] for r in rs)) for rs in episodes.values()]
    if counts and min(c.samples for c in counts) > 1:
        out["pass_at_k"] = {str(k): round(100.0 * v, 2) for k, v in pass_at_k_table(counts, ks).items()}
        buckets = consistency_buckets(counts)
        out["consistency"] = {"always": buckets.always, "sometimes": buckets.sometimes, "never": buckets.never}
    repaired = [r["repair"] for r in records if r.get("repair")]
    if repaired or repair_rounds:
        rounds = max([repair_rounds, *(len(rep["strict_pass_at_round"]) - 1 for rep in repaired)])
        out["SP_after_round"] = {
            str(k): _pct([_passed_by(r, k) for r in records]) for k in range(rounds + 1)
        }
        out["SP_with_fallback"] = _pct([bool(r.get("repair", {}).get("fallback_strict_pass"))
                                        or _passed_by(r, rounds) for r in records])
    return out


def _passed_by(record: Record, round_index: int) -> bool:
    repair = record.get("repair")
    if not repair:
        return bool(record["verdict"]["strict_pass"])
    history = repair["strict_pass_at_round"]
    return any(history[: round_index + 1])


def summarize(records: Sequence[Record], ks: Iterable[int] = DEFAULT_KS, repair_rounds: int = 0) -> dict[str, Any]:
    """Overall metrics plus the per-embodiment breakdown."""
    ks = tuple(ks)
    summary = group_metrics(records, ks, repair_rounds)
    robots = sorted({r["robot"] for r in records})
    summary["by_robot"] = {robot: group_metrics([r for r in records if r["robot"] == robot], ks, repair_rounds)
                           for robot in robots}
    return summary
