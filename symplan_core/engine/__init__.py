"""The symbolic verification engine: one implementation for runtime, eval, data and rewards."""

from symplan_core.engine.actions import ACTION_SETS, ActionSpec, action_set
from symplan_core.engine.errors import EngineError, ErrorKind, Finding
from symplan_core.engine.plan_text import Call, ParsedPlan, check_format, parse_plan
from symplan_core.engine.state import State
from symplan_core.engine.verify import CompiledTask, StepOutcome, VerifyResult, compile_task, verify

__all__ = [
    "ACTION_SETS", "ActionSpec", "Call", "CompiledTask", "EngineError", "ErrorKind", "Finding", "ParsedPlan",
    "State", "StepOutcome", "VerifyResult", "action_set", "check_format", "compile_task", "parse_plan",
    "verify",
]
