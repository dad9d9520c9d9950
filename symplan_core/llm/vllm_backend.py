"""In-process vLLM planner backend for GPU machines (the ``vllm`` optional dependency).

``plan_many`` hands every prompt to one ``LLM.chat`` call so vLLM can batch them; that is the
point of running vLLM in-process instead of behind ``vllm serve``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from symplan_core.llm.base import (
    BackendUnavailableError,
    Completion,
    FinishReason,
    LocalPlannerBackend,
    PlannerPrompt,
    PromptInput,
    Sampling,
    _check_sample_count,
    as_planner_prompt,
)
from symplan_core.llm.checkpoint import local_checkpoint
from symplan_core.llm.spec import VLLMBackendConfig


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise BackendUnavailableError(
            "the vllm backend needs the 'vllm' package (a CUDA machine: pip install vllm); "
            f"import failed: {exc}. Without a GPU use an openai: spec against a served model."
        ) from None
    return vllm


class VLLMBackend(LocalPlannerBackend):
    name = "vllm"

    def __init__(self, config: VLLMBackendConfig) -> None:
        super().__init__()
        self.config = config
        # A local checkpoint is checked before vLLM starts and passed as an absolute path, so that
        # vLLM never mistakes it for a hub id; hub ids pass through.
        local = local_checkpoint(config.model)
        self._vllm = _import_vllm()
        engine_options: dict[str, Any] = {
            "model": str(local) if local is not None else config.model,
            "tokenizer": config.tokenizer,
            "tensor_parallel_size": config.tensor_parallel_size,
            "gpu_memory_utilization": config.gpu_memory_utilization,
            "dtype": config.dtype,
            "quantization": config.quantization,
            "enforce_eager": config.enforce_eager,
            "seed": config.seed,
        }
        if config.max_model_len is not None:
            engine_options["max_model_len"] = config.max_model_len
        if config.enable_prefix_caching is not None:
            engine_options["enable_prefix_caching"] = config.enable_prefix_caching
        started = time.perf_counter()
        self.engine = self._vllm.LLM(**engine_options)
        self.load_seconds = time.perf_counter() - started

    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        return self._generate_batch([prompt], n, sampling)[0]

    def plan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        _check_sample_count(n)
        sampling = sampling or Sampling()
        normalised = [as_planner_prompt(prompt) for prompt in prompts]
        started = time.perf_counter()
        try:
            with self._generation_lock:
                return self._generate_batch(normalised, n, sampling)
        except Exception as exc:  # noqa: BLE001 - recorded per sample, the run goes on
            failure = Completion.failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
            return [[failure] * n for _ in normalised]

    def _generate_batch(
        self, prompts: Sequence[PlannerPrompt], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        parameters = self._vllm.SamplingParams(
            n=n,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            seed=sampling.seed,
            stop=list(sampling.stop) or None,
        )
        conversations = [[message.as_dict() for message in p.messages] for p in prompts]
        started = time.perf_counter()
        outputs = self.engine.chat(
            conversations,
            parameters,
            use_tqdm=False,
            chat_template_kwargs=dict(self.config.chat_template_kwargs) or None,
        )
        # vLLM batches the whole call, so per-sample latency is the batch's wall time.
        elapsed = time.perf_counter() - started
        return [
            [
                Completion(
                    text=sample.text,
                    prompt_tokens=len(request.prompt_token_ids or ()),
                    completion_tokens=len(sample.token_ids),
                    finish_reason=_finish_reason(sample.finish_reason),
                    latency_s=elapsed,
                )
                for sample in request.outputs
            ]
            for request in outputs
        ]


def _finish_reason(raw: str | None) -> FinishReason | None:
    if raw is None:
        return None
    return "length" if raw == "length" else "stop"
