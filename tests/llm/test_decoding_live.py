"""grammar and guided decoding with the real tiny model: llama.cpp's OpenAI-compatible server
(a real process, the request shape llama.cpp reads), transformers in-process (llguidance's
masks), and a real HTTP server that speaks OpenAI but has no grammar support (typed errors).

The guided property (a guided plan never holds an engine error) runs on a couple of tasks drawn
at random from every small B-100/B-1K scene each run (the seed is printed), so repeated CI runs
cover many tasks while one run stays short.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from symplan_core.engine.plan_text import parse_plan
from symplan_core.engine.verify import compile_task, verify
from symplan_core.eval.splits import split_tasks
from symplan_core.llm import BackendSpecError, Sampling, make_backend, with_decoding
from symplan_core.llm.decoding import DecodingError, GrammarNotEnforcedError, GrammarRejectedError
from symplan_core.prompts import build_prompt
from symplan_core.runtime.repair import as_prompt
from symplan_core.tasks import load_problem

pytestmark = pytest.mark.slow

STATIC = {"PARSE", "UNKNOWN_ACTION", "UNKNOWN_OBJECT", "ARITY"}
SEED = random.randrange(1 << 30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _small_tasks() -> list[str]:
    """Scenes with at most 14 objects: their prompts fit the test server's 2048-token context."""
    names = [f"b100/{t}" for t in split_tasks("b100", "all")] + [f"b1k/{t}" for t in split_tasks("b1k", "test")]
    return [n for n in names if len(load_problem(n).objects) <= 14]


POOL = _small_tasks()
DRAWN = random.Random(SEED).sample(POOL, 2)


def _prompt(name: str, robot: str = "single"):
    task = compile_task(load_problem(name), robot)
    return task, as_prompt(build_prompt(task), task, name)


@pytest.fixture(scope="module")
def guided(llama_cpp_server) -> Iterator:
    backend = make_backend(f"openai:{llama_cpp_server.base_url}?timeout=300&concurrency=1&decoding=guided&think=skip")
    yield backend
    backend.close()


@pytest.mark.parametrize("name", DRAWN)
def test_guided_plans_never_contain_an_engine_error(guided, name: str) -> None:
    print(f"guided property: seed {SEED}, tasks {DRAWN} of {len(POOL)}")
    task, prompt = _prompt(name, random.Random(SEED + 1).choice(["single", "dual"]))
    completions = guided.plan(prompt, n=2, sampling=Sampling(temperature=1.0, max_tokens=120, seed=SEED))
    for completion in completions:
        assert completion.ok, completion.error
        result = verify(task, completion.text)
        assert result.format_ok, (result.format_issues, completion.text)
        assert result.errors == [], [e.line() for e in result.errors]
        assert result.calls, completion.text  # a plan always has at least one call
        assert completion.metadata["requests"] >= 2 and completion.completion_tokens
        _assert_guide_removed_dead_ends(task, result, completion.metadata)


def _assert_guide_removed_dead_ends(task, result, metadata: dict) -> None:
    """The guide's policy: the plan never revisits a state, it stops the moment the goal holds,
    and it ends short of the goal only when the guide closed it (budget or nothing to offer)."""
    state = task.initial_state()
    seen = [state.signature()]
    for index, call in enumerate(result.calls):
        assert not all(task.goal_report(state)[0]) or index == 0, "the plan went on after reaching the goal"
        task.apply(state, call, trace=False)
        seen.append(state.signature())
    assert len(set(seen)) == len(seen), "the guided plan returned to a state it had been in"
    assert metadata["goal_reached"] == result.strict_pass
    assert metadata["goal_reached"] or metadata["forced_end"], metadata


def test_grammar_decoding_through_the_server_keeps_format_and_well_formed_calls(llama_cpp_server) -> None:
    task, prompt = _prompt(DRAWN[0])
    spec = with_decoding(f"openai:{llama_cpp_server.base_url}?timeout=300&concurrency=1", "grammar", "skip")
    with make_backend(spec) as backend:
        [completion] = backend.plan(prompt, n=1, sampling=Sampling(temperature=0.0, max_tokens=200))
    assert completion.ok, completion.error
    parsed = parse_plan(completion.text)
    assert completion.text.startswith("<think></think><answer><steps>")
    kinds = {e.kind.value for e in verify(task, parsed).errors}
    cut = completion.finish_reason == "length"
    assert cut or (parsed.format_ok and parsed.calls and not kinds & STATIC), (kinds, completion.text)
    whole_lines = parsed.calls[:-1] if cut else parsed.calls
    assert all(task.resolve(call)[2] is None for call in whole_lines), completion.text


def test_guided_needs_the_models_chat_template(llama_cpp_server) -> None:
    task, prompt = _prompt(DRAWN[0])
    spec = f"openai:{llama_cpp_server.base_url}?decoding=guided&template=/nonexistent/model.gguf"
    with make_backend(spec) as backend, pytest.raises(DecodingError, match="chat template"):
        backend.plan(prompt, n=1, sampling=Sampling(max_tokens=16))


def test_constrained_decoding_needs_the_task(llama_cpp_server) -> None:
    with make_backend(f"openai:{llama_cpp_server.base_url}?decoding=grammar") as backend:
        with pytest.raises(DecodingError, match="needs the task"):
            backend.plan("Write a plan.", n=1, sampling=Sampling(max_tokens=8))


def test_the_reference_planner_refuses_a_decoding_mode() -> None:
    with pytest.raises(BackendSpecError, match="does not decode"):
        with_decoding("reference", "guided")
    assert with_decoding("reference", "free") == "reference"
    with pytest.raises(BackendSpecError):
        make_backend("openai:http://127.0.0.1:1/v1?decoding=beam")


# -- a real OpenAI-compatible server without grammar support ------------------------------------

_NO_GRAMMAR_SERVER = textwrap.dedent('''
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    MODE = sys.argv[2]
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        def do_GET(self):
            self._send(200, {"data": [{"id": "plain", "owned_by": "someone"}]})
        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if MODE == "reject" and "grammar" in request:
                self._send(400, {"error": {"message": "invalid grammar: unsupported"}})
                return
            answer = "Sure! First navigate to the table, then grasp(cup) and you are done."
            self._send(200, {"choices": [{"message": {"role": "assistant", "content": answer},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 5, "completion_tokens": 15}})
        def log_message(self, *args):
            pass
    HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
''')


@pytest.fixture(params=["ignore", "reject"])
def plain_openai_server(request, tmp_path: Path) -> Iterator[tuple[str, str]]:
    script = tmp_path / "server.py"
    script.write_text(_NO_GRAMMAR_SERVER)
    port = _free_port()
    process = subprocess.Popen([sys.executable, str(script), str(port), request.param])
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                    json.loads(response.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url, request.param
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_server_that_ignores_or_rejects_the_grammar_raises_a_typed_error(plain_openai_server) -> None:
    url, mode = plain_openai_server
    task, prompt = _prompt(DRAWN[0])
    expected = GrammarNotEnforcedError if mode == "ignore" else GrammarRejectedError
    with make_backend(f"openai:{url}?decoding=grammar&max_retries=0") as backend, pytest.raises(expected):
        backend.plan(prompt, n=1, sampling=Sampling(max_tokens=32))
    with make_backend(f"openai:{url}?max_retries=0") as backend:  # free decoding still works
        [completion] = backend.plan(prompt, n=1, sampling=Sampling(max_tokens=32))
        assert completion.ok and "grasp" in completion.text


# -- transformers in-process: llguidance's logits processor ---------------------------------------

@pytest.fixture(scope="module")
def smollm2_grammar(smollm2_gguf: Path) -> Iterator:
    backend = make_backend(f"transformers:{smollm2_gguf}?device=cpu&decoding=guided&think=skip&max_calls=3")
    yield backend
    backend.close()


def test_transformers_guided_plan_has_no_engine_error(smollm2_grammar) -> None:
    task, prompt = _prompt(DRAWN[1])
    [completion] = smollm2_grammar.plan(prompt, n=1, sampling=Sampling(temperature=0.0, max_tokens=64))
    assert completion.ok, completion.error
    result = verify(task, completion.text)
    assert result.format_ok and result.calls and result.errors == [], completion.text
    _assert_guide_removed_dead_ends(task, result, completion.metadata)


def test_transformers_grammar_mode_masks_with_llguidance(smollm2_gguf: Path) -> None:
    task, prompt = _prompt(DRAWN[1])
    with make_backend(f"transformers:{smollm2_gguf}?device=cpu&decoding=grammar&think=skip") as backend:
        [completion] = backend.plan(prompt, n=1, sampling=Sampling(temperature=0.7, max_tokens=48, seed=SEED))
    assert completion.ok, completion.error
    assert completion.text.startswith("<think></think><answer><steps>"), completion.text
    parsed = parse_plan(completion.text)
    whole = parsed.calls if completion.finish_reason == "stop" else parsed.calls[:-1]
    assert all(task.resolve(call)[2] is None for call in whole), completion.text
