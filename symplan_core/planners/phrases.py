"""Plain-language steps for calls, and the paper's response format."""

from __future__ import annotations

from symplan_core.engine.verify import CompiledTask

_PHRASES = {
    "navigate": "Go to {0}.", "grasp": "Pick up {0}.", "place_on_top": "Put {0} on top of {1}.",
    "place_inside": "Put {0} inside {1}.", "place_next_to": "Put {0} next to {1}.",
    "place_under": "Put {0} under {1}.", "open": "Open {0}.", "close": "Close {0}.",
    "toggle_on": "Switch on {0}.", "toggle_off": "Switch off {0}.", "cut": "Cut {0} with the knife in hand.",
    "pour": "Pour from {0} onto {1}.", "clean": "Clean {0}.", "wait_for_cooked": "Wait until {0} is cooked.",
    "soak": "Soak {0} in {1}.", "fill": "Fill {0} with {1}.", "fold": "Fold {0}.", "unfold": "Unfold {0}.",
    "attach": "Attach {0} to {1}.", "screw": "Screw {0} onto {1}.", "overlay": "Lay {0} over {1}.",
    "drape": "Drape {0} over {1}.", "heat": "Heat {0}.", "water": "Water {0}.",
    "saturate": "Saturate {0} with {1}.", "paint": "Paint {0}.", "set_timer": "Set the timer on {0}.",
    "make": "Make {0}.", "repair": "Repair {0}.", "break_obj": "Break {0}.", "burn": "Burn {0}.",
    "ignite": "Set {0} on fire.", "patch": "Patch {0}.", "uncrimp": "Smooth out {0}.",
}


def step_text(action: str, args: list[str] | tuple[str, ...]) -> str:
    """A sentence a person can follow, e.g. ``Put candle_1 inside basket_1.``"""
    template = _PHRASES.get(action)
    if template is None or template.count("{") != len(args):
        return f"{action}({', '.join(args)})."
    return template.format(*args)


def render_response(task: CompiledTask, calls) -> str:
    """``<think>...</think><answer><steps>...</steps><code>...</code></answer>``."""
    short = [(a, [task.names.short(x) for x in args]) for a, args in calls]
    steps = "\n".join(f"{k}. {step_text(a, args)}" for k, (a, args) in enumerate(short, 1))
    code = "\n".join(f"{a}({', '.join(args)})" for a, args in short)
    hands = "both hands" if task.capacity == 2 else "one hand"
    think = f"Track the state of each object; use {hands}; open containers before placing inside."
    return f"<think>{think}</think><answer><steps>\n{steps}\n</steps><code>\n{code}\n</code></answer>"
