"""Loads the symbolic reference planner as a planner backend.

The planner itself lives in ``symplan_core.planners.reference`` (another issue); it is imported
only when a ``reference`` spec is used. Contract: that module exposes
``make_planner_backend(options: Mapping[str, str]) -> PlannerBackend``; a deterministic
``PlannerPrompt -> str`` function can be wrapped with :class:`symplan_core.llm.base.FunctionBackend`.
The reference planner reads ``PlannerPrompt.task`` (the structured task), not the prompt text.
"""

from __future__ import annotations

import importlib

from symplan_core.llm.base import BackendUnavailableError, PlannerBackend
from symplan_core.llm.spec import ReferenceBackendConfig

REFERENCE_PLANNER_MODULE = "symplan_core.planners.reference"
REFERENCE_FACTORY_NAME = "make_planner_backend"


def load_reference_backend(config: ReferenceBackendConfig) -> PlannerBackend:
    try:
        module = importlib.import_module(REFERENCE_PLANNER_MODULE)
    except ModuleNotFoundError as exc:
        # Only a missing planner module means "not available"; a broken import inside it
        # (a missing dependency of the planner) must surface as itself.
        missing = exc.name or ""
        if not (REFERENCE_PLANNER_MODULE == missing or REFERENCE_PLANNER_MODULE.startswith(missing + ".")):
            raise
        raise BackendUnavailableError(
            f"the reference planner is not available: module {REFERENCE_PLANNER_MODULE} does not exist yet"
        ) from None
    factory = getattr(module, REFERENCE_FACTORY_NAME, None)
    if not callable(factory):
        raise BackendUnavailableError(
            f"{REFERENCE_PLANNER_MODULE} has no {REFERENCE_FACTORY_NAME}(options) factory"
        )
    backend = factory(dict(config.options))
    if not isinstance(backend, PlannerBackend):
        raise BackendUnavailableError(
            f"{REFERENCE_PLANNER_MODULE}.{REFERENCE_FACTORY_NAME} returned "
            f"{type(backend).__name__}, not a PlannerBackend"
        )
    return backend
