"""WordNet synonyms in synset grounding: instruction words like 'fridge' reach BEHAVIOR synsets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from symplan_core.perception.object_words import plural_mentions
from symplan_core.perception.synsets import (
    ground_label,
    mentioned_synsets,
    read_instruction,
    wordnet_gloss_heads,
    wordnet_lemmas,
    wordnet_part_holonyms,
    wordnet_scene_lemmas,
)
from symplan_core.tasks import synset_parents, synset_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("word", "synset"), [
    ("fridge", "electric_refrigerator.n.01"),
    ("couch", "sofa.n.01"),
    ("garbage cans", "ashcan.n.01"),  # plural of a two-word lemma
    ("automobile", "car.n.01"),
])
def test_a_wordnet_synonym_grounds_to_its_behavior_synset(word: str, synset: str) -> None:
    grounding = ground_label(word)
    assert (grounding.synset, grounding.method) == (synset, "lemma")


@pytest.mark.parametrize(("word", "synset"), [("refrigerator", "refrigerator.n.01"), ("machine", "machine.n.01")])
def test_a_head_word_wins_over_another_synsets_synonym(word: str, synset: str) -> None:
    assert ground_label(word).synset == synset


def test_instruction_words_use_the_synonyms() -> None:
    mentioned = dict(mentioned_synsets("put the milk in the fridge and the pillows on the couch"))
    assert mentioned == {"milk": "milk.n.01", "fridge": "electric_refrigerator.n.01",
                         "pillows": "pillow.n.01", "couch": "sofa.n.01"}


def test_the_table_never_lists_a_synsets_own_head_word() -> None:
    for name, lemmas in wordnet_lemmas().items():
        head = name.rsplit(".", 2)[0].replace("_", " ")
        assert head not in lemmas, name


def test_a_lemma_that_mostly_means_something_else_is_kept_apart_and_not_read_alone() -> None:
    assert "tackle" in wordnet_scene_lemmas()["fishing_gear.n.01"]
    assert ground_label("tackle").synset != "fishing_gear.n.01"  # read only where a scene has fishing gear
    for name, lemmas in wordnet_scene_lemmas().items():
        assert not set(lemmas) & set(wordnet_lemmas().get(name, ())), name
        assert all(" " not in lemma for lemma in lemmas), name


def test_the_part_of_table_names_only_wholes_behavior_knows() -> None:
    assert "bookcase.n.01" in wordnet_part_holonyms()["shelf.n.01"]
    assert "jar.n.01" in wordnet_part_holonyms()["lid.n.02"]
    known = set(synset_table()) | set(synset_parents()) | set(synset_parents().values())
    for part, wholes in wordnet_part_holonyms().items():
        assert part in known and wholes and set(wholes) <= known, part


def test_a_word_that_opens_a_names_gloss_is_part_of_the_name() -> None:
    # untuned9 direct: "both silver coins" had read "silver" as a modifier of an unknown word
    assert wordnet_gloss_heads()["silver.n.02"] == ["coins"]  # "coins made of silver"
    (coins, cup) = read_instruction("Put both silver coins into the cup").mentions
    assert (coins.phrase, coins.synset, coins.start, coins.end) == ("silver coins", "silver.n.02", 2, 4)
    assert "silver coins" in {m.phrase for m in plural_mentions("Put both silver coins into the cup")}
    # an adjective opening a gloss is never joined: "leave the cup open" keeps its state word
    assert [m.phrase for m in read_instruction("leave the cup open").mentions] == ["cup"]
    assert all("small" not in heads and "open" not in heads for heads in wordnet_gloss_heads().values())


@pytest.mark.slow
def test_the_packaged_tables_are_what_fetched_wordnet_gives() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_wordnet_lemmas.py"), "--check"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
