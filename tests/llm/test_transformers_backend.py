"""The transformers backend really generates with SmolLM2 (GGUF, CPU). Short outputs keep it fast."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from symplan_core.llm import Sampling, make_backend

pytest.importorskip("transformers", reason="the 'llm' extra (transformers, torch, gguf) is not installed")
pytest.importorskip("gguf", reason="the 'llm' extra (gguf) is not installed")

pytestmark = pytest.mark.slow

PROMPT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Name three fruits."},
]


@pytest.fixture(scope="module")
def smollm2_backend(smollm2_gguf: Path) -> Iterator:
    backend = make_backend(f"transformers:{smollm2_gguf}?device=cpu")
    yield backend
    backend.close()


def test_greedy_generation_is_deterministic_and_counts_tokens(smollm2_backend) -> None:
    greedy = Sampling(temperature=0.0, max_tokens=8)
    first = smollm2_backend.plan(PROMPT, n=2, sampling=greedy)
    second = smollm2_backend.plan(PROMPT, n=1, sampling=greedy)
    assert len(first) == 2
    assert all(c.ok for c in first + second), [c.error for c in first + second]
    assert first[0].text.strip(), "the model produced no text"
    assert first[0].text == first[1].text == second[0].text
    assert first[0].prompt_tokens is not None and first[0].prompt_tokens > 10  # the chat template is applied
    assert 1 <= (first[0].completion_tokens or 0) <= 8
    assert first[0].finish_reason in ("stop", "length")


def test_sampling_returns_n_samples_reproducibly_with_a_seed(smollm2_backend) -> None:
    sampling = Sampling(max_tokens=6, seed=1234)
    samples = smollm2_backend.plan(PROMPT, n=2, sampling=sampling)
    again = smollm2_backend.plan(PROMPT, n=2, sampling=sampling)
    assert len(samples) == 2 and all(c.ok for c in samples)
    assert [c.text for c in samples] == [c.text for c in again]
    for completion in samples:
        assert 1 <= (completion.completion_tokens or 0) <= 6
        assert completion.latency_s > 0
        assert completion.finish_reason == ("length" if completion.completion_tokens == 6 else "stop")


def test_registry_name_spec_points_at_the_installed_gguf(smollm2_gguf: Path) -> None:
    from symplan_core.llm.transformers_backend import resolve_model_location

    location = resolve_model_location("smollm2")
    assert location.directory / (location.gguf_file or "") == smollm2_gguf
    assert resolve_model_location(str(smollm2_gguf.parent)).gguf_file == smollm2_gguf.name


def test_converted_gguf_is_cached_and_reloads_to_the_same_output(smollm2_backend, smollm2_gguf: Path) -> None:
    converted = smollm2_gguf.parent / f"{smollm2_gguf.stem}.converted-float32"
    assert (converted / "symplan-conversion.json").is_file()
    assert (converted / "model.safetensors").is_file()
    greedy = Sampling(temperature=0.0, max_tokens=6)
    with make_backend(f"transformers:{smollm2_gguf}?device=cpu") as reloaded:
        assert reloaded.load_seconds < 30, "loading the cached conversion should skip de-quantisation"
        assert (
            reloaded.plan(PROMPT, sampling=greedy)[0].text
            == smollm2_backend.plan(PROMPT, sampling=greedy)[0].text
        )


def test_asking_for_cuda_without_a_cuda_torch_is_a_typed_backend_error(smollm2_gguf: Path) -> None:
    import torch

    from symplan_core.llm.base import BackendUnavailableError

    if torch.cuda.is_available():
        pytest.skip("this torch sees a CUDA device")
    with pytest.raises(BackendUnavailableError, match="device=cuda requested but torch sees no CUDA device"):
        make_backend(f"transformers:{smollm2_gguf}?device=cuda")


def _transformers_5_17_gguf_decoder():  # what transformers 5.17 made of SmolLM2's GGUF tokenizer on a GPU machine
    from tokenizers import decoders

    return decoders.Sequence([decoders.ByteFallback(), decoders.Fuse(), decoders.Replace("▁", " "), decoders.ByteLevel()])


def test_a_byte_level_vocabulary_under_a_mixed_decoder_chain_still_constrains_line_breaks(smollm2_gguf: Path) -> None:
    from symplan_core.llm.constrained import generate_constrained

    with make_backend(f"transformers:{smollm2_gguf}?device=cpu") as backend:
        backend.tokenizer.backend_tokenizer.decoder = _transformers_5_17_gguf_decoder()
        completion = generate_constrained(backend, PROMPT, 'root ::= "yes\\n  no"\n',
                                          Sampling(temperature=0.0, max_tokens=8))
    assert completion.ok, completion.error
    assert completion.text == "yes\n  no"


def test_a_tokenizer_that_llguidance_would_misread_is_refused_before_decoding(smollm2_gguf: Path) -> None:
    from tokenizers import pre_tokenizers

    from symplan_core.llm.constrained import generate_constrained
    from symplan_core.llm.decoding import StructuredOutputUnsupportedError

    with make_backend(f"transformers:{smollm2_gguf}?device=cpu") as backend:
        backend.tokenizer.backend_tokenizer.decoder = _transformers_5_17_gguf_decoder()
        backend.tokenizer.backend_tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
        with pytest.raises(StructuredOutputUnsupportedError, match="reads this tokenizer's tokens as other bytes"):
            generate_constrained(backend, PROMPT, 'root ::= "yes"\n', Sampling(temperature=0.0, max_tokens=4))
