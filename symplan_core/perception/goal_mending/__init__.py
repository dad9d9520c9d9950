"""Reading an LLM goal as the model meant it: rewrites before the verifier judges it.

A compact model writes the goal it means in ways BDDL reads otherwise. Each rewrite is one such
slip, read the way the instruction settles (docs/perception.md, "Mending an LLM goal"). This
module runs them in order (:func:`mend_goal`); they live by what they rewrite: single literals
(``literals``), where things go (``places``) and what quantifiers range over (``quantifiers``),
over the formula surgery of ``formulas``.

* :func:`bind_named_instances`: a quantifier whose variable its body never uses, and whose body
  names one instance of the variable's type instead (``(forall (?log - log) (not (covered ?log_1
  ?dust_1)))``): the instance is read as the variable.
* :func:`bind_only_instances`: an ``exists`` over a kind the scene has one of is that one.
* :func:`clean_of_the_dirt`: ``(not (covered ?wineglass_1 ?liquid_soap_1))`` for "wash the wine
  glasses": the cleaning agent where the dirt goes, read as the dirt that covers the thing.
* :func:`drop_self_relations`: ``(inside ?toolbox_1 ?toolbox_1)``: nothing is in, on or next to
  itself; left out.
* :func:`drop_substance_neighbours`: a thing touching or next to a substance, which no plan
  reaches, is left out.
* :func:`drop_substance_bearings`: ``(not (covered ?stain_1 ?water_1))``: a substance bears
  nothing, so the literal always holds; left out beside the rest.
* :func:`drop_package_places`: ``(inside ?sponge_1 ?detergent__bottle_1)``: no goal puts anything
  in or on a package of what it holds; left out beside the rest.
* :func:`hang_on_hanging_places`: ``(ontop ?wreath ?wall_nail_1)`` for "put up the wreath ... on
  those nails": a wall nail or a hanger holds things hung on it, so it is read as ``attached``/``draped``.
* :func:`hang_what_is_hung`: ``(ontop ?flag ?pole_1)`` for "hang the flag over the pole": read as
  hung there (``draped``, or ``attached`` for a thing BEHAVIOR attaches).
* :func:`heed_placement_words`: ``(nextto ?firewood ?table_1)`` for "pile it up on the table": the
  relation the placement words ask for at that place.
* :func:`move_to_named_places`: ``(ontop ?basket_1 ?floor_1)`` for "set the basket on the counter",
  the basket nowhere at the counter: read as the placement the words state.
* :func:`place_reversed_removals`: ``(not (inside ?lotion ?basket_1))`` for "drop the lotion ... in
  it", where the instruction takes nothing out and its placement words ask for that very relation:
  read as the placement.
* :func:`drop_unasked_removals`: ``(not (inside ?toaster_1 ?cabinet_1))`` beside the crumbs cleaned
  off it for "clean the toaster", where the words take nothing out or off: left out.
* :func:`drop_unnamed_floors`: ``(ontop ?calculator_1 ?floor_1)`` beside the calculator switched
  off for "switch off the calculator": a floor the words never name, left out beside the rest.
* :func:`drop_repeats`: a conjunct said twice is said once (a looping model repeats literals).
* :func:`drop_contradicted`: a literal asked both true and false (``(inside ?book ?bookcase_1)`` and
  its negation), where the instruction's placement or state words ask for one of the two: the
  other is left out.
* :func:`drop_idle_literals`: a literal that already holds, which the rest of the goal undoes
  (the books on the table where they lie, beside every book in the bookcase), is left out.
* :func:`drop_hedged_places`: an ``or`` of places for a thing the goal places outright elsewhere,
  where the words name none of them, is left out.
* :func:`settle_relations`: one object related to one place in two ways (``attached`` and
  ``ontop``), where a state word asks for some of them ("hang": attached or draped): the others
  are left out.
* :func:`settle_placements`: an object the goal puts in two places at once (``(inside ?battery
  ?cabinet)`` and ``(ontop ?battery ?shelf_1)``), where the instruction's placement words ("stick
  them in the cabinet") name some of those places and not the others: the others are dropped.
* :func:`empty_the_sources`: "unload the cart at checkout", and the goal takes some of the cart's
  things to the checkout and leaves the rest: the rest goes there too.
* :func:`hold_in_the_said_vessel`: "make a pitcher of lemonade", the lemonade made and held in
  nothing, the pitcher filled with lemon juice: the pitcher holds the lemonade.
* :func:`pair_with_one`: a ``forpairs`` whose other type has one instance pairs one thing with it
  (BDDL's one-to-one matching); where the instruction says the plural, it is every one of them.
* :func:`drop_unnamed_pairings`: every rug paired with a table nobody named, beside the rugs laid
  on the floor: the pairing is left out.
* :func:`drop_self_including`: ``(forall (?firewood - firewood) (and (ontop ?firewood ?table_1)
  (nextto ?firewood ?firewood_2)))`` relates firewood_2 to itself; that literal is left out.
* :func:`widen_plurals`: a plural the goal names by its first instance only is every one of them.
* :func:`widen_stand_ins`: a plural no object is called ("the snacks"), moved to a place where the
  goal puts one of several things of a kind the instruction never names, is every one of them.
* :func:`widen_exists`: a top-level ``exists`` over a kind the instruction asks all of is ``forall``.

One rewrite runs before the others, since it names a product the goal may then need declared:

* :func:`read_made_substances`: ``(cooked ?sunflower_seed_1)`` for "toast the sunflower seeds": a
  substance is not cooked but becomes ``cooked__sunflower_seed``, read as that product made where
  the scene can make it.

Every rewrite is recorded (the provenance's ``goal.mended`` and the draft's notes), and the verifier
then judges the mended goal like any other: a rewrite never makes a goal accepted on its own.
Curated (retrieved) goals are never mended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from symplan_core.bddl import Formula, Problem
from symplan_core.perception.goal_mending.literals import (
    clean_of_the_dirt,
    drop_contradicted,
    drop_idle_literals,
    drop_package_places,
    drop_repeats,
    drop_self_relations,
    drop_substance_bearings,
    drop_substance_neighbours,
)
from symplan_core.perception.goal_mending.literals import (
    read_made_substances as read_made_substances,  # run by the pipeline before the additions are chosen
)
from symplan_core.perception.goal_mending.places import (
    drop_hedged_places,
    drop_unasked_removals,
    drop_unnamed_floors,
    empty_the_sources,
    hang_on_hanging_places,
    hang_what_is_hung,
    heed_placement_words,
    hold_in_the_said_vessel,
    move_to_named_places,
    place_reversed_removals,
    settle_placements,
    settle_relations,
)
from symplan_core.perception.goal_mending.quantifiers import (
    bind_named_instances,
    bind_only_instances,
    drop_self_including,
    drop_unnamed_pairings,
    pair_with_one,
    widen_exists,
    widen_plurals,
    widen_stand_ins,
)


@dataclass(frozen=True)
class Mended:
    goal: Formula
    notes: tuple[str, ...]  # one per rewrite, in words


Step = Callable[[str, Problem], tuple[Formula, list[str]]]


#: Rounds of :func:`mend_goal`'s rewrites at most: one rewrite can make another apply.
_MEND_ROUNDS = 3


def mend_goal(instruction: str, problem: Problem) -> Mended:
    """``problem``'s goal after each rewrite of this module, in order, with what each changed;
    the rewrites are run again while a round changes the goal (at most :data:`_MEND_ROUNDS`), since
    one can make another apply: ``drop_hedged_places`` reads a hedge beside a placement only once
    ``pair_with_one`` and ``widen_exists`` have made both ``forall`` (Qwen 1.5B's "recycle those
    glasses"). So a mended goal mends to itself, and a recorded draft re-judges as it was judged."""
    notes: list[str] = []
    goal = problem.goal
    for _round in range(_MEND_ROUNDS):
        before = goal
        goal, said = _mend_once(instruction, replace(problem, goal=goal))
        notes += said
        if goal == before:
            break
    return Mended(goal, tuple(notes))


def _mend_once(instruction: str, problem: Problem) -> tuple[Formula, list[str]]:
    """One round of the rewrites, in order."""
    notes: list[str] = []
    goal = problem.goal
    steps: tuple[Step, ...] = (
        bind_named_instances, bind_only_instances, clean_of_the_dirt, drop_self_relations, drop_substance_neighbours,
        drop_substance_bearings, drop_package_places,
        hang_on_hanging_places, hang_what_is_hung, heed_placement_words, move_to_named_places,
        place_reversed_removals, drop_unasked_removals, drop_unnamed_floors, drop_repeats, drop_contradicted, drop_idle_literals,
        drop_hedged_places, settle_relations, settle_placements, empty_the_sources, hold_in_the_said_vessel,
        pair_with_one, drop_unnamed_pairings, drop_self_including, drop_repeats, widen_plurals, widen_stand_ins,
        widen_exists)
    for step in steps:
        goal, said = step(instruction, replace(problem, goal=goal))
        notes += said
    return goal, notes
