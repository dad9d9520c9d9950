"""Error kinds of plan verification (after the Embodied Agent Interface taxonomy)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum


class ErrorKind(str, Enum):
    PARSE = "PARSE"  # a line that is not `action(arg, ...)`
    UNKNOWN_ACTION = "UNKNOWN_ACTION"  # not in the task's action set
    UNKNOWN_OBJECT = "UNKNOWN_OBJECT"  # hallucinated object name
    ARITY = "ARITY"  # wrong number of arguments
    AFFORDANCE = "AFFORDANCE"  # object cannot take part in the action (e.g. grasp a fixture)
    MISSING_STEP = "MISSING_STEP"  # a precondition literal does not hold
    WRONG_TEMPORAL_ORDER = "WRONG_TEMPORAL_ORDER"  # it held earlier in the plan, not now
    ADDITIONAL_STEP = "ADDITIONAL_STEP"  # redundant action (warning only)
    UNWANTED_EFFECT = "UNWANTED_EFFECT"  # an irreversible change (sliced, broken, burnt, on fire) the goal does not ask for
    UNKNOWN_AFFORDANCE = "UNKNOWN_AFFORDANCE"  # diagnostic: an object's abilities are in no table, so assumed
    ASSUMED_STATE = "ASSUMED_STATE"  # diagnostic: a call relied on a state the task does not state (unstated open)


#: Malformed calls are recorded and skipped; the others are recorded and their effects apply.
SKIPPED_KINDS = frozenset({ErrorKind.PARSE, ErrorKind.UNKNOWN_ACTION, ErrorKind.UNKNOWN_OBJECT,
                           ErrorKind.ARITY, ErrorKind.AFFORDANCE})


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of the engine at one step: an error, a warning or a diagnostic of a plan (data,
    not an exception; the engine's exceptions are in ``symplan_core.errors``). ``step`` is 0-based
    over code lines; ``precondition`` names the failed literal for MISSING_STEP / WRONG_TEMPORAL_ORDER."""

    step: int
    call: str
    kind: ErrorKind
    message: str
    hint: str
    precondition: str = ""

    @property
    def step_number(self) -> int:
        """The step as people count plan lines (1-based); ``step`` is the 0-based index."""
        return self.step + 1

    def line(self) -> str:
        """The one text form of a finding, used by prompts, the CLI and the ROS runtime:
        ``step N `call`: KIND: message (hint: ...)``."""
        text = f"step {self.step_number} `{self.call}`: {self.kind.value}: {self.message}"
        return text + (f" (hint: {self.hint})" if self.hint else "")

    def to_json(self) -> dict:
        data = asdict(self)
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_json(cls, data: dict) -> Finding:
        return cls(**{**data, "kind": ErrorKind(data["kind"])})


#: The finding's former name (it is no exception); kept while callers move to :class:`Finding`.
EngineError = Finding
