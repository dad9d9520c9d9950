"""`symplan perceive --scene`: the perceived scene as goal-less BDDL, only what was observed."""

from __future__ import annotations

import pytest

from symplan_core.bddl import parse_file
from symplan_core.bddl.writer import write_literal
from symplan_core.perception import OutputError
from symplan_core.perception.scene_file import scene_problem, write_scene

PROVENANCE = {
    "objects": {"book.n.02_1": {"type": "book.n.02", "source": "detection"},
                "shelf.n.01_1": {"type": "shelf.n.01", "source": "detection"},
                "book.n.02_2": {"type": "book.n.02", "source": "unseen"},
                "agent.n.01_1": {"type": "agent.n.01", "source": "prior"}},
    "rooms": {"living_room": {}},
    "facts": [{"fact": "(inside book.n.02_1 shelf.n.01_1)", "source": "observed"},
              {"fact": "(inroom shelf.n.01_1 living_room)", "source": "observed"},
              {"fact": "(ontop agent.n.01_1 floor.n.01_1)", "source": "prior"},
              {"fact": "(ontop book.n.02_2 shelf.n.01_1)", "source": "observed"}],
}


def test_only_detected_objects_and_observed_facts_between_them_go_in(tmp_path) -> None:
    path, problem = write_scene(PROVENANCE, tmp_path / "kitchen view.bddl")
    again = parse_file(path)
    assert again == problem and problem.name == "perceived-kitchen_view"
    assert problem.objects == {"book.n.02_1": "book.n.02", "shelf.n.01_1": "shelf.n.01"}
    assert [write_literal(lit) for lit in problem.init] == ["(inside book.n.02_1 shelf.n.01_1)",
                                                           "(inroom shelf.n.01_1 living_room)"]
    assert problem.goal.parts == ()


def test_an_unwritable_scene_path_is_an_output_error(tmp_path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="cannot write the scene"):
        write_scene(PROVENANCE, tmp_path / "file" / "scene.bddl")
    assert scene_problem({"objects": {}, "facts": []}).objects == {}
