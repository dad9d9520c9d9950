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
from symplan_core.llm.decoding import (
    DecodingError,
    Step,
    StructuredOutputUnsupportedError,
    check_grammar_output,
    guided_decode,
    require_task,
    validate_gbnf,
)
from symplan_core.llm.grammar import TextBudget, response_grammar
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

    def plan(self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None) -> list[Completion]:
        return self.plan_many([prompt], n, sampling)[0]

    def _structured(self, grammar: str) -> dict[str, Any]:
        """vLLM's structured outputs (``StructuredOutputsParams(grammar=...)``, vLLM >= 0.12)."""
        validate_gbnf(grammar)
        try:
            from vllm.sampling_params import StructuredOutputsParams
        except ImportError:
            raise StructuredOutputUnsupportedError(
                "this vLLM has no StructuredOutputsParams (structured outputs need vLLM >= 0.12)") from None
        return {"structured_outputs": StructuredOutputsParams(grammar=grammar)}

    def _params(self, sampling: Sampling, n: int, grammar: str | None = None) -> Any:
        return self._vllm.SamplingParams(
            n=n, temperature=sampling.temperature, top_p=sampling.top_p, max_tokens=sampling.max_tokens,
            seed=sampling.seed, stop=list(sampling.stop) or None,
            **(self._structured(grammar) if grammar is not None else {}),
        )

    def generate_under_grammar(self, prompt: PlannerPrompt, grammar: str, sampling: Sampling) -> Completion:
        """One chat completion constrained by a GBNF grammar through vLLM's structured outputs
        (``symplan_core.llm.constrained``); decoding errors are raised, other failures recorded."""
        started = time.perf_counter()
        params = self._params(sampling, 1, grammar)  # validates; raises the typed errors
        try:
            with self._generation_lock:
                [request] = self.engine.chat([[m.as_dict() for m in prompt.messages]], params, use_tqdm=False,
                                             chat_template_kwargs=dict(self.config.chat_template_kwargs) or None)
        except Exception as exc:  # noqa: BLE001 - recorded on the sample, like plan_many
            return Completion.failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        sample = request.outputs[0]
        return Completion(text=sample.text, prompt_tokens=len(request.prompt_token_ids or ()),
                          completion_tokens=len(sample.token_ids), finish_reason=_finish_reason(sample.finish_reason),
                          latency_s=time.perf_counter() - started)

    def _guided(self, prompt: PlannerPrompt, sampling: Sampling, index: int) -> Completion:
        """Line-by-line guided decoding over raw text prompts; vLLM's prefix cache keeps the
        prompt and the lines so far (``enable_prefix_caching``)."""
        task = require_task(prompt, "guided")
        tokenizer = self.engine.get_tokenizer()
        rendered = tokenizer.apply_chat_template(
            [m.as_dict() for m in prompt.messages], add_generation_prompt=True, tokenize=False,
            **dict(self.config.chat_template_kwargs))
        seed = None if sampling.seed is None else sampling.seed + index

        def continue_text(prefix: str, grammar: str, max_tokens: int) -> Step:
            params = self._params(sampling.model_copy(update={"max_tokens": max_tokens, "seed": seed}), 1, grammar)
            started = time.perf_counter()
            request = self.engine.generate([rendered + prefix], params, use_tqdm=False)[0]
            sample = request.outputs[0]
            return Step(sample.text, len(sample.token_ids), _finish_reason(sample.finish_reason),
                        len(request.prompt_token_ids or ()), time.perf_counter() - started)

        return guided_decode(task, continue_text, sampling.max_tokens, TextBudget.parse(self.config.think),
                             self.config.max_calls, steps=TextBudget.parse(self.config.steps))

    def plan_many(
        self, prompts: Sequence[PromptInput], n: int = 1, sampling: Sampling | None = None
    ) -> list[list[Completion]]:
        _check_sample_count(n)
        sampling = sampling or Sampling()
        normalised = [as_planner_prompt(prompt) for prompt in prompts]
        started = time.perf_counter()
        try:
            with self._generation_lock:
                if self.config.decoding == "guided":
                    return [[self._guided(p, sampling, i) for i in range(n)] for p in normalised]
                return self._generate_batch(normalised, n, sampling)
        except DecodingError:
            raise  # a configuration fault, not sampling noise
        except Exception as exc:  # noqa: BLE001 - recorded per sample, the run goes on
            failure = Completion.failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
            return [[failure] * n for _ in normalised]

    def _generate_batch(
        self, prompts: Sequence[PlannerPrompt], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        parameters: Any = self._params(sampling, n)
        if self.config.decoding == "grammar":
            think, steps = TextBudget.parse(self.config.think), TextBudget.parse(self.config.steps)
            parameters = [self._params(sampling, n, response_grammar(require_task(p, "grammar"), think, steps=steps))
                          for p in prompts]
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
        results = [
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
        if self.config.decoding == "grammar":
            results = [[check_grammar_output(p.task, c) for c in row] for p, row in zip(prompts, results, strict=True)]
        return results


def _finish_reason(raw: str | None) -> FinishReason | None:
    if raw is None:
        return None
    return "length" if raw == "length" else "stop"
