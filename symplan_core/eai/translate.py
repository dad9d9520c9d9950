"""Translate an EAI plan into engine calls on the dual-arm embodiment.

Per-hand bookkeeping: EAI names the hand (``LEFT_GRASP``) and PLACE/RELEASE name only the
target, so the translation remembers what each hand holds and writes the object into the
engine call. A hand that grasps while full, or places while empty, is a MISSING_STEP of
the EAI step (the engine's two anonymous hands would not notice the swapped hand).

Sliced objects: EAI splits ``peach_0`` into ``peach_0_part_0`` and ``peach_0_part_1``;
the engine keeps one object with ``(sliced peach_0)``. A part maps to its object; a part
of an object that is not sliced yet is a MISSING_STEP. When both hands hold parts of one
object the engine holds it once: it is put down when the last part is, and a state action
on a part acts on the object once.

Reachability: EAI has no navigation (everything is in reach). ``auto_navigate=False``
verifies from a state where every object is near; ``auto_navigate=True`` keeps our
mobile robot (nothing near at the start) and inserts ``navigate(x)`` before a call that
needs ``x`` near and does not have it, and reports every insertion.

Each engine call is applied to a scratch state only to make these decisions; the verdict
comes from the engine's ``verify`` on the finished call list (see ``verify.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from symplan_core.eai.actions import VOCABULARY, WASHERS, WATER_ACTIONS
from symplan_core.eai.mapping import NameMapping
from symplan_core.eai.outputs import EaiStep
from symplan_core.engine import CompiledTask, ErrorKind, Finding, State
from symplan_core.engine.plan_text import Call, format_call

_PART = re.compile(r"^(?P<whole>.+)_part_\d+$")


@dataclass
class Translation:
    calls: list[Call] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)            # EAI step of each call
    errors: list[Finding] = field(default_factory=list)    # found by the translation (EAI step index)
    warnings: list[Finding] = field(default_factory=list)
    navigates: list[dict] = field(default_factory=list)        # {"step", "target"} per inserted navigate


def start_state(task: CompiledTask, auto_navigate: bool) -> State:
    """EAI's reachability (everything near) unless navigation is planned."""
    state = task.initial_state()
    if not auto_navigate:
        state.near = frozenset(task.world.objects)
    return state


class Translator:
    def __init__(self, task: CompiledTask, mapping: NameMapping, water: str | None, auto_navigate: bool):
        self.task, self.mapping, self.water, self.auto_navigate = task, mapping, water, auto_navigate
        self.state = start_state(task, auto_navigate)
        self.hands: dict[str, str | None] = {"left": None, "right": None}   # EAI names held
        self.out = Translation()
        self.done_on_part: set[tuple[str, str]] = set()  # (engine action, whole) done via a part
        self._near_params = {name: [k for k, p in enumerate(spec.params) if f"near:{p}" in spec.pre]
                             for name, spec in task.specs.items()}

    # -- helpers -------------------------------------------------------------
    def _error(self, step: EaiStep, kind: ErrorKind, message: str, hint: str, literal: str = "") -> None:
        self.out.errors.append(Finding(step.index, step.text, kind, message, hint, literal))

    def _warn(self, step: EaiStep, message: str, literal: str = "") -> None:
        self.out.warnings.append(Finding(step.index, step.text, ErrorKind.ADDITIONAL_STEP, message,
                                             "drop this step", literal))

    def _call(self, step: EaiStep, action: str, args: list[str]) -> bool:
        """Append one engine call (after a navigate when needed); whether the engine applied it."""
        if self.auto_navigate:
            for k in self._near_params.get(action, ()):
                target = args[k]
                if target not in self.state.near and target not in self.state.held:
                    self._append(step, "navigate", [target])
                    self.out.navigates.append({"step": step.index, "target": self.mapping.scene(target)})
                    break
        return self._append(step, action, args)

    def _append(self, step: EaiStep, action: str, args: list[str]) -> bool:
        call = Call(len(self.out.calls), action, tuple(args), format_call(action, args))
        self.out.calls.append(call)
        self.out.origin.append(step.index)
        return self.task.apply(self.state, call, trace=False).applied

    def _resolve(self, step: EaiStep, name: str) -> tuple[str, bool] | None:
        """(instance, is a part) for a scene name; records UNKNOWN_OBJECT / MISSING_STEP."""
        inst = self.mapping.instance(name)
        if inst is not None:
            return inst, False
        part = _PART.match(name)
        whole = self.mapping.instance(part["whole"]) if part else None
        if part is None or whole is None:
            self._error(step, ErrorKind.UNKNOWN_OBJECT, f"no object {name!r} in this scene",
                        "use only the interactable objects of the prompt (or parts of sliced ones)")
            return None
        if not self.state.holds("sliced", (whole,)):
            self._error(step, ErrorKind.MISSING_STEP, f"{part['whole']} is not sliced, so {name} does not exist",
                        f"SLICE {part['whole']} first", f"(sliced {part['whole']})")
            return None
        return whole, True

    def _whole(self, name: str | None) -> str | None:
        if name is None:
            return None
        inst = self.mapping.instance(name)
        if inst is not None:
            return inst
        part = _PART.match(name)
        return self.mapping.instance(part["whole"]) if part else None

    def _held(self, name: str) -> str:
        """The instance of a name in a hand (resolved when it was grasped, so it exists)."""
        whole = self._whole(name)
        assert whole is not None, f"{name} was resolved when it was grasped"
        return whole

    def _other(self, hand: str) -> str:
        return "right" if hand == "left" else "left"

    # -- actions ---------------------------------------------------------------
    def step(self, step: EaiStep) -> None:
        spec = VOCABULARY[step.action]
        resolved = [self._resolve(step, name) for name in step.objects]
        targets = [t for t in resolved if t is not None]
        if len(targets) != len(resolved):
            return
        insts = [t[0] for t in targets]
        if spec.kind == "state":
            self._state_action(step, spec.ours, insts[0], targets[0][1])
            return
        hand = spec.hand
        assert hand is not None, f"{spec.name} is a hand action"
        if spec.kind == "grasp":
            self._grasp(step, hand, step.objects[0], insts[0])
        elif spec.kind in ("place", "nextto_ontop", "release"):
            self._put(step, spec.kind, hand, spec.ours, insts)
        elif spec.kind == "transfer":
            self._transfer(step, hand, spec.ours, insts[0])

    def _grasp(self, step: EaiStep, hand: str, name: str, inst: str) -> None:
        held, other = self.hands[hand], self.hands[self._other(hand)]
        if held == name or other == name:
            where = "this" if held == name else "the other"
            self._warn(step, f"{name} is already in {where} hand", f"(holding {name})")
            return
        if held is not None:
            self._error(step, ErrorKind.MISSING_STEP, f"the {hand} hand already holds {held}",
                        f"place or release {held} before grasping with the {hand} hand", f"(free {hand}_hand)")
            return
        if self._whole(other) == inst:  # the other part of an object the other hand holds
            self.hands[hand] = name
            return
        if self._call(step, "grasp", [inst]):
            self.hands[hand] = name

    def _put(self, step: EaiStep, kind: str, hand: str, ours: str, insts: list[str]) -> None:
        held = self.hands[hand]
        if held is None and kind == "release" and step.objects[0] not in self.hands.values():
            # Letting go of what is not held: the effect already holds (EAI: ADDITIONAL_STEP too).
            self._warn(step, f"the {hand} hand holds nothing; {step.objects[0]} is already released",
                       f"(not (holding {step.objects[0]}))")
            return
        if held is None:
            self._error(step, ErrorKind.MISSING_STEP, f"the {hand} hand holds nothing",
                        f"grasp something with the {hand} hand first", f"(holding {hand}_hand)")
            return
        if kind == "release" and self.mapping.instance(step.objects[0]) != self._whole(held) \
                and step.objects[0] != held:
            self._error(step, ErrorKind.MISSING_STEP, f"the {hand} hand holds {held}, not {step.objects[0]}",
                        f"release {held}, or grasp {step.objects[0]} first", f"(holding {step.objects[0]})")
            return
        whole = self._held(held)
        self.hands[hand] = None
        if self._whole(self.hands[self._other(hand)]) == whole:
            return  # the other hand still holds a part of it: the engine puts it down with that part
        args = [whole] if kind == "release" else [whole, insts[0]]
        if not self._call(step, ours, args):
            self.hands[hand] = held  # the engine refused the call: the object stays in hand
            return
        if kind == "nextto_ontop" and not self.state.holds("ontop", (whole, insts[1])):
            base = self.state.support.get(whole)
            on = self.mapping.scene(base[1]) if base else "nothing"
            self._error(step, ErrorKind.AFFORDANCE,
                        f"next to {step.objects[0]} is on {on}, not on {step.objects[1]}",
                        f"place it on {step.objects[1]} and next to something that rests there",
                        f"(ontop {self.mapping.scene(whole)} {step.objects[1]})")

    def _transfer(self, step: EaiStep, hand: str, relation: str, target: str) -> None:
        held = self.hands[hand]
        if held is None:
            self._error(step, ErrorKind.MISSING_STEP, f"the {hand} hand holds nothing to transfer from",
                        f"grasp a container with the {hand} hand first", f"(holding {hand}_hand)")
            return
        container = self._held(held)
        pieces = sorted(o for o, (_rel, base) in self.state.support.items() if base == container)
        has_substance = any(f[0] in ("filled", "contains") and f[1] == container for f in self.state.facts)
        if has_substance or not pieces:
            self._call(step, "pour", [container, target])  # the engine says so when nothing can pour
        action = "transfer_inside" if relation == "inside" else "transfer_on_top"
        for piece in pieces:
            self._call(step, action, [piece, target])

    def _state_action(self, step: EaiStep, ours: str, inst: str, via_part: bool) -> None:
        if via_part and (ours, inst) in self.done_on_part:
            return  # the same action on another part of the same object
        args = [inst]
        if ours in WATER_ACTIONS:
            if self.water is None:
                self._error(step, ErrorKind.AFFORDANCE, f"nothing in this task can be soaked, {step.objects[0]} "
                            "included", "soak only what the task's states mention as soaked")
                return
            args.append(self.water)
        applied = self._call(step, ours, args)
        if via_part:
            self.done_on_part.add((ours, inst))
        if applied and ours == "toggle_on" and self.task.world.objects.get(inst) in WASHERS:
            for obj in sorted(o for o, (rel, base) in self.state.support.items() if base == inst and rel == "inside"):
                self._append(step, "wash", [obj, inst])


def translate(task: CompiledTask, mapping: NameMapping, water: str | None, steps: list[EaiStep],
              auto_navigate: bool) -> Translation:
    translator = Translator(task, mapping, water, auto_navigate)
    for step in steps:
        translator.step(step)
    return translator.out
