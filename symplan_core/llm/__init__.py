"""Planner backends: ``make_backend(spec)`` turns a spec string into a :class:`PlannerBackend`.

Heavy dependencies (httpx, torch, transformers, vllm) are imported only by the backend a spec
chooses, so importing this package stays cheap.
"""

from __future__ import annotations

from symplan_core.llm.base import (
    BackendUnavailableError,
    ChatMessage,
    Completion,
    FunctionBackend,
    LocalPlannerBackend,
    PlannerBackend,
    PlannerPrompt,
    Sampling,
    as_planner_prompt,
)
from symplan_core.llm.spec import (
    BackendConfig,
    BackendSpecError,
    OpenAIBackendConfig,
    ReferenceBackendConfig,
    TransformersBackendConfig,
    VLLMBackendConfig,
    parse_backend_spec,
    with_decoding,
)

__all__ = [
    "BackendConfig",
    "BackendSpecError",
    "BackendUnavailableError",
    "ChatMessage",
    "Completion",
    "FunctionBackend",
    "LocalPlannerBackend",
    "PlannerBackend",
    "PlannerPrompt",
    "Sampling",
    "as_planner_prompt",
    "make_backend",
    "parse_backend_spec",
    "with_decoding",
]


def make_backend(spec: str | BackendConfig) -> PlannerBackend:
    """Build the backend a spec string (or an already parsed config) describes.

    Raises :class:`BackendSpecError` for a malformed spec and
    :class:`BackendUnavailableError` when the chosen backend's package or module is missing.
    """
    config = parse_backend_spec(spec) if isinstance(spec, str) else spec
    if isinstance(config, OpenAIBackendConfig):
        from symplan_core.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(config)
    if isinstance(config, TransformersBackendConfig):
        _require("torch", "transformers", "gguf", "accelerate", backend="transformers")
        from symplan_core.llm.transformers_backend import TransformersBackend

        return TransformersBackend(config)
    if isinstance(config, VLLMBackendConfig):
        from symplan_core.llm.vllm_backend import VLLMBackend

        return VLLMBackend(config)
    if isinstance(config, ReferenceBackendConfig):
        # The planner sits above this layer: its factory handles every spec, reference included.
        raise BackendUnavailableError(
            "the reference planner is built by symplan_core.planners.reference_backend.make_planner_backend"
        )
    raise BackendSpecError(str(spec), f"unsupported config type {type(config).__name__}")


def _require(*modules: str, backend: str) -> None:
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise BackendUnavailableError(
            f"the {backend} backend needs {', '.join(missing)}: pip install 'symplan[llm]'"
        )
