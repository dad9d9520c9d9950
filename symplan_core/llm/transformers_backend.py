"""In-process planner backend on Hugging Face ``transformers`` (CPU or CUDA).

Loads a local model directory or a GGUF file (transformers de-quantises GGUF weights to
float32 on load, which needs the ``gguf`` package). Nothing here touches the network:
``local_files_only`` is always set.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from symplan_core.llm.base import (
    Completion,
    FinishReason,
    LocalPlannerBackend,
    PlannerPrompt,
    Sampling,
)
from symplan_core.llm.spec import TransformersBackendConfig


class ModelNotFoundError(FileNotFoundError):
    """The spec's model path is neither a model directory, a GGUF file nor an installed name."""


@dataclass(frozen=True)
class ResolvedModel:
    directory: Path
    gguf_file: str | None  # file name inside ``directory``; None for a regular HF directory


def resolve_model_location(model_path: str, gguf_file: str | None = None) -> ResolvedModel:
    """Find the weights a ``transformers:`` spec points at.

    Accepts a ``.gguf`` file, a directory with ``config.json``, a directory with exactly one
    ``.gguf`` file, or the name of an installed model from the registry (e.g. ``smollm2``).
    """
    path = Path(model_path).expanduser()
    if path.is_file():
        if path.suffix != ".gguf":
            raise ModelNotFoundError(f"{path} is a file but not a .gguf model")
        return ResolvedModel(path.parent, path.name)
    if path.is_dir():
        if gguf_file is not None:
            if not (path / gguf_file).is_file():
                raise ModelNotFoundError(f"{gguf_file} not found in {path}")
            return ResolvedModel(path, gguf_file)
        if (path / "config.json").is_file():
            return ResolvedModel(path, None)
        gguf_files = sorted(candidate.name for candidate in path.glob("*.gguf"))
        if len(gguf_files) == 1:
            return ResolvedModel(path, gguf_files[0])
        found = ", ".join(gguf_files) or "no config.json and no .gguf file"
        raise ModelNotFoundError(f"cannot tell which model to load from {path}: {found}")
    from symplan_core.llm.models import ModelRegistryError, locate_model

    try:
        located = locate_model(model_path)
    except ModelRegistryError as exc:
        raise ModelNotFoundError(f"{model_path!r} is not a path and not a known model: {exc}") from None
    if located is None:
        raise ModelNotFoundError(
            f"model {model_path!r} is not installed; run `symplan models install {model_path}`"
        )
    return ResolvedModel(located.parent, located.name)


class TransformersBackend(LocalPlannerBackend):
    name = "transformers"

    def __init__(self, config: TransformersBackendConfig) -> None:
        super().__init__()
        self.config = config
        self.location = resolve_model_location(config.model_path, config.gguf_file)
        self.device = _pick_device(config.device)
        if self.device.type == "cpu":
            # Half the cores unless told otherwise (llama.cpp's default too): torch's OpenMP
            # threads spin-wait, and on a shared 2-core machine 2 threads ran 8x slower than 1.
            # torch's thread count is process-wide, so this affects other torch users.
            torch.set_num_threads(config.threads or max(1, (os.cpu_count() or 2) // 2))
        dtype = _pick_dtype(config.dtype, self.device)
        load_options: dict[str, Any] = {"local_files_only": True}
        if self.location.gguf_file is not None:
            load_options["gguf_file"] = self.location.gguf_file
        started = time.perf_counter()
        self.tokenizer = AutoTokenizer.from_pretrained(self.location.directory, **load_options)
        model = AutoModelForCausalLM.from_pretrained(self.location.directory, dtype=dtype, **load_options)
        self.model = model.to(self.device).eval()
        self.load_seconds = time.perf_counter() - started
        if not getattr(self.tokenizer, "chat_template", None):
            raise ModelNotFoundError(f"{self.location.directory} has no chat template")
        self._eos_token_ids = _eos_token_ids(self.model, self.tokenizer)
        self._pad_token_id = (
            self.tokenizer.pad_token_id
            if self.tokenizer.pad_token_id is not None
            else min(self._eos_token_ids)
        )

    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        messages = [message.as_dict() for message in prompt.messages]
        inputs = self.tokenizer.apply_chat_template(
            messages,
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
            **self.config.chat_template_kwargs,
        ).to(self.device)
        prompt_length = int(inputs["input_ids"].shape[1])
        # Greedy decoding gives n identical samples, so decode once and repeat it.
        sequences_to_generate = 1 if sampling.is_greedy else n
        options: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "num_return_sequences": sequences_to_generate,
            "pad_token_id": self._pad_token_id,
            "eos_token_id": sorted(self._eos_token_ids),
        }
        if sampling.is_greedy:
            options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            options.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p)
        if sampling.stop:
            options.update(stop_strings=list(sampling.stop), tokenizer=self.tokenizer)
        if sampling.seed is not None:
            torch.manual_seed(sampling.seed)
        started = time.perf_counter()
        with torch.inference_mode():
            output = self.model.generate(**inputs, **options)
        elapsed = time.perf_counter() - started
        completions = [
            self._completion(row[prompt_length:].tolist(), prompt_length, sampling, elapsed) for row in output
        ]
        if sampling.is_greedy:
            completions = completions * n
        return completions

    def _completion(
        self, new_token_ids: list[int], prompt_length: int, sampling: Sampling, elapsed: float
    ) -> Completion:
        ended_at = next(
            (index for index, token in enumerate(new_token_ids) if token in self._eos_token_ids),
            None,
        )
        content_ids = new_token_ids if ended_at is None else new_token_ids[:ended_at]
        text = self.tokenizer.decode(content_ids, skip_special_tokens=True)
        finish_reason: FinishReason
        stop_position = _first_stop_position(text, sampling.stop)
        if stop_position is not None:
            # OpenAI semantics: the stop string is not part of the returned text.
            text = text[:stop_position]
            finish_reason = "stop"
            completion_tokens = len(content_ids)
        elif ended_at is not None:
            finish_reason = "stop"
            completion_tokens = ended_at + 1  # the end-of-turn token counts, as on servers
        else:
            finish_reason = "length"
            completion_tokens = len(new_token_ids)
        return Completion(
            text=text,
            prompt_tokens=prompt_length,
            completion_tokens=completion_tokens,
            finish_reason=finish_reason,
            latency_s=elapsed,
            metadata={"device": str(self.device)},
        )


def _first_stop_position(text: str, stops: tuple[str, ...]) -> int | None:
    positions = [text.find(stop) for stop in stops if stop and stop in text]
    return min(positions) if positions else None


def _eos_token_ids(model: Any, tokenizer: Any) -> frozenset[int]:
    configured = model.generation_config.eos_token_id
    ids = set(configured if isinstance(configured, list) else [configured])
    if tokenizer.eos_token_id is not None:
        ids.add(tokenizer.eos_token_id)
    ids.discard(None)
    if not ids:
        raise ModelNotFoundError("the model defines no end-of-sequence token")
    return frozenset(ids)


def _pick_device(requested: str) -> torch.device:
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device=cuda requested but torch sees no CUDA device")
    return torch.device(requested)


def _pick_dtype(requested: str, device: torch.device) -> torch.dtype:
    if requested != "auto":
        return getattr(torch, requested)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32
