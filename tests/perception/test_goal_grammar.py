"""The scene's goal grammar (perception.goal_grammar): every sentence is a parseable, fully grounded
goal; released BEHAVIOR goals are sentences of their own scene's grammar; bad goals are not; the
size stays bounded for the biggest B-1K scenes. Sentences are drawn by llguidance's own matcher
over a byte vocabulary (the library the transformers backend masks with), not by our code."""

from __future__ import annotations

import random

import numpy as np
import pytest

from symplan_core.bddl import And, Atom, parse_problem
from symplan_core.bddl.checks import check_problem, iter_atoms, iter_quantifiers
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.bddl.writer import write_objects
from symplan_core.llm.constrained import grammar_accepts
from symplan_core.perception.goal_grammar import (
    GoalGrammarError,
    StateAnswer,
    compact_goal,
    goal_grammar,
    scene_places,
)
from symplan_core.perception.llm_goal import parse_goal
from symplan_core.tasks import list_tasks, load_problem

SCENE = {"apple.n.01_1": "apple.n.01", "apple.n.01_2": "apple.n.01", "bowl.n.01_1": "bowl.n.01",
         "bowl.n.01_2": "bowl.n.01", "electric_refrigerator.n.01_1": "electric_refrigerator.n.01",
         "countertop.n.01_1": "countertop.n.01"}


def _scene_objects(task: str) -> dict[str, str]:
    problem = to_omnigibson(load_problem(task))
    return {i: t for i, t in problem.objects.items() if t != "agent.n.01"}


def _draw(grammar: str, rng: random.Random, close_bias: float = 0.5, limit: int = 4000) -> str:
    """A random sentence: at each byte, one the grammar allows (llguidance's mask), leaning to ')'."""
    import llguidance

    tokenizer = llguidance.LLTokenizer("byte")
    matcher = llguidance.LLMatcher(tokenizer, llguidance.grammar_from("gbnf", grammar), log_level=0)
    out: list[int] = []
    while len(out) < limit:
        mask = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint32)
        allowed = np.flatnonzero(np.unpackbits(mask.view(np.uint8), bitorder="little")[:tokenizer.vocab_size])
        if tokenizer.eos_token in allowed:
            break
        token = ord(")") if ord(")") in allowed and rng.random() < close_bias else int(rng.choice(allowed))
        assert matcher.consume_token(token)
        out.append(token)
    return bytes(out).decode()


def test_every_sentence_of_the_grammar_parses_and_is_grounded_in_the_scene() -> None:
    grammar = goal_grammar(SCENE).text
    rng = random.Random(7)
    kinds = set()
    for _ in range(60):
        text = _draw(grammar, rng)
        goal = parse_goal(text, SCENE, "omnigibson")  # raises on anything our parser refuses
        problem = parse_problem("(define (problem p) (:domain omnigibson) (:objects\n"
                                + "\n".join(write_objects(SCENE)) + "\n) (:init) " + text + ")")
        errors = [d for d in check_problem(problem) if d.severity == "error"]
        assert not errors, (text, [d.message for d in errors])
        assert all(a in SCENE or a.startswith("?") for atom in iter_atoms(goal) for a in atom.args), text
        kinds |= {k for k in ("forall", "exists", "forpairs", "(or", "(not") if k in text}
    assert kinds & {"forall", "exists", "forpairs"} and "(not" in kinds, kinds  # the draw reaches quantifiers


@pytest.mark.parametrize(("goal", "why"), [
    ("(:goal (and (inside ?apple.n.01_1 ?oven.n.01_1)))", "an object the scene does not have"),
    ("(:goal (and (inside ?apple.n.01_1)))", "binary predicate with one argument"),
    ("(:goal (and (cooked ?apple.n.01_1 ?bowl.n.01_1)))", "unary predicate with two arguments"),
    ("(:goal (and (sliced ?apple.n.01_1)))", "a predicate of the other dialect"),
    ("(:goal (and (inroom ?apple.n.01_1 kitchen)))", "rooms are not scene objects"),
    ("(:goal (and (cooked ?apple.n.01)))", "a variable nothing binds"),
    ("(:goal (and (forall (?plate.n.04 - plate.n.04) (cooked ?plate.n.04))))", "a type the scene lacks"),
    ("(:goal (and (cooked ?apple.n.01_1))", "unbalanced"),
    ("(:goal (and (cooked apple.n.01_1)))", "an object without its ?"),
    ("(:goal (and (forall (?apple.n.01 - apple.n.01) (forall (?apple.n.01 - apple.n.01) (cooked ?apple.n.01)))))",
     "the same variable bound twice"),
])
def test_goals_outside_the_scene_or_the_domain_are_not_sentences(goal: str, why: str) -> None:
    assert not grammar_accepts(goal_grammar(SCENE).text, goal), why


def test_quantified_goals_in_the_behavior_style_are_sentences() -> None:
    grammar = goal_grammar(SCENE).text
    for goal in [
        "(:goal (and (forall (?apple.n.01 - apple.n.01) (inside ?apple.n.01 ?electric_refrigerator.n.01_1))))",
        "(:goal (and (forpairs (?apple.n.01 - apple.n.01) (?bowl.n.01 - bowl.n.01) (inside ?apple.n.01 ?bowl.n.01))))",
        "(:goal (and (forall (?apple.n.01 - apple.n.01) (exists (?bowl.n.01 - bowl.n.01) (inside ?apple.n.01 "
        "?bowl.n.01))) (not (open ?electric_refrigerator.n.01_1))))",
        "(:goal (and (or (ontop ?apple.n.01_1 ?countertop.n.01_1) (inside ?apple.n.01_1 ?bowl.n.01_2))))",
    ]:
        assert grammar_accepts(grammar, goal), goal
        parse_goal(goal, SCENE, "omnigibson")


# Every 25th B-1K activity, the scenes with the most objects and categories, a nested exists.
# Goals that use what the grammar leaves out on purpose (future objects, forn, imply, rooms) are not drawn.
LEFT_OUT = ("(real ", "(forn ", "(fornpairs ", "(imply ", "(inroom ")
SAMPLE = sorted(a for a in set(list_tasks("b1k")[::25]) | {"make_garlic_mushrooms", "cook_seafood_paella",
                                                           "make_chicken_fajitas", "packing_hiking_equipment_into_car"}
                if not any(w in compact_goal(load_problem(f"b1k/{a}").goal) for w in LEFT_OUT))


@pytest.mark.parametrize("activity", SAMPLE)
def test_a_released_goal_is_a_sentence_of_its_own_scenes_grammar(activity: str) -> None:
    objects = _scene_objects(f"b1k/{activity}")
    text = compact_goal(to_omnigibson(load_problem(f"b1k/{activity}")).goal)
    assert grammar_accepts(goal_grammar(objects).text, text), text
    released = to_omnigibson(load_problem(f"b1k/{activity}")).goal
    parsed = parse_goal(text, objects, "omnigibson")
    assert parsed == released if isinstance(released, And) else parsed.parts == (released,)


@pytest.mark.parametrize("activity", SAMPLE)
def test_a_released_goal_is_a_sentence_of_its_scenes_grammar_with_the_engines_places(activity: str) -> None:
    # Over its own objects and initial state, with no goal evidence: every action the released goal
    # needs accepts its objects, so restricting places to what the engine can make true loses nothing.
    problem = to_omnigibson(load_problem(f"b1k/{activity}"))
    objects = _scene_objects(f"b1k/{activity}")
    places = scene_places(objects, problem.init)
    assert grammar_accepts(goal_grammar(objects, places=places).text, compact_goal(problem.goal))


def test_the_engines_places_keep_out_what_no_action_can_make_true() -> None:
    problem = to_omnigibson(load_problem("b1k/store_batteries"))
    objects = _scene_objects("b1k/store_batteries")
    plain, placed = goal_grammar(objects).text, goal_grammar(objects, places=scene_places(objects, problem.init)).text
    # Qwen 1.5B wrote these for "mind sticking them in the cabinet so they don't get lost?" and "put the
    # batteries away": batteries do not burn, and a shelf is a surface, not a container
    for refused in ("(:goal (and (forall (?battery.n.02 - battery.n.02) (on_fire ?battery.n.02))))",
                    "(:goal (and (on_fire ?battery.n.02_1)))", "(:goal (and (inside ?battery.n.02_1 ?shelf.n.01_1)))",
                    "(:goal (and (open ?battery.n.02_1)))"):
        assert grammar_accepts(plain, refused) and not grammar_accepts(placed, refused), refused
    for kept in ("(:goal (and (forall (?battery.n.02 - battery.n.02) (inside ?battery.n.02 ?cabinet.n.01_1))))",
                 "(:goal (and (ontop ?battery.n.02_1 ?shelf.n.01_1) (not (open ?cabinet.n.01_1))))"):
        assert grammar_accepts(placed, kept), kept


def test_the_grammar_stays_bounded_for_the_biggest_b1k_scenes() -> None:
    """make_garlic_mushrooms has the most objects (65), cook_seafood_paella the most categories (36)
    and so the biggest grammar of every B-1K scene (107 KB, docs/perception.md)."""
    sizes = {a: goal_grammar(_scene_objects(f"b1k/{a}")) for a in ("make_garlic_mushrooms", "cook_seafood_paella")}
    for grammar in sizes.values():
        assert grammar.size_bytes < 128_000 and grammar.rules < 2000, grammar
    for activity in sizes:  # the engine's places add one alternative per group of predicates to each scope
        objects = _scene_objects(f"b1k/{activity}")
        init = to_omnigibson(load_problem(f"b1k/{activity}")).init
        placed = goal_grammar(objects, places=scene_places(objects, init))
        assert placed.size_bytes < 320_000 and placed.rules < 2000, placed
    assert sizes["make_garlic_mushrooms"].objects == 65 and sizes["cook_seafood_paella"].categories == 36


def test_a_scene_the_grammar_cannot_write_is_a_typed_error() -> None:
    with pytest.raises(GoalGrammarError, match="at least one"):
        goal_grammar({})
    with pytest.raises(GoalGrammarError, match="cannot be written"):
        goal_grammar({"apple (red)": "apple.n.01"})
    with pytest.raises(GoalGrammarError, match="told from variables"):
        goal_grammar({"apple.n.01": "apple.n.01"})


def test_a_product_may_be_asked_into_being_only_when_the_caller_allows_it() -> None:
    scene = {**SCENE, "half__apple.n.01_1": "half__apple.n.01"}
    made = "(:goal (and (real ?half__apple.n.01_1) (inside ?half__apple.n.01_1 ?bowl.n.01_1)))"
    assert grammar_accepts(goal_grammar(scene, products=["half__apple.n.01_1"]).text, made)
    assert not grammar_accepts(goal_grammar(scene).text, made)  # no products: no (real ...)
    not_a_product = "(:goal (and (real ?apple.n.01_1)))"
    assert not grammar_accepts(goal_grammar(scene, products=["half__apple.n.01_1"]).text, not_a_product)


def test_the_substance_place_takes_only_a_substance() -> None:
    # Qwen 1.5B wrote (covered iron disinfectant__bottle) for "wipe it with disinfectant": no released
    # file puts a thing there, and now the grammar does not either
    scene = {**SCENE, "dust.n.01_1": "dust.n.01", "water.n.06_1": "water.n.06"}
    grammar = goal_grammar(scene).text
    assert grammar_accepts(grammar, "(:goal (and (not (covered ?apple.n.01_1 ?dust.n.01_1))))")
    assert grammar_accepts(grammar, "(:goal (and (filled ?bowl.n.01_1 ?water.n.06_1)))")
    assert grammar_accepts(grammar, "(:goal (and (forall (?bowl.n.01 - bowl.n.01) (filled ?bowl.n.01 ?water.n.06_1))))")
    assert not grammar_accepts(grammar, "(:goal (and (covered ?apple.n.01_1 ?bowl.n.01_1)))")
    assert not grammar_accepts(grammar, "(:goal (and (forall (?bowl.n.01 - bowl.n.01) (covered ?apple.n.01_1 ?bowl.n.01))))")
    # a scene with no substance has no covered/filled literal to offer
    assert not grammar_accepts(goal_grammar(SCENE).text, "(:goal (and (covered ?apple.n.01_1 ?bowl.n.01_1)))")
    assert "covered" not in goal_grammar(SCENE).text


def test_the_robot_itself_is_not_a_goal_object() -> None:
    # Qwen 1.5B wrote (ontop ?agent.n.01_1 ?piano.n.01_1) for "clean the piano"; the engine refused it
    scene = {**SCENE, "agent.n.01_1": "agent.n.01"}
    grammar = goal_grammar(scene).text
    assert "agent" not in grammar
    assert not grammar_accepts(grammar, "(:goal (and (ontop ?agent.n.01_1 ?countertop.n.01_1)))")


def test_a_continuation_goes_on_from_what_was_said_with_a_mention() -> None:
    """Qwen 1.5B closed its goal before naming the mint, the sugar or the rum it was asked to use;
    the continuation grammar starts with what it wrote and must go on with a conjunct that mentions
    one of the sets still missing."""
    fridge_open = Atom("open", ("electric_refrigerator.n.01_1",))  # the fridge is open to begin with
    said = " (cooked ?apple.n.01_1)"
    more = goal_grammar(SCENE, mentions=[{"bowl.n.01"}, {"electric_refrigerator.n.01"}], held=[fridge_open],
                        said=said)
    assert more.mentions == 2
    rng = random.Random(11)
    for _ in range(30):
        text = _draw(more.text, rng)
        assert text.startswith("(:goal (and" + said + " "), text
        goal = parse_goal(text, SCENE, "omnigibson")
        mentioned = {SCENE[a] for atom in iter_atoms(goal) for a in atom.args if a in SCENE} | {
            p.type for q in iter_quantifiers(goal) for p in q.params}
        assert mentioned & {"bowl.n.01", "electric_refrigerator.n.01"}, text
    for form in ("(inside ?apple.n.01_1 ?bowl.n.01_1)",  # an instance
                 "(not (open ?electric_refrigerator.n.01_1))",  # undoing what holds
                 "(forall (?bowl.n.01 - bowl.n.01) (not (open ?bowl.n.01)))",  # a variable over the type
                 "(forall (?apple.n.01 - apple.n.01) (inside ?apple.n.01 ?bowl.n.01_1))",  # in a body
                 "(forall (?apple.n.01 - apple.n.01) (and (cooked ?apple.n.01) (inside ?apple.n.01 ?bowl.n.01_1)))",
                 "(forall (?apple.n.01 - apple.n.01) (exists (?bowl.n.01 - bowl.n.01) (inside ?apple.n.01 ?bowl.n.01)))",
                 "(forpairs (?apple.n.01 - apple.n.01) (?bowl.n.01 - bowl.n.01) (inside ?apple.n.01 ?bowl.n.01))"):
        assert grammar_accepts(more.text, f"(:goal (and{said} {form}))"), form
        assert grammar_accepts(more.text, f"(:goal (and{said} {form} (cooked ?apple.n.01_2)))"), form  # then any
        assert not grammar_accepts(more.text, f"(:goal (and {form}))"), form  # what was said stays
    assert not grammar_accepts(more.text, f"(:goal (and{said}))")  # no closing before a mention
    # a quantifier over the type whose body never uses its variable says nothing of it (goal_types)
    assert not grammar_accepts(more.text, f"(:goal (and{said} (forall (?bowl.n.01 - bowl.n.01) (cooked ?apple.n.01_2))))")
    assert not grammar_accepts(more.text, f"(:goal (and{said} (forpairs (?apple.n.01 - apple.n.01) "
                                          "(?bowl.n.01 - bowl.n.01) (cooked ?apple.n.01))))")
    assert not grammar_accepts(more.text, f"(:goal (and{said} (cooked ?apple.n.01_2)))")
    # negating what is already false asks nothing of the fridge (goal_reading.idle_negation): no mention
    shut = goal_grammar(SCENE, mentions=[{"electric_refrigerator.n.01"}], said=said).text
    assert not grammar_accepts(shut, f"(:goal (and{said} (not (open ?electric_refrigerator.n.01_1))))")
    assert grammar_accepts(shut, f"(:goal (and{said} (open ?electric_refrigerator.n.01_1)))")
    # no set: the plain grammar; a set nothing in the scene can mention leaves it plain too
    assert goal_grammar(SCENE, mentions=[]).text == goal_grammar(SCENE).text
    assert goal_grammar(SCENE, mentions=[{"oven.n.01"}]).mentions == 0


def test_a_continuation_mentions_what_the_verifiers_objects_axis_finds_missing() -> None:
    """The drafter's sets are the verifier's: a goal drawn from the continuation grammar of the
    request's sets leaves fewer of them unmentioned for the objects axis (``object_words.goal_must_mention``)."""
    from symplan_core.bddl.model import Problem
    from symplan_core.perception.object_words import goal_must_mention, instruction_objects
    from symplan_core.perception.verifier import DraftFacts, check_objects

    objects = _scene_objects("b1k/make_the_ultimate_spa_basket")
    said = "could you wipe down the wicker basket with a rag and drop the lotion and the perfume in it?"
    named = instruction_objects(said, set(objects.values()))
    mentions = goal_must_mention(said, named, set(objects.values()))
    assert [phrase for phrase, _ in mentions] == ["wicker basket", "lotion", "perfume"]
    grammar = goal_grammar(objects, mentions=[types for _, types in mentions]).text
    facts = DraftFacts({i: "detection" for i in objects}, named, curated_goal=False, instruction=said)
    rng = random.Random(5)
    for _ in range(12):
        goal = parse_goal(_draw(grammar, rng), objects, "omnigibson")
        verdict = check_objects(Problem("p", "omnigibson", objects, (), goal), facts)
        assert len([r for r in verdict.reasons if "never mentions" in r]) < len(mentions), verdict.reasons


def test_a_continuation_can_answer_a_state_word_the_goal_left_unanswered() -> None:
    """"Season the ham and bake it": Qwen 1.5B wrote the glaze into a casserole and never cooked
    the ham. The continuation may go on with a literal of a state the request asks for, ground,
    in an ``and`` or in a quantified body, at the asked polarity; a covering that answers "spray"
    must be with something applied (the substances given), not with dust."""
    scene = {**SCENE, "oven.n.01_1": "oven.n.01", "dust.n.01_1": "dust.n.01",
             "disinfectant.n.01_1": "disinfectant.n.01"}
    said = " (inside ?apple.n.01_1 ?bowl.n.01_1)"
    places = scene_places(scene)
    cook = goal_grammar(scene, places=places, said=said, states=[{StateAnswer("cooked")}])
    assert cook.mentions == 1
    for form in ("(cooked ?apple.n.01_2)", "(and (cooked ?apple.n.01_1) (inside ?apple.n.01_2 ?bowl.n.01_2))",
                 "(forall (?apple.n.01 - apple.n.01) (cooked ?apple.n.01))",
                 "(forall (?bowl.n.01 - bowl.n.01) (exists (?apple.n.01 - apple.n.01) (and "
                 "(inside ?apple.n.01 ?bowl.n.01) (cooked ?apple.n.01))))",
                 "(forpairs (?apple.n.01 - apple.n.01) (?bowl.n.01 - bowl.n.01) (and (inside ?apple.n.01 ?bowl.n.01) "
                 "(cooked ?apple.n.01)))"):
        assert grammar_accepts(cook.text, f"(:goal (and{said} {form}))"), form
        assert grammar_accepts(cook.text, f"(:goal (and{said} {form} (not (open ?oven.n.01_1))))"), form
    assert not grammar_accepts(cook.text, f"(:goal (and{said} (not (cooked ?apple.n.01_2))))")  # the wrong way
    assert not grammar_accepts(cook.text, f"(:goal (and{said} (open ?oven.n.01_1)))")
    assert not grammar_accepts(cook.text, f"(:goal (and{said}))")
    # "close the fridge": the negation; "hang": either of two relations answers it
    shut = goal_grammar(scene, places=places, said=said, states=[{StateAnswer("open", False)}]).text
    assert grammar_accepts(shut, f"(:goal (and{said} (not (open ?electric_refrigerator.n.01_1))))")
    assert not grammar_accepts(shut, f"(:goal (and{said} (open ?electric_refrigerator.n.01_1)))")
    spray = goal_grammar(scene, places=places, said=said,
                         states=[{StateAnswer("covered", True, frozenset({"disinfectant.n.01_1"}))}]).text
    assert grammar_accepts(spray, f"(:goal (and{said} (covered ?bowl.n.01_1 ?disinfectant.n.01_1)))")
    assert not grammar_accepts(spray, f"(:goal (and{said} (covered ?bowl.n.01_1 ?dust.n.01_1)))")
    # "disinfect the bowls": about what the request names (subjects), not the disinfectant's own bottle
    bowls = frozenset({"bowl.n.01_1", "bowl.n.01_2"})
    named = goal_grammar(scene, places=places, said=said, states=[
        {StateAnswer("covered", True, frozenset({"disinfectant.n.01_1"}), subjects=bowls)}]).text
    assert grammar_accepts(named, f"(:goal (and{said} (covered ?bowl.n.01_2 ?disinfectant.n.01_1)))")
    assert grammar_accepts(named, f"(:goal (and{said} (forall (?bowl.n.01 - bowl.n.01) "
                                  "(covered ?bowl.n.01 ?disinfectant.n.01_1))))")
    assert not grammar_accepts(named, f"(:goal (and{said} (covered ?apple.n.01_1 ?disinfectant.n.01_1)))")
    assert not grammar_accepts(named, f"(:goal (and{said} (forall (?apple.n.01 - apple.n.01) "
                                      "(covered ?apple.n.01 ?disinfectant.n.01_1))))")
    # a state no object of the scene can take leaves the grammar plain
    assert goal_grammar(SCENE, places=scene_places(SCENE), states=[{StateAnswer("cooked")}]).mentions == 0


def test_a_placement_answer_fixes_both_places_and_a_closing_continuation_ends_after_it() -> None:
    said = " (not (open ?electric_refrigerator.n.01_1))"
    into_bowl = [frozenset({StateAnswer("inside", True, None, frozenset({"apple.n.01_1"}), frozenset({"bowl.n.01_2"}))})]
    going_on = goal_grammar(SCENE, said=said, states=into_bowl).text
    closing = goal_grammar(SCENE, said=said, states=into_bowl, close=True).text
    placed = f"(:goal (and{said} (inside ?apple.n.01_1 ?bowl.n.01_2)))"
    more = f"(:goal (and{said} (inside ?apple.n.01_1 ?bowl.n.01_2) (ontop ?bowl.n.01_2 ?countertop.n.01_1)))"
    assert grammar_accepts(going_on, placed) and grammar_accepts(going_on, more)
    assert grammar_accepts(closing, placed) and not grammar_accepts(closing, more)
    for elsewhere in ("(inside ?apple.n.01_1 ?bowl.n.01_1)", "(inside ?apple.n.01_2 ?bowl.n.01_2)",
                      "(ontop ?apple.n.01_1 ?bowl.n.01_2)"):
        assert not grammar_accepts(closing, f"(:goal (and{said} {elsewhere}))"), elsewhere
