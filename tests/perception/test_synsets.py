"""Synset grounding of labels and instruction words (BEHAVIOR knowledge through symplan_core.tasks)."""

from __future__ import annotations

from symplan_core.perception.synsets import compatibility, ground_label, is_container, mentioned_synsets


def test_labels_ground_by_synset_name_lemma_plural_and_alias(behavior_dir) -> None:
    assert ground_label("car.n.01").synset == "car.n.01"
    assert ground_label("Tennis Rackets").synset == "tennis_racket.n.01"
    assert ground_label("cookies").synset == "cookie.n.01"
    assert ground_label("telly", {"telly": "television_receiver.n.01"}).method == "alias"


def test_unknown_labels_say_why(behavior_dir) -> None:
    assert ground_label("flux capacitor").reason == "no BEHAVIOR synset is named 'flux capacitor'"
    assert ground_label("car.n.99").synset is None
    assert "not a BEHAVIOR synset" in ground_label("x", {"x": "nothing.n.01"}).reason


def test_instructions_name_objects_not_grammar(behavior_dir) -> None:
    found = dict(mentioned_synsets("Make sure the tennis racket is on top of the car; it is not the case "
                                   "that the digital camera is inside the container"))
    assert found == {"tennis racket": "tennis_racket.n.01", "car": "car.n.01",
                     "digital camera": "digital_camera.n.01", "container": "container.n.01"}


def test_a_word_names_the_sense_a_task_can_declare(behavior_dir) -> None:
    # "table" is the furniture the B-1K files declare (table.n.02), not WordNet's first sense (a data
    # table, which no task has): before, "pile it up on the table" named no object at all
    found = dict(mentioned_synsets("can you pile the firewood up on the table instead?"))
    assert found == {"firewood": "firewood.n.01", "table": "table.n.02"}
    assert dict(mentioned_synsets("put the book in the bag"))["book"] == "book.n.02"


def test_compatibility_follows_the_hierarchy(behavior_dir) -> None:
    assert compatibility("car.n.01", "car.n.01") == 3
    assert compatibility("container.n.01", "bottle.n.01") == 2  # a bottle is a kind of container
    assert compatibility("bottle.n.01", "container.n.01") == 1
    assert compatibility("car.n.01", "apple.n.01") == 0
    assert is_container("cabinet.n.01") and is_container("shelf.n.01") and not is_container("apple.n.01")


def test_halves_and_other_ves_plurals_name_their_things() -> None:
    from symplan_core.perception.synsets import read_instruction

    def said(text: str) -> list[tuple[str, str]]:
        return [(m.phrase, m.synset) for m in read_instruction(text).mentions]

    # BEHAVIOR names them half__apple ("half apple"); people say "apple halves"
    assert ("apple halves", "half__apple.n.01") in said("Put the apple halves in the compost bin.")
    assert ("lemon half", "half__lemon.n.01") in said("squeeze the lemon half")
    assert ("knives", "knife.n.01") in said("sharpen the knives")
    assert ("shelves", "shelf.n.01") in said("dust the shelves")


def test_compounds_written_open_name_the_things_their_closed_names_name(behavior_dir) -> None:
    from symplan_core.perception.synsets import senses

    found = dict(mentioned_synsets("wipe the shower head and the counter top, then wash the wine glasses"))
    # before: "shower" alone (shower.n.01), nothing for "counter top", and "glasses" as spectacles
    assert found == {"shower head": "showerhead.n.01", "counter top": "countertop.n.01",
                     "wine glasses": "wineglass.n.01"}
    assert senses("wine glasses") == {"wineglass.n.01"}
    assert dict(mentioned_synsets("empty the trash can")) == {"trash can": "ashcan.n.01"}  # as written first


def test_a_portion_of_a_food_is_read_as_that_food(behavior_dir) -> None:
    # No BEHAVIOR object is a "fillet": "the salmon fillets" are the scene's salmon, not a lacking object.
    assert mentioned_synsets("grab the salmon fillets out of the freezer") == [("salmon fillets", "salmon.n.03")]
    # A portion with a BEHAVIOR type of its own keeps its name, and a comma keeps two things apart.
    assert dict(mentioned_synsets("put the turkey legs in the oven"))["turkey legs"] == "turkey_leg.n.01"
    assert dict(mentioned_synsets("cook the beef steaks"))["steaks"] == "steak.n.01"
    assert [p for p, _ in mentioned_synsets("put the salmon, fillets and bowls away")] == ["salmon", "fillets", "bowls"]
