"""The simulated world the skill and camera simulators share (no rclpy; the bench uses it too).

The skill simulator executes subgoals on an engine :class:`State`; :func:`world_problem` turns that
state into the BDDL problem a camera would see (its support, containment, next-to and state facts;
what the robot holds rests on the robot, where an overhead camera sees it), and
:class:`WorldCamera` renders it with :func:`symplan_core.perception.rigs.render_task`, keeping every
thing's fiducial tag id across re-renders so the detector's map stays right. Faults a real
controller makes without saying so (:func:`execute`): ``nothing`` (report success, change nothing)
and ``other`` (do the same action on other objects, :func:`other_call`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from symplan_core.bddl import And, Atom, Problem
from symplan_core.bddl import Literal as BddlLiteral
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.engine import Call, CompiledTask, State, parse_plan, verify

if TYPE_CHECKING:
    from symplan_core.perception.rigs import NoiseConfig, RenderedTask

Fault = Literal["none", "nothing", "other"]
FAULTS: tuple[str, ...] = ("none", "nothing", "other")


def world_problem(problem: Problem, task: CompiledTask, state: State) -> Problem:
    """``problem`` with ``state`` as its ``:init`` (omnigibson vocabulary), held objects on the robot."""
    base = to_omnigibson(problem)
    agent = task.world.agent
    init = []
    for lit in sorted(state.literals()):
        if lit[0] in ("holding", "grasped"):
            continue
        init.append(BddlLiteral(Atom(lit[0], tuple(lit[1:]))))
    if agent is not None:
        init += [BddlLiteral(Atom("ontop", (obj, agent))) for obj in state.held]
    have = {(lit.predicate, *lit.args) for lit in init}
    # Rooms are the problem's, not the state's: they keep the layout's floors and fixtures in place.
    init += [lit for lit in base.init if lit.predicate == "inroom" and not lit.negated
             and (lit.predicate, *lit.args) not in have]
    return Problem(base.name, "omnigibson", dict(base.objects), tuple(init), base.goal if base.goal else And(()))


def other_call(task: CompiledTask, state: State, call: Call, rng: random.Random) -> Call | None:
    """The same action on other objects that the engine accepts from ``state`` (a controller that
    picked up the wrong mug, or put it on the wrong table); None when there is none."""
    names = task.names
    objects = sorted(names.short(o) for o in task.world.objects)
    current = [names.short(a) for a in call.args]
    options = []
    for pos in range(len(current)):
        for obj in objects:
            if obj in current:
                continue
            args = list(current)
            args[pos] = obj
            options.append(f"{call.action}({', '.join(args)})")
    rng.shuffle(options)
    for text in options:
        result = verify(task, text, state=state)
        if not result.errors and result.calls:
            return result.calls[0]
    return None


def execute(task: CompiledTask, state: State, text: str, fault: Fault = "none",
            rng: random.Random | None = None) -> tuple[bool, str]:
    """Run one subgoal on ``state`` (mutated) as the simulated controller: (reported success, message).
    ``fault`` ``nothing``: success is reported, nothing changes; ``other``: the same action on
    other objects is done (when none is possible, nothing changes) and success is reported."""
    result = verify(task, text, state=state)
    if result.errors or not result.calls:
        return False, "; ".join(e.line() for e in result.errors) or "no call"
    if fault == "nothing":
        return True, "done"
    call = result.calls[0]
    if fault == "other":
        call = other_call(task, state, call, rng or random.Random(0)) or call
        if call is result.calls[0]:
            return True, "done"
    errors = [e.message for e in task.apply(state, call, trace=False).errors]
    return (False, "; ".join(errors)) if errors else (True, "done")


def parse_call(text: str) -> Call:
    (call,) = parse_plan(text).calls
    return call


class WorldCamera:
    """Renders a world problem, keeping each thing's tag id from the first render (``shown``
    starts as it: its fiducial map is the one a detector reads). A thing new to the camera takes the id of an
    unseen thing of its synset (a planner may name instances differently), else a new id."""

    def __init__(self, problem: Problem, seed: int = 0) -> None:
        from symplan_core.perception.rigs import render_task

        self.seed = seed
        self.shown: RenderedTask = render_task(problem, seed)  # the rendering the camera shows now
        self.ids = {who: marker for marker, who in self.shown.truth.items()}
        self.synsets = {who: entry.synset for who, entry in
                        ((self.shown.truth[m], e) for m, e in self.shown.fiducial_map.markers.items())}
        self.known: dict[str, int] = {}  # instance -> tag id the planner's perception gave it

    def show(self, problem: Problem, markers: Mapping[str, int] | None = None) -> RenderedTask:
        """Render ``problem`` (a changed world) with the kept tag ids; the new rendering (now ``shown``). ``markers``
        (instance -> tag id: what the planner's perception took each instance to be, from its
        provenance) wins over names: a planner may call the first-rendered pear_2 "pear_1"."""
        from symplan_core.perception.rigs import render_task

        names = set(problem.objects)
        if markers:
            self.known.update({inst: int(m) for inst, m in markers.items() if inst in names})
        ids = {inst: m for inst, m in self.known.items() if inst in names}
        used = set(ids.values())
        for who, m in self.ids.items():
            if who.startswith("room:") or (who in names and who not in ids and m not in used):
                ids[who] = m
                used.add(m)
        spare = [who for who, m in self.ids.items() if m not in used and not who.startswith("room:")]
        for inst, typ in problem.objects.items():
            if inst in ids:
                continue
            match = next((who for who in spare if self.synsets.get(who) == typ), None)
            if match is not None:
                spare.remove(match)
                ids[inst] = self.ids[match]
        self.shown = render_task(problem, self.seed, ids)
        return self.shown

    def frames(self, count: int, noise: NoiseConfig | None = None, draw: int = 0) -> list[Any]:
        """``count`` frames of the current world; ``draw`` picks another noise draw (0: the rendering's own)."""
        if not draw:
            return self.shown.frames(count, noise)
        seed = self.shown.seed
        self.shown.seed = seed * 1_000_003 + draw  # only the noise draws read it after layout
        try:
            return self.shown.frames(count, noise)
        finally:
            self.shown.seed = seed
