"""Goal-to-English: every quantifier and connective, on real tasks and synthetic formulas."""

from __future__ import annotations

import pytest

from symplan_core.bddl.model import And, Atom, Imply, Not, Or, Param, Quantifier
from symplan_core.prompts.goal_text import GoalRewriter, goal_instructions, plural, type_word

SHORT = {"table.n.02_1": "table_1", "candle.n.01_1": "candle_1", "basket.n.01_1": "basket_1",
         "water.n.06_1": "water_1"}
REWRITER = GoalRewriter(short=lambda n: SHORT.get(n, n),
                        counts={"candle.n.01": 4, "basket.n.01": 4, "plate.n.04": 2})
C = Param("?candle.n.01", "candle.n.01")
B = Param("?basket.n.01", "basket.n.01")
P = Param("?plate.n.04", "plate.n.04")


def say(formula) -> str:
    return REWRITER.instruction(formula)


def test_forall_over_a_placement_says_every_object() -> None:
    f = Quantifier("forall", (C,), Atom("ontop", ("?candle.n.01", "table.n.02_1")))
    assert say(f) == "make sure that every candle is on top of table_1"


def test_forall_over_a_negated_literal_says_no_object() -> None:
    f = Quantifier("forall", (C,), Not(Atom("covered", ("?candle.n.01", "water.n.06_1"))))
    assert say(f) == "make sure that no candle is covered with water_1"


def test_forn_says_at_least_n_with_a_plural_verb() -> None:
    f = Quantifier("forn", (C,), Atom("ontop", ("?candle.n.01", "table.n.02_1")), count=3)
    assert say(f) == "make sure that at least 3 candles are on top of table_1"


def test_exists_says_at_least_one() -> None:
    f = Quantifier("exists", (C,), Atom("inside", ("?candle.n.01", "basket.n.01_1")))
    assert say(f) == "make sure that at least one candle is inside basket_1"


def test_forpairs_with_equal_groups_puts_one_in_each() -> None:
    f = Quantifier("forpairs", (B, C), Atom("inside", ("?candle.n.01", "?basket.n.01")))
    assert say(f) == "put one candle inside each basket"


def test_forpairs_with_fewer_movers_puts_each_mover_somewhere_different() -> None:
    f = Quantifier("forpairs", (C, P), Atom("ontop", ("?plate.n.04", "?candle.n.01")))
    assert say(f) == "put each plate on top of a different candle"


def test_fornpairs_names_the_count() -> None:
    f = Quantifier("fornpairs", (B, C), Atom("inside", ("?candle.n.01", "?basket.n.01")), count=2)
    assert say(f) == "put a different candle inside each of at least 2 different baskets"


def test_forpairs_over_a_non_placement_is_described_as_a_pairing() -> None:
    f = Quantifier("forpairs", (B, C), And((Atom("inside", ("?candle.n.01", "?basket.n.01")),
                                           Atom("open", ("?basket.n.01",)))))
    text = say(f)
    assert text.startswith("make sure that each basket is paired with a different candle")
    assert "the candle is inside the basket and the basket is open" in text


def test_or_imply_and_not_read_as_english() -> None:
    either = Or((Atom("open", ("basket.n.01_1",)), Atom("cooked", ("candle.n.01_1",))))
    assert say(either) == "make sure that either basket_1 is open or candle_1 is cooked"
    rule = Quantifier("forall", (C,), Imply(Atom("sliced", ("?candle.n.01",)),
                                            Atom("inside", ("?candle.n.01", "basket.n.01_1"))))
    assert say(rule) == ("make sure that, for every candle, if the candle is sliced, "
                         "then the candle is inside basket_1")
    assert say(Not(And((Atom("open", ("basket.n.01_1",)),)))) == \
        "make sure that it is not the case that basket_1 is open"


def test_nested_exists_inside_forall_names_both_objects() -> None:
    f = Quantifier("forall", (C,), Quantifier("exists", (B,), Atom("inside", ("?candle.n.01", "?basket.n.01"))))
    assert say(f) == "make sure that, for every candle, there is a basket such that the candle is inside the basket"


def test_unknown_predicate_falls_back_to_a_generic_sentence() -> None:
    assert say(Atom("glued", ("candle.n.01_1", "table.n.02_1"))) == \
        "make sure that glued holds for candle_1 and table_1"


@pytest.mark.parametrize(("word", "expected"), [("candle", "candles"), ("box", "boxes"),
                                                ("dish", "dishes"), ("berry", "berries"), ("tray", "trays")])
def test_plural(word: str, expected: str) -> None:
    assert plural(word) == expected


def test_type_word_drops_the_sense_and_underscores() -> None:
    assert type_word("can__of__soda.n.01") == "can of soda"


def test_real_task_forpairs_reads_put_one_in_each(compiled) -> None:
    assert goal_instructions(compiled("b100/assembling_gift_baskets")) == [
        "put one candle inside each basket", "put one cheese inside each basket",
        "put one cookie inside each basket", "put one bow inside each basket"]


def test_real_task_forall_and_exists(compiled) -> None:
    assert goal_instructions(compiled("b100/boxing_books_up_for_storage")) == \
        ["make sure that every book is inside carton_1"]
    lines = goal_instructions(compiled("b100/bottling_fruit"))
    assert lines[0] == ("make sure that there is a jar such that strawberry_1 is inside the jar "
                        "and peach_1 is not inside the jar")
    assert "make sure that no jar is open" in lines


def test_real_task_forn_says_at_least(compiled, behavior_files) -> None:
    names = [p.stem for p in behavior_files["b100"] + behavior_files["b1k"] if "(forn " in p.read_text()]
    assert names, "the corpus has forn goals"
    bench = "b100" if any(p.stem == names[0] for p in behavior_files["b100"]) else "b1k"
    lines = goal_instructions(compiled(f"{bench}/{names[0]}"))
    assert any("at least" in line for line in lines)
