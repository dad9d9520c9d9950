"""Which grounded action calls fit a task, and which are executable in a state.

Queries for constrained decoding (``symplan_core.llm.grammar``): the engine tells a decoder

* :func:`typed_arguments`: per action and parameter, the objects of fitting type: those that no
  affordance check rejects (graspable, ability, substance, type). State-independent, so one
  grammar per task;
* :func:`executable_calls`: the calls whose every precondition holds in a state and that are not
  redundant (no ADDITIONAL_STEP), i.e. exactly the calls :meth:`CompiledTask.apply` would run
  without an error or warning.

Both use the compiled actions' own checks (``check_preconditions``): nothing here re-implements
a precondition. Single-argument checks prune each parameter first, so two-argument actions only
try the few pairs that can pass (``held`` and ``near`` keep those sets small).
"""

from __future__ import annotations

from itertools import product

from symplan_core.engine.errors import ErrorKind
from symplan_core.engine.execute import check_preconditions, redundant_effect
from symplan_core.engine.state import State
from symplan_core.engine.verify import CompiledTask


def _objects(task: CompiledTask) -> list[str]:
    """Objects a planner can name: every world object whose short name maps back to it."""
    names = task.names
    return [o for o in task.world.objects if names.full(names.short(o)) == o]


def typed_arguments(task: CompiledTask) -> dict[str, tuple[tuple[str, ...], ...]]:
    """action -> per parameter, the objects (full names) of fitting type for it.

    An object fits a parameter when no single-argument check on that parameter fails with
    AFFORDANCE (read on the initial state; affordance checks read only the static world).
    An action with a parameter nothing fits is left out.
    """
    state = task.initial_state()
    objects = _objects(task)
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for name, action in task.actions.items():
        per_param = []
        for position in range(len(action.spec.params)):
            checks = [check for check, idx in action.checks if idx == (position,)]
            fitting = tuple(o for o in objects if not any(
                (failure := check(task.world, state, [o], task.capacity)) is not None
                and failure.kind is ErrorKind.AFFORDANCE for check in checks))
            per_param.append(fitting)
        if all(per_param):
            out[name] = tuple(per_param)
    return out


def executable_calls(task: CompiledTask, state: State) -> list[tuple[str, tuple[str, ...]]]:
    """Every (action, full-name args) whose preconditions all hold in ``state`` and whose
    effect does not already hold, in action-spec then object order."""
    world, capacity = task.world, task.capacity
    objects = _objects(task)
    calls: list[tuple[str, tuple[str, ...]]] = []
    for name, action in task.actions.items():
        arity = len(action.spec.params)
        if any(check(world, state, [], capacity) is not None for check, idx in action.checks if not idx):
            continue
        candidates = []
        for position in range(arity):
            checks = [check for check, idx in action.checks if idx == (position,)]
            candidates.append([o for o in objects
                               if all(check(world, state, [o], capacity) is None for check in checks)])
        for args in product(*candidates):
            arguments = list(args)
            if check_preconditions(action, world, state, arguments, capacity):
                continue
            if redundant_effect(action, state, arguments) is not None:
                continue
            calls.append((name, tuple(args)))
    return calls
