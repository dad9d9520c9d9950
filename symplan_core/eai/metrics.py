"""EAI's summary metrics of a set of plans, side by side with ours (SP, EP, GCR).

EAI's numbers follow its ``evaluate_results.evaluate_one_llm``: over the plans scored,

* task success rate: plans whose goal holds where EAI stops executing;
* execution success rate: plans that run to the end without a runtime or grammar error;
* grammar errors (parsing, hallucination, predicate_argument_number) and runtime errors
  (wrong_order, missing_step, affordance, additional_step): the share of plans with each;
* partial goal satisfaction: each goal conjunct counts as a relation goal, a state goal or
  half of each (it names both kinds of predicate); state_goal / relation_goal /
  total_goal are satisfied weight over total weight. EAI's ``action_goal`` is always 0.

Ours come from :func:`symplan_core.eval.metrics.group_metrics`, the same definitions as
``symplan eval``: SP, EP and mean GCR in percent.
"""

from __future__ import annotations

from collections.abc import Sequence

from symplan_core.eai.verify import EaiVerdict
from symplan_core.eval.metrics import group_metrics

_RUNTIME_KEYS = {"WRONG_TEMPORAL_ORDER": "wrong_order", "MISSING_STEP": "missing_step",
                 "AFFORDANCE": "affordance", "ADDITIONAL_STEP": "additional_step"}
_GRAMMAR_KEYS = {"parsing": "parsing", "hallucination": "hallucination", "arguments": "predicate_argument_number"}


def _rate(count: float, total: float) -> float:
    return round(count / total, 4) if total else 0.0


def eai_summary(verdicts: Sequence[EaiVerdict]) -> dict:
    n = len(verdicts)
    has = {key: sum(key in v.eai_errors for v in verdicts) for key in (*_GRAMMAR_KEYS, *_RUNTIME_KEYS)}
    weight = {"relation": 0.0, "state": 0.0}
    satisfied = {"relation": 0.0, "state": 0.0}
    for verdict in verdicts:
        for line in verdict.goal_lines:
            kinds = [k for k in ("relation", "state") if line[k]]
            for kind in kinds:
                weight[kind] += 1 / len(kinds)
                satisfied[kind] += line["satisfied"] / len(kinds)
    return {
        "goal_evaluation": {
            "task_success_rate": _rate(sum(v.goal_satisfied for v in verdicts), n),
            "state_goal": _rate(satisfied["state"], weight["state"]),
            "relation_goal": _rate(satisfied["relation"], weight["relation"]),
            "action_goal": 0,
            "total_goal": _rate(sum(satisfied.values()), sum(weight.values())),
        },
        "trajectory_evaluation": {
            "execution_success_rate": _rate(sum(v.executable for v in verdicts), n),
            "grammar_error": {name: _rate(has[key], n) for key, name in _GRAMMAR_KEYS.items()},
            "runtime_error": {name: _rate(has[key], n) for key, name in _RUNTIME_KEYS.items()},
        },
    }


def ours_summary(verdicts: Sequence[EaiVerdict], eai_goal: bool = False) -> dict:
    """SP / EP / GCR (percent) and the share of plans with any error, as ``symplan eval``."""
    records = []
    for v in verdicts:
        mine = v.ours_eai_goal if eai_goal else v.ours
        records.append({"episode": v.demo_id, "robot": "dual", "verdict": {
            **mine, "error_count": len(v.errors), "warning_count": len(v.warnings),
            "format_ok": not any(e["kind"] == "PARSE" for e in v.errors), "commands": v.steps}})
    full = group_metrics(records)
    return {key: full[key] for key in ("SP", "EP", "GCR", "Err")}


def summary(verdicts: Sequence[EaiVerdict]) -> dict:
    return {
        "plans": len(verdicts),
        "eai": eai_summary(verdicts),
        "ours": ours_summary(verdicts),
        "ours_eai_goal": ours_summary(verdicts, eai_goal=True),
        "navigates_inserted": sum(len(v.navigates) for v in verdicts),
    }
