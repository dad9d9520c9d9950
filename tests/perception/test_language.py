"""Language checks of a drafted goal (issue 21): the instruction's state words against the goal's
polarities, the objects it names against the goal's objects, and the drafter's verb hints.

Real BEHAVIOR files and rendered scenes; the wrong goals are the released goals of other
activities (retrieval in holdout) or scripted LLM replies."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from symplan_core.bddl import Atom, Literal
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.bddl.writer import write_formula
from symplan_core.fetch import BENCHMARKS
from symplan_core.llm import FunctionBackend
from symplan_core.perception import PerceptionConfig, make_detector, perceive
from symplan_core.perception.goal_grammar import compact_goal
from symplan_core.perception.goal_mending import widen_plurals
from symplan_core.perception.goal_reading import (
    achievable,
    another_kind,
    carried,
    goal_coverage,
    goal_types,
    idle_pairings,
    initial_facts,
    made_types,
    package_fillings,
    short_pairings,
    substance_subjects,
)
from symplan_core.perception.language import (
    floor_only,
    idle_products,
    made_elsewhere,
    presupposed_states,
    prompt_hints,
    removed_agents,
    state_conflicts,
    states_of_others,
    states_of_some,
    unapplied_agents,
    unasked_damage,
    unasked_switching,
    unmade_kinds,
    unsaid_choices,
    unserved_drinks,
)
from symplan_core.perception.llm_goal import drafter_prompt, parse_goal
from symplan_core.perception.object_words import (
    acted_on_directly,
    alternatives,
    assembled_products,
    goal_must_mention,
    goal_tools,
    held_contents,
    incidental_objects,
    ingredients,
    instruction_objects,
    measuring_containers,
    plural_mentions,
    possessed,
    requested_kinds,
    requested_products,
    scene_mentions,
    scene_reading,
    sounds_plural,
    taken_off_sources,
)
from symplan_core.perception.placements import (
    arrangements,
    asked_for_all,
    empty_places,
    misplacements,
    moved_by,
    moved_sources,
    partly_placed,
    placed_elsewhere,
    placement_words,
    requested_placements,
    reversed_placements,
    substances_placed_elsewhere,
    unfilled_containers,
    unread_moved_plurals,
)
from symplan_core.perception.rigs import render_task
from symplan_core.perception.synsets import grounds_in
from symplan_core.perception.verbs import state_words
from symplan_core.tasks import list_tasks, load_problem

HOT_TUB_ON, HOT_TUB_OFF = "b1k/turning_on_the_hot_tub", "b1k/turning_off_the_hot_tub"
GREENS = "b1k/cook_mustard_greens"


def _said(text: str) -> list[tuple[str, str, bool]]:
    return [(w.said, w.predicate, w.polarity) for w in state_words(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Turn on the hot tub.", [("turn on", "toggled_on", True)]),
    # ironing takes wrinkles off (untuned11 casual: "iron them and fold them up", drafted folded only)
    ("Iron and fold these clothes.", [("iron", "covered:wrinkle.n.01", False), ("fold", "folded", True),
                                      ("fold", "unfolded", False)]),
    ("clean the iron", [("clean", "covered", False)]),
    ("could you switch the jacuzzi off?", [("switch off", "toggled_on", False)]),
    ("hot tub on", [("hot tub on", "toggled_on", True)]),  # a thing that switches, then on/off
    ("shut off the oven", [("shut off", "toggled_on", False)]),
    ("shut the fridge", [("shut", "open", False)]),
    ("Please dust off the piano.", [("dust", "covered:dust.n.01", False)]),  # an imperative's verb, though "dust" is a noun
    ("cook the mustard greens", [("cook", "cooked", True)]),
    ("wipe the dust off the violin", [("wipe", "covered", False)]),  # "the dust" is a noun
    ("make sure the recycling bin is not open", [("open", "open", False)]),  # negated: the other way round
    ("don't open the fridge", [("open", "open", False)]),
    ("never turn off the lamp", [("turn off", "toggled_on", True)]),
    ("don't forget to close the door", [("close", "open", False)]),  # the negation is not the state word's
    ("before we light the fire, dust the logs", [("dust", "covered:dust.n.01", False)]),  # a clause of time
    ("make sure they will not break", [("break", "broken", False)]),  # asked for, though "they will"
    ("if you could wash the dishes", [("wash", "covered", False)]),  # "if": a polite request
    ("hang up the dartboard", [("hang", "attached", True), ("hang", "draped", True)]),  # either answers it
    ("just pop it in the oven until it's done", [("done", "cooked", True)]),  # done, where a heat source works
    # the state a negated leave/keep leaves its object in (untuned6 casual: "Don't leave the door open!")
    ("Don't leave the door open!", [("open", "open", False)]),
    ("make sure the fridge isn't left open", [("open", "open", False)]),
    ("never leave the oven on", [("oven on", "toggled_on", False)]),
    ("leave the door open", [("open", "open", True)]),
    ("polish the copper pot", [("polish", "covered:applied", True)]),  # every B-1K polish_* task: (covered ?x ?polish)
    ("Clean and lube the bike chain.", [("clean", "covered", False), ("lube", "covered:applied", True)]),
    ("put some lube on it", []),  # after "some": the lubricant, a name
    # a substance taken off or out of a thing, whatever the verb (untuned8 direct: the dust never removed)
    ("Brush all the dust off the top of the pool table.", [("dust off", "covered", False)]),
    ("get the stain out of the sleeping bag", [("stain out", "covered", False)]),
    ("take the string off the turkey", []),  # no substance: a thing moved, not dirt
    ("take both bottles of water out of the fridge", []),  # what the bottles hold (untuned10 direct)
    # covering with a substance or a sheet of something (untuned8 direct: the peas left without the sauce)
    ("cover them in cheese sauce", [("cover", "covered", True), ("cover", "overlaid", True)]),
    ("take the cover off the grill", []),
    # a clause of time whose subject is the robot still asks (untuned10 casual: no cooking answered it)
    ("rub the chicken with salt before you cook it", [("cook", "cooked", True)]),
    # what "make sure", "until" or "so that" holds a thing to be (opening_doors' goal said back as
    # "every door is open" had accepted B-100's locking_every_door, which closes them)
    ("Make sure that every door is open.", [("open", "open", True)]),
    ("make sure the fridge door is closed", [("closed", "open", False)]),
    ("make sure they're all folded and the stove is off", [("folded", "folded", True), ("folded", "unfolded", False),
                                                           ("stove off", "toggled_on", False)]),
    ("wipe the counter until it's clean", [("wipe", "covered", False), ("clean", "covered", False)]),
    ("rinse the mugs so that they are dry", [("rinse", "covered", False), ("dry", "saturated", False),
                                             ("dry", "covered:water.n.06", False)]),
    ("sweep up the dust", [("sweep", "covered", False)]),  # a substance swept up: dirt removed
])
def test_state_words_are_verbs_with_a_polarity(behavior_dir, text, expected) -> None:
    assert _said(text) == expected


@pytest.mark.parametrize("text", [
    "put the book on the table",  # "on" a preposition, not a switch
    "grab a clean towel",  # an adjective after a determiner
    "the piano is dusty",  # describes the scene as it is
    "put the cup close to the sink",  # near, not shut
    "put the clothes in the washing machine",  # part of an object's name
    "clean up the living room",  # tidying
    "stick them in the cabinet so they don't break",  # a clause of reason, with its own subject
    "it's going to freeze tonight",  # a forecast
    "prepare a hanging basket",  # an adjective after a determiner
    "run the dryer until it's done",  # done, but no heat source's work
    "dinner's done, could you clear the table",
    "I want to bake later",  # the speaker's own plan (untuned10 casual)
    "I'm baking a pie later",  # the speaker's own act (untuned11 casual)
    "The towels are clean now.",  # a state after "are" with no "make sure": how the scene is
    "the door is closed, the oven is off",
    "make sure nothing is left on the floor",
    # things swept up are gathered, not cleaned (untuned12 direct: a right draft refused for no cleaning)
    "Please sweep up all the pieces of broken glass and put them in the trash can.",
])
def test_words_that_are_not_state_verbs_here_say_nothing(behavior_dir, text) -> None:
    assert _said(text) == []


def test_no_released_activity_name_contradicts_its_own_goal(behavior_dir) -> None:
    checked = 0
    for bench in BENCHMARKS:
        for name in list_tasks(bench):
            problem = to_omnigibson(load_problem(f"{bench}/{name}"))
            assert state_conflicts(name.replace("_", " "), problem).conflicts == (), name
            checked += 1
    assert checked > 1000


def test_turning_off_contradicts_a_goal_that_turns_on_and_agrees_with_its_own(behavior_dir) -> None:
    on, off = (to_omnigibson(load_problem(t)) for t in (HOT_TUB_ON, HOT_TUB_OFF))
    (conflict,) = state_conflicts("turn off the hot tub", on).conflicts
    assert "'turn off'" in conflict and "(not (toggled_on ...))" in conflict
    assert state_conflicts("turn off the hot tub", off) == state_conflicts("turn on the hot tub", on)
    assert state_conflicts("turn off the hot tub", off).conflicts == ()
    both = "turn off the hot tub and then turn it on again"  # both polarities: nothing to hold it to
    assert state_conflicts(both, on).conflicts == state_conflicts(both, off).conflicts == ()


def test_cleaning_may_apply_a_cleaner_but_not_add_dirt(behavior_dir) -> None:
    lens = to_omnigibson(load_problem("b1k/clean_a_camera_lens"))  # covered with disinfectant
    assert state_conflicts("clean the camera lens", lens).conflicts == ()
    piano = to_omnigibson(load_problem("b1k/clean_a_piano"))  # (not (covered piano dust))
    dusted = state_conflicts("dust the piano", piano)
    assert dusted.conflicts == () and dusted.missing == ()


def test_disinfecting_asks_for_an_applied_covering_and_dusting_alone_does_not_answer_it(behavior_dir) -> None:
    iron = to_omnigibson(load_problem("b1k/clean_a_flat_iron"))  # disinfectant on, dust off
    assert state_conflicts("clean and disinfect the iron", iron) == state_conflicts("disinfect the iron", iron)
    assert state_conflicts("disinfect the iron", iron).missing == ()
    piano = to_omnigibson(load_problem("b1k/clean_a_piano"))  # (not (covered piano dust)) only
    assert len(state_conflicts("disinfect the piano", piano).missing) == 1
    assert state_conflicts("dust the piano", piano).missing == ()
    assert prompt_hints("disinfect the iron") == ['"disinfect" -> (covered ?x ?y)']


def test_drying_asks_water_out_or_off_and_a_stain_washed_out_does_not_answer_it(behavior_dir) -> None:
    # untuned8, every style: "wash and dry the duvets" drafted as the stains washed out, accepted, wrong
    washed = _with_goal("b1k/wash_duvets", "(:goal (and (forall (?quilt.n.01 - quilt.n.01) "
                        "(not (covered ?quilt.n.01 ?stain.n.01_1)))))")
    (missing,) = state_conflicts("wash and dry the duvets", washed).missing
    assert missing.startswith("the instruction says 'dry'") and "water.n.06" in missing
    released = to_omnigibson(load_problem("b1k/wash_duvets"))  # (not (saturated ?quilt ?water))
    assert state_conflicts("wash and dry the duvets", released).missing == ()
    pearls = to_omnigibson(load_problem("b1k/clean_pearls"))  # (not (covered ?pearl ?water))
    assert state_conflicts("Clean and dry the pearls.", pearls).missing == ()


def test_seasoning_or_glazing_asks_for_an_applied_covering(behavior_dir) -> None:
    # Qwen 1.5B's held-out direct draft for the ham, continued to name it: cooked, and never glazed
    ham = to_omnigibson(load_problem("b1k/cook_a_ham"))  # cooked, covered with salt and with glaze
    said = "Season the ham with salt, brush it with the glaze and bake it in the oven."
    assert state_conflicts(said, ham).missing == ()
    unglazed = _with_goal("b1k/cook_a_ham", "(:goal (and (cooked ?virginia_ham.n.01_1)))")
    assert [m.split(",")[0] for m in state_conflicts(said, unglazed).missing] == ["the instruction says 'season'"]
    assert state_conflicts("bake the ham", unglazed).missing == ()
    assert state_words("put the glaze in the cabinet") == []  # the noun asks nothing
    # "spray everything with disinfectant": BEHAVIOR's clean_a_vacuum covers it with disinfectant
    vacuum = to_omnigibson(load_problem("b1k/clean_a_vacuum"))
    sprayed = "The vacuum is gross, can you clean out the canister, dust it off and spray everything with disinfectant?"
    assert state_conflicts(sprayed, vacuum).missing == ()
    dusted = _with_goal("b1k/clean_a_vacuum", "(:goal (and (not (covered ?vacuum.n.04_1 ?dust.n.01_1))))")
    assert len(state_conflicts(sprayed, dusted).missing) == 1
    # "dust it off" names its dirt: the canister's debris cleaned out does not answer it (untuned3 casual)
    emptied = _with_goal("b1k/clean_a_vacuum", "(:goal (and (not (covered ?canister.n.02_1 ?debris.n.01_1)) "
                         "(covered ?vacuum.n.04_1 ?disinfectant.n.01_1)))")
    assert state_conflicts(sprayed, emptied).missing == (
        "the instruction says 'dust', which asks for (not (covered ... dust.n.01)), but the goal has none",)


def test_hints_come_from_the_engines_actions(behavior_dir) -> None:
    can = achievable()
    assert {("cooked", True), ("toggled_on", False), ("open", False), ("inside", True)} <= can
    assert ("real", True) not in can  # "make" has its own effect, not an atom
    assert prompt_hints("cook the mustard greens") == ['"cook" -> (cooked ?x)']
    assert prompt_hints("turn off the lamp and put the cup in the sink") == [
        '"turn off" -> (not (toggled_on ?x))', '"in" -> (inside ?x ?y)']
    assert prompt_hints("hot tub on") == ['"hot tub on" -> (toggled_on ?x)']  # the particle is no "on top"
    assert prompt_hints("make a green tea latte in the mug") == []  # "in": no verb that puts something there
    prompt = drafter_prompt({"hot_tub.n.02_1": "hot_tub.n.02"}, "Turn on the hot tub.", [])
    assert prompt.messages[-1].content.endswith('Words -> goal literals: "turn on" -> (toggled_on ?x)')


def test_tools_sources_and_modifiers_need_not_be_in_the_goal(behavior_dir) -> None:
    assert incidental_objects("wipe it down with a rag") == {"rag"}
    assert incidental_objects("take the clothes out of the dryer") == {"dryer"}
    assert incidental_objects("empty the trash cans") == {"trash cans"}
    assert incidental_objects("make watermelon punch") == {"watermelon"}
    assert incidental_objects("clean the mold off the stucco wall") == {"stucco"}  # the head is "wall"
    assert incidental_objects("put the cup on the table") == frozenset()
    # a modal after a name makes it the subject, not a modifier (untuned5: the straw was not asked for)
    assert incidental_objects("a couple of ice cubes and a straw would be great") == frozenset()
    assert incidental_objects("give the bracelet, ring and necklace a good wash") == frozenset()  # no compound
    # where somebody put it is where it is; "instead" is no head of a compound (untuned3 casual)
    said = "Somebody dumped the firewood on the floor, can you pile it up on the table instead?"
    assert incidental_objects(said) == {"floor"}
    assert incidental_objects("I spilled juice on the rug") == frozenset()  # what is cleaned, not where it was put
    assert "mug" not in incidental_objects("There's milk left in the mug, can you wash it?")  # nothing put there
    # a place right after a thing's name, with no verb that moves things, says which thing or where it is
    assert incidental_objects("Fold all the sheets on the bed.") == {"bed"}
    assert incidental_objects("put the sheets on the bed") == frozenset()
    assert incidental_objects("clean the stain on the shirt") == frozenset()  # where dirt is, is what is cleaned
    # what a thing is taken off is no source: "clean the dust and mold off the mop bucket and the mop"
    # names what is cleaned (untuned8 direct: read as a source, the mop went uncleaned and unrefused)
    said = "Clean the dust and mold off the mop bucket and the mop, and wash the stain out of the rag."
    assert incidental_objects(said) == frozenset()
    # what is cleared off something is moved, not emptied (untuned10 direct: the glasses were read as tools)
    said = "Please clear all the wine glasses and beer glasses off the bar and put them in or next to the sink."
    assert incidental_objects(said) == frozenset()
    assert taken_off_sources(said) == {"bar"}  # the bar they come from: a note where the scene has none
    assert taken_off_sources("turn off the lamp") == taken_off_sources("wipe the dust off the table") == frozenset()


def test_a_counted_container_of_food_or_drink_measures_it(behavior_dir) -> None:
    assert measuring_containers("Brew a pot of drip coffee and pour some into the mug.") == {"pot"}
    assert measuring_containers("Get me two cups of tea") == {"cups"}
    assert measuring_containers("Put the pot of soup on the stove") == frozenset()  # "the": that pot
    assert measuring_containers("Put a pot on the stove") == frozenset()  # nothing measured


def test_a_measuring_container_the_scene_lacks_does_not_refuse_a_goal_that_makes_the_drink(behavior_dir) -> None:
    # untuned6 and untuned8 direct: Qwen 1.5B's right drip coffee, refused for "pot" (no pot in the scene)
    scene = render_task(load_problem("b1k/make_coffee"), seed=0)
    goal = "(:goal (and (real ?drip_coffee.n.01_1) (contains ?mug.n.04_1 ?drip_coffee.n.01_1)))"
    brewed = _llm_goal(scene, "Brew a pot of drip coffee and pour some into the mug.", goal)
    assert brewed.accepted, brewed.reasons
    assert any("names 'pot' (pot.n.04) as a measure of what it holds" in n for n in brewed.provenance["notes"])
    assert not _llm_goal(scene, "Put the drip coffee in the pot.", goal).accepted  # a place, not a measure
    assert held_contents("Please take both bottles of water out of the fridge") == {"water": "bottles"}
    assert held_contents("wipe a bit of soap off it") == {}  # a measure is no thing that holds it


def test_clean_up_washes_a_thing_one_moves_and_tidies_a_place_or_fixture(behavior_dir) -> None:
    asked = {text: [(w.said, w.predicate, w.polarity) for w in state_words(text)] for text in (
        "clean up the turkey", "clean up the baseball", "clean up the yard", "clean up the table", "clean out the car")}
    assert asked == {"clean up the turkey": [("clean", "covered", False)],
                     "clean up the baseball": [("clean", "covered", False)],
                     "clean up the yard": [], "clean up the table": [], "clean out the car": []}


def test_a_state_said_of_the_world_is_not_asked(behavior_dir) -> None:
    # untuned7 casual: each of these was refused for a state word the request never asks for
    assert state_words("It's getting warm, so I won't need my fur coat for a while.") == []
    assert state_words("Looks like the laundry's dry.") == []
    assert state_words("Can you clean them off before I start cooking?")[0].said == "clean"
    assert len(state_words("Can you clean them off before I start cooking?")) == 1
    assert [w.said for w in state_words("make sure it's dry")] == ["dry", "dry"]  # asked after "make sure"


def test_everyday_names_for_what_the_scene_has(behavior_dir) -> None:
    # a tabletop is "the table", envelopes to mail are "letters" (untuned7 casual)
    assert ("table", "tabletop.n.01") in instruction_objects("leave it on the table", {"tabletop.n.01"})
    assert ("letters", "envelope.n.01") in instruction_objects("drop those letters in the mailbox",
                                                               {"envelope.n.01", "mailbox.n.01"})
    # a dish named before the making verb: "I'm craving chocolate milk. Could you mix some up?"
    said = "I'm craving chocolate milk. Could you mix some up and pour it in a glass for me?"
    assert [p.synset for p in requested_products(said, {"water_glass.n.02"})] == ["chocolate_milk.n.01"]
    assert requested_products("I love chocolate milk.", {"water_glass.n.02"}) == []
    # "some" before a name makes that name, not the dish said before it (dev casual, make_pizza_sauce)
    said = "We need sauce for the pizza, could you cook some tomato sauce in the pot?"
    assert requested_products(said, {"tomato_sauce.n.01"}) == []
    assert [m.synset for m in requested_kinds("I really need a coffee. Can you brew some?")] == ["coffee.n.01"]
    # BEHAVIOR's scrub is what people call a shrub; "pour me" a drink the scene lacks makes it (untuned7 terse)
    assert ("shrubs", "scrub.n.01") in instruction_objects("Fertilize all the shrubs.", {"scrub.n.01"})
    # the mail is "letters" too, where the scene has no envelopes (untuned9 casual)
    said = "keep the magazines and letters in the bookcase"
    assert ("letters", "mail.n.04") in instruction_objects(said, {"mail.n.04", "magazine.n.02", "bookcase.n.01"})
    pour = "Pour me a chocolate milk."
    assert [p.synset for p in requested_products(pour, {"water_glass.n.02", "low-fat_milk.n.01"})] == [
        "chocolate_milk.n.01"]
    assert requested_products("pour the wine sauce over the duck", {"wine_sauce.n.01", "duck.n.03"}) == []
    # a dish said to be wanted, in a request that cooks (untuned8 casual); not wanted alone
    craving = "I'm craving some homemade applesauce. Could you cook those apples down in the saucepan?"
    assert [p.synset for p in requested_products(craving, {"apple.n.01", "saucepan.n.01"})] == ["applesauce.n.01"]
    assert requested_products("I love applesauce.", {"apple.n.01"}) == []
    # what "make a ..." makes that is no food or drink is the result described, not a thing to find
    assert "centerpiece" in incidental_objects("Let's make a candy centerpiece. Stand the lollipops in the vase.")
    assert incidental_objects("make the bed") == frozenset() and incidental_objects("make a pitcher of lemonade") == set()
    # along the baseboards says which radiators
    assert "baseboards" in incidental_objects("The radiators along the baseboards are really dusty.")


def test_the_counter_is_the_countertop_where_the_scene_has_one_and_no_checkout(behavior_dir) -> None:
    kitchen = {"cup.n.01", "countertop.n.01"}
    assert instruction_objects("put the cups on the counter", kitchen) == [("cups", "cup.n.01"), ("counter", "countertop.n.01")]
    said = "Wipe all the dust off the knife block on the counter."  # says which block: no need to mention it
    assert "counter" in incidental_objects(scene_reading(said, {"knife_block.n.01", "countertop.n.01"}))
    shop = kitchen | {"checkout.n.03"}  # two counters: the word is not read
    assert instruction_objects("put the cups on the counter", shop) == [("cups", "cup.n.01")]


def test_a_tool_is_still_a_tool_past_the_words_that_describe_it(behavior_dir) -> None:
    # untuned5 (in the corpus, retrieval): the goal cleans the hat and the jar, and names no tool
    assert incidental_objects("Could you wipe it down with a damp rag?") == {"rag"}
    assert incidental_objects("scrape it out with a butter knife and wash the jar") == {"butter", "knife"}
    assert incidental_objects("wash it with hot soapy water") == {"water"}
    assert incidental_objects("put the apple with the pear") == frozenset()  # food after "with" is no tool
    # a measure of it: "a bit of" (untuned6 casual: the tote bags scrubbed with a bit of detergent)
    assert incidental_objects("scrub them in the sink with a bit of detergent") == {"sink", "detergent"}
    assert incidental_objects("put a bit of salt on the fish") == frozenset()
    rug = to_omnigibson(load_problem("b1k/clean_a_rug"))  # run: a tool the goal's cleaning can use
    assert goal_tools("The rug's gotten really dusty, could you run the vacuum over it?", rug) == {"vacuum"}


def test_where_the_goal_cooks_is_no_place_to_leave_things(behavior_dir) -> None:
    # untuned5: the kabobs go on the grill to cook, and end up on the plate
    said = ("Can you throw the kabobs on the grill? Oil them up and sprinkle some coriander on first, then put them "
            "on a plate when they're done.")
    released = to_omnigibson(load_problem("b1k/cook_kabobs"))
    assert empty_places(said, released) == placed_elsewhere(said, released) == []
    raw = _with_goal("b1k/cook_kabobs", "(:goal (and (forall (?kabob.n.01 - kabob.n.01) (ontop ?kabob.n.01 "
                     "?plate.n.04_1))))")  # nothing cooked: the grill is only a place
    assert placed_elsewhere(said, raw) == [
        "the instruction puts the kabobs 'on the grill', but the goal puts it only at plate.n.04_1"]


def test_a_thing_moved_to_a_named_place_and_placed_nowhere_by_the_goal_is_put_elsewhere(behavior_dir) -> None:
    # untuned9 direct, Qwen 1.5B: the kayak dried and the rack hung, the kayak put nowhere
    said = "Dry off the kayak, then hang the rack on the wall nail and put the kayak on the rack."
    dried = _with_goal("b1k/store_a_kayak", "(:goal (and (not (covered ?kayak.n.01_1 ?water.n.06_1)) "
                       "(attached ?kayak_rack.n.01_1 ?wall_nail.n.01_1)))")
    assert placed_elsewhere(said, dried) == ["the instruction puts the kayak 'on the rack', but the goal puts it nowhere"]
    assert placed_elsewhere(said, to_omnigibson(load_problem("b1k/store_a_kayak"))) == []
    # a thing the goal never names is the objects axis's business
    racked = _with_goal("b1k/store_a_kayak", "(:goal (and (attached ?kayak_rack.n.01_1 ?wall_nail.n.01_1)))")
    assert placed_elsewhere(said, racked) == []


def test_into_and_onto_place_things_whatever_the_verb_and_draped_is_no_way_to_put_on_a_wardrobe(behavior_dir) -> None:
    # untuned9 terse and casual: the doilies drafted inside the wardrobe, and draped on it
    (onto,) = placement_words("Fold the doilies onto the wardrobe.")
    assert onto.relation == "ontop" and onto.target is not None and onto.target.phrase == "wardrobe"
    assert placement_words("fold the doilies on the wardrobe") == []  # "on": where the folding happens
    draped = _with_goal("b1k/store_vintage_linens", "(:goal (and (forall (?doily.n.01 - doily.n.01) "
                        "(and (draped ?doily.n.01 ?wardrobe.n.01_1) (folded ?doily.n.01)))))")
    said = "can you fold them neatly and set them up on the wardrobe?"
    assert misplacements(said, draped) == [
        "the instruction says 'on the wardrobe', which asks for (ontop ?x ?wardrobe), but the goal has only "
        "(draped ...) there"]
    # where things hang, or on a place things drape on, draped is how they go there
    assert misplacements("hang them up on the wardrobe", draped) == []
    towels = _with_goal("b1k/putting_towels_in_bathroom", "(:goal (and (forall (?hand_towel.n.01 - hand_towel.n.01) "
                        "(draped ?hand_towel.n.01 ?towel_rack.n.01_1))))")
    assert misplacements("put the hand towels on the towel rack", towels) == []


def test_a_thing_a_cloth_is_spread_over_is_in_that_cloth(behavior_dir) -> None:
    # untuned5: the napkins overlaid on the knives and spoons, those in the cabinet
    said = "Can you roll up the silverware? Put one knife and one spoon in each napkin and stash them in the cabinet."
    assert placed_elsewhere(said, to_omnigibson(load_problem("b1k/wrap_silverware"))) == []
    loose = _with_goal("b1k/wrap_silverware", "(:goal (and (forall (?table_knife.n.01 - table_knife.n.01) (inside "
                       "?table_knife.n.01 ?cabinet.n.01_1))))")
    assert any("'in the napkin'" in r for r in placed_elsewhere(said, loose))


def test_what_a_clearing_verb_empties_is_a_source_past_a_modifier(behavior_dir) -> None:
    # Qwen 1.5B's terse draft for "clear the dinner table" moved the leftovers and never named the table
    assert incidental_objects("clear the dinner table") == {"table"}
    assert incidental_objects("put the cup on the dinner table") == frozenset()
    # a word only the scene explains is a source too (untuned6 terse: "unload the cart at checkout")
    store = {"shopping_cart.n.01", "checkout.n.03", "watermelon.n.02"}
    assert incidental_objects(scene_reading("unload the cart at checkout", store)) == {"cart"}
    assert incidental_objects(scene_reading("push the cart to the checkout", store)) == frozenset()


def test_names_joined_by_or_are_a_choice(behavior_dir) -> None:
    assert alternatives("could you try some lemon juice or detergent on them?") == {
        "lemon juice": {"detergent"}, "detergent": {"lemon juice"}}
    assert alternatives("wipe it with a sponge or a rag or a towel")["sponge"] == {"rag", "towel"}
    assert alternatives("put the cup and the plate in the sink") == {}
    assert alternatives("clean the table, or the counter") == {}  # another clause: another request


def test_a_tool_list_goes_on_after_and(behavior_dir) -> None:
    assert incidental_objects("can you clean it with some soap and a rag?") == {"soap", "rag"}
    # a comma goes on with the list, and stops where the sentence goes on otherwise
    assert incidental_objects("Scrub the bicycle with soap, water and the brush.") == {"soap", "water", "brush"}
    assert incidental_objects("wipe the table with a rag, then put the plates and cups in the sink") == {"rag"}
    assert incidental_objects("A couple in each jar with water, lids on, and into the cupboard.") == {"water"}
    assert incidental_objects("clean the table with a rag and put the cup in the sink") == {"rag"}
    assert incidental_objects("wash the plates and the cups") == frozenset()


def test_food_after_with_is_what_goes_in_not_a_tool(behavior_dir) -> None:
    # Qwen 1.5B's held-out draft for the bird cage left the apple out and was accepted as done
    said = "can you get the cage ready? Food bowl with the apple, a water bowl, and toss in its toys."
    assert "apple" not in incidental_objects(said)
    assert incidental_objects("wipe it with a rag and an apple") == {"rag"}  # a food goes on no tool list
    assert incidental_objects("could you rub it with some lemon juice?") == {"lemon juice"}  # a substance may clean


def test_a_goal_that_takes_off_what_goals_only_ever_apply_is_refused(behavior_dir) -> None:
    # Qwen 1.5B's held-out terse draft for "treat the pool": the disinfectant kept off the pool
    backwards = _with_goal("b1k/adding_chemicals_to_pool", "(:goal (and (not (covered ?pool.n.01_1 "
                           "?disinfectant.n.01_1)) (touching ?pool.n.01_1 ?disinfectant__bottle.n.01_1)))")
    assert removed_agents("treat the pool", backwards) == [
        "the goal takes disinfectant.n.01 off pool.n.01_1 ((not (covered ...))), which goals only ever apply, "
        "and the instruction does not ask for it"]
    # said by name, taking it off is what was asked
    assert removed_agents("wipe the disinfectant off the pool", backwards) == []
    # dust is what goals remove
    dusted = _with_goal("b1k/adding_chemicals_to_pool", "(:goal (and (not (covered ?pool.n.01_1 ?dust.n.01_1))))")
    assert removed_agents("treat the pool", dusted) == []


def test_what_a_thing_is_loaded_or_stocked_with_goes_in_it_and_is_no_tool(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft set the bucket on the grill, with no coal, and was accepted
    assert incidental_objects("Could you load up the grill with coal for me?") == set()
    assert incidental_objects("stock the cart with the whiskey and a shot glass") == set()
    # the nearest verb before "with" decides: scrubbing with soap is still work done with a tool
    assert incidental_objects("scrub the pan with soap and load the dishwasher") == {"soap"}
    assert incidental_objects("load the dishwasher and scrub the pan with soap") == {"soap"}


def test_what_is_fetched_for_the_goals_work_is_a_tool(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft cleans the boat and names neither the bucket nor the soap
    problem = to_omnigibson(load_problem("b1k/cleaning_boat"))
    scrub = replace(problem, goal=parse_goal("(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1))))",
                                             dict(problem.objects), "omnigibson"))
    said = "The boat's filthy from last weekend, could you grab a bucket and some soap and scrub it down?"
    assert goal_tools(said, scrub) == {"bucket", "soap"}
    assert goal_tools("wash the bucket and the boat", scrub) == frozenset()  # not fetched: what is cleaned
    # a goal with no work the bucket serves (it only moves things) makes nothing fetched a tool
    moved = replace(problem, goal=parse_goal("(:goal (and (ontop ?bucket.n.01_1 ?boat.n.01_1)))",
                                             dict(problem.objects), "omnigibson"))
    assert goal_tools(said, moved) == frozenset()


def test_what_a_dish_the_goal_makes_is_made_from_need_not_be_in_the_goal(behavior_dir) -> None:
    # untuned5 casual: Qwen 1.5B's goal makes the tomato rice in the slow cooker and names no ingredient
    problem = to_omnigibson(load_problem("b1k/make_tomato_rice"))
    said = "Could you make some tomato rice for dinner? Do it in the slow cooker with the tomato, onion and some chicken broth."
    assert ingredients(said, problem.types) == {"tomato", "onion", "chicken broth"}  # "onion": the onion or its halves
    assert ingredients("wipe it with a rag and put the apple in the bowl", problem.types) == frozenset()
    # said where they are, in a request to make something (untuned6 casual: "a pitcher of lemonade")
    told = "would you mind whipping up a pitcher of lemonade? Lemon juice is in the fridge, sugar's in the cupboard."
    assert ingredients(told, problem.types) == {"lemon juice", "sugar"}
    made = replace(problem, goal=parse_goal("(:goal (and (real ?tomato_rice.n.01_1) (contains ?crock_pot.n.01_1 "
                                            "?tomato_rice.n.01_1)))", dict(problem.objects), "omnigibson"))
    assert {"tomato", "onion", "chicken broth"} <= goal_tools(said, made)
    moved = replace(problem, goal=parse_goal("(:goal (and (ontop ?crock_pot.n.01_1 ?countertop.n.01_1)))",
                                             dict(problem.objects), "omnigibson"))
    assert not {"tomato", "onion", "chicken broth"} & goal_tools(said, moved)  # a goal that makes nothing


def test_what_a_drafted_goal_must_mention_leaves_out_tools_sources_and_choices(behavior_dir) -> None:
    types = ["boat.n.01", "bucket.n.01", "liquid_soap.n.01", "stain.n.01", "rag.n.01", "sink.n.01",
             "lemon_juice.n.01", "detergent.n.01", "sheet.n.03", "apple.n.01", "bowl.n.01"]

    def must(said: str) -> list[str]:
        from symplan_core.perception.object_words import instruction_objects

        return [phrase for phrase, _ in goal_must_mention(said, instruction_objects(said, types), types)]

    assert must("could you grab a bucket and some soap and scrub the boat?") == ["boat"]  # fetched tools
    assert must("wipe the apple with a rag and put it in the bowl") == ["apple", "bowl"]  # a tool after "with"
    assert must("take the apple out of the sink") == ["apple"]  # a source
    assert must("try some lemon juice or detergent on the sheet") == ["sheet"]  # a choice: either answers
    assert must("put the apple and the pear in the bowl") == ["apple", "bowl"]  # no pear in the scene
    # each phrase comes with the scene's types that answer it
    assert goal_must_mention("put the apple in the bowl", [("apple", "apple.n.01")], types) == [
        ("apple", frozenset({"apple.n.01"}))]


def test_an_idle_negation_mentions_nothing(behavior_dir) -> None:
    # Qwen 1.5B, made to mention the rod, kept it off the sink it was never attached to: that asks
    # nothing of the rod ("throw the rod in the boat"), so an LLM goal is not taken to mention it
    problem = to_omnigibson(load_problem("b1k/prepare_a_boat_for_fishing"))
    drafted = replace(problem, goal=parse_goal(
        "(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) (not (attached ?fishing_rod.n.01_1 ?sink.n.01_1))))",
        dict(problem.objects), "omnigibson"))
    assert any(lit.predicate == "covered" and not lit.negated for lit in problem.init)  # the stain is there
    assert {"boat.n.01", "stain.n.01"} <= goal_types(drafted, skip_idle=True)
    assert "fishing_rod.n.01" not in goal_types(drafted, skip_idle=True)
    assert "fishing_rod.n.01" in goal_types(drafted)  # a curated goal's negations all count


def test_a_quantified_variable_its_body_never_uses_mentions_nothing(behavior_dir) -> None:
    # Qwen 1.5B, for "Put two peaches in each jar, fill the jars with water ...": the peaches are
    # quantified and never placed; accepted as mentioning them, and wrong
    problem = to_omnigibson(load_problem("b1k/can_fruit"))
    drafted = replace(problem, goal=parse_goal(
        "(:goal (and (forpairs (?peach.n.03 - peach.n.03) (?hinged_jar.n.01 - hinged_jar.n.01) "
        "(filled ?hinged_jar.n.01 ?water.n.06_1))))", dict(problem.objects), "omnigibson"))
    assert "hinged_jar.n.01" in goal_types(drafted, skip_idle=True)
    assert "peach.n.03" not in goal_types(drafted, skip_idle=True)
    assert "peach.n.03" in goal_types(drafted)  # a curated goal's quantifiers all count
    placed = _with_goal("b1k/can_fruit", "(:goal (and (forpairs (?peach.n.03 - peach.n.03) (?hinged_jar.n.01 - "
                        "hinged_jar.n.01) (inside ?peach.n.03 ?hinged_jar.n.01))))")
    assert "peach.n.03" in goal_types(placed, skip_idle=True)


def _committed_instructions():
    """(instruction, its activity's released problem) for every committed development and untuned instruction."""
    for path in sorted((Path(__file__).parent / "data").glob("instructions_*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            yield row["instruction"], to_omnigibson(load_problem(f"b1k/{row['activity']}"))


def _with_goal(task: str, goal: str):
    problem = to_omnigibson(load_problem(task))
    return replace(problem, goal=parse_goal(goal, dict(problem.objects), "omnigibson"))


def test_what_things_are_taken_off_is_not_what_the_goal_moves(behavior_dir) -> None:
    # untuned7 direct and casual: Qwen 1.5B put the clothesline itself in the hamper, accepted, wrong
    task = "b1k/taking_clothes_off_the_line"
    line_moved = _with_goal(task, "(:goal (and (inside ?blouse.n.01_1 ?hamper.n.02_1) "
                                  "(inside ?clothesline.n.01_1 ?hamper.n.02_1)))")
    said = "Could you take everything off the line and toss it in the hamper?"
    (reason,) = moved_sources(said, line_moved)
    assert reason.startswith("the instruction says 'off the line'") and "clothesline.n.01_1" in reason
    listed = "Take the blouse and both pieces of underwear off the clothesline and put them in the hamper."
    assert len(moved_sources(listed, line_moved)) == 1  # "underwear": a word the reading leaves unread
    assert moved_sources(said, to_omnigibson(load_problem(task))) == []  # the released goal moves the clothes
    # named again, a source may move; a particle ("switch off") and dirt knocked off name no source
    assert moved_sources("take the blouse off the clothesline and put the clothesline in the hamper", line_moved) == []
    assert moved_sources("switch off the clothesline and put it in the hamper", line_moved) == []
    assert moved_sources("knock the dust off the clothesline and put it in the hamper", line_moved) == []


def test_what_is_taken_off_a_place_is_not_put_back_there(behavior_dir) -> None:
    # untuned5 casual: Qwen 1.5B hung the hand towels and left the bath towels folded on the bed
    task = "b1k/putting_towels_in_bathroom"
    left_on_bed = _with_goal(task, "(:goal (and (forall (?hand_towel.n.01 - hand_towel.n.01) (draped ?hand_towel.n.01 "
                                   "?towel_rack.n.01_1)) (forall (?bath_towel.n.01 - bath_towel.n.01) "
                                   "(ontop ?bath_towel.n.01 ?bed.n.01_1))))")
    said = "Could you grab the towels off the bed and hang them up on the rack in the bathroom?"
    (reason,) = moved_sources(said, left_on_bed)
    assert reason.startswith("the instruction says 'off the bed'") and "(ontop bath_towel.n.01_1 bed.n.01_1)" in reason
    assert moved_sources(said, to_omnigibson(load_problem(task))) == []  # the released goal hangs them all
    assert moved_sources("take the towels off the bed, then put the towels back on the bed", left_on_bed) == []


def test_a_container_asked_to_hold_what_each_already_holds_answers_no_pour(behavior_dir) -> None:
    # Qwen 1.5B answered "pour three beers" with the bottles filled, full from the start: accepted, wrong
    bottles = _with_goal("b1k/pour_beer", "(:goal (and (forall (?beer_bottle.n.01 - beer_bottle.n.01) "
                                          "(filled ?beer_bottle.n.01 ?beer.n.01_1))))")
    assert state_conflicts("pour three beers", bottles).unanswered == ("pour",)
    glasses = _with_goal("b1k/pour_beer", "(:goal (and (forall (?beer_glass.n.01 - beer_glass.n.01) "
                                          "(filled ?beer_glass.n.01 ?beer.n.01_1))))")
    assert state_conflicts("pour three beers", glasses).unanswered == ()


def test_one_per_container_and_a_stack_are_arrangements_the_goal_must_keep(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual drafts, made to name every flower and every tortilla: accepted, wrong
    potted = "I bought a bunch of flowers at the nursery, can you pot them up? One plant per pot."
    crowded = _with_goal("b1k/planting_flowers", "(:goal (and (forall (?pottable__dahlia.n.01 - pottable__dahlia.n.01) "
                         "(inside ?pottable__dahlia.n.01 ?pot.n.04_1))))")
    assert arrangements(potted, crowded) == [
        "the instruction asks for one per 'pot', but the goal puts 4 things in or on pot.n.04_1"]
    assert arrangements("Plant each of the dahlias in its own pot.", crowded)  # "its own"
    assert arrangements("put the dahlias in the pot", crowded) == []  # nothing said of one each
    assert arrangements(potted, to_omnigibson(load_problem("b1k/planting_flowers"))) == []  # forpairs: one each
    stacked = "Can you put the tortillas on a plate for me? Just stack them one on top of the other."
    side_by_side = _with_goal("b1k/fold_a_tortilla",
                              "(:goal (and (forall (?tortilla.n.01 - tortilla.n.01) (ontop ?tortilla.n.01 ?plate.n.04_1))))")
    assert len(arrangements(stacked, side_by_side)) == 1
    assert arrangements(stacked, to_omnigibson(load_problem("b1k/fold_a_tortilla"))) == []
    assert arrangements("put the tortillas on the plate", side_by_side) == []
    # untuned10 casual: "keep the sandals together", drafted with each pair apart
    apart = _with_goal("b1k/putting_shoes_on_rack", "(:goal (and (forall (?sandal.n.01 - sandal.n.01) "
                       "(ontop ?sandal.n.01 ?hallstand.n.01_1))))")
    kept = "Could you put them on the rack? Keep the sandals together and the sneakers together."
    assert arrangements(kept, apart) == ["the instruction says 'kept together', which asks for (nextto ?x ?y) of two "
                                         "things of one kind, but the goal has none"]
    assert arrangements(kept, to_omnigibson(load_problem("b1k/putting_shoes_on_rack"))) == []
    assert arrangements("cook them together on the rack", apart) == []  # together, but nothing kept
    # "one ... in each of the bags": one per bag, the bags being the scene's sacks, not the backpack
    # the request names on its own (untuned12 direct: every hamburger in one sack, accepted and wrong)
    one_sack = _with_goal("b1k/packing_meal_for_delivery", "(:goal (and (forall (?hamburger.n.01 - hamburger.n.01) "
                          "(inside ?hamburger.n.01 ?sack.n.01_1)) (forall (?sack.n.01 - sack.n.01) "
                          "(inside ?sack.n.01 ?backpack.n.01_1))))")
    released = to_omnigibson(load_problem("b1k/packing_meal_for_delivery"))
    for said in ("Please put one hamburger in each of the bags and then put all the bags into the backpack.",
                 "One burger per bag, bags in backpack."):
        assert arrangements(said, one_sack) == [
            f"the instruction asks for one per {'bags' if 'each' in said else 'bag'!r}, but the goal puts 4 things "
            "in or on sack.n.01_1"]
        assert arrangements(said, released) == []


def test_a_verb_that_names_its_container_asks_something_put_in_one(behavior_dir) -> None:
    # untuned12 terse: "Trash the junk, keep the tray.", drafted with nothing in the trash can
    idle = _with_goal("b1k/disposing_of_trash_for_adult", "(:goal (and (inside ?straw.n.04_1 ?tray.n.01_1)))")
    released = to_omnigibson(load_problem("b1k/disposing_of_trash_for_adult"))
    assert unfilled_containers("Trash the junk, keep the tray.", idle) == [
        "the instruction says 'trash', which puts the junk in a trash can (ashcan.n.01), but the goal puts nothing there"]
    assert unfilled_containers("Trash the junk, keep the tray.", released) == []
    assert unfilled_containers("Take the trash bags out.", idle) == []  # a name, not a verb
    potatoes = to_omnigibson(load_problem("b1k/sorting_potatoes"))
    boxed = _with_goal("b1k/sorting_potatoes", "(:goal (and (forall (?potato.n.01 - potato.n.01) "
                       "(inside ?potato.n.01 ?carton.n.02_1))))")
    assert unfilled_containers("Bag potatoes; yams in their own sack.", potatoes) == []
    assert unfilled_containers("Bag potatoes; yams in their own sack.", boxed) == [
        "the instruction says 'bag', which puts the potatoes in a bag (sack.n.01), but the goal puts nothing there"]
    # "their own sack": one sack for the yams, not one each
    assert arrangements("Bag potatoes; yams in their own sack.", potatoes) == []
    # "shelve the rest": the scene's bookcase is the shelf (untuned9 terse: nothing shelved, accepted and wrong)
    said = "Recycle the newspapers, shelve the rest."
    recycled = _with_goal("b1k/sorting_newspapers_for_recycling", "(:goal (and (forall (?newspaper.n.03 - "
                          "newspaper.n.03) (inside ?newspaper.n.03 ?recycling_bin.n.01_1))))")
    assert unfilled_containers(said, recycled) == [
        "the instruction says 'shelve', which puts anything in a shelf (bookcase.n.01), but the goal puts nothing there"]
    assert unfilled_containers(said, to_omnigibson(load_problem("b1k/sorting_newspapers_for_recycling"))) == []


def test_the_thing_a_placement_moves_is_not_the_place_of_its_target(behavior_dir) -> None:
    # untuned12 terse: "Sticker on the license plate.", drafted as the plate attached to the sticker
    backwards = _with_goal("b1k/putting_on_registration_stickers",
                           "(:goal (and (attached ?license_plate.n.01_1 ?gummed_label.n.01_1)))")
    released = to_omnigibson(load_problem("b1k/putting_on_registration_stickers"))
    for said in ("Sticker on the license plate.", "Please stick the registration sticker onto the license plate."):
        assert reversed_placements(said, backwards) == [
            f"the instruction puts something '{'on' if said[0] == 'S' else 'onto'} the license plate', but the goal "
            "has (attached license plate ...): the other way round"]
        assert reversed_placements(said, released) == []


def test_on_a_place_is_not_inside_something_on_it(behavior_dir) -> None:
    # untuned12 casual: the pen and the pencil put in the backpack on the checkout, accepted and wrong
    said = ("Okay, I think we've got everything for school - can you put the backpack, laptop, notebook, pen and "
            "pencil up on the checkout, set the calculator on the notebook, and put all the money into the register?")
    packed = _with_goal("b1k/buy_school_supplies_for_high_school", "(:goal (and (ontop ?backpack.n.01_1 "
                        "?checkout.n.03_1) (inside ?pen.n.01_1 ?backpack.n.01_1) (ontop ?laptop.n.01_1 ?checkout.n.03_1) "
                        "(ontop ?notebook.n.01_1 ?checkout.n.03_1) (ontop ?pencil.n.01_1 ?checkout.n.03_1)))")
    assert placed_elsewhere(said, packed) == [
        "the instruction puts the pen 'on the checkout', but the goal puts it only at backpack.n.01_1"]
    assert placed_elsewhere(said, to_omnigibson(load_problem("b1k/buy_school_supplies_for_high_school"))) == []
    # a plural BEHAVIOR has no name for goes on a list that ends in a name (untuned12 casual: the
    # pants put on the floor, accepted and wrong), not on one that ends otherwise
    said = "Just put my coat, pants and wallet on the bed, and stand the boots on the floor so I can grab them."
    floored = _with_goal("b1k/preparing_clothes_for_the_next_day", "(:goal (and (ontop ?coat.n.01_1 ?bed.n.01_1) "
                         "(ontop ?trouser.n.01_1 ?floor.n.01_2) (ontop ?wallet.n.01_1 ?bed.n.01_1)))")
    assert placed_elsewhere(said, floored) == [
        "the instruction puts the pants 'on the bed', but the goal puts it only at floor.n.01_2"]
    hot_dogs = "Put a tablecloth down, dogs on one plate and buns on another."
    assert not any(m.phrase == "tablecloth" for place in placement_words(hot_dogs) for m in moved_by(hot_dogs, place))


def test_a_plural_a_placement_moves_is_put_there_whole(behavior_dir) -> None:
    # untuned12 direct: one strawberry of six in the bowl, the rest covered with cream, accepted and wrong
    said = "Please put all the strawberries in a bowl, sprinkle some sugar over them, and top them with whipped cream."
    one = _with_goal("b1k/make_strawberries_and_cream", "(:goal (and (inside ?strawberry.n.01_1 ?bowl.n.01_1) "
                     "(forall (?strawberry.n.01 - strawberry.n.01) (covered ?strawberry.n.01 ?whipped_cream.n.01_1))))")
    assert partly_placed(said, one) == [
        "the instruction puts the strawberries 'in the bowl', all 6 in the scene, but the goal puts strawberry.n.01_2, "
        "strawberry.n.01_3, strawberry.n.01_4, strawberry.n.01_5, strawberry.n.01_6 nowhere there"]
    assert partly_placed(said, to_omnigibson(load_problem("b1k/make_strawberries_and_cream"))) == []
    assert partly_placed("put a strawberry in the bowl", one) == []  # one asked, one put


def test_a_pairing_with_a_kind_its_body_never_uses_asks_too_few(behavior_dir) -> None:
    # untuned13 direct: each turf paired with the one shovel, so one of four put in the barrow;
    # accepted and wrong
    task = "b1k/remove_sod"
    paired = _with_goal(task, "(:goal (and (forpairs (?turf.n.01 - turf.n.01) (?shovel.n.01 - shovel.n.01) "
                              "(inside ?turf.n.01 ?barrow.n.03_1)) (ontop ?barrow.n.03_1 ?floor.n.01_1)))")
    assert idle_pairings(paired) == [
        "the goal's forpairs pairs each turf.n.01 with a shovel.n.01 it never uses, so it asks 1 of 4"]
    assert idle_pairings(to_omnigibson(load_problem(task))) == []
    # with as many of the unused kind, every one is asked, as a forall would (untuned13 casual: the
    # one pencil case paired with the one pencil, right)
    case = _with_goal("b1k/clean_your_pencil_case", "(:goal (and (forpairs (?pencil_box.n.01 - pencil_box.n.01) "
                      "(?pencil.n.01 - pencil.n.01) (not (covered ?pencil_box.n.01 ?dust.n.01_1)))))")
    assert idle_pairings(case) == []


def test_a_choice_the_instruction_does_not_offer_is_refused(behavior_dir) -> None:
    # untuned13 direct: "cook all four meatballs" hedged as the penne or the meatball cooked; accepted, wrong
    said = ("Please boil the penne, heat the marinara, cook all four meatballs, and serve the pasta, sauce and "
            "meatballs together in the bowl.")
    hedged = _with_goal("b1k/making_a_meal", "(:goal (and (forall (?meatball.n.01 - meatball.n.01) "
                        "(or (cooked ?penne.n.01_1) (cooked ?meatball.n.01)))))")
    assert unsaid_choices(said, hedged) == [
        "the goal offers a choice the instruction does not: (or (cooked penne.n.01_1) (cooked ?meatball.n.01))"]
    assert unsaid_choices("cook the penne or the meatballs", hedged) == []  # offered
    # untuned13 terse: "Split the logs in half." as one log or another on a half; accepted and wrong
    either_log = _with_goal("b1k/chopping_wood", "(:goal (and (or (ontop ?log.n.01_1 ?half__log.n.01_1) "
                            "(ontop ?log.n.01_2 ?half__log.n.01_2))))")
    assert len(unsaid_choices("Split the logs in half.", either_log)) == 1
    assert unsaid_choices(said, to_omnigibson(load_problem("b1k/making_a_meal"))) == []
    # relations of the same things ("in or next to the sink"), and a thing or what it is made into
    assert unsaid_choices("take both mugs to the sink", to_omnigibson(load_problem("b1k/doing_housework_for_adult"))) == []
    assert unsaid_choices("make nachos", to_omnigibson(load_problem("b1k/make_nachos"))) == []


def test_one_container_for_all_is_not_one_each(behavior_dir) -> None:
    # untuned13 direct: a forpairs put each skirt in another hamper; accepted and wrong
    said = ("Please put both skirts in one hamper and both pairs of trousers in a different hamper, and leave the "
            "third hamper without any skirts or trousers.")
    task = "b1k/sorting_clothing"
    apart = _with_goal(task, "(:goal (and (forpairs (?skirt.n.01 - skirt.n.01) (?hamper.n.02 - hamper.n.02) "
                             "(inside ?skirt.n.01 ?hamper.n.02))))")
    assert arrangements(said, apart) == [
        "the instruction says 'one hamper', one for all that goes there, but its forpairs puts each in a "
        "different hamper"]
    ground = _with_goal(task, "(:goal (and (inside ?skirt.n.01_1 ?hamper.n.02_1) (inside ?skirt.n.01_2 ?hamper.n.02_2)))")
    assert arrangements("put the skirts in the same hamper", ground) == [
        "the instruction says 'same hamper', one for all that goes there, but it puts skirt.n.01 in 2 of them"]
    assert arrangements(said, to_omnigibson(load_problem(task))) == []
    together = _with_goal(task, "(:goal (and (forall (?skirt.n.01 - skirt.n.01) (inside ?skirt.n.01 ?hamper.n.02_1))))")
    assert arrangements(said, together) == []
    assert arrangements("put each skirt in a hamper", apart) == []  # no one container said


def test_wrapping_lays_the_wrap_over_the_thing(behavior_dir) -> None:
    # untuned13 direct: the wrapping paper put inside the box; accepted and wrong
    task = "b1k/make_a_christmas_gift_box"
    inside = _with_goal(task, "(:goal (and (inside ?bell.n.01_1 ?packing_box.n.02_1) "
                              "(inside ?wrapping_paper.n.01_1 ?packing_box.n.02_1)))")
    said = "Please put the bell inside the box and wrap the box with the wrapping paper."
    assert "the instruction says 'wrap', which asks for (overlaid ...), but the goal has none" in (
        state_conflicts(said, inside).missing)
    released = to_omnigibson(load_problem(task))
    # "it" after the bell put in the box is the box, not the bell
    for request in (said, "Could you drop the little bell in the box and wrap it up in the Christmas paper?",
                    "Box the bell and wrap it."):
        assert state_conflicts(request, released).missing == (), request


def test_what_the_goal_takes_out_of_a_place_no_longer_counts_as_there(behavior_dir) -> None:
    # untuned13 casual: the oysters put in the tupperware, which starts in the fridge, and the
    # tupperware taken out of the fridge; accepted and wrong
    said = ("I picked up some oysters for tonight but they're all gritty. Could you rinse them off, pop them in a "
            "Tupperware and stick it in the fridge till dinner?")
    task = "b1k/clean_oysters"
    taken_out = _with_goal(task, "(:goal (and (forall (?huitre.n.01 - huitre.n.01) (inside ?huitre.n.01 "
                                 "?tupperware.n.01_1)) (not (inside ?tupperware.n.01_1 ?electric_refrigerator.n.01_1))))")
    assert empty_places(said, taken_out) == [
        "the instruction says 'in the fridge', which asks for (inside ?x ?fridge), but the goal puts nothing there"]
    left_there = _with_goal(task, "(:goal (and (forall (?huitre.n.01 - huitre.n.01) (inside ?huitre.n.01 "
                                  "?tupperware.n.01_1))))")
    assert empty_places(said, left_there) == []  # the tupperware starts in the fridge and stays
    assert empty_places(said, to_omnigibson(load_problem(task))) == []


def test_them_in_a_placement_is_the_one_plural_named_before(behavior_dir) -> None:
    said = ("Please scrub the dirt and sand off all six oysters, put them in the plastic container, and put the "
            "container in the fridge.")
    scene = set(load_problem("b1k/clean_oysters").objects.values())
    words = dict(scene_mentions(said, scene))
    places = placement_words(said)
    assert [m.phrase for m in moved_by(said, places[0], places, words, scene)] == ["oysters"]
    two = "Rinse the oysters and the mussels, then put them in the bowl."
    places = placement_words(two)
    assert moved_by(two, places[0], places, dict(scene_mentions(two, scene)), scene) == []  # which is not said


def test_where_a_process_happens_need_not_be_in_the_goal(behavior_dir) -> None:
    assert "oven" in incidental_objects("brush it with the glaze and bake it in the oven")
    assert incidental_objects("would you wash it off in the sink?") == {"sink"}
    assert incidental_objects("put the cup in the sink") == frozenset()  # where a thing goes
    assert incidental_objects("remove the stain in the sink") == frozenset()  # what is cleaned
    assert incidental_objects("scrub the stain in the sink") == frozenset()
    # a substance cooked there: where it is boiled (untuned10 terse: a right draft refused for the kettle)
    assert incidental_objects("Boil water in the kettle.") == {"kettle"}


def test_what_is_named_in_a_clause_of_time_or_reason_with_its_own_subject_need_not_be_in_the_goal(behavior_dir) -> None:
    # untuned11 casual: a right draft refused for "the dishes" the speaker will use the sponge on
    said = "eww, that sponge is stained and getting mildewy — could you give it a good scrub before I use it on the dishes again?"
    assert incidental_objects(said) == {"dishes"}
    assert incidental_objects("wash the dishes before you put them away") == frozenset()  # the robot's own act


def test_a_name_before_an_adverb_or_a_verb_is_not_a_modifier(behavior_dir) -> None:
    assert "crab" not in incidental_objects("This crab's still gritty, would you wash it off in the sink?")
    assert "wall" not in incidental_objects("the stucco wall needs a scrub")
    # nor before a word that opens a clause (untuned9 direct: "windows" read as a modifier of "so")
    assert "windows" not in incidental_objects("Please wash the outside of both windows so there are no marks left.")


# -- on rendered scenes --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hot_tub(behavior_dir):
    return render_task(load_problem(HOT_TUB_ON), seed=0)


def _perceive(scene, instruction: str, config: PerceptionConfig):
    return perceive(scene.frames(2), instruction, make_detector("fiducial", fiducial_map=scene.fiducial_map),
                    scene.intrinsics, config)


def test_held_out_turning_on_is_not_done_as_turning_off(hot_tub) -> None:
    config = PerceptionConfig(benchmarks=("b1k",), exclude_activities=(HOT_TUB_ON,))
    for text in ("Turn on the hot tub.", "hot tub on"):
        result = _perceive(hot_tub, text, config)
        assert not result.accepted, text  # was accepted as turning_off_the_hot_tub before this check
        assert any("which asks for (toggled_on ...), but the goal has only (not (toggled_on ...))" in r
                   for r in result.reasons), result.reasons
    off = _perceive(hot_tub, "Turn on the hot tub.", config.model_copy(update={"check_language": False}))
    assert off.accepted and off.provenance["goal"]["activity"] == HOT_TUB_OFF  # what the check stops


def test_in_the_corpus_the_right_goal_is_still_accepted(hot_tub) -> None:
    for text in ("Turn on the hot tub.", "Hey, could you switch the jacuzzi on?", "hot tub on"):
        result = _perceive(hot_tub, text, PerceptionConfig(benchmarks=("b1k",)))
        assert result.accepted and result.provenance["goal"]["activity"] == HOT_TUB_ON, (text, result.reasons)


def test_held_out_folding_the_sheets_is_not_done_as_changing_two_of_them(behavior_dir) -> None:
    # retrieval's best match with folding_sheets held out is changing_sheets, which moves two of the
    # four sheets: accepted and wrong while a plural covered in part was only a note on a retrieved goal
    scene = render_task(load_problem("b1k/folding_sheets"), seed=0)
    held_out = PerceptionConfig(benchmarks=("b1k",), exclude_activities=("b1k/folding_sheets",))
    result = _perceive(scene, "Fold all the sheets on the bed.", held_out)
    assert not result.accepted and result.provenance["goal"]["activity"] == "b1k/changing_sheets"
    assert any("the instruction says 'sheets', all 4 in the scene" in r for r in result.reasons), result.reasons
    # in the corpus changing_sheets still scores first: refused, it leaves folding_sheets as the one question
    asked = _perceive(scene, "Fold all the sheets on the bed.", PerceptionConfig(benchmarks=("b1k",))).clarification
    assert asked is not None and asked.why == "top-rejected"
    assert [c.activity for c in asked.candidates] == ["b1k/folding_sheets"]


def test_a_goal_that_makes_another_kind_of_what_was_asked_for_is_told(behavior_dir) -> None:
    seafood = to_omnigibson(load_problem("b1k/make_seafood_stew"))
    made = made_types(seafood)
    assert "fish_stew.n.01" in made
    assert another_kind("beef stew", "beef_stew.n.01", made) == "fish_stew.n.01"  # both kinds of stew
    assert another_kind("fish stew", "fish_stew.n.01", made) is None
    lunch = to_omnigibson(load_problem("b1k/cooking_lunch"))  # diced beefsteak tomato: a diced tomato
    assert another_kind("diced tomato", "diced__tomato.n.01", made_types(lunch)) is None
    hot_dogs = to_omnigibson(load_problem("b1k/set_up_a_hot_dog_bar"))  # said in the plural
    assert another_kind("diced onions", "diced__onion.n.01", made_types(hot_dogs)) is None
    assert another_kind("beef stews", "beef_stew.n.01", made) == "fish_stew.n.01"
    assert another_kind("pizza", "pizza.n.01", {"tomato_sauce.n.01"}) is None  # not a kind of the same thing


def test_held_out_beef_stew_is_not_made_as_a_seafood_stew(behavior_dir) -> None:
    scene = render_task(load_problem("b1k/make_stew"), seed=0)
    held = PerceptionConfig(benchmarks=("b1k",), exclude_activities=("b1k/make_stew",))
    result = _perceive(scene, "make beef stew", held)
    assert not result.accepted
    # rejected, or asked about with the reason in the question; never the seafood stew accepted
    assert any("makes another kind of stew: fish_stew.n.01" in r for r in result.reasons), result.reasons
    unchecked = _perceive(scene, "make beef stew", held.model_copy(update={"check_language": False}))
    assert unchecked.accepted and unchecked.provenance["goal"]["activity"] == "b1k/make_seafood_stew"
    in_corpus = _perceive(scene, "make beef stew", PerceptionConfig(benchmarks=("b1k",)))
    assert in_corpus.accepted and in_corpus.provenance["goal"]["activity"] == "b1k/make_stew", in_corpus.reasons


def test_a_retrieved_goal_that_answers_a_state_word_otherwise_is_accepted_with_a_note(behavior_dir) -> None:
    # BEHAVIOR cooks a stew by making it (a future object, `real`), not with (cooked ...).
    scene = render_task(load_problem("b1k/make_stew"), seed=0)
    result = _perceive(scene, "Could you cook us a beef stew? Use the big pot.", PerceptionConfig(benchmarks=("b1k",)))
    assert result.accepted, result.reasons
    assert any("says 'cook', which asks for (cooked ...), but the goal has none" in n
               for n in result.provenance["notes"]), result.provenance["notes"]


# -- plurals: "the greens" are all of them -------------------------------------------------------

def test_a_plural_without_a_count_means_every_one_and_a_count_does_not(behavior_dir) -> None:
    said = {text: [m.phrase for m in plural_mentions(text)] for text in (
        "Cook the mustard greens.", "cook two apples", "put one of the cups in the sink",
        "Put the apples and a pear in the bowl", "wash the glass", "Take all the salmon out of the fridge",
        "wash every plate", "I bought a bunch of flowers, can you pot them up?", "a couple of loose batteries")}
    assert said == {"Cook the mustard greens.": ["mustard greens"], "cook two apples": [],
                    "I bought a bunch of flowers, can you pot them up?": ["flowers"],
                    "a couple of loose batteries": [],
                    "put one of the cups in the sink": [], "Put the apples and a pear in the bowl": ["apples"],
                    "wash the glass": [], "Take all the salmon out of the fridge": ["salmon"],
                    "wash every plate": ["plate"]}


def test_a_word_in_is_is_plural_only_where_its_singular_names_a_thing(behavior_dir) -> None:
    assert [w for w in ("skis", "kiwis", "axis", "tennis", "glass", "apples") if sounds_plural(w)] == [
        "skis", "kiwis", "apples"]
    assert [m.phrase for m in plural_mentions("clean off the skis")] == ["skis"]


def test_a_noun_whose_plural_is_its_singular_is_plural_after_a_definite_determiner(behavior_dir) -> None:
    said = {text: [m.phrase for m in plural_mentions(text)] for text in (
        "move the salmon to the cart", "move a salmon to the cart", "cook one salmon", "grill my salmon")}
    assert said == {"move the salmon to the cart": ["salmon"], "move a salmon to the cart": [],
                    "cook one salmon": [], "grill my salmon": ["salmon"]}


def test_the_laundry_is_every_garment_towel_and_linen_of_the_scene(behavior_dir) -> None:
    assert [m.phrase for m in plural_mentions("Fold the laundry onto the bed.")] == ["laundry"]
    assert plural_mentions("fold some laundry") == []
    # untuned7 terse: Qwen 1.5B folded the trousers only, of socks, dish towels and a tablecloth
    scene = render_task(load_problem("b1k/folding_clean_laundry"), seed=0)
    said = "Fold the laundry onto the bed."
    trousers = _llm_goal(scene, said, "(:goal (and (folded ?trouser.n.01_1) (ontop ?trouser.n.01_1 ?bed.n.01_1)))")
    assert not trousers.accepted
    assert any("the instruction says 'laundry', all 6 in the scene" in r for r in trousers.reasons), trousers.reasons
    assert grounds_in("clothes", "apparel.n.01", {"dress.n.01"}, loose=False) == "dress.n.01"  # clothes still clothes


def test_a_moved_plural_that_names_nothing_behavior_has_is_found_in_its_placement(behavior_dir) -> None:
    def unread(text: str) -> list[list[str]]:
        places = placement_words(text)
        return [unread_moved_plurals(text, place, places) for place in places]

    assert unread("throw the snacks and water bottles in the backpack and load it into the car") == [["snacks"], []]
    assert unread("put the water bottles in the backpack") == [[]]  # read as objects
    assert unread("put some snacks in the backpack") == [[]]  # not a definite determiner
    assert unread("put the snacks bag in the backpack") == [[]]  # "snacks" modifies "bag"


def test_a_placement_target_only_the_scene_explains_is_held_to_its_relation(behavior_dir) -> None:
    # "cart" names no BEHAVIOR object by itself; the scene's shopping cart is the target of "into"
    loaded = "Can you grab the salmon fillets out of the freezer and load them into the cart?"
    on_cart = _with_goal("b1k/taking_fish_out_of_freezer", "(:goal (and (forall (?salmon.n.03 - salmon.n.03) "
                         "(ontop ?salmon.n.03 ?shopping_cart.n.01_1))))")
    assert misplacements(loaded, on_cart) == [
        "the instruction says 'into the cart', which asks for (inside ?x ?cart), but the goal has only (ontop ...) there"]
    assert misplacements(loaded, to_omnigibson(load_problem("b1k/taking_fish_out_of_freezer"))) == []


def test_a_placement_the_goal_states_by_another_relation_is_missing(behavior_dir) -> None:
    # Qwen 1.5B's held-out draft for "stack the tortillas on the plate": (inside ?tortilla ?plate)
    problem = to_omnigibson(load_problem("b1k/fold_a_tortilla"))
    objects = dict(problem.objects)
    inside = replace(problem, goal=parse_goal("(:goal (and (forall (?tortilla.n.01 - tortilla.n.01) "
                                              "(inside ?tortilla.n.01 ?plate.n.04_1))))", objects, "omnigibson"))
    said = state_conflicts("stack the tortillas on the plate", inside)
    assert said.missing == ("the instruction says 'on the plate', which asks for (ontop ?x ?plate), but the goal "
                            "has only (inside ...) there",) and not said.conflicts
    assert said.unanswered == ("on the plate",)  # a retrieved goal so placed is asked back (ask_unanswered)
    assert state_conflicts("stack the tortillas on the plate", load_problem("b1k/fold_a_tortilla")).missing == ()
    # no verb that moves things ("make a latte in the mug"), or no placement at that target: nothing
    assert not misplacements("warm the tortillas on the plate", inside)
    assert [p.relation for p in placement_words("put the cup in the sink and turn on the tv")] == ["inside"]
    # a list of objects split by commas is still the verb's clause; its plural target is where, not what
    (hangers,) = placement_words("Put the vest, the dress and the jersey on hangers.")
    assert hangers.relation == "ontop" and hangers.target is not None and hangers.target.phrase == "hangers"
    assert placement_words("Dinner is done, the plates are in the sink.") == []  # no verb that moves things
    # everyday verbs that move things: "pop it in the oven" puts it inside, as "put" does
    (oven,) = placement_words("Let's have the lasagna tonight, just pop it in the oven until it's done.")
    assert oven.relation == "inside" and oven.target is not None and oven.target.phrase == "oven"
    # sorting into boxes puts things in them: the boxes are where, not what to do to all of them (untuned6)
    (boxes,) = placement_words("sort volunteer gear into boxes")
    assert boxes.relation == "inside" and boxes.target is not None and boxes.target.phrase == "boxes"
    assert asked_for_all("sort volunteer gear into boxes") == []
    # a particle right after the verb, before a possessive, says what moves: "toss in its toys" asks for
    # every toy (a plural the goal must cover), and puts them nowhere; "put the dress on its hanger" still says where
    toys = "The parakeet's coming home, get the cage ready and toss in its toys."
    assert placement_words(toys) == [] and [m.phrase for m in asked_for_all(toys)] == ["toys"]
    (hanger,) = placement_words("put the dress on its hanger")
    assert hanger.relation == "ontop" and hanger.target is not None and hanger.target.phrase == "hanger"


def test_things_said_to_go_somewhere_are_placed_there_and_a_description_places_nothing(behavior_dir) -> None:
    def moved(text: str) -> list[tuple[str, str, list[str]]]:
        places = placement_words(text)
        return [(p.relation, p.target.phrase if p.target else "", [m.phrase for m in moved_by(text, p, places)])
                for p in places]

    # "go"/"belong" with a thing as subject: what goes is said before the verb (untuned4 casual:
    # "Laptop, battery, the book, and the DVDs can all go up on the bookcase", drafted inside it)
    assert moved("Laptop, battery, the book, and the DVDs can all go up on the bookcase") == [
        ("ontop", "bookcase", ["laptop", "battery", "book", "dvds"])]
    assert moved("Dinner is done, the plates go in the sink.") == [("inside", "sink", ["plates"])]
    # only the preposition right after it: the bed is where the blanket is folded, not where the pots go
    assert moved("the pots go in the cabinet, the blanket can be folded up on the bed") == [
        ("inside", "cabinet", ["pots"])]
    # an imperative "go" moves the robot, not a thing
    assert moved("go in the kitchen and put the bowl in the sink") == [("inside", "sink", ["bowl"])]
    # a verb that "are"/"have" makes a description moves nothing (untuned9 casual: the trees read as
    # a placement target, so "both of them" was not every tree and a one-tree spraying was accepted)
    assert moved("Bugs are getting into the fruit trees again - could you give both of them a spray?") == []
    assert moved("The kids have put toys in the box, so could you put the books on the shelf?") == [
        ("ontop", "shelf", ["books"])]
    # "line up" moves things (untuned11 casual: "line up my sandals by the bed", drafted on the bed);
    # "the line" is a clothesline
    assert moved("could you line up my sandals by the bed and put that book on a table?") == [
        ("nextto", "bed", ["sandals"]), ("ontop", "table", ["book"])]
    # ("them": the one plural named before, the shirts)
    assert moved("take the shirts off the line and put them in the basket") == [("inside", "basket", ["shirts"])]


def test_a_state_a_thing_should_be_is_held_against_the_goal(behavior_dir) -> None:
    # opening_doors' goal said back as "every door is open" had accepted B-100's locking_every_door
    doors = to_omnigibson(load_problem("b1k/opening_doors"))
    locking = _with_goal("b1k/opening_doors", "(:goal (and (not (open ?door.n.01_1)) (not (open ?door.n.01_2))))")
    said = "Make sure that every door is open."
    assert state_conflicts(said, doors) == state_conflicts("", doors)
    assert state_conflicts(said, locking).conflicts == (
        "the instruction says 'open', which asks for (open ...), but the goal has only (not (open ...))",)


def test_a_state_is_not_answered_by_a_literal_that_already_holds(behavior_dir) -> None:
    # Qwen 1.5B's held-out draft for "clean out the canister, dust it off and spray everything with
    # disinfectant": the canister was never dusty, and nothing puts dust back, so (not (covered canister
    # dust)) asks for nothing
    problem = to_omnigibson(load_problem("b1k/clean_a_vacuum"))
    objects = dict(problem.objects)

    def said(goal: str) -> tuple[str, ...]:
        drafted = replace(problem, goal=parse_goal(f"(:goal (and {goal}))", objects, "omnigibson"))
        return state_conflicts("dust off the vacuum", drafted).missing

    assert said("(not (covered ?canister.n.02_1 ?dust.n.01_1))") == (
        "the instruction says 'dust', which asks for (not (covered ... dust.n.01)), but the goal has none that "
        "does not already hold",)
    assert said("(not (covered ?vacuum.n.04_1 ?dust.n.01_1))") == ()  # the vacuum was dusty: a change
    # over a quantified variable some instance may still change: answered as before
    # (the canisters are not the vacuum the instruction names: that is states_of_others' reason)
    assert said("(forall (?canister.n.02 - canister.n.02) (not (covered ?canister.n.02 ?dust.n.01_1)))") == (
        "the instruction says 'dust' of the vacuum, which asks for (not (covered ... dust.n.01)), but the goal asks it only "
        "of canister.n.02",)
    assert state_conflicts("dust off the vacuum", problem).missing == ()  # the released goal
    # a literal some action can make false is never idle: loading the car opens it, and "close it"
    # asks for it shut again, though it was shut at the start
    car = to_omnigibson(load_problem("b1k/loading_the_car"))
    assert ("open", ("car.n.01_1",)) not in initial_facts(car)
    assert state_conflicts("load the car and close it", car).missing == ()


def test_a_drafted_goal_sets_nothing_on_fire_unless_asked(behavior_dir) -> None:
    # Qwen 1.5B's sampled draft for "Season the ham with salt, brush it with the glaze and bake it"
    # set the cooked salt on fire; the engine could do it, the person never asked
    problem = to_omnigibson(load_problem("b1k/cook_a_ham"))
    fire = replace(problem, goal=parse_goal("(:goal (and (cooked ?virginia_ham.n.01_1) (on_fire ?virginia_ham.n.01_1)))",
                                            dict(problem.objects), "omnigibson"))
    bake = state_conflicts("bake the ham", fire)
    assert any("(on_fire virginia_ham.n.01_1) true (virginia_ham.n.01), which the instruction never asks" in m
               for m in bake.missing), bake.missing
    assert not any("never asks" in m for m in state_conflicts("bake the ham and then set it alight: burn it", fire).missing)
    assert not any("never asks" in m for m in state_conflicts("light the ham", fire).missing)
    assert not unasked_damage(state_words("bake the ham"), problem)  # the released goal burns nothing


def test_a_drafted_goal_switches_on_only_what_is_named_asked_for_or_does_an_asked_state(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft for the prescriptions (a restated request): a printer switched on
    meds = "I need my meds from the pharmacy, could you bag up the pill bottles and the allergy pills for me?"
    printing = _with_goal("b1k/picking_up_prescriptions", "(:goal (and (forall (?pill_bottle.n.01 - pill_bottle.n.01) "
                          "(inside ?pill_bottle.n.01 ?sack.n.01_1)) (toggled_on ?printer.n.03_1)))")
    assert unasked_switching(meds, state_words(meds), printing) == [
        "the goal switches on printer.n.03_1 (printer.n.03), which the instruction never names or asks to switch on"]
    assert any("switches on printer" in m for m in state_conflicts(meds, printing).missing)
    for asked in ("bag the pill bottles and print the receipt on the printer", "bag the pills and turn on the printer"):
        assert unasked_switching(asked, state_words(asked), printing) == [], asked
    released = to_omnigibson(load_problem("b1k/picking_up_prescriptions"))
    assert unasked_switching(meds, state_words(meds), released) == []
    # "bake the ham": the oven that cooks it may be switched on unnamed
    baked = _with_goal("b1k/cook_a_ham", "(:goal (and (cooked ?virginia_ham.n.01_1) (toggled_on ?oven.n.01_1)))")
    assert unasked_switching("bake the ham", state_words("bake the ham"), baked) == []


def test_a_place_said_as_it_is_the_object_named_before_the_verb_and_the_goal_must_put_something_there(behavior_dir) -> None:
    # Qwen 1.5B's sampled held-out draft: the boat washed, the rod taken off the driveway, nothing in the boat
    fishing = "We're going fishing in the morning, can you wash off the boat and throw the rod and tackle in it?"
    ashore = _with_goal("b1k/prepare_a_boat_for_fishing", "(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) "
                        "(not (ontop ?fishing_rod.n.01_1 ?driveway.n.01_1))))")
    assert empty_places(fishing, ashore) == [
        "the instruction says 'in it' (the boat), which asks for (inside ?x ?boat), but the goal puts nothing there"]
    assert any("'in it' (the boat)" in m for m in state_conflicts(fishing, ashore).missing)
    assert empty_places(fishing, to_omnigibson(load_problem("b1k/prepare_a_boat_for_fishing"))) == []
    aboard = _with_goal("b1k/prepare_a_boat_for_fishing", "(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) "
                        "(ontop ?fishing_rod.n.01_1 ?boat.n.01_1)))")
    assert empty_places(fishing, aboard) == []  # on rather than in: for the other checks to judge
    basket = "I'm putting together a pamper basket for my sister, could you drop the lotion, the perfume and the oil in it?"
    assert empty_places(basket, to_omnigibson(load_problem("b1k/make_the_ultimate_spa_basket"))) == []
    assert empty_places("wash off the boat and put the rod in the boat", ashore) == [
        "the instruction says 'in the boat', which asks for (inside ?x ?boat), but the goal puts nothing there"]
    # "it" is a thing, not the substance named last: the glass, not the water
    lemonade = "Fill the water glass with water and put the ice cubes in it."
    assert empty_places(lemonade, to_omnigibson(load_problem("b1k/make_lemon_or_lime_water"))) == []
    # nor what comes "with" another thing, and "next to it" is held to its relation too (untuned11 direct)
    serve = "Please serve a plate with the chicken, put the bap on it, and place a spoon next to it."
    on_plate = _with_goal("b1k/serving_food_on_the_table", "(:goal (and (ontop ?bap.n.01_1 ?plate.n.04_1) "
                          "(ontop ?tablespoon.n.02_1 ?plate.n.04_1)))")
    assert empty_places(serve, on_plate) == []  # the plate, not the chicken
    assert misplacements(serve, on_plate) == [
        "the instruction says 'next to it' (the plate), which asks for (nextto ?x ?plate), but the goal has only "
        "(ontop ...) there"]
    # the place an earlier "it" was set on stands for nothing new: "next to it" is still the plate
    served = serve.replace("and place", "set it on the breakfast table, and place")
    assert misplacements(served, on_plate) == [
        "the instruction says 'next to it' (the plate), which asks for (nextto ?x ?plate), but the goal has only "
        "(ontop ...) there"]


def test_a_place_named_outright_must_have_something_put_there(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft (people's requests as examples): the plate in the sink and the
    # fridge shut, nothing in it. The fridge is named and mentioned, which the objects axis accepts.
    dinner = ("Dinner's done, could you pack up the leftovers, stick them in the fridge and bring the dirty plate "
              "over to the sink?")
    shut = _with_goal("b1k/clearing_table_after_dinner", "(:goal (and (inside ?plate.n.04_1 ?sink.n.01_1) "
                      "(not (open ?electric_refrigerator.n.01_1))))")
    assert empty_places(dinner, shut) == [
        "the instruction says 'in the fridge', which asks for (inside ?x ?fridge), but the goal puts nothing there"]
    assert any("'in the fridge'" in m for m in state_conflicts(dinner, shut).missing)
    assert empty_places(dinner, to_omnigibson(load_problem("b1k/clearing_table_after_dinner"))) == []
    # a target the scene lacks is the objects axis's: the antlers hang on the nail, not on a wall object
    antlers = "Dust the antlers and hang them back on the nail on the wall."
    assert empty_places(antlers, to_omnigibson(load_problem("b1k/clean_deer_antlers"))) == []
    # every committed instruction of a B-1K activity against its released goal: none fires
    for said, released in _committed_instructions():
        assert empty_places(said, released) == [], said
        assert substances_placed_elsewhere(said, released) == [], said


def test_a_product_the_goal_makes_for_nothing_and_the_words_never_name_is_refused(behavior_dir) -> None:
    # untuned11 direct, Qwen 1.5B: cooked water made beside the peas and butter the request asks for
    said = "Please cook the peas and melt some butter, with both in the saucepan."
    peas = to_omnigibson(load_problem("b1k/cook_peas"))
    peas = replace(peas, objects={**peas.objects, "cooked__water.n.01_1": "cooked__water.n.01"})  # as an addition
    water = replace(peas, goal=parse_goal("(:goal (and (real ?cooked__pea.n.01_1) (contains ?saucepan.n.01_1 "
                                          "?cooked__pea.n.01_1) (real ?cooked__water.n.01_1)))", dict(peas.objects),
                                          "omnigibson"))
    assert idle_products(said, water) == [
        "the goal makes cooked__water.n.01, which the instruction never names, and does nothing with it"]
    assert idle_products("boil some water", water) == []  # what it is made from is named
    for text, problem in _committed_instructions():  # no released goal trips it
        assert idle_products(text, problem) == [], text


def test_a_substance_put_in_a_place_is_not_held_only_elsewhere(behavior_dir) -> None:
    # untuned11 direct and terse, Qwen 1.5B: the seeds left in their bag, or spread over the pot
    said = "Please fill the pot with soil and plant some pumpkin seeds in it."
    in_bag = _with_goal("b1k/planting_vegetables", "(:goal (and (filled ?pot.n.04_1 ?soil.n.02_1) (contains "
                        "?pumpkin_seed__bag.n.01_1 ?pumpkin_seed.n.01_1)))")
    assert substances_placed_elsewhere(said, in_bag) == [
        "the instruction puts the pumpkin seeds 'in it' (the pot), but the goal has it only in pumpkin_seed__bag.n.01"]
    on_pot = _with_goal("b1k/planting_vegetables", "(:goal (and (covered ?pot.n.04_1 ?pumpkin_seed.n.01_1)))")
    assert substances_placed_elsewhere("Plant pumpkin seeds in the pot.", on_pot) == [
        "the instruction puts the pumpkin seeds 'in the pot', but the goal has it only covering pot.n.04"]
    assert substances_placed_elsewhere(said, to_omnigibson(load_problem("b1k/planting_vegetables"))) == []
    assert [p.said for p in placement_words("water the plant in the pot")] == []  # "plant" a noun here


def test_a_word_only_the_scene_explains_names_that_object(behavior_dir) -> None:
    # "rod" names no BEHAVIOR object by itself; with a fishing rod in the scene it names that one
    boat = ["boat.n.01", "fishing_rod.n.01", "fishing_gear.n.01"]
    said = "can you wash off the boat and throw the rod and tackle in it?"
    assert scene_mentions(said, boat) == [("rod", "fishing_rod.n.01"), ("tackle", "fishing_gear.n.01")]
    assert scene_mentions(said, ["boat.n.01"]) == []  # no rod here: the word stays unread
    assert scene_mentions("load them into the cart", ["shopping_cart.n.01", "salmon.n.03"]) == [
        ("cart", "shopping_cart.n.01")]
    # two rods: the word does not say which; a verb or a determiner is never such a name
    assert scene_mentions("grab the rod", ["fishing_rod.n.01", "curtain_rod.n.01"]) == []
    assert scene_mentions("set the table", ["tea_set.n.01", "table.n.02"]) == []
    # a modifier of the name after it: the logs are what to dust (Qwen 1.5B's goal was refused for it)
    assert scene_mentions("dust the fireplace logs", ["wood_fireplace.n.01", "log.n.01"]) == []
    assert scene_mentions("dust the logs in the fireplace", ["wood_fireplace.n.01", "log.n.01"]) == [
        ("fireplace", "wood_fireplace.n.01")]
    # a closed compound's last word (untuned7 casual: Qwen 1.5B put the clothesline in the hamper)
    said = "take everything off the line and toss it in the hamper"
    assert scene_mentions(said, ["clothesline.n.01", "hamper.n.02"]) == [("line", "clothesline.n.01")]


def test_a_wordnet_name_that_mostly_means_something_else_is_read_only_for_a_scene_that_has_the_thing(behavior_dir) -> None:
    # "tackle" is first a football position and "closet" a small room: with fishing gear or a
    # wardrobe in the scene they name those (Qwen 1.5B put a bucket in the boat, not the tackle)
    closet = "can you scrub the leotard and tights and hang them up in the closet?"
    assert scene_mentions(closet, ["leotard.n.01", "tights.n.01", "wardrobe.n.01"]) == [("closet", "wardrobe.n.01")]
    assert scene_mentions(closet, ["leotard.n.01", "tights.n.01"]) == []
    assert scene_mentions("wash grandpa's headstone", ["gravestone.n.01"]) == [("headstone", "gravestone.n.01")]
    assert scene_mentions("put the lights on every bush", ["scrub.n.01"]) == [("bush", "scrub.n.01")]
    fishing = "We're going fishing in the morning, can you wash off the boat and throw the rod and tackle in it?"
    bucket = _with_goal("b1k/prepare_a_boat_for_fishing", "(:goal (and (not (covered ?boat.n.01_1 ?stain.n.01_1)) "
                        "(inside ?fishing_rod.n.01_1 ?boat.n.01_1) (inside ?bucket.n.01_1 ?boat.n.01_1)))")
    assert ("tackle", "fishing_gear.n.01") in instruction_objects(fishing, set(bucket.objects.values()))


def test_a_short_forpairs_covers_only_as_many_as_its_other_side_has(behavior_dir) -> None:
    # forpairs is a one-to-one matching (BDDL): three salmon paired with one cart puts one in it
    problem = to_omnigibson(load_problem("b1k/taking_fish_out_of_freezer"))
    goal = parse_goal("(:goal (and (forpairs (?salmon.n.03 - salmon.n.03) (?shopping_cart.n.01 - shopping_cart.n.01) "
                      "(inside ?salmon.n.03 ?shopping_cart.n.01))))", dict(problem.objects), "omnigibson")
    paired = replace(problem, goal=goal)
    assert short_pairings(paired) == {"salmon.n.03": ("shopping_cart.n.01", 1)}
    assert "salmon.n.03" not in goal_coverage(paired)[1]
    every = parse_goal("(:goal (and (forall (?salmon.n.03 - salmon.n.03) (inside ?salmon.n.03 ?shopping_cart.n.01_1)) "
                       "(forpairs (?salmon.n.03 - salmon.n.03) (?shopping_cart.n.01 - shopping_cart.n.01) "
                       "(inside ?salmon.n.03 ?shopping_cart.n.01))))", dict(problem.objects), "omnigibson")
    assert short_pairings(replace(problem, goal=every)) == {}  # a forall covers them all anyway


@pytest.fixture(scope="module")
def greens(behavior_dir):
    return render_task(load_problem(GREENS), seed=0)


def _llm_goal(scene, instruction: str, goal: str):
    config = PerceptionConfig(benchmarks=("b1k",), goal="llm", llm_decoding="free")
    return perceive(scene.frames(2), instruction, make_detector("fiducial", fiducial_map=scene.fiducial_map),
                    scene.intrinsics, config, goal_backend=FunctionBackend(lambda _p: goal, name="scripted"))


def test_an_llm_goal_that_cooks_one_of_the_greens_asked_for_is_rejected(greens) -> None:
    # Qwen 1.5B's held-out draft for "Cook the mustard greens." (issue 21): one of the three, as a variable
    two = _llm_goal(greens, "Cook the mustard greens.", "(:goal (and (cooked ?mustard.n.03_1) (cooked ?mustard.n.03_2)))")
    assert not two.accepted
    assert any("says 'mustard greens', all 3 in the scene" in r and "covers only mustard.n.03_1, mustard.n.03_2" in r
               for r in two.reasons), two.reasons
    every = "(:goal (and (forall (?mustard.n.03 - mustard.n.03) (cooked ?mustard.n.03))))"
    assert _llm_goal(greens, "Cook the mustard greens.", every).accepted
    named = "(:goal (and (cooked mustard.n.03_1) (cooked mustard.n.03_2) (cooked mustard.n.03_3)))"
    assert _llm_goal(greens, "Cook the mustard greens.", named).accepted
    counted = _llm_goal(greens, "cook one of the mustard greens", "(:goal (and (cooked mustard.n.03_1)))")
    assert not any("all 3 in the scene" in r for r in counted.reasons), counted.reasons


def test_a_sandwich_asked_for_is_put_together_not_made(behavior_dir) -> None:
    # BEHAVIOR has no sandwich object (only kinds: hamburger, hotdog, ...); make_a_sandwich spreads
    # and stacks the slices. Untuned12 direct's right draft was refused for "no such object".
    said = ("Please make a peanut butter and jelly sandwich: spread both slices of bread with peanut butter and "
            "jelly, put them together, and set it on the plate.")
    assert [m.phrase for m in assembled_products(said)] == ["sandwich"]
    assert [m.phrase for m in assembled_products("could you whip me up a sandwich?")] == ["sandwich"]
    assert assembled_products("put the sandwich on the plate") == []  # no making verb
    assert assembled_products("make me a coffee") == []  # its kinds are drinks, which are made
    assert requested_products("make me a sandwich", set()) == []  # no sandwich object to add
    scene = render_task(load_problem("b1k/make_a_sandwich"), seed=0)
    released = write_formula(to_omnigibson(load_problem("b1k/make_a_sandwich")).goal)
    result = _llm_goal(scene, said, f"(:goal {released})")
    assert result.accepted, result.reasons
    assert any("asks to make 'sandwich' (sandwich.n.01), which BEHAVIOR has no object of" in n
               for v in result.verdicts for n in v.notes)


def test_a_substance_cooked_is_the_product_it_becomes(behavior_dir) -> None:
    # untuned9 casual and terse: Qwen 1.5B asked the raw seeds cooked, which no plan turns into the
    # cooked seeds BEHAVIOR's goal makes: accepted, wrong
    scene = render_task(load_problem("b1k/toast_sunflower_seeds"), seed=0)
    toasted = _llm_goal(scene, "Toast the sunflower seeds.", "(:goal (and (cooked ?sunflower_seed.n.01_1)))")
    assert toasted.accepted, toasted.reasons
    assert "(real ?cooked__sunflower_seed.n.01_1)" in compact_goal(toasted.problem.goal)
    assert any("sunflower_seed.n.01 is a substance, which becomes cooked__sunflower_seed.n.01" in n
               for n in toasted.provenance["notes"])


def test_a_literal_that_already_holds_covers_no_part_of_a_plural(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft (five examples): salmon_1 left in the freezer, where it is,
    # and the other two on the cart; before, the first literal counted as covering salmon_1
    scene = render_task(load_problem("b1k/taking_fish_out_of_freezer"), seed=0)
    instruction = "Can you grab the salmon fillets out of the freezer and load them into the cart?"
    left = _llm_goal(scene, instruction, "(:goal (and (inside ?salmon.n.03_1 ?electric_refrigerator.n.01_1) "
                                         "(ontop ?salmon.n.03_2 ?shopping_cart.n.01_1) "
                                         "(ontop ?salmon.n.03_3 ?shopping_cart.n.01_1)))")
    assert not left.accepted
    assert any("covers only salmon.n.03_2, salmon.n.03_3" in r for r in left.reasons), left.reasons
    moved = _llm_goal(scene, instruction, "(:goal (and (inside ?salmon.n.03_1 ?shopping_cart.n.01_1) "
                                          "(inside ?salmon.n.03_2 ?shopping_cart.n.01_1) "
                                          "(inside ?salmon.n.03_3 ?shopping_cart.n.01_1)))")
    assert moved.accepted, moved.reasons


def test_a_plural_asked_of_one_with_exists_or_of_all_where_it_already_holds_is_partial(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: a forall that already holds (no pill bottle is inside
    # another) and one pill bottle in the sack; before, the forall covered every pill bottle
    problem = to_omnigibson(load_problem("b1k/picking_up_prescriptions"))
    goal = parse_goal("(:goal (and (forall (?pill_bottle.n.01 - pill_bottle.n.01) (not (inside ?pill_bottle.n.01 "
                      "?pill_bottle.n.01_2))) (exists (?pill_bottle.n.01 - pill_bottle.n.01) (inside ?pill_bottle.n.01 "
                      "?sack.n.01_1))))", dict(problem.objects), "omnigibson")
    drafted = replace(problem, goal=goal)
    named, every, some = goal_coverage(drafted, skip_held=True)
    assert "pill_bottle.n.01" not in every and "pill_bottle.n.01" in some
    assert "pill_bottle.n.01" in goal_coverage(drafted)[1]  # not skipping what holds: the forall covers them
    scene = render_task(load_problem("b1k/picking_up_prescriptions"), seed=0)
    meds = "I need my meds from the pharmacy, could you bag up the pill bottles and the allergy pills for me?"
    # (a plain exists over the bottles is mended to forall, goal_mending.widen_exists; one that also
    # uses its variable as a place is not, and is refused)
    one = _llm_goal(scene, meds, "(:goal (and (exists (?pill_bottle.n.01 - pill_bottle.n.01) (and (inside "
                                 "?pill_bottle.n.01 ?sack.n.01_1) (nextto ?sack.n.01_1 ?pill_bottle.n.01)))))")
    assert not one.accepted
    assert any("'pill bottles'" in r and "asks it of only one of them (exists)" in r for r in one.reasons), one.reasons
    widened = _llm_goal(scene, meds, "(:goal (and (exists (?pill_bottle.n.01 - pill_bottle.n.01) "
                                     "(inside ?pill_bottle.n.01 ?sack.n.01_1))))")
    assert any("exists is read as forall" in n for n in widened.provenance["goal"]["mended"])
    every_one = _llm_goal(scene, meds, "(:goal (and (forall (?pill_bottle.n.01 - pill_bottle.n.01) "
                                       "(inside ?pill_bottle.n.01 ?sack.n.01_1))))")
    assert not any("'pill bottles'" in r for r in every_one.reasons), every_one.reasons


def test_an_llm_goal_pairing_all_the_salmon_with_one_cart_is_read_as_every_salmon(behavior_dir) -> None:
    # Qwen 1.5B's held-out draft for "Take all the salmon out of the fridge and put it in the shopping
    # cart.": read as written, the plan put one salmon in the cart and strict-passed it
    scene = render_task(load_problem("b1k/taking_fish_out_of_freezer"), seed=0)
    instruction = "Take all the salmon out of the fridge and put it in the shopping cart."
    paired = _llm_goal(scene, instruction, "(:goal (and (forpairs (?salmon.n.03 - salmon.n.03) (?shopping_cart.n.01 - "
                                           "shopping_cart.n.01) (inside ?salmon.n.03 ?shopping_cart.n.01))))")
    assert paired.accepted, paired.reasons
    assert "(forall (?salmon.n.03 - salmon.n.03) (inside ?salmon.n.03 ?shopping_cart.n.01_1) )" in " ".join(
        paired.bddl.split())
    assert any("one to one with the scene's one shopping_cart.n.01" in n for n in paired.provenance["goal"]["mended"])
    every = _llm_goal(scene, instruction, "(:goal (and (forall (?salmon.n.03 - salmon.n.03) "
                                          "(inside ?salmon.n.03 ?shopping_cart.n.01_1))))")
    assert every.accepted, every.reasons


def test_a_plural_drafted_as_its_first_instance_is_read_as_all_of_them(greens) -> None:
    # Qwen 1.5B most often wrote the first instance only: "(cooked ?mustard.n.03_1)"
    one = _llm_goal(greens, "Cook the mustard greens.", "(:goal (and (cooked ?mustard.n.03_1)))")
    assert one.accepted, one.reasons
    assert "(forall (?mustard.n.03 - mustard.n.03) (cooked ?mustard.n.03) )" in " ".join(one.bddl.split())
    assert one.provenance["goal"]["mended"] == [
        "the instruction says 'mustard greens': the goal's mustard.n.03_1 is read as every mustard.n.03 (3 in the scene)"]
    counted = _llm_goal(greens, "cook one of the mustard greens", "(:goal (and (cooked mustard.n.03_1)))")
    assert "mended" not in counted.provenance["goal"] and "mustard.n.03_1" in counted.bddl.split("(:goal")[1]
    problem = to_omnigibson(load_problem(GREENS))
    goal, notes = widen_plurals("Cook the mustard greens.", problem)  # the released goal: already all of them
    assert goal == problem.goal and notes == []


def test_an_llm_goal_with_a_bottle_where_a_substance_belongs_is_rejected(greens) -> None:
    # Qwen 1.5B wrote (covered iron disinfectant__bottle) for "wipe it with disinfectant": a thing
    # in covered's substance slot, which no released file ever does
    bottle = "(:goal (and (forall (?mustard.n.03 - mustard.n.03) (cooked ?mustard.n.03)) " \
             "(covered mustard.n.03_1 saucepan.n.01_1)))"
    result = _llm_goal(greens, "Cook the mustard greens.", bottle)
    assert not result.accepted
    assert any("covered takes a substance" in r and "saucepan.n.01 is not one" in r for r in result.reasons), \
        result.reasons
    water = "(:goal (and (forall (?mustard.n.03 - mustard.n.03) (cooked ?mustard.n.03)) " \
            "(not (covered mustard.n.03_1 water.n.06_1))))"
    assert not any("takes a substance" in r for r in _llm_goal(greens, "Cook the mustard greens.", water).reasons)


def test_a_wordnet_name_read_as_a_thing_the_scene_lacks_is_read_as_the_one_scene_thing_it_can_mean(behavior_dir) -> None:
    # "bike" is first a motorcycle in WordNet; "wash the bike" in a scene with a bicycle means the
    # bicycle (retrieval's right goal was accepted with a note, and an LLM goal refused for it)
    bike = set(load_problem("b1k/wash_your_bike").objects.values())
    assert ("bike", "bicycle.n.01") in instruction_objects("wash the bike", bike)
    assert ("bike", "motorcycle.n.01") in instruction_objects("wash the bike", bike - {"bicycle.n.01"})
    assert ("bike", "motorcycle.n.01") in instruction_objects("wash the bike", bike | {"motorcycle.n.01"})


def test_a_name_the_scene_lacks_is_the_one_scene_thing_of_a_narrow_kind_it_shares(behavior_dir) -> None:
    # untuned10 direct: "jeans" (jean.n.01) with two long trousers; both are trouser.n.01
    jeans = set(load_problem("b1k/wash_jeans").objects.values())
    assert ("jeans", "long_trousers.n.01") in instruction_objects("Wash the stained jeans.", jeans)
    assert ("jeans", "jean.n.01") in instruction_objects("Wash the stained jeans.", jeans | {"short_pants.n.01"})
    # a broad kind (BEHAVIOR has six kinds of shoe) leaves the word as it was
    assert ("sandals", "sandal.n.01") in instruction_objects("put the sandals away", {"gym_shoe.n.01"})
    # a compound's last word that is the whole name of one scene type (untuned11: "the rubber bath mat",
    # BEHAVIOR files bath_mat under bath linen, and the scene has a mat)
    assert ("bath mat", "mat.n.01") in instruction_objects("clean the mildew off the rubber bath mat",
                                                           {"mat.n.01", "mildew.n.02", "sink.n.01"})
    assert ("bath mat", "bath_mat.n.01") in instruction_objects("clean the bath mat", {"sink.n.01"})


def test_a_part_the_scene_has_no_object_for_names_the_one_whole_wordnet_puts_it_in(behavior_dir) -> None:
    # "back on the shelves" with a bookcase: the shelves are the bookcase's (WordNet's part holonyms)
    books = set(load_problem("b1k/re_shelving_library_books").objects.values())
    said = "Somebody left a stack of books on the table. Can you put them all back on the shelves?"
    assert ("shelves", "bookcase.n.01") in instruction_objects(said, books)
    assert ("shelves", "shelf.n.01") in instruction_objects(said, books | {"shelf.n.01"})  # a shelf of its own
    # two wholes the word may be a part of: it does not say which
    assert ("shelves", "shelf.n.01") in instruction_objects(said, books | {"cabinet.n.01"})
    jars = set(load_problem("b1k/can_fruit").objects.values())
    canning = "A couple of peaches in each jar with water, lids on, and into the cupboard."
    # "lids on" says no place: the lids stay unread (a jar's lid is its open state, no object)
    assert {("lids", "lid.n.02"), ("cupboard", "cupboard.n.01")} <= set(instruction_objects(canning, jars))
    assert grounds_in("cupboard", "cupboard.n.01", jars) == "cabinet.n.01"  # an everyday word for it
    # a part named right after its thing is that thing (untuned6 direct: "then close the fridge door")
    fridge = {"electric_refrigerator.n.01", "egg.n.02"}
    assert ("door", "electric_refrigerator.n.01") in instruction_objects("then close the fridge door", fridge)
    assert ("door", "door.n.01") in instruction_objects("then close the door", fridge)  # whose, not said


def test_the_dishes_are_the_scenes_tableware_bowls_and_mugs_a_mug_is_a_cup_and_a_cap_a_hat(behavior_dir) -> None:
    # WordNet files no plate, bowl or mug under dish.n.01, nor a cap under hat.n.01: "gather the
    # dishes into the sink" (mugs and a bowl) and "wash my hats" (baseball caps) were refused
    dishes = set(load_problem("b1k/collecting_dishes_from_around_house").objects.values())
    assert grounds_in("dishes", "dish.n.01", dishes, loose=False) in {"bowl.n.01", "mug.n.04"}
    assert grounds_in("dishes", "dish.n.01", {"plate.n.04", "sink.n.01"}, loose=False) == "plate.n.04"
    assert grounds_in("dishes", "dish.n.01", {"sink.n.01", "pot_plant.n.01"}, loose=False) is None
    assert grounds_in("hats", "hat.n.01", {"baseball_cap.n.01", "washer.n.03"}, loose=False) == "baseball_cap.n.01"
    assert grounds_in("hats", "hat.n.01", {"jersey.n.03", "washer.n.03"}, loose=False) is None
    assert grounds_in("cups", "cup.n.01", {"mug.n.04", "cabinet.n.01"}, loose=False) == "mug.n.04"


def test_discs_jars_and_clippers_are_the_scenes_dvds_canisters_and_pruners(behavior_dir) -> None:
    # held out, "stack the discs" (two DVDs), "scoop them into the two jars" (canisters) and "pack the
    # clippers and shears" (a pruner) were refused as naming objects the scene lacks
    hobby = set(load_problem("b1k/unpacking_hobby_equipment").objects.values())
    assert grounds_in("discs", "phonograph_record.n.01", hobby, loose=False) == "videodisk.n.01"
    assert grounds_in("jars", "jar.n.01", set(load_problem("b1k/can_beans").objects.values()),
                      loose=False) == "canister.n.02"
    kit = set(load_problem("b1k/put_togethera_basic_pruning_kit").objects.values())
    assert grounds_in("clippers", "clipper.n.04", kit, loose=False) == "pruner.n.02"
    assert grounds_in("discs", "phonograph_record.n.01", {"book.n.02", "bookcase.n.01"}, loose=False) is None


def test_a_place_said_with_at_by_or_near_asks_for_something_put_there_by_any_relation(behavior_dir) -> None:
    # held out, retrieval drafted "fix the mailbox" for "leave them at the mailbox", and it was accepted
    said = "These two boxes need to go out today. Could you leave them at the mailbox for pickup?"
    (at,) = placement_words(said)
    assert at.said == "at" and at.relation == "" and at.target is not None and at.target.phrase == "mailbox"
    fixed = _with_goal("b1k/sending_packages", "(:goal (and (not (broken ?mailbox.n.01_1))))")
    assert empty_places(said, fixed) == [
        "the instruction says 'at the mailbox', which asks for something put there, but the goal puts nothing there"]
    check = state_conflicts(said, fixed)
    assert check.unanswered == ("at the mailbox",) and not check.conflicts  # a question for a retrieved goal
    # in it or next to it, as the released goal allows: no relation is the wrong one
    released = to_omnigibson(load_problem("b1k/sending_packages"))
    assert empty_places(said, released) == [] and misplacements(said, released) == []
    inside = _with_goal("b1k/sending_packages", "(:goal (and (forall (?package.n.02 - package.n.02) "
                        "(inside ?package.n.02 ?mailbox.n.01_1))))")
    assert state_conflicts(said, inside).missing == ()
    assert placement_words("look at the mailbox") == []  # no verb that moves things
    # a choice of relations: "in or next to the mailbox" asks for something there by either
    (either,) = placement_words("Take the two packages off the coffee table and put them in or next to the mailbox.")
    assert either.said == "in or next to" and either.relation == ""
    assert either.target is not None and either.target.phrase == "mailbox"
    assert [p.target for p in placement_words("put it away at once")] == [None]  # no place named


def test_what_rides_in_a_container_the_goal_moves_is_moved_with_it(behavior_dir) -> None:
    # "pay for the apples": the released goal puts the basket, with the apples in it, on the checkout
    paying = to_omnigibson(load_problem("b1k/paying_for_purchases"))
    assert carried(paying) == {"apple.n.01": "shopping_basket.n.01_1", "money.n.01": "shopping_basket.n.01_1"}
    left = _with_goal("b1k/paying_for_purchases", "(:goal (and (ontop ?money.n.01_1 ?checkout.n.03_1)))")
    assert carried(left) == {}  # the basket stays: nothing rides


def test_a_goal_that_asks_a_substance_to_be_covered_is_refused_and_its_stain_is_no_source(behavior_dir) -> None:
    # Qwen 1.5B's held-out draft for "Wash the stain out of the hamper ...": the stain "not covered"
    # with detergent and with a stain; the hamper never named. Accepted, and wrong.
    said = "Wash the stain out of the hamper with detergent in the washing machine."
    drafted = _with_goal("b1k/clean_a_hamper", "(:goal (and (not (covered ?stain.n.01_1 ?detergent.n.02_1)) "
                         "(not (toggled_on ?washer.n.03_1))))")
    assert substance_subjects(drafted) == [
        "the goal has (covered stain.n.01_1 detergent.n.02_1), but stain.n.01 is a substance, which bears and holds nothing"]
    assert state_conflicts(said, drafted).conflicts == tuple(substance_subjects(drafted))
    assert "hamper" not in incidental_objects(said)  # what the stain comes out of is what is cleaned
    assert "dryer" in incidental_objects("take the clothes out of the dryer")  # a source, as before
    for task in ("b1k/clean_a_hamper", "b1k/make_lemon_pepper_wings", "b1k/can_fruit"):  # released goals: none
        assert substance_subjects(to_omnigibson(load_problem(task))) == []


def test_a_package_asked_to_hold_another_substance_is_refused_but_dirt_is_left_alone(behavior_dir) -> None:
    # untuned7 terse: "Serve cinnamon French toast with syrup." drafted as cinnamon in the syrup jar
    toast = _with_goal("b1k/make_cinnamon_toast", "(:goal (and (contains ?maple_syrup__jar.n.01_1 ?cinnamon.n.03_1)))")
    assert package_fillings(toast) == ["the goal has (contains maple_syrup__jar.n.01_1 cinnamon.n.03_1), but "
                                       "maple_syrup__jar.n.01 is a package of maple syrup, which holds nothing else"]
    own = _with_goal("b1k/make_cinnamon_toast", "(:goal (and (contains ?maple_syrup__jar.n.01_1 ?maple_syrup.n.01_1)))")
    assert package_fillings(own) == []  # what it is named for
    muddy = _with_goal("b1k/wash_goalkeeper_gloves", "(:goal (and (contains ?liquid_soap__bottle.n.01_1 ?mud.n.03_1)))")
    assert package_fillings(muddy) == []  # dirt: asks nothing a plan does
    for said, released in _committed_instructions():  # no released goal has one
        assert package_fillings(released) == [], said


def test_a_hyphenated_name_is_read_when_written_open(behavior_dir) -> None:
    said = "coat them with olive oil, melted butter, salt and lemon pepper seasoning"
    assert ("lemon pepper seasoning", "lemon-pepper_seasoning.n.01") in instruction_objects(said, set())


def test_a_state_word_asked_of_a_named_thing_is_not_answered_by_that_state_of_another(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: cooked olive oil in the pan, the brats never cooked
    said = "I'm starving. Could you fry up those brats from the fridge? Use a little olive oil in the pan."
    oil = _with_goal("b1k/cook_sausages", "(:goal (and (real ?cooked__olive_oil.n.01_1) (forpairs (?bratwurst.n.01 - "
                     "bratwurst.n.01) (?frying_pan.n.01 - frying_pan.n.01) (ontop ?bratwurst.n.01 ?frying_pan.n.01))))")
    assert states_of_others(said, state_words(said), oil) == [
        "the instruction says 'fry' of the brats, which asks for (cooked ...), but the goal asks it only of "
        "cooked__olive_oil.n.01"]
    released = to_omnigibson(load_problem("b1k/cook_sausages"))
    assert states_of_others(said, state_words(said), released) == []
    # every committed instruction against its released goal: none fires
    for text, problem in _committed_instructions():
        assert states_of_others(text, state_words(text), problem) == [], text


def test_a_kind_of_drink_asked_by_a_word_no_object_is_called_must_be_made(behavior_dir) -> None:
    # Qwen 1.5B's held-out terse draft (untuned6): cooked coffee beans in the mug for "make me a coffee"
    assert [(m.phrase, m.synset) for m in requested_kinds("make me a coffee")] == [("coffee", "coffee.n.01")]
    assert requested_kinds("clean the coffee maker") == []  # no making verb, and a name besides
    # the speaker's own baking asks nothing; "some" stands for the name nearest the verb (untuned11 casual)
    said = ("I'm baking a pie later and we're out of pumpkin spice, could you blend some up in the mixing bowl "
            "from the cinnamon?")
    assert [m.phrase for m in requested_kinds(said)] == ["spice"]
    beans = _with_goal("b1k/make_coffee", "(:goal (and (real ?cooked__coffee_bean.n.01_1) "
                       "(contains ?mug.n.04_1 ?cooked__coffee_bean.n.01_1)))")
    # as an LLM draft's scene: of what is yet to be made, only what its goal names (not the drip coffee)
    beans = replace(beans, init=tuple(lit for lit in beans.init if lit.predicate != "future"))
    assert unmade_kinds("make me a coffee", beans) == [
        "the instruction asks to make coffee (coffee.n.01), but the goal makes no kind of it"]
    assert unmade_kinds("make me a coffee", to_omnigibson(load_problem("b1k/make_coffee"))) == []  # drip coffee


def test_a_dish_made_in_a_named_container_is_not_held_only_elsewhere(behavior_dir) -> None:
    # Qwen 1.5B's held-out terse draft (untuned7): the mousse made, then put in a bowl on the mixer
    said = "Make blueberry mousse in the mixer."
    in_bowl = _with_goal("b1k/make_blueberry_mousse", "(:goal (and (real ?blueberry_mousse.n.01_1) (contains "
                         "?bowl.n.01_1 ?blueberry_mousse.n.01_1) (ontop ?bowl.n.01_1 ?electric_mixer.n.01_1)))")
    assert made_elsewhere(said, in_bowl) == [
        "the instruction says 'blueberry mousse in the mixer', but the goal holds blueberry_mousse.n.01 only in "
        "bowl.n.01"]
    assert made_elsewhere(said, to_omnigibson(load_problem("b1k/make_blueberry_mousse"))) == []  # in the mixer
    # moved after it is made: where it ends up is the placement's business
    assert made_elsewhere("Make blueberry mousse in the mixer and put it in the bowl.", in_bowl) == []
    # cooked there, said as "them": untuned11 casual, the peas cooked into a bowl
    said = "could you make some buttery peas for dinner? Just cook them in the saucepan."
    in_bowl = _with_goal("b1k/cook_peas", "(:goal (and (real ?cooked__pea.n.01_1) (contains ?bowl.n.01_1 "
                         "?cooked__pea.n.01_1)))")
    assert made_elsewhere(said, in_bowl) == [
        "the instruction says 'them in the saucepan' (the peas), but the goal holds cooked__pea.n.01, pea.n.01 "
        "only in bowl.n.01"]
    assert made_elsewhere(said, to_omnigibson(load_problem("b1k/cook_peas"))) == []


def test_it_after_a_state_word_is_the_thing_acted_on_before_it(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft (untuned6): the chili cooked, the cabbage only diced
    said = ("Hey, could you chop up that cabbage with a bit of chili and fry it up in the pan? I'm feeling like "
            "something spicy tonight.")
    diced = _with_goal("b1k/cook_cabbage", "(:goal (and (real ?cooked__diced__chili.n.01_1) (contains "
                       "?frying_pan.n.01_1 ?cooked__diced__chili.n.01_1) (contains ?frying_pan.n.01_1 "
                       "?diced__head_cabbage.n.01_1)))")
    assert states_of_others(said, state_words(said), diced) == [
        "the instruction says 'fry' of the cabbage, which asks for (cooked ...), but the goal asks it only of "
        "cooked__diced__chili.n.01"]
    # "the cabbage" is the head cabbage, not what the scene can make of it
    assert scene_mentions(said, set(diced.objects.values())) == [("cabbage", "head_cabbage.n.02")]
    # a particle is no preposition: "chop up that cabbage" acts on it, "the dust off the table" does not
    assert acted_on_directly("wipe off the table") == {"table"}
    assert acted_on_directly("wipe the dust off the table") == {"dust"}
    assert acted_on_directly("I won't need my fur coat for a while") == {"fur coat"}  # "need" is a verb here
    # nothing fetched is "it": the boat is scrubbed, not the soap
    boat = ("The boat's filthy from last weekend, could you grab a bucket and some soap and scrub it down?")
    released = to_omnigibson(load_problem("b1k/cleaning_boat"))
    assert states_of_others(boat, state_words(boat), released) == []
    # of two things acted on, the one in the verb's own clause (untuned10 direct: the chicken never cooked)
    said = "Please cook some rice in the rice cooker, and season the chicken with salt and olive oil and cook it."
    rice = _with_goal("b1k/cook_chicken_and_rice", "(:goal (and (real ?cooked__white_rice.n.01_1) "
                      "(covered ?chicken.n.01_1 ?salt.n.02_1)))")
    assert states_of_others(said, state_words(said), rice) == [
        "the instruction says 'cook' of the chicken, which asks for (cooked ...), but the goal asks it only of "
        "cooked__white_rice.n.01"]


def test_a_thing_moved_to_a_named_place_and_put_elsewhere_is_refused(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: the basket on the floor, the money on the checkout
    said = "Okay, we're done shopping. Could you set the basket on the counter and hand over the cash?"
    (on,) = placement_words(said)
    assert on.target is None  # "counter" is read only against the scene: the checkout counter
    floor = _with_goal("b1k/paying_for_purchases", "(:goal (and (ontop ?shopping_basket.n.01_1 ?floor.n.01_1) "
                       "(ontop ?money.n.01_1 ?checkout.n.03_1)))")
    assert placed_elsewhere(said, floor, [on]) == placed_elsewhere(said, floor) == [
        "the instruction puts the basket 'on the counter', but the goal puts it only at floor.n.01_1"]
    assert placed_elsewhere(said, to_omnigibson(load_problem("b1k/paying_for_purchases"))) == []
    for text, problem in _committed_instructions():
        assert placed_elsewhere(text, problem) == [], text


def test_pouring_asks_for_something_poured_in_and_pouring_out_does_not(behavior_dir) -> None:
    assert [(w.predicate, w.polarity) for w in state_words("can you pour us some beers?")] == [
        ("filled", True), ("contains", True)]
    assert state_words("pour out the old water") == []


def test_something_in_each_container_leaves_none_of_them_empty(behavior_dir) -> None:
    # Qwen 1.5B's held-out casual draft: every peach in the first jar, the second jar empty
    said = "We've got way too many peaches, can you can them? A couple in each jar with water, lids on, and into the cupboard."
    one_jar = _with_goal("b1k/can_fruit", "(:goal (and (forall (?peach.n.03 - peach.n.03) "
                         "(inside ?peach.n.03 ?hinged_jar.n.01_1))))")
    assert arrangements(said, one_jar) == [
        "the instruction puts something in each 'jar', but the goal puts nothing in hinged_jar.n.01_2"]
    assert arrangements(said, to_omnigibson(load_problem("b1k/can_fruit"))) == []


def test_a_thing_the_instruction_places_itself_does_not_ride_in_its_container(behavior_dir) -> None:
    # "put the belt and the money on the counter": the basket on the counter, with the belt in it,
    # does not put the belt there (it rides only where the instruction does not place it)
    said = "Put the belt and the money on the checkout counter."
    basket = _with_goal("b1k/buy_a_belt", "(:goal (and (ontop ?shopping_basket.n.01_1 ?checkout.n.03_1) "
                        "(ontop ?money.n.01_1 ?checkout.n.03_1)))")
    assert carried(basket) == {"belt.n.02": "shopping_basket.n.01_1", "money.n.01": "shopping_basket.n.01_1"}
    scene = render_task(load_problem("b1k/buy_a_belt"), seed=0)
    goal = "(:goal (and (ontop ?shopping_basket.n.01_1 ?checkout.n.03_1) (ontop ?money.n.01_1 ?checkout.n.03_1)))"
    refused = _llm_goal(scene, said, goal)
    assert not refused.accepted and any("'belt'" in r and "never mentions" in r for r in refused.reasons)
    assert not any("'belt'" in r for r in _llm_goal(scene, "pay for the belt", goal).reasons)


def test_a_thing_named_after_what_was_asked_for_does_not_answer_it(behavior_dir) -> None:
    # Qwen 1.5B's held-out terse draft for "get me some water": the water glass set on the counter.
    # The water glass is named after the water, but the scene has water itself.
    said = "get me some water"
    assert acted_on_directly(said) == {"water"}
    assert acted_on_directly("Fold all the sheets on the bed. There's soap by the sink.") == {"sheets"}
    types = {"water.n.06", "water_glass.n.02", "countertop.n.01"}
    assert goal_must_mention(said, instruction_objects(said, types), types) == [("water", {"water.n.06"})]
    near = "put the glass by the water"  # after a preposition a name keeps its loose reading, as in the verifier
    assert ("water", {"water.n.06", "water_glass.n.02"}) in goal_must_mention(near, instruction_objects(near, types), types)
    scene = render_task(load_problem("b1k/pouring_water_in_a_glass"), seed=0)
    glass_only = "(:goal (and (ontop ?water_glass.n.02_1 ?countertop.n.01_1)))"
    refused = _llm_goal(scene, said, glass_only)
    assert not refused.accepted and any("'water' (water.n.06" in r and "never mentions" in r
                                        for r in refused.reasons), refused.reasons
    filled = ("(:goal (and (ontop ?water_glass.n.02_1 ?countertop.n.01_1) "
              "(filled ?water_glass.n.02_1 ?water.n.06_1)))")
    assert not any("never mentions" in r for r in _llm_goal(scene, said, filled).reasons)


def test_a_machine_things_go_in_for_the_goals_process_and_a_sentence_of_its_own_are_not_placements(behavior_dir) -> None:
    raincoat = to_omnigibson(load_problem("b1k/clean_a_raincoat"))  # not covered: the washer is the means
    said = "I got mud or something on my raincoat. Could you toss it in the washer for me? Detergent's in the cabinet."
    assert empty_places(said, raincoat) == []
    # "Detergent's in the cabinet" is a sentence of its own, not more of the list "toss it ..."
    assert [p.said for p in placement_words(said)] == ["in"]
    # a placement verb after a determiner is a noun: "a stack of books on the table" puts nothing there
    assert placement_words("Somebody left a stack of books on the table.") == []
    # a state verb after the verb that moves things says where its process happens
    assert placement_words("Get the four pieces of tofu and cook all of them in the wok on the stove.") == []


def test_a_purpose_and_where_something_is_are_not_what_the_goal_is_about(behavior_dir) -> None:
    leave = "These two boxes need to go out today. Could you leave them at the mailbox for pickup?"
    assert "pickup" in incidental_objects(leave)  # "for pickup": a purpose
    assert "keys" not in incidental_objects("look for the keys and put them on the table")
    punch = "Whatever fruit's in the fridge is fine, just toss it in the blender and pour me a glass."
    assert "fridge" in incidental_objects(punch)  # "fruit's in the fridge": where it is ("'s" is "is")
    assert "box" not in incidental_objects("make sure the toys are in the box")  # asked, not described


MADE = {  # instruction -> (phrase, synset, count) of what it asks to make (scene: a stove and a tomato)
    "Make tomato rice and leave it in the crock pot.": [("tomato rice", "tomato_rice.n.01", 1)],
    "make a glass of eggnog": [("eggnog", "eggnog.n.01", 1)],
    "Could you whip me up some fruit punch?": [("fruit punch", "fruit_punch.n.01", 1)],
    "Make a blended iced cappuccino and pour it into the cup.": [("iced cappuccino", "iced_cappuccino.n.01", 1)],
    "cut up the apple and blend it with some water into fruit punch": [("fruit punch", "fruit_punch.n.01", 1)],
    "bake six muffins": [("muffins", "muffin.n.01", 6)],
    "make pizza sauce": [],  # "pizza" is the sauce's kind, not a pizza
    "bake some muffins": [],  # how many is not said
    "cook the beef": [],  # cooking changes the beef there is
    "cook the red peppers": [],  # things, though the word also names a spice
    "make the bed": [],  # not something one eats or drinks
    "put the tomato rice in the crock pot": [],  # no making verb
    "cook the tomato in the pot": [],  # in the scene already
    "hot cocoa with marshmallows, please": [("cocoa", "cocoa.n.01", 1)],  # the name alone, asked politely (untuned6)
    "the tomato rice, please": [("tomato rice", "tomato_rice.n.01", 1)],
    "please bring the tomato rice": [],  # a verb that is no making verb
}


@pytest.mark.parametrize("text", sorted(MADE))
def test_a_dish_or_drink_a_making_verb_governs_is_requested_in_the_number_said(behavior_dir, text) -> None:
    scene = {"stove.n.01", "beefsteak_tomato.n.01", "bed.n.01"}
    assert [(p.phrase, p.synset, p.count) for p in requested_products(text, scene)] == MADE[text]


def test_a_product_is_not_its_ingredient_and_keeps_the_vessel_it_is_asked_in(behavior_dir) -> None:
    # cocoa powder is what hot cocoa is made from, not the drink (untuned6: Qwen 1.5B cooked the powder)
    (cocoa,) = requested_products("make me a hot cocoa", {"cocoa_powder.n.01", "mug.n.04"})
    assert cocoa.synset == "cocoa.n.01" and cocoa.vessel is None
    (lemonade,) = requested_products("make a pitcher of lemonade", {"pitcher.n.02", "lemon_juice.n.01"})
    assert lemonade.vessel is not None and lemonade.vessel.phrase == "pitcher"


def test_a_drink_asked_for_must_end_in_something_to_drink_or_pour_it_from(behavior_dir) -> None:
    task = "b1k/make_a_blended_iced_cappuccino"
    in_blender = _with_goal(task, "(:goal (and (real ?iced_cappuccino.n.01_1) "
                                  "(contains ?blender.n.01_1 ?iced_cappuccino.n.01_1)))")
    in_cup = _with_goal(task, "(:goal (and (real ?iced_cappuccino.n.01_1) (contains ?cup.n.01_1 ?iced_cappuccino.n.01_1)))")
    (reason,) = unserved_drinks("blend me an iced cappuccino", in_blender)
    assert "only in blender.n.01" in reason
    assert state_conflicts("blend me an iced cappuccino", in_blender).missing == (reason,)
    assert unserved_drinks("blend me an iced cappuccino", in_cup) == []
    # where the instruction puts it, it may stay; and a drink nobody asked to make is no matter of this rule
    assert unserved_drinks("Make an iced cappuccino and leave the iced cappuccino in the blender.", in_blender) == []
    assert unserved_drinks("Put the cup on the counter.", in_blender) == []


def test_a_placement_is_requested_with_its_relation_things_and_target(behavior_dir) -> None:
    boat = set(load_problem("b1k/prepare_a_boat_for_fishing").objects.values())
    (placed,) = requested_placements("Can you wash off the boat and throw the rod and tackle in it?", boat)
    assert (placed.said, placed.relation) == ("in it", "inside")  # quoted as empty_places quotes it
    assert placed.things == {"fishing_rod.n.01", "fishing_gear.n.01"} and placed.targets == {"boat.n.01"}
    towels = set(load_problem("b1k/putting_towels_in_bathroom").objects.values())
    assert requested_placements("Hang the bath towel and the hand towel on the towel rack.", towels) == []  # draped
    kabobs = set(load_problem("b1k/cook_kabobs").objects.values())
    assert requested_placements("throw the kabobs on the grill", kabobs) == []  # cooked there, not left


def test_what_a_thing_is_said_to_have_is_read_apart(behavior_dir) -> None:
    # untuned3 casual: the glasses' "red rings" are their stains (the verifier's objects axis notes them)
    said = "The wine glasses from last night still have those red rings in them, can you wash them out?"
    assert possessed(said) == {"rings"}
    assert possessed("put the rings in the box") == frozenset()


def test_what_a_thing_is_wiped_down_with_that_goals_apply_must_end_up_on_it(behavior_dir) -> None:
    # untuned6 direct, Qwen 1.5B: the mud off the ball, and the disinfectant bottle rid of mud instead
    said = "Clean the mud off the baseball and then wipe it down with disinfectant."
    wrong = _with_goal("b1k/clean_a_dirty_baseball", "(:goal (and (not (covered ?baseball.n.02_1 ?mud.n.03_1)) "
                       "(not (covered ?disinfectant__bottle.n.01_1 ?mud.n.03_1))))")
    assert unapplied_agents(said, wrong) == [
        "the instruction says 'with disinfectant', which asks for (covered ?x ?disinfectant), but the goal covers "
        "nothing with it"]
    assert unapplied_agents(said, to_omnigibson(load_problem("b1k/clean_a_dirty_baseball"))) == []
    # scrubbing with it cleans: the juice ends up on nothing (untuned5 casual, a right goal)
    assert unapplied_agents("Could you scrub it with some lemon juice and salt to get the tarnish off?", wrong) == []
    # each substance a covering verb lists after "with" (untuned11 direct: the steaks never peppered)
    said = "Please season both steaks with salt, black pepper, and olive oil, and cook them."
    unpeppered = _with_goal("b1k/make_a_steak", "(:goal (and (forall (?steak.n.01 - steak.n.01) (and (cooked "
                            "?steak.n.01) (covered ?steak.n.01 ?salt.n.02_1) (covered ?steak.n.01 ?olive_oil.n.01_1)))))")
    assert unapplied_agents(said, unpeppered) == [
        "the instruction says 'with black pepper', which asks for (covered ?x ?black_pepper), but the goal covers "
        "nothing with it"]
    assert unapplied_agents(said, to_omnigibson(load_problem("b1k/make_a_steak"))) == []
    # a covering verb's participle, and its "in" (untuned12 direct: the parmesan shaker switched on)
    said = ("Please cook the brussels sprouts, broccoli and spinach, and make sure all three are coated in olive oil "
            "and sprinkled with parmesan.")
    oiled = _with_goal("b1k/cook_vegetables", "(:goal (and (forall (?broccoli.n.02 - broccoli.n.02) (and (cooked "
                       "?broccoli.n.02) (covered ?broccoli.n.02 ?olive_oil.n.01_1)))))")
    assert unapplied_agents(said, oiled) == [
        "the instruction says 'with parmesan', which asks for (covered ?x ?parmesan), but the goal covers nothing with it"]
    assert unapplied_agents(said, to_omnigibson(load_problem("b1k/cook_vegetables"))) == []
    # spreading with something covers (untuned12 direct: the slices only set on the plate)
    said = ("Please make a peanut butter and jelly sandwich: spread both slices of bread with peanut butter and "
            "jelly, put them together, and set it on the plate.")
    assert _said(said) == [("spread", "covered:applied", True)]
    assert _said("Spread the tablecloth over the table.") == []  # laid out, not covered
    for text, problem in _committed_instructions():  # no released goal trips it
        assert unapplied_agents(text, problem) == [], text


def test_asking_to_switch_a_thing_off_says_it_is_on_now(behavior_dir) -> None:
    objects = dict(to_omnigibson(load_problem("b1k/turn_off_a_normal_school_calculator")).objects)
    on = [Literal(Atom("toggled_on", ("calculator.n.02_1",)))]
    assert presupposed_states("Switch off the calculator.", objects, []) == on
    assert presupposed_states("Somebody left their calculator on - can you switch it off?", objects, []) == on
    assert presupposed_states("Switch off the calculator.", objects, on) == []  # the scene says so already
    assert presupposed_states("Switch the calculator on.", objects, []) == []
    assert presupposed_states("switch the calculator on, then off again", objects, []) == []  # both: nothing now


def test_a_goal_that_only_sets_things_on_a_floor_nobody_named_asks_nothing_said(behavior_dir) -> None:
    # untuned7 terse, Qwen 1.5B: "Mail the three letters." as every envelope on the floor
    problem = to_omnigibson(load_problem("b1k/mailing_letters"))
    on_floor = replace(problem, goal=parse_goal("(:goal (and (forall (?envelope.n.01 - envelope.n.01) (ontop "
                                                "?envelope.n.01 ?floor.n.01_1))))", dict(problem.objects), "omnigibson"))
    assert floor_only("Mail the three letters.", on_floor) == [
        "the goal only sets things on the floor, which the instruction never names"]
    assert floor_only("put the letters on the floor", on_floor) == []  # the floor named
    assert floor_only("Mail the three letters.", problem) == []  # the released goal: in the mailbox


def test_a_state_asked_of_every_one_of_a_plural_must_not_be_asked_of_only_some(behavior_dir) -> None:
    # untuned8 terse, Qwen 1.5B: one drumstick cooked, the other salted
    said = "roast the turkey drumsticks"
    one = _with_goal("b1k/cook_turkey_drumsticks", "(:goal (and (inside ?turkey_leg.n.01_1 ?oven.n.01_1) "
                     "(cooked ?turkey_leg.n.01_2)))")
    assert states_of_some(said, state_words(said), one) == [
        "the instruction says 'roast' of the turkey drumsticks, all 2 in the scene, but the goal asks "
        "(cooked ...) only of turkey_leg.n.01_2"]
    released = to_omnigibson(load_problem("b1k/cook_turkey_drumsticks"))
    assert states_of_some(said, state_words(said), released) == []
    said = "roast one of the turkey drumsticks"  # counted: one is what was asked
    assert states_of_some(said, state_words(said), one) == []
    # "them" after the verb: the one plural named before it (untuned8 casual, the hand towels folded only)
    said = "The turkey drumsticks are thawed now. Would you roast them?"
    assert states_of_some(said, state_words(said), one) == [
        "the instruction says 'roast' of the turkey drumsticks, all 2 in the scene, but the goal asks "
        "(cooked ...) only of turkey_leg.n.01_2"]
    said = "wash the plates and the turkey drumsticks and roast them"  # two plurals before it: not read
    assert states_of_some(said, state_words(said), one) == []


def test_a_terse_request_of_names_and_places_says_where_things_go(behavior_dir) -> None:
    # untuned11 terse: "Stamps on counter, cash in register." drafted as the stamps in the register
    said = "Stamps on counter, cash in register."
    # "cash" names nothing BEHAVIOR has; a word that is no function word still opens such a clause
    assert [(p.said, p.relation) for p in placement_words(said)] == [("on", "ontop"), ("in", "inside")]
    assert [(p.said, p.relation, p.target.phrase) for p in placement_words("Sandals by the bed, book on a table.")] == [
        ("by", "nextto", "bed"), ("on", "ontop", "table")]
    assert placement_words("The towels on the bed are clean.") == []  # a clause that goes on
    assert placement_words("Can you saute the veggies? Green beans in some butter.") == []  # a verb elsewhere
    in_register = _with_goal("b1k/buying_postage_stamps", "(:goal (and (forall (?postage.n.02 - postage.n.02) "
                             "(inside ?postage.n.02 ?cash_register.n.01_1))))")
    # the stamps start on the counter: where they are moved is no placement there
    assert empty_places(said, in_register) == [
        "the instruction says 'on the counter', which asks for (ontop ?x ?counter), but the goal puts nothing there"]
    assert empty_places(said, to_omnigibson(load_problem("b1k/buying_postage_stamps"))) == []


def test_by_a_place_is_beside_it(behavior_dir) -> None:
    # untuned8 casual: "leave the lipstick and toothbrush by it" drafted as inside the cabinet
    assert [(p.said, p.relation) for p in placement_words("put the bag by the door")] == [("by", "nextto")]
    assert [(p.said, p.relation) for p in placement_words("leave them at the mailbox")] == [("at", "")]
