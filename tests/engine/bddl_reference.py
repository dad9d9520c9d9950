"""Drive bddl's own goal evaluator (``bddl.condition_evaluation``) over our symbolic State.

bddl evaluates a goal through a *backend*: ``backend.get_predicate_class(name)``
returns an ``AtomicFormula`` subclass whose ``_evaluate(obj...)`` reads the
simulator. No simulator is needed: the backend below answers every atom with
``State.holds``, so a comparison exercises bddl's quantifier/connective logic and
its grounding over ``object_map`` against ours, on identical atom truth.
Ground-option generation (bddl's sampler aid, truncated) is switched off.
"""

from __future__ import annotations

from collections.abc import Callable

from bddl.backend_abc import BDDLBackend
from bddl.condition_evaluation import compile_state
from bddl.logic_base import BinaryAtomicFormula, UnaryAtomicFormula
from bddl.parsing import parse_domain
from bddl.parsing import parse_problem as bddl_parse_problem

_PREDICATES = parse_domain("omnigibson")[-1]


class Obj:
    """What bddl puts in scope for an instance: it only reads ``.name``."""

    def __init__(self, name: str):
        self.name = name


def _predicate_class(name: str):
    binary = len(_PREDICATES.get(name, {"?a": 0})) == 2
    base = BinaryAtomicFormula if binary else UnaryAtomicFormula

    def _evaluate(self, *objs):
        return bool(self.backend.holds(name, tuple(o.name for o in objs)))

    def _sample(self, *args):  # pragma: no cover - never sampled
        raise NotImplementedError

    return type(f"State_{name}", (base,), {"STATE_NAME": name, "_evaluate": _evaluate, "_sample": _sample})


class StateBackend(BDDLBackend):
    """A bddl backend whose atoms are answered by ``holds(pred, args)`` (swap it per state)."""

    def __init__(self):
        self.holds: Callable[[str, tuple[str, ...]], bool] = lambda _p, _a: False
        self._classes: dict[str, type] = {}

    def get_predicate_class(self, predicate_name):
        if predicate_name not in self._classes:
            self._classes[predicate_name] = _predicate_class(predicate_name)
        return self._classes[predicate_name]


class BddlGoal:
    """A problem's goal compiled by bddl once; ``evaluate(holds)`` -> truth per top-level conjunct."""

    def __init__(self, bddl_text: str, domain: str = "omnigibson"):
        _name, self.object_map, _init, self.goal = bddl_parse_problem("x", 0, domain, predefined_problem=bddl_text)
        self.backend = StateBackend()
        scope = {inst: Obj(inst) for insts in self.object_map.values() for inst in insts}
        self.compiled = compile_state(self.goal, self.backend, scope=scope, object_map=self.object_map,
                                      generate_ground_options=False)

    def evaluate(self, holds) -> list[bool]:
        self.backend.holds = holds
        return [bool(head.evaluate()) for head in self.compiled]
