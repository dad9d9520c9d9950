"""Spec strings -> typed configs, and the errors a bad spec produces."""

from __future__ import annotations

import pytest

from symplan_core.llm import BackendSpecError, parse_backend_spec
from symplan_core.llm.spec import (
    OpenAIBackendConfig,
    ReferenceBackendConfig,
    TransformersBackendConfig,
    VLLMBackendConfig,
)


def test_openai_spec_reads_url_model_and_numeric_options() -> None:
    config = parse_backend_spec(
        "openai:http://127.0.0.1:8000/v1/?model=Qwen/Qwen3-8B&timeout=30&concurrency=8"
    )
    assert isinstance(config, OpenAIBackendConfig)
    assert config.base_url == "http://127.0.0.1:8000/v1"
    assert config.model == "Qwen/Qwen3-8B"
    assert config.timeout == 30.0
    assert config.concurrency == 8


def test_openai_spec_without_model_leaves_it_to_the_server() -> None:
    config = parse_backend_spec("openai:https://example.org/v1")
    assert isinstance(config, OpenAIBackendConfig)
    assert config.model is None
    assert config.max_retries == 3


def test_chat_template_kwargs_are_read_as_json_scalars() -> None:
    config = parse_backend_spec(
        "openai:http://h:1/v1?chat_template_kwargs.enable_thinking=false&chat_template_kwargs.style=terse"
    )
    assert config.chat_template_kwargs == {"enable_thinking": False, "style": "terse"}


def test_transformers_spec_accepts_paths_and_options() -> None:
    config = parse_backend_spec("transformers:/models/x.gguf?device=cpu&threads=2")
    assert isinstance(config, TransformersBackendConfig)
    assert config.model_path == "/models/x.gguf"
    assert (config.device, config.threads, config.dtype) == ("cpu", 2, "auto")


def test_vllm_spec_reads_engine_options() -> None:
    config = parse_backend_spec("vllm:/ckpt/qwen3-8b?tensor_parallel_size=2&max_model_len=16384")
    assert isinstance(config, VLLMBackendConfig)
    assert (config.model, config.tensor_parallel_size, config.max_model_len) == ("/ckpt/qwen3-8b", 2, 16384)


def test_reference_spec_needs_no_target() -> None:
    assert isinstance(parse_backend_spec("reference"), ReferenceBackendConfig)
    assert parse_backend_spec("reference?mode=fast").options == {"mode": "fast"}


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("", "empty spec"),
        ("gpt4", "unknown backend kind"),
        ("openai:", "needs a target"),
        ("openai:127.0.0.1:8000", "must start with http"),
        ("openai:http://h/v1?concurrency=0", "concurrency"),
        ("openai:http://h/v1?timeout=soon", "timeout"),
        ("openai:http://h/v1?temprature=0.3", "temprature"),
        ("transformers:m?device=tpu", "device"),
        ("openai:http://h/v1?model=a&model=b", "given twice"),
        ("reference:somewhere", "takes no target"),
    ],
)
def test_bad_spec_raises_typed_error_naming_the_problem(spec: str, reason: str) -> None:
    with pytest.raises(BackendSpecError) as raised:
        parse_backend_spec(spec)
    assert reason in str(raised.value)
    assert "expected one of" in str(raised.value)
    assert isinstance(raised.value, ValueError)
