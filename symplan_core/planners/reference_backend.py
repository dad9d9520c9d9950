"""Every planner backend a spec names, the symbolic reference planner included.

``make_planner_backend(spec)`` is the one factory runtime, evaluation and tools use: the LLM
backends come from :func:`symplan_core.llm.make_backend`; ``reference`` is built here, next to
the planner it wraps (the ``llm`` layer sits below the planners and cannot import them). The
reference planner reads the structured task in :attr:`PlannerPrompt.task`, never the prompt text.
"""

from __future__ import annotations

from collections.abc import Mapping

from symplan_core.engine.verify import CompiledTask
from symplan_core.llm import (
    BackendConfig,
    BackendSpecError,
    FunctionBackend,
    PlannerBackend,
    PlannerPrompt,
    ReferenceBackendConfig,
    make_backend,
    parse_backend_spec,
)
from symplan_core.planners.reference import plan_task


def reference_response(task: CompiledTask, time_budget: float = 5.0) -> str:
    """The reference planner's response; an empty plan (with the reason) when it fails."""
    result = plan_task(task, time_budget=time_budget)
    if result.response:
        return result.response
    reason = result.reason or "no plan found"
    return f"<think>no plan: {reason}</think><answer><steps>\n</steps><code>\n</code></answer>"


def reference_backend(options: Mapping[str, str] | None = None) -> PlannerBackend:
    """:class:`FunctionBackend` over the reference planner; the prompt must carry the task.
    Option: ``time_budget`` (seconds per plan, default 5)."""
    options = dict(options or {})
    unknown = sorted(set(options) - {"time_budget"})
    if unknown:
        raise BackendSpecError("reference", f"unknown option(s) {', '.join(unknown)}; the planner takes time_budget")
    try:
        budget = float(options.get("time_budget", 5.0))
    except ValueError:
        raise BackendSpecError("reference", f"time_budget must be a number, not {options['time_budget']!r}") from None

    def respond(prompt: PlannerPrompt) -> str:
        if not isinstance(prompt.task, CompiledTask):
            raise ValueError("the reference planner needs the task: pass PlannerPrompt(task=CompiledTask)")
        return reference_response(prompt.task, budget)

    return FunctionBackend(respond, name="reference")


def make_planner_backend(spec: str | BackendConfig) -> PlannerBackend:
    """The backend a spec names (``reference[?time_budget=S]``, ``openai:URL``, ``transformers:PATH``,
    ``vllm:MODEL``). Raises BackendSpecError / BackendUnavailableError like ``make_backend``."""
    config = parse_backend_spec(spec) if isinstance(spec, str) else spec
    if isinstance(config, ReferenceBackendConfig):
        return reference_backend(config.options)
    return make_backend(config)
