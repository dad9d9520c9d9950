"""Reading an LLM goal as the model meant it (perception.goal_mending), a cut reply's complete
conjuncts (llm_goal.complete_conjuncts), and the two refusals that came with them: a goal that
takes things out where nothing is to be taken out, and a general plural covered in part.

Each drafted goal below is Qwen 2.5-Coder 1.5B's, from the held-out untuned3 and untuned4 runs (issue 21),
over the real BEHAVIOR files of its activity."""

from __future__ import annotations

from dataclasses import replace

from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.perception.goal_grammar import compact_goal
from symplan_core.perception.goal_mending import (
    bind_named_instances,
    bind_only_instances,
    clean_of_the_dirt,
    drop_contradicted,
    drop_hedged_places,
    drop_idle_literals,
    drop_package_places,
    drop_repeats,
    drop_self_including,
    drop_self_relations,
    drop_substance_bearings,
    drop_substance_neighbours,
    drop_unasked_removals,
    drop_unnamed_floors,
    drop_unnamed_pairings,
    empty_the_sources,
    hang_on_hanging_places,
    hang_what_is_hung,
    heed_placement_words,
    hold_in_the_said_vessel,
    mend_goal,
    move_to_named_places,
    pair_with_one,
    place_reversed_removals,
    read_made_substances,
    settle_placements,
    settle_relations,
    widen_exists,
    widen_plurals,
    widen_stand_ins,
)
from symplan_core.perception.goal_reading import is_package
from symplan_core.perception.language import left_in_emptied, unasked_removals
from symplan_core.perception.llm_goal import complete_conjuncts, parse_goal
from symplan_core.perception.object_words import instruction_objects
from symplan_core.perception.verifier import DraftFacts, partial_plurals, picked_singulars, unnamed_picks
from symplan_core.tasks import load_problem


def _drafted(task: str, goal: str):
    problem = to_omnigibson(load_problem(task))
    return replace(problem, goal=parse_goal(goal, dict(problem.objects), "omnigibson"))


def _text(goal) -> str:
    return compact_goal(goal)


def test_something_set_on_a_nail_or_a_hanger_is_hung_on_it(behavior_dir) -> None:
    said = "Could you put up the wreath, the bow and some holly on those nails?"
    drafted = _drafted("b1k/decorating_outside_for_holidays", "(:goal (and (ontop ?wreath.n.01_1 ?wall_nail.n.01_1) "
                       "(forall (?wall_nail.n.01 - wall_nail.n.01) (ontop ?bow.n.08_1 ?wall_nail.n.01))))")
    goal, notes = hang_on_hanging_places(said, drafted)
    assert _text(goal) == ("(:goal (and (attached ?wreath.n.01_1 ?wall_nail.n.01_1) (forall (?wall_nail.n.01 - "
                           "wall_nail.n.01) (attached ?bow.n.08_1 ?wall_nail.n.01))))") and len(notes) == 2
    closet = _drafted("b1k/putting_clothes_into_closet", "(:goal (and (ontop ?vest.n.01_1 ?hanger.n.02_1)))")
    assert _text(hang_on_hanging_places("hang up the vest", closet)[0]) == "(:goal (and (draped ?vest.n.01_1 ?hanger.n.02_1)))"
    shelf = _drafted("b1k/decorating_outside_for_holidays", "(:goal (and (ontop ?wreath.n.01_1 ?floor.n.01_1)))")
    assert hang_on_hanging_places(said, shelf) == (shelf.goal, [])  # anywhere else, read as written


def test_a_quantifier_whose_body_names_an_instance_instead_of_its_variable_binds_it(behavior_dir) -> None:
    drafted = _drafted("b1k/clean_gas_logs", "(:goal (and (forall (?log.n.01 - log.n.01) "
                                             "(not (covered ?log.n.01_1 ?dust.n.01_1)))))")
    goal, notes = bind_named_instances("dust the logs", drafted)
    assert _text(goal) == "(:goal (and (forall (?log.n.01 - log.n.01) (not (covered ?log.n.01 ?dust.n.01_1)))))"
    assert notes and "names log.n.01_1 and never ?log.n.01" in notes[0]
    uses = _drafted("b1k/clean_gas_logs", "(:goal (and (forall (?log.n.01 - log.n.01) "
                                          "(not (covered ?log.n.01 ?dust.n.01_1)))))")
    assert bind_named_instances("dust the logs", uses) == (uses.goal, [])


def test_a_conjunct_said_twice_is_kept_once(behavior_dir) -> None:
    drafted = _drafted("b1k/remove_spots_from_linen", "(:goal (and (not (covered ?sheet.n.03_1 ?stain.n.01_1)) "
                                                      "(not (covered ?sheet.n.03_1 ?stain.n.01_1))))")
    goal, notes = drop_repeats("", drafted)
    assert _text(goal) == "(:goal (and (not (covered ?sheet.n.03_1 ?stain.n.01_1))))"
    assert notes == ["the goal said 1 conjunct(s) twice: each is kept once"]


SALMON = "Take all the salmon out of the fridge and put it in the shopping cart."
SALMON_TWICE = ("(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside ?salmon.n.03 ?shopping_cart.n.01_1)) "
                "(forall (?salmon.n.03 - salmon.n.03) (ontop ?salmon.n.03 ?electric_refrigerator.n.01_1))))")


def test_two_places_at_once_keep_the_one_the_instruction_names(behavior_dir) -> None:
    drafted = _drafted("b1k/taking_fish_out_of_freezer", SALMON_TWICE)
    goal, notes = settle_placements(SALMON, drafted)
    assert _text(goal) == ("(:goal (and (forall (?salmon.n.03 - salmon.n.03) "
                           "(inside ?salmon.n.03 ?shopping_cart.n.01_1))))")
    assert "(ontop ... electric_refrigerator.n.01) is left out" in notes[0]
    one = _drafted("b1k/taking_fish_out_of_freezer", "(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside "
                   "?salmon.n.03 ?shopping_cart.n.01_1)) (ontop ?salmon.n.03_2 ?electric_refrigerator.n.01_1)))")
    assert _text(settle_placements(SALMON, one)[0]) == ("(:goal (and (forall (?salmon.n.03 - salmon.n.03) "
                                                        "(inside ?salmon.n.03 ?shopping_cart.n.01_1))))")
    # no placement words: nothing settles which place is meant
    assert settle_placements("deal with the salmon", drafted) == (drafted.goal, [])


def test_places_of_things_some_clause_picks_are_not_settled(behavior_dir) -> None:
    # two exists clauses may speak of two different strings of lights (a right goal, kept whole)
    drafted = _drafted("b1k/hang_icicle_lights", "(:goal (and (forall (?scrub.n.01 - scrub.n.01) (exists "
                       "(?icicle_lights.n.01 - icicle_lights.n.01) (ontop ?icicle_lights.n.01 ?scrub.n.01))) (exists "
                       "(?icicle_lights.n.01 - icicle_lights.n.01) (attached ?icicle_lights.n.01 ?wall_nail.n.01_1))))")
    said = "Put the Christmas lights over the bushes and hang some on the wall nail."
    assert settle_placements(said, drafted) == (drafted.goal, [])


def test_a_pairing_with_the_scenes_one_container_is_every_one_of_a_plural(behavior_dir) -> None:
    drafted = _drafted("b1k/store_batteries", "(:goal (and (forpairs (?battery.n.02 - battery.n.02) "
                       "(?cabinet.n.01 - cabinet.n.01) (inside ?battery.n.02 ?cabinet.n.01))))")
    said = "There are a couple of loose batteries rolling around, mind sticking them in the cabinet?"
    goal, notes = pair_with_one(said, drafted)
    assert _text(goal) == "(:goal (and (forall (?battery.n.02 - battery.n.02) (inside ?battery.n.02 ?cabinet.n.01_1))))"
    assert "read as every battery.n.02 with cabinet.n.01_1" in notes[0]
    assert pair_with_one("put a battery in the cabinet", drafted) == (drafted.goal, [])  # said in the singular
    idle = _drafted("b1k/store_batteries", "(:goal (and (forpairs (?battery.n.02 - battery.n.02) "
                    "(?cabinet.n.01 - cabinet.n.01) (not (open ?cabinet.n.01)))))")
    assert pair_with_one("put the batteries in the cabinet", idle) == (idle.goal, [])  # says nothing of each battery
    hangers = _drafted("b1k/putting_clothes_into_closet", "(:goal (and (forpairs (?vest.n.01 - vest.n.01) "
                       "(?hanger.n.02 - hanger.n.02) (attached ?vest.n.01 ?hanger.n.02))))")
    assert pair_with_one("Put the vest on hangers.", hangers) == (hangers.goal, [])  # where it goes, not what
    # the one's variable is replaced inside a choice too: "recycle those glasses" left ?sink.n.01 unbound
    glasses = _drafted("b1k/dispose_of_glass", "(:goal (and (forpairs (?water_glass.n.02 - water_glass.n.02) "
                       "(?sink.n.01 - sink.n.01) (or (inside ?water_glass.n.02 ?sink.n.01) "
                       "(nextto ?water_glass.n.02 ?sink.n.01)))))")
    goal, _ = pair_with_one("recycle those glasses", glasses)
    assert _text(goal) == ("(:goal (and (forall (?water_glass.n.02 - water_glass.n.02) (or (inside ?water_glass.n.02 "
                           "?sink.n.01_1) (nextto ?water_glass.n.02 ?sink.n.01_1)))))")


def test_a_pairing_with_a_kind_nobody_named_is_left_out_beside_the_things_put_elsewhere(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: every rug on a table and every rug on the floor
    rugs_on_floor = " ".join(f"(ontop ?rug.n.01_{i} ?floor.n.01_1)" for i in (1, 2, 3))
    drafted = _drafted("b1k/installing_carpet", "(:goal (and (forpairs (?rug.n.01 - rug.n.01) (?table.n.02 - "
                       f"table.n.02) (ontop ?rug.n.01 ?table.n.02)) {rugs_on_floor}))")
    said = "Could you roll out those rugs on the floor? All three of them, please."
    goal, notes = drop_unnamed_pairings(said, drafted)
    assert _text(goal) == f"(:goal (and {rugs_on_floor}))"
    assert "which the instruction never names" in notes[0]
    # named, the pairing is what was asked; alone, it is all the goal says
    assert drop_unnamed_pairings("put each rug on a table and then on the floor", drafted) == (drafted.goal, [])
    alone = _drafted("b1k/installing_carpet", "(:goal (and (forpairs (?rug.n.01 - rug.n.01) (?table.n.02 - "
                     "table.n.02) (ontop ?rug.n.01 ?table.n.02))))")
    assert drop_unnamed_pairings(said, alone) == (alone.goal, [])


def test_a_quantified_relation_to_its_own_kind_is_left_out_beside_what_else_it_says(behavior_dir) -> None:
    drafted = _drafted("b1k/store_firewood", "(:goal (and (forall (?firewood.n.01 - firewood.n.01) (and (ontop "
                       "?firewood.n.01 ?table.n.02_1) (nextto ?firewood.n.01 ?firewood.n.01_2)))))")
    goal, notes = drop_self_including("stack the firewood", drafted)
    assert _text(goal) == "(:goal (and (forall (?firewood.n.01 - firewood.n.01) (and (ontop ?firewood.n.01 "\
                          "?table.n.02_1)))))"
    assert "(nextto ?firewood.n.01 firewood.n.01_2) left out" in notes[0]
    alone = _drafted("b1k/store_firewood", "(:goal (and (forall (?firewood.n.01 - firewood.n.01) (and (nextto "
                     "?firewood.n.01 ?firewood.n.01_2)))))")
    assert drop_self_including("stack the firewood", alone) == (alone.goal, [])  # all it says: the verifier's


def test_mending_runs_every_rewrite_and_leaves_a_right_goal_alone(behavior_dir) -> None:
    drafted = _drafted("b1k/taking_fish_out_of_freezer", "(:goal (and (forpairs (?salmon.n.03 - salmon.n.03) "
                       "(?shopping_cart.n.01 - shopping_cart.n.01) (inside ?salmon.n.03 ?shopping_cart.n.01)) "
                       "(forall (?salmon.n.03 - salmon.n.03) (ontop ?salmon.n.03 ?electric_refrigerator.n.01_1))))")
    mended = mend_goal(SALMON, drafted)
    assert _text(mended.goal) == ("(:goal (and (forall (?salmon.n.03 - salmon.n.03) "
                                  "(inside ?salmon.n.03 ?shopping_cart.n.01_1))))")
    assert len(mended.notes) == 2
    for task, instruction in (("b1k/taking_fish_out_of_freezer", SALMON),
                              ("b1k/store_batteries", "put the batteries in the cabinet"),
                              ("b1k/cook_mustard_greens", "Cook the mustard greens.")):
        released = to_omnigibson(load_problem(task))
        kept = mend_goal(instruction, released)
        assert (kept.goal, kept.notes) == (released.goal, ()), task
    assert widen_plurals("Cook the mustard greens.", to_omnigibson(load_problem("b1k/cook_mustard_greens")))[1] == []


def test_a_cut_reply_that_loops_keeps_its_complete_conjuncts() -> None:
    loop = "(:goal (and (not (covered ?sheet_1 ?stain_1))" + " (not (saturated ?sheet_1 ?water_1))" * 4 + " (not (sat"
    assert complete_conjuncts(loop) == (
        "(:goal (and (not (covered ?sheet_1 ?stain_1))" + " (not (saturated ?sheet_1 ?water_1))" * 4 + "))", 5)
    still_writing = "(:goal (and (inside ?a_1 ?b_1) (cooked ?c_1) (ontop ?d_1 ?e_1) (forpairs (?x - x"
    assert complete_conjuncts(still_writing) == (None, 0)  # new things up to the cut: unfinished
    assert complete_conjuncts("(:goal (and (cooked ?c_1)))") == (None, 0)  # it closed: not cut
    assert complete_conjuncts("no goal here") == (None, 0)


def test_a_goal_that_takes_things_out_is_refused_unless_asked(behavior_dir) -> None:
    problem = to_omnigibson(load_problem("b1k/picking_up_prescriptions"))
    out = replace(problem, goal=parse_goal("(:goal (and (forall (?pill_bottle.n.01 - pill_bottle.n.01) "
                                           "(not (inside ?pill_bottle.n.01 ?sack.n.01_1)))))",
                                           dict(problem.objects), "omnigibson"))
    said = "I need my meds from the pharmacy, could you bag up the pill bottles for me?"
    assert unasked_removals(said, out) == ["the goal takes pill_bottle.n.01 out of sack.n.01 ((not (inside ...))), "
                                           "but the instruction asks to take nothing out or off"]
    assert unasked_removals("take the pill bottles out of the bag", out) == []
    assert unasked_removals(said, problem) == []  # the released goal puts them in


SPA = "I'm putting together a pamper basket for my sister, could you drop the lotion, the perfume and the oil in it?"


def test_a_removal_where_the_instruction_places_and_takes_nothing_out_is_read_as_the_placement(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: two of the three kept out of the basket
    drafted = _drafted("b1k/make_the_ultimate_spa_basket", "(:goal (and (forall (?bottle__of__lotion.n.01 - "
                       "bottle__of__lotion.n.01) (not (inside ?bottle__of__lotion.n.01 ?wicker_basket.n.01_1))) "
                       "(forall (?bottle__of__perfume.n.01 - bottle__of__perfume.n.01) (not (inside "
                       "?bottle__of__perfume.n.01 ?wicker_basket.n.01_1))) (inside ?bottle__of__essential_oil.n.01_1 "
                       "?wicker_basket.n.01_1)))")
    goal, notes = place_reversed_removals(SPA, drafted)
    assert "not" not in _text(goal) and len(notes) == 2
    assert unasked_removals(SPA, replace(drafted, goal=goal)) == []
    # a removal word, no placement word, or a placement elsewhere: read as written
    assert place_reversed_removals("take the lotion and the perfume out of the basket", drafted) == (drafted.goal, [])
    assert place_reversed_removals("bag up the lotion and the perfume", drafted) == (drafted.goal, [])
    assert place_reversed_removals("put the lotion and the perfume on the table", drafted) == (drafted.goal, [])


def test_a_general_plural_is_every_kind_it_names(behavior_dir) -> None:
    problem = to_omnigibson(load_problem("b1k/planting_flowers"))
    dahlias = replace(problem, goal=parse_goal("(:goal (and (forall (?pottable__dahlia.n.01 - pottable__dahlia.n.01) "
                                               "(exists (?pot.n.04 - pot.n.04) (inside ?pottable__dahlia.n.01 "
                                               "?pot.n.04)))))", dict(problem.objects), "omnigibson"))
    facts = DraftFacts({i: "detection" for i in problem.objects}, instruction="pot the flowers", curated_goal=False)
    (reason,) = partial_plurals(dahlias, facts, frozenset())
    assert "the instruction says 'flowers', all 8 in the scene" in reason and "marigold" not in reason.split("only")[1]
    assert partial_plurals(problem, facts, frozenset()) == []  # the released goal pots both kinds


def test_a_plural_only_the_scene_explains_is_every_one_of_them_but_a_kind_named_in_the_plural_is_one(
        behavior_dir) -> None:
    # untuned7 terse, Qwen 1.5B: one of the four green beans, for "the beans"
    beans = _drafted("b1k/clean_green_beans", "(:goal (and (not (covered ?green_bean.n.01_1 ?dirt.n.02_1)) "
                     "(inside ?green_bean.n.01_1 ?bowl.n.01_1)))")
    facts = DraftFacts({i: "detection" for i in beans.objects}, instruction="Rinse the beans, put in bowl.",
                       curated_goal=False)
    (reason,) = partial_plurals(beans, facts, frozenset())
    assert "the instruction says 'beans', all 4 in the scene" in reason
    # "the fries" are one serving of french_fries (the released goal bags one of the scene's two)
    fries = _drafted("b1k/buying_fast_food", "(:goal (and (inside ?french_fries.n.02_1 ?shopping_basket.n.01_1)))")
    facts = DraftFacts({i: "detection" for i in fries.objects}, instruction="put the fries in the basket",
                       curated_goal=False)
    assert partial_plurals(fries, facts, frozenset()) == []


def test_a_pairing_with_fewer_of_the_other_kind_covers_only_as_many(behavior_dir) -> None:
    # "can the peaches": four peaches paired one to one with two jars, which mending leaves alone
    problem = to_omnigibson(load_problem("b1k/can_fruit"))
    paired = replace(problem, goal=parse_goal("(:goal (and (forpairs (?peach.n.03 - peach.n.03) (?hinged_jar.n.01 - "
                                              "hinged_jar.n.01) (inside ?peach.n.03 ?hinged_jar.n.01))))",
                                              dict(problem.objects), "omnigibson"))
    assert mend_goal("can the peaches", paired).goal == paired.goal
    facts = DraftFacts({i: "detection" for i in problem.objects}, instruction="can the peaches", curated_goal=False)
    assert partial_plurals(paired, facts, frozenset()) == [
        "the instruction says 'peaches', all 4 in the scene, but the drafted goal pairs them one to one with the 2 "
        "hinged_jar.n.01 (forpairs), so it covers only 2"]


def test_the_one_thing_said_of_several_in_the_scene_is_not_picked_by_the_goal(behavior_dir) -> None:
    problem = to_omnigibson(load_problem("b1k/cleaning_up_plates_and_food"))  # two bowls

    def picked(instruction: str, goal: str) -> list[str]:
        drafted = replace(problem, goal=parse_goal(goal, dict(problem.objects), "omnigibson"))
        facts = DraftFacts({i: "detection" for i in problem.objects}, instruction=instruction, curated_goal=False)
        return picked_singulars(drafted, facts, frozenset())

    one = "(:goal (and (inside ?bowl.n.01_1 ?sink.n.01_1)))"
    assert picked("put the bowl in the sink", one) == [
        "the instruction says 'the bowl', and the scene has 2 (bowl.n.01_1, bowl.n.01_2): "
        "the drafted goal picks bowl.n.01_1, but which one, or all, is not said"]
    every = "(:goal (and (forall (?bowl.n.01 - bowl.n.01) (inside ?bowl.n.01 ?sink.n.01_1))))"
    assert picked("put the bowl in the sink", every) == []
    assert picked("put a bowl in the sink", one) == []  # one was asked for
    assert picked("put the bowls in the sink", one) == []  # a plural: partial_plurals' case


def test_the_salmon_with_several_in_the_scene_is_every_one_of_them(behavior_dir) -> None:
    """"salmon" is its own plural: "the salmon" with three in the freezer is all three, and a goal
    naming the first is read as all of them."""
    problem = _drafted("b1k/taking_fish_out_of_freezer", "(:goal (and (inside ?salmon.n.03_1 ?shopping_cart.n.01_1)))")
    goal, notes = widen_plurals("move the salmon to the cart", problem)
    assert _text(goal) == "(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside ?salmon.n.03 ?shopping_cart.n.01_1))))"
    assert notes == ["the instruction says 'salmon': the goal's salmon.n.03_1 is read as every salmon.n.03 (3 in the scene)"]
    assert widen_plurals("move a salmon to the cart", problem)[1] == []


def test_one_of_several_things_the_instruction_never_names_is_not_picked_by_the_goal(behavior_dir) -> None:
    problem = to_omnigibson(load_problem("b1k/packing_hiking_equipment_into_car"))  # two biscuits

    def picked(instruction: str, goal: str) -> list[str]:
        drafted = replace(problem, goal=parse_goal(goal, dict(problem.objects), "omnigibson"))
        facts = DraftFacts({i: "detection" for i in problem.objects}, instruction=instruction, curated_goal=False,
                           instruction_objects=instruction_objects(instruction, set(problem.types)))
        return unnamed_picks(drafted, facts)

    snacks = "throw the snacks and water bottles in the backpack"  # "snacks" names nothing BEHAVIOR has
    one = "(:goal (and (inside ?biscuit.n.01_1 ?backpack.n.01_1)))"
    assert picked(snacks, one) == ["the drafted goal acts on biscuit.n.01_1, one of the scene's 2 biscuit.n.01, "
                                   "which the instruction never names: which one, or all, is not said"]
    every = "(:goal (and (forall (?biscuit.n.01 - biscuit.n.01) (inside ?biscuit.n.01 ?backpack.n.01_1))))"
    assert picked(snacks, every) == []
    assert picked("put a biscuit in the backpack", one) == []  # named: picked_singulars' case, if any


def test_a_plural_no_object_is_called_is_the_kind_the_goal_puts_at_its_place(behavior_dir) -> None:
    """"the snacks" names nothing BEHAVIOR has; a goal that puts one of the two biscuits where the
    snacks go read the word as biscuits, and the plural asks for both."""
    snacks = "throw the snacks and water bottles in the backpack"
    one = _drafted("b1k/packing_hiking_equipment_into_car", "(:goal (and (inside ?biscuit.n.01_1 ?backpack.n.01_1) "
                   "(forall (?water_bottle.n.01 - water_bottle.n.01) (inside ?water_bottle.n.01 ?backpack.n.01_1))))")
    goal, notes = widen_stand_ins(snacks, one)
    assert _text(goal) == ("(:goal (and (forall (?biscuit.n.01 - biscuit.n.01) (inside ?biscuit.n.01 ?backpack.n.01_1)) "
                           "(forall (?water_bottle.n.01 - water_bottle.n.01) (inside ?water_bottle.n.01 ?backpack.n.01_1))))")
    assert notes == ["the instruction says 'snacks', which names nothing here, in the backpack: the goal's "
                     "biscuit.n.01_1, put there, is read as every biscuit.n.01 (2 in the scene)"]
    assert widen_stand_ins("throw some snacks in the backpack", one)[1] == []  # some of them
    assert widen_stand_ins("pack the car for the hike", one)[1] == []  # no word for what goes in
    elsewhere = _drafted("b1k/packing_hiking_equipment_into_car", "(:goal (and (inside ?biscuit.n.01_1 ?car.n.01_1)))")
    assert widen_stand_ins(snacks, elsewhere)[1] == []  # not put where the snacks go


def test_a_literal_asked_both_ways_keeps_the_way_the_instruction_asks(behavior_dir) -> None:
    said = "Take all six books off the table and put them back in the bookcase."
    drafted = _drafted("b1k/re_shelving_library_books", "(:goal (and (forall (?book.n.02 - book.n.02) "
                       "(inside ?book.n.02 ?bookcase.n.01_1)) (forall (?book.n.02 - book.n.02) (not (inside "
                       "?book.n.02 ?bookcase.n.01_1))) (forall (?book.n.02 - book.n.02) (not (ontop ?book.n.02 "
                       "?table.n.02_1)))))")
    goal, notes = drop_contradicted(said, drafted)
    assert _text(goal) == ("(:goal (and (forall (?book.n.02 - book.n.02) (inside ?book.n.02 ?bookcase.n.01_1)) "
                           "(forall (?book.n.02 - book.n.02) (not (ontop ?book.n.02 ?table.n.02_1)))))")
    assert len(notes) == 1 and "is left out" in notes[0]
    # an instruction that asks neither way leaves the goal to the verifier
    assert drop_contradicted("tidy up the library", drafted) == (drafted.goal, [])


def test_a_place_related_two_ways_keeps_the_way_a_state_word_asks_for_an_instance_or_its_kind(behavior_dir) -> None:
    said = "Hang the window blind on the nail in the wall."
    drafted = _drafted("b1k/hanging_shades", "(:goal (and (attached ?window_blind.n.01_1 ?wall_nail.n.01_1) "
                       "(ontop ?window_blind.n.01_1 ?wall_nail.n.01_1)))")
    goal, notes = settle_relations(said, drafted)
    assert _text(goal) == "(:goal (and (attached ?window_blind.n.01_1 ?wall_nail.n.01_1)))" and len(notes) == 1
    assert settle_relations("put the blind on the nail", drafted) == (drafted.goal, [])  # no state word asks
    assert "(ontop" not in _text(mend_goal(said, drafted).goal)
    # an instance related one way and its kind another: every bath towel draped on the rack, and the
    # one bath towel also on top of it (Qwen 1.5B); only the instance's own literal is left out
    towels = _drafted("b1k/putting_towels_in_bathroom", "(:goal (and (forall (?bath_towel.n.01 - bath_towel.n.01) "
                      "(draped ?bath_towel.n.01 ?towel_rack.n.01_1)) (ontop ?bath_towel.n.01_1 ?towel_rack.n.01_1)))")
    goal, notes = settle_relations("Hang the bath towel and the hand towel on the towel rack.", towels)
    assert _text(goal) == ("(:goal (and (forall (?bath_towel.n.01 - bath_towel.n.01) "
                           "(draped ?bath_towel.n.01 ?towel_rack.n.01_1))))") and len(notes) == 1


def test_on_top_of_and_inside_one_place_keep_the_placement_word_or_else_inside_a_container(behavior_dir) -> None:
    both = "(:goal (and (ontop ?book.n.02_1 ?bookcase.n.01_1) (inside ?book.n.02_1 ?bookcase.n.01_1)))"
    books = _drafted("b1k/re_shelving_library_books", both)
    goal, notes = settle_relations("put the book on the bookcase", books)
    assert _text(goal) == "(:goal (and (ontop ?book.n.02_1 ?bookcase.n.01_1)))"
    assert notes == ["the goal relates book.n.02_1 to bookcase.n.01_1 in 2 ways, and the instruction asks for ontop: "
                     "(inside ...) is left out"]
    goal, notes = settle_relations("reshelve the book", books)  # neither said: a bookcase is a container
    assert _text(goal) == "(:goal (and (inside ?book.n.02_1 ?bookcase.n.01_1)))" and "is a container" in notes[0]
    # the kind's literal goes where its instance's is kept: "scrub the boat" (Qwen 1.5B, untuned3 terse)
    boat = _drafted("b1k/cleaning_boat", "(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) (inside "
                    "?swab.n.02_1 ?boat.n.01_1) (forall (?swab.n.02 - swab.n.02) (ontop ?swab.n.02 ?boat.n.01_1))))")
    goal, _ = settle_relations("scrub the boat", boat)
    assert _text(goal) == ("(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) "
                           "(inside ?swab.n.02_1 ?boat.n.01_1)))")


def test_an_exists_over_a_kind_asked_all_of_is_read_as_forall(behavior_dir) -> None:
    said = "My caps are filthy after the game. Can you run them through the wash?"
    drafted = _drafted("b1k/wash_a_baseball_cap", "(:goal (and (exists (?baseball_cap.n.01 - baseball_cap.n.01) "
                       "(not (covered ?baseball_cap.n.01 ?dirt.n.02_1)))))")
    goal, notes = widen_exists(said, drafted)
    assert _text(goal) == ("(:goal (and (forall (?baseball_cap.n.01 - baseball_cap.n.01) (not (covered "
                           "?baseball_cap.n.01 ?dirt.n.02_1)))))") and len(notes) == 1
    assert widen_exists("wash one of my caps", drafted) == (drafted.goal, [])  # a count: one is asked
    # untuned7 casual: "those letters" are the scene's envelopes (one of three mailed: accepted, wrong)
    letters = _drafted("b1k/mailing_letters", "(:goal (and (exists (?envelope.n.01 - envelope.n.01) "
                       "(inside ?envelope.n.01 ?mailbox.n.01_1))))")
    goal, _notes = widen_exists("Hey, can you drop those letters in the mailbox?", letters)
    assert _text(goal).startswith("(:goal (and (forall (?envelope.n.01 - envelope.n.01)")


def test_a_literal_relating_a_thing_to_itself_is_left_out_beside_what_else_the_goal_says(behavior_dir) -> None:
    said = "Can you pack the clippers and shears into the toolbox and leave it on the floor for me?"
    drafted = _drafted("b1k/put_togethera_basic_pruning_kit", "(:goal (and (inside ?toolbox.n.01_1 ?toolbox.n.01_1) "
                       "(inside ?shears.n.01_1 ?toolbox.n.01_1) (inside ?pruner.n.02_1 ?toolbox.n.01_1) "
                       "(ontop ?toolbox.n.01_1 ?floor.n.01_1)))")
    goal, notes = drop_self_relations(said, drafted)
    assert _text(goal) == ("(:goal (and (inside ?shears.n.01_1 ?toolbox.n.01_1) (inside ?pruner.n.02_1 "
                           "?toolbox.n.01_1) (ontop ?toolbox.n.01_1 ?floor.n.01_1)))")
    assert notes == ["(inside toolbox.n.01_1 toolbox.n.01_1) relates a thing to itself: left out"]
    alone = _drafted("b1k/put_togethera_basic_pruning_kit", "(:goal (and (inside ?toolbox.n.01_1 ?toolbox.n.01_1)))")
    assert drop_self_relations(said, alone) == (alone.goal, [])  # nothing else said: refused as written
    negated = _drafted("b1k/put_togethera_basic_pruning_kit", "(:goal (and (not (inside ?toolbox.n.01_1 "
                       "?toolbox.n.01_1)) (inside ?shears.n.01_1 ?toolbox.n.01_1)))")
    assert drop_self_relations(said, negated) == (negated.goal, [])  # true anyway, and harmless


def test_a_cleaning_agent_written_where_the_dirt_goes_is_read_as_the_dirt_that_covers_it(behavior_dir) -> None:
    # Qwen 1.5B, untuned3 terse: the soap, not the stains the glasses have, "washed off"
    glasses = _drafted("b1k/clean_wine_glasses", "(:goal (and (not (covered ?wineglass.n.01_1 ?liquid_soap.n.01_1)) "
                       "(not (covered ?wineglass.n.01_2 ?liquid_soap.n.01_1))))")
    goal, notes = clean_of_the_dirt("wash the wine glasses", glasses)
    assert _text(goal) == ("(:goal (and (not (covered ?wineglass.n.01_1 ?stain.n.01_1)) "
                           "(not (covered ?wineglass.n.01_2 ?stain.n.01_1))))")
    assert "read as rid of stain.n.01_1, which covers it" in notes[0] and len(notes) == 2
    wire = _drafted("b1k/clean_copper_wire", "(:goal (and (forall (?copper_wire.n.01 - copper_wire.n.01) "
                    "(not (covered ?copper_wire.n.01 ?lemon_juice.n.01_1)))))")
    goal, _ = clean_of_the_dirt("scrub the copper wire with lemon juice", wire)  # over a variable too
    assert _text(goal) == ("(:goal (and (forall (?copper_wire.n.01 - copper_wire.n.01) "
                           "(not (covered ?copper_wire.n.01 ?rust.n.01_1)))))")
    assert clean_of_the_dirt("put the wine glasses away", glasses) == (glasses.goal, [])  # no cleaning asked
    stained = _drafted("b1k/clean_wine_glasses", "(:goal (and (not (covered ?wineglass.n.01_1 ?stain.n.01_1))))")
    assert clean_of_the_dirt("wash the wine glasses", stained) == (stained.goal, [])  # asks something already
    jar = _drafted("b1k/clean_a_candle_jar", "(:goal (and (not (contains ?mason_jar.n.01_1 ?wax_remnant.n.01_1))))")
    goal, _ = clean_of_the_dirt("scrape the wax out and wash the jar", jar)  # the wax covers the jar, not in it
    assert _text(goal) == "(:goal (and (not (covered ?mason_jar.n.01_1 ?wax_remnant.n.01_1))))"


def test_an_unasked_removal_beside_what_else_the_goal_asks_of_that_thing_is_left_out(behavior_dir) -> None:
    toaster = _drafted("b1k/clean_a_toaster", "(:goal (and (not (covered ?toaster.n.02_1 ?crumb.n.03_1)) "
                       "(not (inside ?toaster.n.02_1 ?cabinet.n.01_1))))")
    goal, notes = drop_unasked_removals("clean the toaster", toaster)
    assert _text(goal) == "(:goal (and (not (covered ?toaster.n.02_1 ?crumb.n.03_1))))" and len(notes) == 1
    assert drop_unasked_removals("take the toaster out and clean it", toaster) == (toaster.goal, [])  # asked
    # all the goal says of the apples: the verifier's to refuse (it keeps them in the basket)
    apples = _drafted("b1k/paying_for_purchases", "(:goal (and (forall (?apple.n.01 - apple.n.01) (not (inside "
                      "?apple.n.01 ?shopping_basket.n.01_1))) (ontop ?money.n.01_1 ?checkout.n.03_1)))")
    assert drop_unasked_removals("pay for the apples", apples) == (apples.goal, [])


def test_a_place_the_instruction_names_gets_the_relation_its_words_ask_for(behavior_dir) -> None:
    # untuned3 casual, Qwen 1.5B: the firewood next to the table, for "pile it up on the table"
    firewood = _drafted("b1k/store_firewood", "(:goal (and (forall (?firewood.n.01 - firewood.n.01) (and (ontop "
                        "?firewood.n.01 ?floor.n.01_1) (nextto ?firewood.n.01 ?table.n.02_1)))))")
    said = "Somebody dumped the firewood on the floor, can you pile it up on the table instead?"
    goal, notes = heed_placement_words(said, firewood)
    assert "(ontop ?firewood.n.01 ?table.n.02_1)" in _text(goal) and "nextto" not in _text(goal)
    assert _text(mend_goal(said, firewood).goal) == (  # and the floor, which the words do not name, is left out
        "(:goal (and (forall (?firewood.n.01 - firewood.n.01) (and (ontop ?firewood.n.01 ?table.n.02_1)))))")
    # "into the cart" names a shopping cart only through the scene: the salmon go in it, not on it
    salmon = _drafted("b1k/taking_fish_out_of_freezer", "(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside "
                      "?salmon.n.03 ?electric_refrigerator.n.01_1)) (forall (?salmon.n.03 - salmon.n.03) (ontop "
                      "?salmon.n.03 ?shopping_cart.n.01_1))))")
    said = "Can you grab the salmon fillets out of the freezer and load them into the cart?"
    assert _text(mend_goal(said, salmon).goal) == (
        "(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside ?salmon.n.03 ?shopping_cart.n.01_1))))")
    assert heed_placement_words("pile it up next to the table", firewood) == (firewood.goal, [])  # as asked


def test_a_named_thing_put_elsewhere_goes_where_the_words_put_it(behavior_dir) -> None:
    # untuned4 casual, Qwen 1.5B: the basket on the floor, for "set the basket on the counter"
    said = "Could you set the basket on the counter and hand over the cash?"
    floor = _drafted("b1k/paying_for_purchases", "(:goal (and (ontop ?shopping_basket.n.01_1 ?floor.n.01_1) "
                     "(ontop ?money.n.01_1 ?checkout.n.03_1)))")
    goal, notes = move_to_named_places(said, floor)
    assert _text(goal) == ("(:goal (and (ontop ?shopping_basket.n.01_1 ?checkout.n.03_1) "
                           "(ontop ?money.n.01_1 ?checkout.n.03_1)))")
    assert notes == ["the instruction says the basket goes 'on the counter': (ontop shopping_basket.n.01_1 "
                     "floor.n.01_1) read as (ontop shopping_basket.n.01_1 checkout.n.03_1)"]
    assert move_to_named_places("Could you set the basket on the floor and pay?", floor)[1] == []  # as asked
    twice = _drafted("b1k/paying_for_purchases", "(:goal (and (ontop ?shopping_basket.n.01_1 ?floor.n.01_1) "
                     "(ontop ?shopping_basket.n.01_1 ?money.n.01_1)))")
    assert move_to_named_places(said, twice)[1] == []  # placed twice: which one was meant is not clear


def test_a_hedged_choice_of_places_beside_a_place_given_outright_is_left_out(behavior_dir) -> None:
    # untuned4 terse, Qwen 1.5B: every glass in the recycling bin, and also in or next to the sink
    hedged = _drafted("b1k/dispose_of_glass", "(:goal (and (forall (?water_glass.n.02 - water_glass.n.02) (inside "
                      "?water_glass.n.02 ?recycling_bin.n.01_1)) (forall (?water_glass.n.02 - water_glass.n.02) (or "
                      "(inside ?water_glass.n.02 ?sink.n.01_1) (nextto ?water_glass.n.02 ?sink.n.01_1)))))")
    goal, notes = drop_hedged_places("recycle those glasses", hedged)
    assert _text(goal) == ("(:goal (and (forall (?water_glass.n.02 - water_glass.n.02) (inside ?water_glass.n.02 "
                           "?recycling_bin.n.01_1))))")
    assert notes == ["the goal puts every water_glass.n.02 at one place and also at one of sink.n.01, which the "
                     "instruction does not name: that choice is left out"]
    assert drop_hedged_places("put those glasses in the sink", hedged)[1] == []  # the words name the sink
    alone = _drafted("b1k/dispose_of_glass", "(:goal (and (forall (?water_glass.n.02 - water_glass.n.02) (or "
                     "(inside ?water_glass.n.02 ?sink.n.01_1) (nextto ?water_glass.n.02 ?sink.n.01_1)))))")
    assert drop_hedged_places("recycle those glasses", alone)[1] == []  # no place given outright


def test_a_literal_that_already_holds_gives_way_to_the_goal_that_undoes_it(behavior_dir) -> None:
    # untuned4 terse, Qwen 1.5B: one book kept out of the bookcase it also puts every book in
    reshelve = _drafted("b1k/re_shelving_library_books", "(:goal (and (forall (?book.n.02 - book.n.02) (inside "
                        "?book.n.02 ?bookcase.n.01_1)) (not (inside ?book.n.02_1 ?bookcase.n.01_1))))")
    goal, notes = drop_idle_literals("reshelve these books", reshelve)
    assert _text(goal) == "(:goal (and (forall (?book.n.02 - book.n.02) (inside ?book.n.02 ?bookcase.n.01_1))))"
    assert notes == ["(not (inside book.n.02_1 bookcase.n.01_1)) already holds, and the goal undoes it "
                     "elsewhere: left out"]
    # untuned4 casual: every book left on the table, where they lie, beside every book in the bookcase
    left = _drafted("b1k/re_shelving_library_books", "(:goal (and (forall (?book.n.02 - book.n.02) (inside "
                    "?book.n.02 ?bookcase.n.01_1)) (forall (?book.n.02 - book.n.02) (ontop ?book.n.02 ?table.n.02_1))))")
    goal, _ = drop_idle_literals("put them all back on the shelves", left)
    assert _text(goal) == "(:goal (and (forall (?book.n.02 - book.n.02) (inside ?book.n.02 ?bookcase.n.01_1))))"
    every = _drafted("b1k/re_shelving_library_books", "(:goal (and (forall (?book.n.02 - book.n.02) (and (inside "
                     "?book.n.02 ?bookcase.n.01_1) (not (inside ?book.n.02 ?bookcase.n.01_1))))))")
    goal, _ = drop_idle_literals("reshelve these books", every)  # over every book, each asked true
    assert _text(goal) == "(:goal (and (forall (?book.n.02 - book.n.02) (and (inside ?book.n.02 ?bookcase.n.01_1)))))"
    kept = _drafted("b1k/re_shelving_library_books", "(:goal (and (forall (?book.n.02 - book.n.02) (ontop "
                    "?book.n.02 ?table.n.02_1))))")
    assert drop_idle_literals("leave the books", kept) == (kept.goal, [])  # nothing undoes it: the verifier's case


def test_some_of_a_kind_the_scene_has_one_of_is_that_one(behavior_dir) -> None:
    drafted = _drafted("b1k/re_shelving_library_books", "(:goal (and (exists (?bookcase.n.01 - bookcase.n.01) "
                       "(ontop ?book.n.02_1 ?bookcase.n.01))))")
    goal, notes = bind_only_instances("put the book on the shelf", drafted)
    assert _text(goal) == "(:goal (and (ontop ?book.n.02_1 ?bookcase.n.01_1)))" and len(notes) == 1
    several = _drafted("b1k/re_shelving_library_books", "(:goal (and (exists (?book.n.02 - book.n.02) "
                       "(inside ?book.n.02 ?bookcase.n.01_1))))")
    assert bind_only_instances("shelve a book", several) == (several.goal, [])  # several books: some one of them


def test_a_thing_next_to_a_substance_is_left_out(behavior_dir) -> None:
    # untuned4 casual, Qwen 1.5B: the lampshades touching the dust beside the dust wiped off them
    shades = _drafted("b1k/clean_paper_lampshades", "(:goal (and (not (covered ?lampshade.n.01_1 ?dust.n.01_1)) "
                      "(forall (?lampshade.n.01 - lampshade.n.01) (touching ?lampshade.n.01 ?dust.n.01_1))))")
    goal, notes = drop_substance_neighbours("wipe them down gently", shades)
    assert _text(goal) == "(:goal (and (not (covered ?lampshade.n.01_1 ?dust.n.01_1))))" and len(notes) == 1
    alone = _drafted("b1k/clean_paper_lampshades", "(:goal (and (touching ?lampshade.n.01_1 ?dust.n.01_1)))")
    assert drop_substance_neighbours("wipe them down", alone) == (alone.goal, [])  # all it says: refused as it is


def test_a_substance_asked_to_bear_nothing_is_left_out_beside_what_else_the_goal_says(behavior_dir) -> None:
    # untuned9 direct and casual, Qwen 1.5B: the stain kept dry beside the stain cleaned off the purse
    said = "Clean the stain off the purse using the saddle soap and a rag."
    purse = _drafted("b1k/clean_a_purse", "(:goal (and (not (covered ?stain.n.01_1 ?water.n.06_1)) "
                     "(not (covered ?bag.n.04_1 ?stain.n.01_1))))")
    goal, notes = drop_substance_bearings(said, purse)
    assert _text(goal) == "(:goal (and (not (covered ?bag.n.04_1 ?stain.n.01_1))))" and len(notes) == 1
    alone = _drafted("b1k/clean_a_purse", "(:goal (and (not (covered ?stain.n.01_1 ?water.n.06_1))))")
    assert drop_substance_bearings(said, alone) == (alone.goal, [])  # all it says: refused as it is
    wet = _drafted("b1k/clean_a_purse", "(:goal (and (covered ?stain.n.01_1 ?water.n.06_1) "
                   "(not (covered ?bag.n.04_1 ?stain.n.01_1))))")
    assert drop_substance_bearings(said, wet) == (wet.goal, [])  # a positive one stays, for the verifier


def test_a_thing_put_in_or_on_a_package_is_left_out_beside_what_else_the_goal_says(behavior_dir) -> None:
    # untuned8 and untuned9 casual, Qwen 1.5B: the curtains (the towels) in the detergent bottle
    said = "The curtains have some marks on them. Can you throw them in the wash with some detergent?"
    washed = _drafted("b1k/washing_curtains", "(:goal (and (forall (?curtain.n.01 - curtain.n.01) (inside "
                      "?curtain.n.01 ?detergent__bottle.n.01_1)) (not (covered ?curtain.n.01_1 ?stain.n.01_1))))")
    goal, notes = drop_package_places(said, washed)
    assert _text(goal) == "(:goal (and (not (covered ?curtain.n.01_1 ?stain.n.01_1))))" and len(notes) == 1
    # a thing changed from another is no package: BEHAVIOR puts feta on a half eggplant
    assert is_package("detergent__bottle.n.01") and is_package("bottle__of__soda.n.01")
    assert not is_package("half__eggplant.n.01") and not is_package("cooked__diced__chicken.n.01")


def test_what_an_emptied_thing_still_holds_goes_where_the_goal_takes_the_rest(behavior_dir) -> None:
    # untuned6 terse, Qwen 1.5B: two of the cart's six things on the checkout, the pomegranate back on the cart
    said = "unload the cart at checkout"
    part = _drafted("b1k/shopping_at_warehouse_stores", "(:goal (and (ontop ?bag__of__cream_cheese.n.01_1 "
                    "?checkout.n.03_1) (ontop ?watermelon.n.02_1 ?checkout.n.03_1) (ontop ?pomegranate.n.02_1 "
                    "?shopping_cart.n.01_1)))")
    assert left_in_emptied(said, part) == [
        "the instruction empties shopping_cart.n.01_1, but the goal takes out only 2 of its things and leaves "
        "box__of__corn_flakes.n.01_1, baguet.n.01_1, pomegranate.n.02_1, chicken.n.01_1"]
    goal, notes = empty_the_sources(said, part)
    assert _text(goal) == ("(:goal (and (ontop ?bag__of__cream_cheese.n.01_1 ?checkout.n.03_1) (ontop "
                           "?watermelon.n.02_1 ?checkout.n.03_1) (ontop ?box__of__corn_flakes.n.01_1 ?checkout.n.03_1) "
                           "(ontop ?baguet.n.01_1 ?checkout.n.03_1) (ontop ?pomegranate.n.02_1 ?checkout.n.03_1) "
                           "(ontop ?chicken.n.01_1 ?checkout.n.03_1)))")
    assert len(notes) == 1 and left_in_emptied(said, replace(part, goal=goal)) == []
    # nothing emptied in the words, or the things taken to two places: the goal is left as it is
    assert empty_the_sources("put the cheese and the watermelon on the checkout", part)[1] == []
    assert empty_the_sources("unload the cart", part)[1] == []  # where the rest goes is not said
    two = _drafted("b1k/shopping_at_warehouse_stores", "(:goal (and (ontop ?bag__of__cream_cheese.n.01_1 "
                   "?checkout.n.03_1) (ontop ?watermelon.n.02_1 ?floor.n.01_1)))")
    assert empty_the_sources(said, two)[1] == [] and left_in_emptied(said, two)


def test_a_product_asked_for_in_a_vessel_is_held_in_it(behavior_dir) -> None:
    # untuned6 terse, Qwen 1.5B: the lemonade made and held in nothing, the pitcher filled with lemon juice
    said = "make a pitcher of lemonade"
    juice = _drafted("b1k/make_lemonade", "(:goal (and (real ?lemonade.n.01_1) (contains ?pitcher.n.02_1 "
                     "?lemon_juice.n.01_1)))")
    goal, notes = hold_in_the_said_vessel(said, juice)
    assert _text(goal) == "(:goal (and (real ?lemonade.n.01_1) (contains ?pitcher.n.02_1 ?lemonade.n.01_1)))"
    assert notes == ["the instruction asks for a pitcher of lemonade: (contains pitcher.n.02_1 lemon_juice.n.01_1) "
                     "read as (contains pitcher.n.02_1 lemonade.n.01_1)"]
    bare = _drafted("b1k/make_lemonade", "(:goal (and (real ?lemonade.n.01_1)))")
    assert _text(hold_in_the_said_vessel(said, bare)[0]) == _text(goal)  # held in nothing: the vessel added
    # untuned6 casual: the juice and the sugar in the pitcher, what the lemonade is made from
    sugar = _drafted("b1k/make_lemonade", "(:goal (and (real ?lemonade.n.01_1) (contains ?pitcher.n.02_1 "
                     "?lemon_juice.n.01_1) (contains ?pitcher.n.02_1 ?granulated_sugar.n.01_1)))")
    assert _text(hold_in_the_said_vessel("would you mind whipping up a pitcher of lemonade?", sugar)[0]) == _text(goal)
    assert hold_in_the_said_vessel("make some lemonade", juice)[1] == []  # no vessel said
    assert hold_in_the_said_vessel(said, replace(juice, goal=goal))[1] == []  # held already


def test_a_thing_the_words_hang_that_the_goal_sets_on_top_is_hung_there(behavior_dir) -> None:
    # untuned6 casual, Qwen 1.5B: the flag on top of the pole, for "hang the flag over the pole"
    said = "It's a holiday tomorrow, so could you hang the flag over the pole for me?"
    on_top = _drafted("b1k/hanging_flags", "(:goal (and (attached ?pole.n.01_1 ?wall_nail.n.01_1) "
                      "(ontop ?national_flag.n.01_1 ?pole.n.01_1)))")
    goal, notes = hang_what_is_hung(said, on_top)
    assert _text(goal) == ("(:goal (and (attached ?pole.n.01_1 ?wall_nail.n.01_1) "
                           "(draped ?national_flag.n.01_1 ?pole.n.01_1)))")  # a flag drapes; a dartboard attaches
    assert notes == ["(ontop national_flag.n.01_1 pole.n.01_1) read as (draped national_flag.n.01_1 pole.n.01_1): "
                     "the instruction hangs the national flag"]
    assert hang_what_is_hung("put the flag on the pole", on_top)[1] == []  # nothing hung in the words
    assert hang_what_is_hung(said, replace(on_top, goal=goal))[1] == []  # hung already
    # untuned6 terse: the flag touching the pole, for "hang up the flag"
    touching = _drafted("b1k/hanging_flags", "(:goal (and (touching ?national_flag.n.01_1 ?pole.n.01_1)))")
    goal, _ = hang_what_is_hung("hang up the flag", touching)
    assert _text(goal) == "(:goal (and (draped ?national_flag.n.01_1 ?pole.n.01_1)))"


def test_next_to_a_place_the_words_do_not_name_is_left_out_beside_one_they_do(behavior_dir) -> None:
    # untuned6 casual, Qwen 1.5B: the honey in the cupboard and next to the counter, where it stood
    said = "Oh, the honey's still sitting out on the counter, mind popping it back in the cupboard?"
    both = _drafted("b1k/store_honey", "(:goal (and (inside ?jar__of__honey.n.01_1 ?cabinet.n.01_1) "
                    "(nextto ?jar__of__honey.n.01_1 ?countertop.n.01_1)))")
    goal, notes = settle_placements(said, both)
    assert _text(goal) == "(:goal (and (inside ?jar__of__honey.n.01_1 ?cabinet.n.01_1)))"
    assert len(notes) == 1
    assert settle_placements("put the honey in the cupboard and next to the countertop", both)[1] == []  # both named


def test_rewrites_run_again_until_the_goal_stays_so_a_mended_goal_mends_to_itself(behavior_dir) -> None:
    # untuned4 terse, Qwen 1.5B's raw draft: the hedge is under a forpairs and the placement under an
    # exists; only once pair_with_one and widen_exists make both forall is the hedge read and left out
    raw = _drafted("b1k/dispose_of_glass", "(:goal (and (forall (?water_glass.n.02 - water_glass.n.02) (not (open "
                   "?recycling_bin.n.01_1))) (exists (?water_glass.n.02 - water_glass.n.02) (inside ?water_glass.n.02 "
                   "?recycling_bin.n.01_1)) (forpairs (?water_glass.n.02 - water_glass.n.02) (?sink.n.01 - sink.n.01) "
                   "(or (inside ?water_glass.n.02 ?sink.n.01) (nextto ?water_glass.n.02 ?sink.n.01)))))")
    mended = mend_goal("recycle those glasses", raw)
    assert "sink" not in _text(mended.goal) and len(mended.notes) == 3
    again = mend_goal("recycle those glasses", replace(raw, goal=mended.goal))
    assert again.goal == mended.goal and again.notes == ()


def test_a_floor_the_words_never_name_is_left_out_beside_what_else_the_goal_asks_of_that_thing(behavior_dir) -> None:
    # untuned7 terse, Qwen 1.5B: the calculator switched off and set on the floor
    calculator = _drafted("b1k/turn_off_a_normal_school_calculator", "(:goal (and (not (toggled_on "
                          "?calculator.n.02_1)) (ontop ?calculator.n.02_1 ?floor.n.01_1)))")
    goal, notes = drop_unnamed_floors("Switch off the calculator.", calculator)
    assert _text(goal) == "(:goal (and (not (toggled_on ?calculator.n.02_1))))" and len(notes) == 1
    said = "put the calculator on the floor and switch it off"  # the floor named: as written
    assert drop_unnamed_floors(said, calculator) == (calculator.goal, [])
    # all the goal says of the envelopes: the verifier's to judge ("put the box down")
    letters = _drafted("b1k/mailing_letters", "(:goal (and (forall (?envelope.n.01 - envelope.n.01) (ontop "
                       "?envelope.n.01 ?floor.n.01_1))))")
    assert drop_unnamed_floors("Mail the three letters.", letters) == (letters.goal, [])


def test_a_substance_cooked_is_read_as_its_cooked_product_where_the_scene_can_make_it(behavior_dir) -> None:
    seeds = _drafted("b1k/toast_sunflower_seeds", "(:goal (and (cooked ?sunflower_seed.n.01_1)))")
    product = {"cooked__sunflower_seed.n.01_1": "cooked__sunflower_seed.n.01"}
    goal, (note,) = read_made_substances(seeds.goal, seeds.objects, product)
    assert _text(goal) == "(:goal (and (real ?cooked__sunflower_seed.n.01_1)))"
    assert note.startswith("(cooked sunflower_seed.n.01_1): sunflower_seed.n.01 is a substance")
    assert read_made_substances(seeds.goal, seeds.objects, {}) == (seeds.goal, [])  # nothing the scene can make
    turkey = _drafted("b1k/cook_turkey_drumsticks", "(:goal (and (cooked ?turkey_leg.n.01_1)))")
    assert read_made_substances(turkey.goal, turkey.objects, product) == (turkey.goal, [])  # a thing is cooked
    # over a quantifier: every use of the substance is its product (untuned11 direct: peas cooked in a bowl)
    peas = _drafted("b1k/cook_peas", "(:goal (and (forall (?pea.n.01 - pea.n.01) (and (cooked ?pea.n.01) "
                    "(contains ?saucepan.n.01_1 ?pea.n.01)))))")
    cooked = {"cooked__pea.n.01_1": "cooked__pea.n.01"}
    goal, (note,) = read_made_substances(peas.goal, peas.objects, cooked)
    assert _text(goal) == ("(:goal (and (and (real ?cooked__pea.n.01_1) (contains ?saucepan.n.01_1 "
                           "?cooked__pea.n.01_1))))")
    assert note.startswith("(cooked ?pea.n.01) over pea.n.01: a substance, which becomes cooked__pea.n.01")
