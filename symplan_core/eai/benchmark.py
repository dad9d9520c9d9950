"""Score whole sets of EAI plans: an outputs file, or EAI's 100 human gold plans."""

from __future__ import annotations

from symplan_core.eai.data import EaiDataError, demo_ids, gold_plan, resolve_demo
from symplan_core.eai.metrics import summary
from symplan_core.eai.outputs import read_outputs
from symplan_core.eai.verify import EaiVerdict, verify_entries, verify_text, verify_unreadable


def gold_verdicts(auto_navigate: bool = False, rules: str = "physics") -> list[EaiVerdict]:
    """The verdict of each human gold plan (``human_annotations``), by demo id."""
    return [verify_entries(demo_id, gold_plan(demo_id), auto_navigate, rules) for demo_id in demo_ids()]


def evaluate_outputs(text: str, auto_navigate: bool = False, rules: str = "physics") -> dict:
    """An EAI outputs file -> EAI's summary metrics, ours, and every plan's verdict.

    Entries that cannot be scored (no identifier, an unknown demo, a repeated demo) are
    listed under ``invalid_entries`` with the reason; an entry without a response text is
    scored as a plan with a parsing error, as EAI does. Raises ``EaiFormatError`` when
    the file itself is not a JSON list.
    """
    verdicts: list[EaiVerdict] = []
    invalid: list[dict] = []
    for entry in read_outputs(text):
        if not entry.scorable or entry.demo_id is None:  # no identifier (or a repeat): nothing to score against
            invalid.append({"entry": entry.position, "identifier": entry.demo_id, "reason": entry.problem})
            continue
        try:
            demo_id = resolve_demo(entry.demo_id).demo_id
        except EaiDataError as exc:
            invalid.append({"entry": entry.position, "identifier": entry.demo_id, "reason": str(exc)})
            continue
        if entry.problem or entry.response is None:
            verdicts.append(verify_unreadable(demo_id, entry.problem or "no response", auto_navigate, rules))
        elif isinstance(entry.response, list):
            verdicts.append(verify_entries(demo_id, entry.response, auto_navigate, rules))
        else:
            verdicts.append(verify_text(demo_id, entry.response, auto_navigate, rules))
    scored = {v.demo_id for v in verdicts}
    out = summary(verdicts)
    out["rules"] = rules
    out["invalid_entries"] = invalid
    out["demos_without_output"] = len([d for d in demo_ids() if d not in scored])
    out["results"] = [v.to_json() for v in verdicts]
    return out
