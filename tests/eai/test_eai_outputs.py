"""EAI plans and outputs files are read as JSON data, with a clear error for each malformed entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symplan_core.eai.outputs import EaiFormatError, read_action_list, read_outputs, steps_of
from symplan_core.engine.errors import ErrorKind

RESPONSE = """Sure! Here is the plan:
```
[
    {"action": "OPEN", "object": "cabinet_1"}, # get the rag first
    {'action': 'RIGHT_GRASP', 'object': 'rag_0',},
    {"action": "LEFT_PLACE_NEXTTO_ONTOP", "object": "window_0, table_1"},
]
```
That's all."""


def test_a_plain_json_list_and_a_wrapped_python_style_response_read_the_same() -> None:
    entries = read_action_list(RESPONSE)
    assert entries == [{"action": "OPEN", "object": "cabinet_1"}, {"action": "RIGHT_GRASP", "object": "rag_0"},
                       {"action": "LEFT_PLACE_NEXTTO_ONTOP", "object": "window_0, table_1"}]
    assert read_action_list(json.dumps(entries)) == entries
    steps, errors = steps_of(entries)
    assert errors == [] and [s.objects for s in steps] == [("cabinet_1",), ("rag_0",), ("window_0", "table_1")]
    assert steps[2].text == "LEFT_PLACE_NEXTTO_ONTOP(window_0, table_1)"


@pytest.mark.parametrize(("text", "reason"), [
    ("no list here", "no '\\[' ... '\\]' action list"),
    ("[{\"action\": \"OPEN\", \"object\": \"x\"}", "never closed"),
    ("[{'action': 'OPEN', 'object': 'x}]", "unterminated string"),
    ("[{action: OPEN}]", "not JSON data"),
    ('{"action": "OPEN", "object": "x"}', "expected a list of actions"),
])
def test_text_without_a_readable_list_is_a_format_error_saying_why(text: str, reason: str) -> None:
    with pytest.raises(EaiFormatError, match=reason):
        read_action_list(text)


def test_code_in_a_response_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    attack = f"[__import__('os').system('touch {marker}'), {{'action': 'OPEN', 'object': 'x'}}]"
    with pytest.raises(EaiFormatError):
        read_action_list(attack)
    entries = read_action_list(f'[{{"action": "__import__(\'os\').system(\'touch {marker}\')", "object": "x"}}]')
    steps, errors = steps_of(entries)
    assert steps == [] and errors[0].kind is ErrorKind.UNKNOWN_ACTION
    assert not marker.exists()


def test_each_malformed_entry_gets_its_own_typed_error() -> None:
    entries = [{"action": "OPEN"}, "RIGHT_GRASP apple_0", {"action": "RIGHT_REALEASE", "object": "knife_0"},
               {"action": "LEFT_PLACE_NEXTTO_ONTOP", "object": "table_1"}, {"action": "OPEN", "object": "a,b"},
               {"action": "CLOSE", "object": "fridge_97"}]
    steps, errors = steps_of(entries)
    assert [(e.step, e.kind) for e in errors] == [
        (0, ErrorKind.PARSE), (1, ErrorKind.PARSE), (2, ErrorKind.UNKNOWN_ACTION), (3, ErrorKind.ARITY),
        (4, ErrorKind.ARITY)]
    assert errors[2].hint == "did you mean RIGHT_RELEASE?"
    assert [s.index for s in steps] == [5]
    assert steps_of([])[1][0].message == "the plan has no actions"


def test_outputs_file_keeps_every_entry_and_says_what_is_wrong_with_each() -> None:
    text = json.dumps([{"identifier": "a", "llm_output": "[]"}, {"llm_output": "[]"},
                       {"identifier": "b"}, {"identifier": "a", "llm_output": "[]"}, "junk"])
    entries = read_outputs(text)
    assert [(e.demo_id, e.scorable, bool(e.problem)) for e in entries] == [
        ("a", True, False), (None, False, True), ("b", True, True), ("a", False, True), (None, False, True)]
    assert "appears more than once" in entries[3].problem and "llm_output" in entries[2].problem
    for bad in ("not json", json.dumps({"identifier": "a"})):
        with pytest.raises(EaiFormatError):
            read_outputs(bad)
