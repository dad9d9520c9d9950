"""Which objects can fill each place of a goal predicate (engine.goal_places), read from the action
table: a literal no action can make true for an object is never offered to a goal drafter."""

from __future__ import annotations

from symplan_core.bddl import And, Atom, Literal, Problem
from symplan_core.bddl.checks import argument_type, goal_atoms
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.engine.actions import action_set
from symplan_core.engine.goal_places import can_make, goal_places, producers, scene_needs
from symplan_core.engine.predicates import HANGING_PLACES
from symplan_core.engine.world import build_world
from symplan_core.tasks import list_tasks, load_problem

PREDICATES = ("open", "on_fire", "inside", "ontop", "filled", "covered", "folded", "cooked", "toggled_on")


def _world(task: str = "b1k/store_batteries", extra_init: tuple[Literal, ...] = ()):
    problem = to_omnigibson(load_problem(task))
    scene = Problem(problem.name, "omnigibson", dict(problem.objects), problem.init + extra_init, And(()))
    return build_world(scene, goal_evidence=False)


def test_each_place_takes_what_the_producing_actions_ability_checks_accept() -> None:
    places = goal_places(_world(), PREDICATES)
    assert places["open"] == (frozenset({"cabinet.n.01_1"}),)  # batteries and shelves do not open
    assert places["on_fire"] == (frozenset(),)  # nothing here burns: no goal may set it on fire
    batteries = frozenset({"battery.n.02_1", "battery.n.02_2"})
    # only what can be picked up is put anywhere (shelf, cabinet and floor are fixtures); only a container holds
    assert places["inside"] == (batteries, frozenset({"cabinet.n.01_1"}))
    assert places["ontop"] == (batteries, frozenset(_world().objects))  # anything solid carries it


def test_a_place_things_only_hang_on_is_still_offered_to_a_drafter_for_mending() -> None:
    # the engine sets nothing on top of a nail (bears), but a drafted (ontop ?wreath ?nail) means
    # hanging it, and goal_mending reads it so: closed off, Qwen 1.5B put the wreath on the floor
    world = _world("b1k/decorating_outside_for_holidays")
    nails = {o for o, t in world.objects.items() if t == "wall_nail.n.01"}
    places = goal_places(world, ["ontop", "attached"])
    assert nails and nails <= places["ontop"][1] and nails <= places["attached"][1]


def test_released_goals_hang_things_on_nails_and_hangers_and_set_nothing_on_them() -> None:
    # the data behind HANGING_PLACES: every released literal with a nail or a hanger in its second
    # place is that place's hanging relation, and there are many of each
    found = {typ: 0 for typ in HANGING_PLACES}
    for bench in ("b100", "b1k"):
        for name in list_tasks(bench):
            problem = load_problem(name if "/" in name else f"{bench}/{name}")
            for atom, _positive, types in goal_atoms(problem.goal):
                place = argument_type(atom.args[-1], types, problem.objects) if len(atom.args) == 2 else None
                if place in HANGING_PLACES:
                    assert atom.predicate == HANGING_PLACES[place], (problem.name, atom)
                    found[place] += 1
    assert min(found.values()) >= 10, found


def test_a_predicate_no_action_adds_is_unrestricted() -> None:
    # covered is made by pouring or overlaying and undone by cleaning: no add: effect names it
    assert "covered" not in producers(action_set("full").values())
    assert "covered" not in goal_places(_world(), PREDICATES)


def test_what_the_observed_state_proves_widens_a_place() -> None:
    # A battery seen inside the shelf proves the shelf holds things, as a task file's (inside ...) does.
    seen = (Literal(Atom("inside", ("battery.n.02_1", "shelf.n.01_1"))),)
    assert "shelf.n.01_1" in goal_places(_world(extra_init=seen), ["inside"])["inside"][1]
    assert "shelf.n.01_1" not in goal_places(_world(), ["inside"])["inside"][1]


def test_cloth_folds_and_a_cookable_food_cooks() -> None:
    world = _world("b1k/folding_sheets")
    folds = goal_places(world, ["folded", "cooked"])
    sheets = {o for o, t in world.objects.items() if t == "sheet.n.03"}
    assert sheets and sheets <= folds["folded"][0] and not sheets & folds["cooked"][0]


def test_nextto_is_symmetric_so_a_fixture_may_stand_in_either_place() -> None:
    # placing the lasagna next to the oven makes (nextto oven lasagna) true as well
    places = goal_places(_world("b1k/cook_lasagne"), ["nextto", "ontop"])
    assert "oven.n.01_1" in places["nextto"][0] and places["nextto"][0] == places["nextto"][1]
    assert places["ontop"][0] == frozenset({"lasagna.n.01_1"})  # Qwen 1.5B wrote (ontop oven lasagna)


def test_a_state_whose_every_producer_needs_what_the_scene_lacks_has_no_place() -> None:
    # the lasagna kitchen has an oven (heat) and no fridge; the battery room has neither
    lasagna = goal_places(_world("b1k/cook_lasagne"), ["cooked", "frozen"])
    assert lasagna["cooked"] == (frozenset({"lasagna.n.01_1"}),) and lasagna["frozen"] == (frozenset(),)
    seen = (Literal(Atom("inside", ("battery.n.02_1", "cabinet.n.01_1"))),)
    assert goal_places(_world(extra_init=seen), ["hot"])["hot"] == (frozenset(),)  # nothing heats
    assert "firewood.n.01_1" not in goal_places(_world("b1k/store_firewood"), ["on_fire"])["on_fire"][0]


def test_the_scene_needs_of_an_action_come_from_its_preconditions() -> None:
    specs = action_set("full")
    assert scene_needs(specs["cut"]) == ("slicer",)
    assert scene_needs(specs["ignite"]) == ("heatSource",)
    assert scene_needs(specs["place_on_top"]) == ()
    lasagna = _world("b1k/cook_lasagne")
    assert can_make(lasagna, ["cooked"]) and not can_make(lasagna, ["diced"]) and can_make(lasagna, [])


def test_contains_is_asked_of_what_can_be_filled_as_filled_is() -> None:
    # contains is derived from filled (no action adds it); Qwen 1.5B wrote (contains apple water)
    world = _world("b1k/set_up_a_bird_cage")
    places = goal_places(world, ["contains", "filled"])
    holders = places["contains"][0]
    assert holders == places["filled"][0]
    assert any(t == "bowl.n.01" for o, t in world.objects.items() if o in holders)
    assert not any(t == "apple.n.01" for o, t in world.objects.items() if o in holders)
    assert places["contains"][1] is None  # a made substance is contained without being bulk
