"""Interoperability with the Embodied Agent Interface (EAI) BEHAVIOR benchmark (docs/eai.md).

EAI-format plans (two-handed actions on scene object names) are translated onto the
dual-arm embodiment and verified by the same engine as everything else; the verdict is
also given in EAI's terms, and whole outputs files get EAI's summary metrics next to ours.
This package sits at the evaluation level: only the CLI imports it.
"""

from symplan_core.eai.benchmark import evaluate_outputs, gold_verdicts
from symplan_core.eai.data import EaiDataError, demo_ids, resolve_demo
from symplan_core.eai.mapping import MappingError, NameMapping, mapping_for
from symplan_core.eai.outputs import EaiFormatError
from symplan_core.eai.verify import EaiVerdict, verify_entries, verify_text

__all__ = [
    "EaiDataError", "EaiFormatError", "EaiVerdict", "MappingError", "NameMapping", "demo_ids",
    "evaluate_outputs", "gold_verdicts", "mapping_for", "resolve_demo", "verify_entries", "verify_text",
]
