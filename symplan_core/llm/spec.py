"""Backend spec strings -> typed backend configs.

A spec is ``KIND[:TARGET][?key=value&...]``:

* ``openai:http://127.0.0.1:8000/v1?model=Qwen/Qwen3-8B&timeout=30&concurrency=8``
* ``transformers:models/smollm2``, ``transformers:/path/model.gguf?device=cpu``,
  ``transformers:smollm2`` (a name from ``models/registry.yaml``, installed on demand)
* ``vllm:/path/to/model?tensor_parallel_size=1``
* ``reference``

Keys of the form ``chat_template_kwargs.NAME=VALUE`` are passed to the chat template
(e.g. ``chat_template_kwargs.enable_thinking=false`` for Qwen3); values are read as JSON
scalars when they parse as such (``false``, ``3``, ``0.5``) and as strings otherwise.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from symplan_core.errors import BackendError

JsonScalar = str | int | float | bool | None
_CHAT_TEMPLATE_PREFIX = "chat_template_kwargs."

SPEC_FORMS = (
    "openai:http://HOST:PORT/v1?model=NAME",
    "transformers:PATH_OR_REGISTRY_NAME",
    "vllm:MODEL_PATH",
    "reference",
)


class BackendSpecError(BackendError, ValueError):
    """A spec string that names no backend, misses its target or carries bad options."""

    def __init__(self, spec: str, reason: str) -> None:
        self.spec = spec
        self.reason = reason
        forms = ", ".join(SPEC_FORMS)
        super().__init__(f"invalid planner spec {spec!r}: {reason} (expected one of: {forms})")


class _BackendConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    chat_template_kwargs: dict[str, JsonScalar] = Field(default_factory=dict)


class _LLMBackendConfig(_BackendConfig):
    #: free | grammar | guided (symplan_core.llm.decoding); a spec key, so every caller that
    #: passes a spec string (eval, repair, the data factory, the ROS node) passes it through.
    decoding: Literal["free", "grammar", "guided"] = "free"
    #: The <think> budget under grammar/guided decoding: keep, skip, or a number of characters.
    think: str = "keep"
    #: The <steps> budget under grammar/guided decoding: keep, skip, or a number of characters.
    steps: str = "keep"
    #: guided: most code lines before the plan is closed.
    max_calls: int = Field(default=100, ge=1)

    @field_validator("think", "steps")
    @classmethod
    def _text_budget(cls, value: str) -> str:
        from symplan_core.llm.grammar import TextBudget

        TextBudget.parse(value)
        return value


class OpenAIBackendConfig(_LLMBackendConfig):
    kind: Literal["openai"] = "openai"
    base_url: str
    # None: ask the server's /models endpoint and use the first model it serves.
    model: str | None = None
    timeout: float = Field(default=300.0, gt=0, description="seconds for a whole request")
    connect_timeout: float = Field(default=10.0, gt=0)
    concurrency: int = Field(default=8, ge=1)
    max_retries: int = Field(default=3, ge=0)
    backoff: float = Field(default=0.5, ge=0, description="first retry delay, doubled each time")
    max_backoff: float = Field(default=8.0, ge=0)
    # A timed-out generation usually times out again and keeps the server busy, so off.
    retry_on_timeout: bool = False
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key"
    )
    #: How a grammar travels: ``grammar`` (llama.cpp's field), ``structured_outputs`` (vLLM's),
    #: or ``auto`` (vLLM when /models says ``owned_by: vllm``, else llama.cpp).
    grammar_field: Literal["auto", "grammar", "structured_outputs"] = "auto"
    #: guided decoding renders the chat prompt here: the model's chat template is read from this
    #: GGUF file or registry name (default: the served model id, when it is a local GGUF path).
    template: str | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        return value.rstrip("/")


class TransformersBackendConfig(_LLMBackendConfig):
    kind: Literal["transformers"] = "transformers"
    model_path: str
    gguf_file: str | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = "auto"
    threads: int | None = Field(default=None, ge=1)
    # Keep a de-quantised copy of a GGUF model beside it (loads in ~1 s instead of 20-60 s).
    cache_conversion: bool = True
    # guided: keep the KV cache of the last sequence and feed only the tokens after the longest
    # common token prefix of the next request (false re-encodes the whole prompt per line).
    prefix_cache: bool = True


class VLLMBackendConfig(_LLMBackendConfig):
    kind: Literal["vllm"] = "vllm"
    model: str
    tokenizer: str | None = None
    tensor_parallel_size: int = Field(default=1, ge=1)
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    max_model_len: int | None = Field(default=None, ge=1)
    dtype: str = "auto"
    quantization: str | None = None
    enforce_eager: bool = False
    enable_prefix_caching: bool | None = None
    seed: int = 0


class ReferenceBackendConfig(_BackendConfig):
    kind: Literal["reference"] = "reference"
    options: dict[str, str] = Field(default_factory=dict)


BackendConfig = Annotated[
    OpenAIBackendConfig | TransformersBackendConfig | VLLMBackendConfig | ReferenceBackendConfig,
    Field(discriminator="kind"),
]

_TARGET_FIELD = {"openai": "base_url", "transformers": "model_path", "vllm": "model"}
_CONFIG_TYPE: dict[str, type[OpenAIBackendConfig | TransformersBackendConfig | VLLMBackendConfig]] = {
    "openai": OpenAIBackendConfig, "transformers": TransformersBackendConfig, "vllm": VLLMBackendConfig}


def parse_backend_spec(spec: str) -> BackendConfig:
    """Parse ``KIND[:TARGET][?options]`` into the matching typed config.

    Raises :class:`BackendSpecError` with the reason and the accepted forms.
    """
    text = spec.strip()
    if not text:
        raise BackendSpecError(spec, "empty spec")
    head, _, query = text.partition("?")
    kind, has_target, target = head.partition(":")
    kind = kind.strip().lower()
    target = target.strip()
    options, chat_template_kwargs = _parse_options(spec, query)

    if kind == "reference":
        if has_target and target:
            raise BackendSpecError(spec, "the reference planner takes no target")
        return _build(spec, ReferenceBackendConfig, {"options": options})
    if kind not in _TARGET_FIELD:
        raise BackendSpecError(spec, f"unknown backend kind {kind!r}")
    if not target:
        raise BackendSpecError(spec, f"the {kind} backend needs a target after '{kind}:'")
    fields: dict[str, Any] = {_TARGET_FIELD[kind]: target, **options}
    if chat_template_kwargs:
        fields["chat_template_kwargs"] = chat_template_kwargs
    return _build(spec, _CONFIG_TYPE[kind], fields)


def with_decoding(spec: str, decoding: str | None = None, think: str | None = None,
                  steps: str | None = None) -> str:
    """``spec`` with ``decoding=``/``think=``/``steps=`` set (what ``--decoding`` and the ROS
    parameter ``planner.decoding`` do); ``None`` leaves a key as the spec has it, and so does a
    ``think``/``steps`` for a spec that decodes freely (see :func:`unused_budgets`). A non-free mode
    on a planner that does not decode (``reference``) raises :class:`BackendSpecError`."""
    updates = {key: value for key, value in (("decoding", decoding), ("think", think), ("steps", steps))
               if value is not None}
    if not updates:
        return spec
    if updates == {"decoding": "free"} and "decoding=" not in spec.partition("?")[2]:
        return spec  # nothing to override: free is every spec's default
    config = parse_backend_spec(spec)
    if isinstance(config, ReferenceBackendConfig):
        if updates.get("decoding", "free") != "free" or "think" in updates or "steps" in updates:
            raise BackendSpecError(spec, "the reference planner does not decode; use --decoding free")
        return spec
    if updates.get("decoding", config.decoding) == "free":  # budgets a free answer never reads
        updates = {k: v for k, v in updates.items() if k not in ("think", "steps")}
        if not updates:
            return spec
    head, _, query = spec.strip().partition("?")
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in updates]
    pairs = kept + [(k, v) for k, v in updates.items() if not (k == "decoding" and v == "free")]
    result = head + ("?" + "&".join(f"{k}={v}" for k, v in pairs) if pairs else "")
    parse_backend_spec(result)  # the result must be a valid spec too
    return result


def unused_budgets(spec: str, think: str | None, steps: str | None) -> str | None:
    """A note when ``--think``/``--steps`` were given for a spec that decodes freely (they bound
    the sections under grammar/guided decoding only, and ``with_decoding`` leaves them out)."""
    given = [f"--{name} {value}" for name, value in (("think", think), ("steps", steps)) if value is not None]
    if not given:
        return None  # nothing to say, and the spec is the caller's to judge (it may be checked later)
    config = parse_backend_spec(spec)
    if isinstance(config, ReferenceBackendConfig) or config.decoding != "free":
        return None
    return f"note: {' and '.join(given)} apply under grammar/guided decoding; free decoding ignores them"


def _parse_options(spec: str, query: str) -> tuple[dict[str, str], dict[str, JsonScalar]]:
    options: dict[str, str] = {}
    chat_template_kwargs: dict[str, JsonScalar] = {}
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        if key.startswith(_CHAT_TEMPLATE_PREFIX):
            name = key.removeprefix(_CHAT_TEMPLATE_PREFIX)
            if not name:
                raise BackendSpecError(spec, "empty chat_template_kwargs name")
            chat_template_kwargs[name] = _json_scalar(value)
            continue
        if key in options:
            raise BackendSpecError(spec, f"option {key!r} given twice")
        options[key] = value
    if query and not options and not chat_template_kwargs:
        raise BackendSpecError(spec, f"could not read options {query!r} (use key=value&...)")
    return options, chat_template_kwargs


def _json_scalar(value: str) -> JsonScalar:
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return value
    # Only scalars: a spec string is not the place for nested structures.
    if isinstance(parsed, str | int | float | bool) or parsed is None:
        return parsed
    return value


_Config = TypeVar("_Config", bound=_BackendConfig)


def _build(spec: str, config_type: type[_Config], fields: dict[str, Any]) -> _Config:
    try:
        return config_type.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'spec'}: {error['msg']}"
            for error in exc.errors()
        )
        raise BackendSpecError(spec, problems) from None
