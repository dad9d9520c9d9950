"""In-process planner backend on Hugging Face ``transformers`` (CPU or CUDA).

Loads a local model directory or a GGUF file (transformers de-quantises GGUF weights on
load, which needs the ``gguf`` package; the result is cached next to the GGUF as a regular
model directory unless ``cache_conversion=false``). Nothing here touches the network:
``local_files_only`` is always set.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import transformers
from safetensors.torch import save_model
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

from symplan_core.errors import BackendError
from symplan_core.llm.base import (
    BackendUnavailableError,
    Completion,
    FinishReason,
    LocalPlannerBackend,
    PlannerPrompt,
    PromptInput,
    Sampling,
)
from symplan_core.llm.checkpoint import local_checkpoint
from symplan_core.llm.decoding import (
    DecodingError,
    GrammarNotEnforcedError,
    Step,
    StructuredOutputUnsupportedError,
    check_grammar_output,
    guided_decode,
    require_task,
    validate_gbnf,
)
from symplan_core.llm.grammar import TextBudget, response_grammar
from symplan_core.llm.spec import TransformersBackendConfig

_log = logging.getLogger(__name__)
# Marks a complete de-quantised copy of a GGUF model and what it was converted from.
_STAMP_NAME = "symplan-conversion.json"


class ModelNotFoundError(BackendError, FileNotFoundError):
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
        if (path / "config.json").is_file() or (path / "adapter_config.json").is_file():
            local_checkpoint(str(path))  # a clear error for an adapter-only or weightless directory
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
    if located.is_dir():  # a model directory brought with `symplan models install DIR`
        return resolve_model_location(str(located), gguf_file)
    return ResolvedModel(located.parent, located.name)


@dataclass
class _PrefixCache:
    """The KV cache of the last guided sequence and the token ids it holds (``ids`` has exactly
    ``cache.get_seq_length()`` entries: the last generated token is never fed back)."""

    ids: list[int]
    cache: Any


def common_prefix_length(left: list[int], right: list[int]) -> int:
    """How many leading token ids two sequences share."""
    length = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        length += 1
    return length


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
        started = time.perf_counter()
        self.tokenizer, model = _load_tokenizer_and_model(self.location, dtype, config.cache_conversion)
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
        self._think = TextBudget.parse(config.think)
        self._steps = TextBudget.parse(config.steps)
        # a decoding error generate() met: the base plan() turns it into failed samples, this plan() raises it
        self._decoding_error: DecodingError | None = None
        self._ll_tokenizer = None
        if config.decoding != "free":
            self._ll_tokenizer = _llguidance_tokenizer(self.tokenizer, sorted(self._eos_token_ids))
        # guided decoding's prefix cache; read and written only under self._generation_lock
        self._prefix: _PrefixCache | None = None
        self._cache_kwarg = _cache_kwarg(self.model)

    def plan(self, prompt: PromptInput, n: int = 1, sampling: Sampling | None = None) -> list[Completion]:
        """As :meth:`LocalPlannerBackend.plan`, except that decoding errors (a grammar the library
        rejects, output outside the grammar) are raised, not recorded as failed samples."""
        self._decoding_error = None
        completions = super().plan(prompt, n, sampling)
        if self._decoding_error is not None:
            raise self._decoding_error
        return completions

    def generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling) -> list[Completion]:
        try:
            if self.config.decoding == "guided":
                task = require_task(prompt, "guided")
                if sampling.is_greedy:  # n identical samples: decode once
                    return [self._guided(task, prompt, sampling, 0)] * n
                return [self._guided(task, prompt, sampling, index) for index in range(n)]
            if self.config.decoding == "grammar":
                task = require_task(prompt, "grammar")
                grammar = response_grammar(task, self._think, steps=self._steps)
                completions = self._generate(prompt, n, sampling, grammar)
                return [check_grammar_output(task, c) for c in completions]
        except DecodingError as exc:
            self._decoding_error = exc
            raise
        return self._generate(prompt, n, sampling)

    def generate_under_grammar(self, prompt: PlannerPrompt, grammar: str, sampling: Sampling) -> Completion:
        """One completion constrained by a GBNF grammar through llguidance's logits processor
        (``symplan_core.llm.constrained``); decoding errors are raised, other failures recorded."""
        if self._ll_tokenizer is None:
            self._ll_tokenizer = _llguidance_tokenizer(self.tokenizer, sorted(self._eos_token_ids))
        started = time.perf_counter()
        try:
            with self._generation_lock:
                return self._generate(prompt, 1, sampling, grammar)[0]
        except DecodingError:
            raise
        except Exception as exc:  # noqa: BLE001 - backend boundary: a model failure becomes the completion's error, like a failed sample of plan()
            return Completion.failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)

    def _guided(self, task: Any, prompt: PlannerPrompt, sampling: Sampling, index: int) -> Completion:
        messages = [message.as_dict() for message in prompt.messages]
        rendered = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, tokenize=False, **self.config.chat_template_kwargs)
        seed = None if sampling.seed is None else sampling.seed + index
        counts = {"prompt_tokens_evaluated": 0, "prompt_tokens_reused": 0}

        def continue_text(prefix: str, grammar: str, max_tokens: int) -> Step:
            inputs = self.tokenizer(rendered + prefix, return_tensors="pt", add_special_tokens=False).to(self.device)
            line_sampling = sampling.model_copy(update={"max_tokens": max_tokens, "seed": seed})
            completion = self._run(inputs, 1, line_sampling, grammar, reuse=self.config.prefix_cache)[0]
            reused = int(completion.metadata.get("prompt_tokens_reused", 0))
            counts["prompt_tokens_reused"] += reused
            counts["prompt_tokens_evaluated"] += (completion.prompt_tokens or 0) - reused
            return Step(completion.text, completion.completion_tokens, completion.finish_reason,
                        completion.prompt_tokens, completion.latency_s)

        completion = guided_decode(task, continue_text, sampling.max_tokens, self._think, self.config.max_calls,
                                 steps=self._steps)
        return dataclasses.replace(completion, metadata={
            **completion.metadata, **counts, "prefix_cache": self.config.prefix_cache})

    def _generate(self, prompt: PlannerPrompt, n: int, sampling: Sampling,
                  grammar: str | None = None) -> list[Completion]:
        messages = [message.as_dict() for message in prompt.messages]
        inputs = self.tokenizer.apply_chat_template(
            messages,
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
            **self.config.chat_template_kwargs,
        ).to(self.device)
        return self._run(inputs, n, sampling, grammar)

    def _run(self, inputs: Any, n: int, sampling: Sampling, grammar: str | None,
             reuse: bool = False) -> list[Completion]:
        """Generate after ``inputs``. With ``reuse`` (one sequence: guided decoding's lines), the
        KV cache of the previous such call is continued over the longest common token prefix,
        so only the tokens after it are evaluated; the cache of this sequence is kept for the next."""
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
        if grammar is not None:
            validate_gbnf(grammar)
            processors: list[Any] = [_GrammarLogitsProcessor(self._ll_tokenizer, grammar, sequences_to_generate)]
            if not sampling.is_greedy:
                # The mask must come before top-p (which could otherwise keep only forbidden
                # tokens), so the warpers follow it here and the built-in ones are switched off.
                processors += [transformers.TemperatureLogitsWarper(sampling.temperature),
                               transformers.TopPLogitsWarper(sampling.top_p)]
                options.update(temperature=1.0, top_p=1.0, top_k=0)
            options["logits_processor"] = transformers.LogitsProcessorList(processors)
        reused = 0
        cache = None
        started = time.perf_counter()
        with torch.inference_mode():
            if reuse:
                if sequences_to_generate != 1:
                    raise ValueError("the prefix cache holds one sequence")
                # handed over: a generation that raises leaves no half-written cache behind
                cache, reused = self._take_prefix(inputs["input_ids"][0].tolist())
                options[self._cache_kwarg] = cache
            output = self.model.generate(**inputs, **options)
        elapsed = time.perf_counter() - started
        if cache is not None:
            row = output[0].tolist()
            cached = cache.get_seq_length()
            # generate fills the given cache in place: the prompt and every new token but the last
            self._prefix = _PrefixCache(row[:cached], cache) if 0 < cached <= len(row) else None
        completions = [
            self._completion(row[prompt_length:].tolist(), prompt_length, sampling, elapsed) for row in output
        ]
        if reuse:
            completions = [dataclasses.replace(c, metadata={**c.metadata, "prompt_tokens_reused": reused})
                           for c in completions]
        if sampling.is_greedy:
            completions = completions * n
        return completions

    def _take_prefix(self, ids: list[int]) -> tuple[Any, int]:
        """The kept cache cropped to its longest common token prefix with ``ids`` (at most all but
        the last token, whose logits generation needs), and that length; a fresh cache and 0 when
        nothing is shared. The kept cache is handed over (the caller's generation extends it)."""
        prefix, self._prefix = self._prefix, None
        if prefix is not None:
            common = min(common_prefix_length(prefix.ids, ids), len(ids) - 1)
            if common > 0:
                excess = prefix.cache.get_seq_length() - common
                if excess > 0:
                    prefix.cache.crop(-excess)  # a negative count removes that many tokens at the end
                if prefix.cache.get_seq_length() == common:
                    return prefix.cache, common
        return DynamicCache(config=self.model.config), 0

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


def _cache_kwarg(model: Any) -> str:
    """The name under which ``generate`` takes a KV cache: ``cache`` in newer transformers 5.x
    (which deprecates ``past_key_values``), ``past_key_values`` before."""
    parameters = inspect.signature(model.prepare_inputs_for_generation).parameters
    return "cache" if "cache" in parameters else "past_key_values"


#: Text whose token ids llguidance must read back byte for byte before it masks anything: line
#: breaks, indentation and the answer's punctuation are where a misread vocabulary shows.
_TOKENIZER_PROBE = "<answer><code>\n  navigate(apple_1)\n  pick_up(apple_1)\n</code></answer> é"


def _llguidance_tokenizer(tokenizer: Any, eos_token_ids: list[int]) -> Any:
    """llguidance's view of the tokenizer, checked against it on :data:`_TOKENIZER_PROBE`.

    transformers 5.17 converts a GGUF's byte-level BPE tokenizer (SmolLM2's) with a decoder chain
    (ByteFallback, Fuse, Replace, ByteLevel) that llguidance does not read as byte-level, so it
    takes "Ċ" for the two bytes of that letter instead of a line break; every grammar then fails
    at the first newline (seen on a GPU machine, docs/results.md "GPU check"). Such a tokenizer is
    handed over with its decoder set to the ByteLevel its pre-tokenizer implies; one that still
    reads differently is refused rather than left to mask the wrong tokens."""
    try:
        import llguidance
        import llguidance.hf
    except ImportError:
        raise StructuredOutputUnsupportedError(
            "grammar and guided decoding with transformers need the 'llguidance' package: "
            "pip install 'symplan[llm]'") from None
    try:
        ll_tokenizer = llguidance.hf.from_tokenizer(tokenizer, eos_token=eos_token_ids)
    except ValueError as exc:  # a slow (non-Rust) tokenizer
        raise StructuredOutputUnsupportedError(f"llguidance cannot use this tokenizer: {exc}") from None
    probe_ids = tokenizer.encode(_TOKENIZER_PROBE, add_special_tokens=False)
    if _reads_back(ll_tokenizer, probe_ids):
        return ll_tokenizer
    spec = json.loads(tokenizer.backend_tokenizer.to_str())
    if (spec.get("pre_tokenizer") or {}).get("type") == "ByteLevel":
        spec["decoder"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
        spec["padding"] = spec["truncation"] = None
        ll_tokenizer = llguidance.LLTokenizer(json.dumps(spec), eos_token=eos_token_ids)
        if _reads_back(ll_tokenizer, probe_ids):
            return ll_tokenizer
    raise StructuredOutputUnsupportedError(
        "llguidance reads this tokenizer's tokens as other bytes than the tokenizer does "
        f"({_TOKENIZER_PROBE!r} comes back as {ll_tokenizer.decode_bytes(probe_ids)!r}; decoder "
        f"{json.dumps(spec.get('decoder'))[:200]}), so a grammar would mask the wrong tokens")


def _reads_back(ll_tokenizer: Any, token_ids: list[int]) -> bool:
    text = bytes(ll_tokenizer.decode_bytes(token_ids))
    expected = _TOKENIZER_PROBE.encode()
    return text in (expected, b" " + expected)  # SentencePiece vocabularies add a leading space


class _GrammarLogitsProcessor(transformers.LogitsProcessor):
    """llguidance's token masks applied to transformers' generation: one matcher per sequence;
    each step feeds it the token just sampled and lets llguidance fill and apply the mask."""

    def __init__(self, ll_tokenizer: Any, grammar: str, batch: int) -> None:
        import llguidance
        import llguidance.numpy

        lark = llguidance.grammar_from("gbnf", grammar)
        self.matchers = [llguidance.LLMatcher(ll_tokenizer, lark, log_level=0) for _ in range(batch)]
        self.bitmask = llguidance.numpy.allocate_token_bitmask(batch, ll_tokenizer.vocab_size)
        self._prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        import llguidance.numpy
        import llguidance.torch

        if self._prompt_length is None:
            self._prompt_length = int(input_ids.shape[1])
        else:
            for row, matcher in enumerate(self.matchers):
                if not matcher.is_stopped():
                    matcher.consume_token(int(input_ids[row, -1]))
        for row, matcher in enumerate(self.matchers):
            if matcher.is_error():
                raise GrammarNotEnforcedError(f"llguidance matcher error: {matcher.get_error()}")
            llguidance.numpy.fill_next_token_bitmask(matcher, self.bitmask, row)
        if scores.device.type == "cpu" and scores.dtype == torch.float32:
            llguidance.numpy.apply_token_bitmask_inplace(scores.numpy(), self.bitmask)
        else:
            llguidance.torch.apply_token_bitmask_inplace(scores, torch.from_numpy(self.bitmask).to(scores.device))
        return scores


def _converted_directory(location: ResolvedModel, dtype: torch.dtype) -> Path:
    gguf_path = location.directory / str(location.gguf_file)
    return location.directory / f"{gguf_path.stem}.converted-{str(dtype).removeprefix('torch.')}"


def hf_model_directory(model_path: str, gguf_file: str | None = None, dtype: str = "float32") -> Path:
    """A regular Hugging Face model directory for a ``transformers:`` target (what trainers and
    tokenizers load): the directory itself, or for a GGUF model its de-quantised copy, converted
    once and cached beside it like the backend does."""
    location = resolve_model_location(model_path, gguf_file)
    if location.gguf_file is None:
        return location.directory
    converted = _converted_directory(location, getattr(torch, dtype))
    stamp = _conversion_stamp(location.directory / location.gguf_file)
    if _read_stamp(converted) != stamp:
        _load_tokenizer_and_model(location, getattr(torch, dtype), cache_conversion=True)
    if _read_stamp(converted) != stamp:
        raise ModelNotFoundError(f"could not write the de-quantised copy of {location.gguf_file} to {converted}")
    return converted


def _load_tokenizer_and_model(location: ResolvedModel, dtype: torch.dtype, cache_conversion: bool) -> tuple:
    if location.gguf_file is None:
        return _from_pretrained(location.directory, dtype)
    gguf_path = location.directory / location.gguf_file
    converted = _converted_directory(location, dtype)
    stamp = _conversion_stamp(gguf_path)
    if cache_conversion and _read_stamp(converted) == stamp:
        return _from_pretrained(converted, dtype)
    tokenizer, model = _from_pretrained(location.directory, dtype, gguf_file=location.gguf_file)
    if cache_conversion:
        _save_conversion(tokenizer, model, converted, stamp)
    return tokenizer, model


def _from_pretrained(directory: Path, dtype: torch.dtype, **options: Any) -> tuple:
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True, **options)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=dtype, local_files_only=True, **options)
    return tokenizer, model


def _conversion_stamp(gguf_path: Path) -> dict[str, Any]:
    status = gguf_path.stat()
    return {
        "gguf": gguf_path.name,
        "size": status.st_size,
        "mtime_ns": status.st_mtime_ns,
        "transformers": transformers.__version__,
    }


def _read_stamp(converted: Path) -> dict[str, Any] | None:
    try:
        return json.loads((converted / _STAMP_NAME).read_text())
    except (OSError, ValueError):
        return None


def _save_conversion(tokenizer: Any, model: Any, converted: Path, stamp: dict[str, Any]) -> None:
    """Keep the de-quantised weights: loading them takes ~1 s instead of 20-60 s of conversion.

    Written to a scratch directory and renamed, so a concurrent or interrupted save never
    leaves a half-written model behind a valid stamp. A read-only model directory just means
    no cache.
    """
    scratch = converted.with_name(f"{converted.name}.partial-{os.getpid()}")
    try:
        shutil.rmtree(scratch, ignore_errors=True)
        tokenizer.save_pretrained(scratch)
        # transformers refuses save_pretrained on a GGUF-loaded model, although its weights are
        # plain tensors by now: write config (without the GGUF marker) and weights directly.
        model_config = model.config.to_dict()
        model_config.pop("quantization_config", None)
        (scratch / "config.json").write_text(json.dumps(model_config, indent=2))
        model.generation_config.save_pretrained(scratch)
        save_model(model, str(scratch / "model.safetensors"))
        (scratch / _STAMP_NAME).write_text(json.dumps(stamp))
        shutil.rmtree(converted, ignore_errors=True)
        os.replace(scratch, converted)
    except (OSError, ValueError, RuntimeError) as exc:
        _log.warning("could not cache the converted GGUF model in %s: %s", converted, exc)
        shutil.rmtree(scratch, ignore_errors=True)


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
        raise BackendUnavailableError("device=cuda requested but torch sees no CUDA device "
                                      f"(torch {torch.__version__}); use device=cpu or a CUDA build of torch")
    return torch.device(requested)


def _pick_dtype(requested: str, device: torch.device) -> torch.dtype:
    if requested != "auto":
        return getattr(torch, requested)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32
