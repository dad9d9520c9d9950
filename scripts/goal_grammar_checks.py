"""Two checks of the goal drafter's grammar (docs/perception.md, "Goal drafting by a model").

    python scripts/goal_grammar_checks.py admits      # released B-1K goals the grammar still admits
    python scripts/goal_grammar_checks.py digest      # a hash of the grammar text over six scenes

``admits``: over its own scene and initial state, is each released B-1K goal a sentence of the
plain grammar, and of the grammar shaped by the engine's places (``scene_places``)? Prints both
counts and the activities the places lose (822 of 841 since the twelfth session; about a minute).

``digest``: the sha256 of the grammar text for six scenes, plain and with mention and state
continuations. A refactor of ``goal_grammar`` that should not change the grammar must print the
same digest before and after (a few seconds).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.llm.constrained import grammar_accepts
from symplan_core.perception.goal_grammar import (
    GoalGrammarError,
    StateAnswer,
    compact_goal,
    goal_grammar,
    scene_places,
)
from symplan_core.tasks import list_tasks, load_problem

DIGEST_SCENES = ("set_up_a_bird_cage", "can_fruit", "clean_a_vacuum", "cook_a_ham", "planting_flowers",
                 "hang_a_dartboard")


def admits() -> None:
    plain = placed = 0
    lost = []
    for activity in list_tasks("b1k"):
        problem = to_omnigibson(load_problem(f"b1k/{activity}"))
        objects = {i: t for i, t in problem.objects.items() if t != "agent.n.01"}
        text = compact_goal(problem.goal)
        try:
            if not grammar_accepts(goal_grammar(objects).text, text):
                continue
        except GoalGrammarError:
            continue
        plain += 1
        if grammar_accepts(goal_grammar(objects, places=scene_places(objects, problem.init)).text, text):
            placed += 1
        else:
            lost.append(activity)
    print(f"admitted by the plain grammar {plain}, with the engine's places {placed}")
    print("lost:", " ".join(lost))


def digest() -> None:
    total = hashlib.sha256()
    for activity in DIGEST_SCENES:
        problem = to_omnigibson(load_problem(f"b1k/{activity}"))
        objects = dict(problem.objects)
        places = scene_places(objects, list(problem.init))
        types = sorted(set(objects.values()))
        mentions = [{types[0]}, {types[-1], types[len(types) // 2]}]
        coatings = frozenset(i for i, t in objects.items() if any(w in t for w in ("water", "dust", "stain")))
        states = [{StateAnswer("cooked")}, {StateAnswer("covered", True, coatings or None, frozenset(list(objects)[:2]))},
                  {StateAnswer("open", False)}]
        for extra in ({}, {"mentions": mentions}, {"states": states}, {"mentions": mentions, "states": states}):
            text = goal_grammar(objects, places=places, said="x", **extra).text
            total.update(text.encode())
            print(f"{activity} {'+'.join(extra) or 'plain'}: {len(text)} bytes, "
                  f"{hashlib.sha256(text.encode()).hexdigest()[:12]}")
    print("digest", total.hexdigest())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=("admits", "digest"))
    {"admits": admits, "digest": digest}[parser.parse_args().check]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
