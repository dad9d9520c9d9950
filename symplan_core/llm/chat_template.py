"""A model's own chat template, rendered on the client.

``guided`` decoding over an OpenAI-compatible server continues the assistant's answer with raw
``/completions`` requests (the chat endpoint cannot continue a half-written answer), so the client
renders the chat prompt itself with the template stored in the model's GGUF file (or a Hugging
Face directory's ``tokenizer_config.json``), the same template the server's chat endpoint uses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from symplan_core.errors import BackendError


class ChatTemplateError(BackendError, LookupError):
    """No chat template could be found or rendered."""


@dataclass(frozen=True)
class ChatTemplate:
    source: str
    template: str
    bos_token: str = ""
    eos_token: str = ""

    def render(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> str:
        from jinja2 import TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        def raise_exception(message: str) -> None:
            raise TemplateError(message)

        environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        environment.globals.update(raise_exception=raise_exception,
                                   strftime_now=lambda fmt: datetime.now().strftime(fmt))
        try:
            return environment.from_string(self.template).render(
                messages=list(messages), add_generation_prompt=True, bos_token=self.bos_token,
                eos_token=self.eos_token, **kwargs)
        except TemplateError as exc:
            raise ChatTemplateError(f"the chat template of {self.source} failed: {exc}") from None


@lru_cache(maxsize=8)
def load_chat_template(source: str) -> ChatTemplate:
    """The chat template of a GGUF file, a model directory, or an installed model's name."""
    path = Path(source).expanduser()
    if not path.exists():
        from symplan_core.llm.models import ModelRegistryError, locate_model

        try:
            located = locate_model(source)
        except ModelRegistryError:
            located = None
        if located is None:
            raise ChatTemplateError(f"{source!r} is neither a model file, a model directory nor an installed model")
        path = located
    if path.is_dir():
        config = path / "tokenizer_config.json"
        ggufs = sorted(path.glob("*.gguf"))
        if config.is_file():
            data = json.loads(config.read_text(encoding="utf-8"))
            template = data.get("chat_template")
            if isinstance(template, str):
                return ChatTemplate(str(path), template, _token_text(data.get("bos_token")),
                                    _token_text(data.get("eos_token")))
        if len(ggufs) == 1:
            path = ggufs[0]
        else:
            raise ChatTemplateError(f"{path} has no chat template")
    return _from_gguf(path)


def _token_text(value: object) -> str:
    if isinstance(value, dict):
        return str(value.get("content", ""))
    return value if isinstance(value, str) else ""


def _from_gguf(path: Path) -> ChatTemplate:
    try:
        from gguf import GGUFReader
    except ImportError:
        raise ChatTemplateError("reading a GGUF chat template needs the 'gguf' package") from None
    try:
        reader = GGUFReader(str(path))
    except (OSError, ValueError) as exc:
        raise ChatTemplateError(f"cannot read {path} as GGUF: {exc}") from None
    fields = reader.fields
    if "tokenizer.chat_template" not in fields:
        raise ChatTemplateError(f"{path} stores no chat template")
    template = str(fields["tokenizer.chat_template"].contents())
    tokens = fields.get("tokenizer.ggml.tokens")

    def token(key: str) -> str:
        if tokens is None or key not in fields:
            return ""
        index = int(fields[key].contents())
        return str(tokens.contents(index))

    return ChatTemplate(str(path), template, token("tokenizer.ggml.bos_token_id"), token("tokenizer.ggml.eos_token_id"))
