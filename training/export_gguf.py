"""Export a trained model directory to GGUF, so llama.cpp serves it exactly as the base model is served.

    python training/export_gguf.py runs/sft-qwen0.5b/final --out runs/sft-qwen0.5b/model-q4_k_m.gguf
    symplan models install runs/sft-qwen0.5b/model-q4_k_m.gguf --as qwen0.5b-sft

The input is a plain Hugging Face directory with the weights (``sft.py`` writes ``OUTPUT_DIR/final``
with LoRA already merged; for an adapter saved by a multi-process run, merge it first with
``sft.py --merge-adapter``). Two steps:

1. ``convert_hf_to_gguf.py``, the converter llama.cpp ships, writes an f16 GGUF. It is taken from
   the source distribution of the installed ``llama-cpp-python`` (which vendors llama.cpp), so the
   converter and the runtime that loads the file are the same llama.cpp revision. It is fetched once
   with ``pip download`` from the package index and cached (only the converter, its ``conversion/``
   package and ``gguf-py/`` are kept); ``--converter DIR`` uses a llama.cpp checkout instead.
   The converter needs ``sentencepiece`` (``pip install -e ".[export]"``).
2. ``llama_model_quantize`` (llama.cpp's quantizer, through ``llama_cpp``) writes the requested type;
   the default ``q4_k_m`` matches the official Qwen2.5-Coder release files the base is served from,
   so a before/after comparison differs in the weights only.

``--check`` loads the result in llama.cpp and greedily generates a few tokens from a chat prompt.
A JSON report (source, converter revision, type, sizes, seconds) is written beside the output.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

QUANT_TYPES = {"q4_k_m": "LLAMA_FTYPE_MOSTLY_Q4_K_M", "q5_k_m": "LLAMA_FTYPE_MOSTLY_Q5_K_M",
               "q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0"}
CONVERTER_TYPES = ("f16", "bf16", "f32")
_KEEP = ("convert_hf_to_gguf.py", "conversion/", "gguf-py/", "LICENSE")


class ExportError(RuntimeError):
    """A clear, one-line reason the export cannot proceed."""


def llama_cpp_version() -> str:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ExportError("llama-cpp-python is not installed (make llama-server)") from exc
    return str(llama_cpp.__version__)


def default_converter_dir(version: str) -> Path:
    cache = Path(os.environ.get("SYMPLAN_CACHE", Path.home() / ".cache" / "symplan"))
    return cache / f"llama.cpp-convert-{version}"


def fetch_converter(target: Path, version: str) -> Path:
    """Extract llama.cpp's converter from the llama-cpp-python ``version`` sdist into ``target``."""
    if (target / "convert_hf_to_gguf.py").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   f"llama-cpp-python=={version}", "-d", tmp]
        done = subprocess.run(command, capture_output=True, text=True)
        sdists = list(Path(tmp).glob("llama_cpp_python-*.tar.gz"))
        if done.returncode != 0 or not sdists:
            raise ExportError(f"could not download the llama-cpp-python {version} sdist: {done.stderr.strip()[-400:]}")
        prefix = f"{sdists[0].name.removesuffix('.tar.gz')}/vendor/llama.cpp/"
        staging = Path(tmp) / "convert"
        with tarfile.open(sdists[0]) as archive:
            members = [m for m in archive.getmembers() if m.name.startswith(prefix) and (m.isfile() or m.isdir())
                       and m.name[len(prefix):].startswith(_KEEP)]
            if not any(m.name == prefix + "convert_hf_to_gguf.py" for m in members):
                raise ExportError(f"{sdists[0].name} holds no vendor/llama.cpp/convert_hf_to_gguf.py")
            for member in members:
                member.name = member.name[len(prefix):]
            archive.extractall(staging, members=members, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), target)
    return target


def _architecture(config: dict) -> str:
    """The ``architectures`` entry the converter dispatches on. A model de-quantised from a GGUF by
    transformers saves ``architectures: null``; the causal-LM class of its ``model_type`` is meant."""
    if config.get("architectures"):
        return str(config["architectures"][0])
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    model_type = config.get("model_type")
    if not isinstance(model_type, str) or model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise ExportError(f"config.json names no architecture and model_type {model_type!r} has no causal-LM class")
    return str(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type])


def check_model_dir(model_dir: Path) -> dict:
    if not (model_dir / "config.json").is_file():
        if (model_dir / "adapter_config.json").is_file():
            raise ExportError(f"{model_dir} is a LoRA adapter: merge it first "
                              "(python training/sft.py --config CONFIG --merge-adapter DIR)")
        raise ExportError(f"{model_dir} has no config.json: not a Hugging Face model directory")
    if not any(model_dir.glob("*.safetensors")) and not any(model_dir.glob("*.bin")):
        raise ExportError(f"{model_dir} holds no weights (*.safetensors / *.bin)")
    if (model_dir / "adapter_config.json").is_file():
        raise ExportError(f"{model_dir} holds a LoRA adapter next to the weights; export a merged directory")
    return json.loads((model_dir / "config.json").read_text())


def convert(model_dir: Path, out: Path, outtype: str, converter: Path) -> None:
    """Run llama.cpp's converter on a staging copy (links, plus config.json with its architecture)."""
    config = check_model_dir(model_dir)
    config["architectures"] = [_architecture(config)]
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / model_dir.name
        staging.mkdir()
        for item in model_dir.iterdir():
            if item.name != "config.json":
                (staging / item.name).symlink_to(item.resolve())
        (staging / "config.json").write_text(json.dumps(config, indent=2))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(converter / "gguf-py"),
                                                                          os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, str(converter / "convert_hf_to_gguf.py"), str(staging),
                   "--outtype", outtype, "--outfile", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0 or not out.is_file():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise ExportError(f"convert_hf_to_gguf.py failed (exit {done.returncode}):\n{tail}")


def quantize(source: Path, out: Path, quant: str, threads: int) -> None:
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, QUANT_TYPES[quant])
    params.nthread = threads
    status = llama_cpp.llama_model_quantize(str(source).encode(), str(out).encode(), params)
    if status != 0 or not out.is_file():
        raise ExportError(f"llama_model_quantize to {quant} failed (status {status})")


def smoke_generate(gguf: Path, threads: int, tokens: int = 16) -> str:
    """Load the GGUF in llama.cpp and greedily answer a one-line chat prompt (its chat template)."""
    from llama_cpp import Llama

    model = Llama(model_path=str(gguf), n_ctx=512, n_threads=threads, verbose=False)
    reply = model.create_chat_completion(messages=[{"role": "user", "content": "Name one kitchen object."}],
                                         max_tokens=tokens, temperature=0.0)
    if not isinstance(reply, dict):  # a stream comes back only when asked for
        raise ExportError("llama.cpp streamed an answer that was not asked to stream")
    return str(reply["choices"][0]["message"]["content"])


def export(model_dir: Path, out: Path, quant: str, converter: Path | None, threads: int, check: bool) -> dict:
    started = time.perf_counter()
    version = llama_cpp_version()
    converter = converter or fetch_converter(default_converter_dir(version), version)
    if not (converter / "convert_hf_to_gguf.py").is_file():
        raise ExportError(f"{converter} holds no convert_hf_to_gguf.py")
    out.parent.mkdir(parents=True, exist_ok=True)
    report: dict = {"source": str(model_dir.resolve()), "out": str(out), "type": quant,
                    "llama_cpp_python": version, "converter": str(converter)}
    if quant in CONVERTER_TYPES:
        convert(model_dir, out, quant, converter)
        report["convert_seconds"] = round(time.perf_counter() - started, 1)
    else:
        intermediate = out.with_name(out.name + ".f16.tmp")
        try:
            convert(model_dir, intermediate, "f16", converter)
            report["convert_seconds"] = round(time.perf_counter() - started, 1)
            report["f16_bytes"] = intermediate.stat().st_size
            quantize(intermediate, out, quant, threads)
        finally:
            intermediate.unlink(missing_ok=True)
    report["bytes"] = out.stat().st_size
    report["seconds"] = round(time.perf_counter() - started, 1)
    if check:
        report["check_reply"] = smoke_generate(out, threads)
    out.with_name(out.name + ".json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", type=Path, help="Hugging Face model directory (sft.py's OUTPUT_DIR/final)")
    parser.add_argument("--out", type=Path, required=True, help="GGUF file to write")
    parser.add_argument("--type", dest="quant", default="q4_k_m", choices=[*QUANT_TYPES, *CONVERTER_TYPES],
                        help="weight type (default q4_k_m, as the official Qwen2.5-Coder GGUFs)")
    parser.add_argument("--converter", type=Path, help="llama.cpp source directory holding convert_hf_to_gguf.py "
                        "(default: extracted once from the installed llama-cpp-python's sdist)")
    parser.add_argument("--threads", type=int, default=1, help="quantizer / check threads")
    parser.add_argument("--check", action="store_true", help="load the result in llama.cpp and generate a few tokens")
    args = parser.parse_args(argv)
    try:
        report = export(args.model_dir, args.out, args.quant, args.converter, args.threads, args.check)
    except (ExportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
