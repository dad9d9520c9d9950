"""GBNF grammars of the planner's answer, generated from the compiled task.

The response format is the paper's (``symplan_core.prompts.OUTPUT_FORMAT``)::

    <think>...</think><answer><steps>
    ...
    </steps><code>
    action(arg, arg)
    </code></answer>

:func:`response_grammar` (``grammar`` decoding) admits exactly that shape, with the reasoning and
step texts free of ``<`` (so no stray tag can break the format) and every code line a call of the
task's action set on objects of fitting type and arity (:func:`typed_arguments`), written as
``name(a, b)``: the plain form the restricted parser (``engine.plan_text``) reads. Every string
the grammar admits parses with ``format_ok`` and without a PARSE, UNKNOWN_ACTION, UNKNOWN_OBJECT,
ARITY or AFFORDANCE error.

``guided`` decoding uses :func:`header_grammar` for the text up to ``<code>`` and then, line by
line, :func:`line_grammar` over the calls the engine says are executable now, plus the end of the
plan. Grammars are GBNF (llama.cpp's format); the same text is handed to llguidance (transformers)
and vLLM, which read GBNF too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from symplan_core.engine.plan_text import format_call
from symplan_core.engine.successors import typed_arguments
from symplan_core.engine.verify import CompiledTask

HEAD = "<think>"
CODE_OPEN = "</steps><code>\n"
END = "</code></answer>"
#: Characters of the ``<steps>`` text (the reasoning has its own budget, :class:`TextBudget`).
STEPS_CHARS = 1200


@dataclass(frozen=True)
class TextBudget:
    """A free-text section of the answer (``<think>`` or ``<steps>``): ``keep`` (its default
    length), ``skip`` (empty) or at most ``chars`` characters. Skipping ``<steps>`` under guided
    decoding halves a small model's answer: it otherwise writes the plan twice, once as text."""

    mode: str = "keep"
    chars: int = 0

    @classmethod
    def parse(cls, text: str) -> TextBudget:
        text = text.strip().lower()
        if text in ("keep", "skip"):
            return cls(text)
        if text.isdigit() and int(text) > 0:
            return cls("cap", int(text))
        raise ValueError(f"a text budget must be keep, skip or a number of characters, not {text!r}")

    def rule(self, keep_chars: int | None = None) -> str:
        """The GBNF body of the section (``keep_chars``: the bound ``keep`` has, None for none)."""
        if self.mode == "skip":
            return '""'
        if self.mode == "cap":
            return f"[^<]{{0,{self.chars}}}"
        return "[^<]*" if keep_chars is None else f"[^<]{{0,{keep_chars}}}"


def literal(text: str) -> str:
    """A GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _header_rules(think: TextBudget, steps: TextBudget) -> list[str]:
    return [
        f"think ::= {think.rule()}",
        f"steps ::= {steps.rule(STEPS_CHARS)}",
        f'header ::= {literal(HEAD)} think {literal("</think><answer><steps>")} steps {literal(CODE_OPEN)}',
    ]


def header_grammar(think: TextBudget = TextBudget(), steps: TextBudget = TextBudget()) -> str:
    """Everything before the first code line (``guided`` decoding's first request)."""
    return "\n".join(["root ::= header", *_header_rules(think, steps)]) + "\n"


def response_grammar(task: CompiledTask, think: TextBudget = TextBudget(), max_calls: int = 0,
                     steps: TextBudget = TextBudget()) -> str:
    """The whole answer for ``grammar`` decoding: at least one call, each of the task's action set
    on objects of fitting type (``max_calls`` > 0 bounds the number of lines)."""
    typed = typed_arguments(task)
    if not typed:
        raise ValueError("no action of the task's action set has arguments of fitting type")
    names = task.names
    sets: dict[tuple[str, ...], str] = {}  # one rule per distinct object set (shared by actions)
    rules: list[str] = []
    alternatives: list[str] = []
    for action, params in typed.items():
        parts = []
        for objects in params:
            key = tuple(names.short(o) for o in objects)
            if key not in sets:
                sets[key] = f"objs{len(sets)}"
                rules.append(f"{sets[key]} ::= " + " | ".join(literal(o) for o in key))
            parts.append(sets[key])
        body = ' ", " '.join(parts)
        rule = f"call-{len(alternatives)}"
        rules.append(f"{rule} ::= {literal(action + '(')} {body} {literal(')')}" if parts
                     else f"{rule} ::= {literal(action + '()')}")
        alternatives.append(rule)
    repeat = f"{{1,{max_calls}}}" if max_calls > 0 else "+"
    top = [
        f'root ::= header calls {literal(END)}',
        *_header_rules(think, steps),
        f"calls ::= line{repeat}",
        'line ::= call "\\n"',
        "call ::= " + " | ".join(alternatives),
    ]
    return "\n".join(top + rules) + "\n"


def line_grammar(calls: Iterable[str], allow_end: bool = True) -> str:
    """One code line of ``guided`` decoding: one of ``calls`` (call texts) and a newline, or the
    end of the plan."""
    options = [f'{literal(text)} "\\n"' for text in dict.fromkeys(calls)]
    if allow_end:
        options.append(literal(END))
    if not options:
        raise ValueError("a line grammar needs at least one call or the end of the plan")
    return "root ::= " + " | ".join(options) + "\n"


def call_texts(task: CompiledTask, calls: Sequence[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Call texts with the short names planners see."""
    return [format_call(action, [task.names.short(a) for a in args]) for action, args in calls]
