"""The parser's C extension (``_speedups.c``) gives exactly what its pure-Python versions give.

Three functions have a C twin: the tokenizer, the node makers and the reader of a canonical
``:init`` section. Each pair is compared on every real BEHAVIOR file and on fuzzed text, so the
parser reads the same model whether or not the extension could be built at install.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symplan_core.bddl import build, parse_problem
from symplan_core.bddl.model import NO_POS, Atom, Literal, Param, SourcePos
from symplan_core.bddl.parser import _python_canonical_init
from symplan_core.bddl.tokens import PAD, SourceText, python_split_tokens

try:
    from symplan_core.bddl import _speedups as speedups
except ImportError:  # no C compiler at install: the comparisons below have nothing to compare
    speedups = None  # type: ignore[assignment]
needs_extension = pytest.mark.skipif(speedups is None, reason="the C extension was not built (no C compiler)")

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler on this machine")
def test_where_a_c_compiler_exists_the_install_built_the_extension() -> None:
    assert speedups is not None, "a C compiler is here, but the install did not build _speedups (setup.py)"
    assert build.COMPILED
    assert type(build.make_atom) is speedups.Maker


# -- tokenizer -----------------------------------------------------------------------------

@needs_extension
def test_every_behavior_file_splits_into_the_same_tokens(corpus_texts: dict[Path, str]) -> None:
    for path, text in corpus_texts.items():
        assert speedups.split_tokens(text) == python_split_tokens(text), path


# Parentheses, comments, every kind of whitespace str.split() knows (ASCII, Latin-1 NBSP and
# NEL, the Unicode em space and line separator) and letters of one, two and four bytes.
CHARS = st.sampled_from(list("()();; \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028ab?-.é漢😀0"))


@needs_extension
@FUZZ
@given(st.text(CHARS, max_size=60))
def test_fuzzed_text_splits_into_the_same_tokens(text: str) -> None:
    assert speedups.split_tokens(text) == python_split_tokens(text)


@needs_extension
def test_equal_tokens_of_one_text_are_one_object() -> None:
    toks = speedups.split_tokens("(ontop apple.n.01_1 table.n.02_1) (ontop apple.n.01_1 x)")
    assert toks[1] is toks[6] and toks[2] is toks[7]
    assert toks[0] == "(" and toks[4] == ")"


@needs_extension
def test_a_comment_runs_to_the_newline_only() -> None:
    assert speedups.split_tokens("a;(b c)\rd\ne") == python_split_tokens("a;(b c)\rd\ne") == ["a", "e"]


@needs_extension
def test_the_tokenizer_takes_only_str() -> None:
    with pytest.raises(TypeError, match="needs a str"):
        speedups.split_tokens(b"(a)")


# -- node makers -------------------------------------------------------------------------

@needs_extension
def test_a_c_made_node_is_the_node_init_makes() -> None:
    src = SourceText("(ontop a b)", "f.bddl")
    made = speedups.Maker(Atom, ("predicate", "args", "pos"))("ontop", ("a", "b"), (src, 0))
    python_made = build.python_maker(Atom, ("predicate", "args", "pos"))("ontop", ("a", "b"), (src, 0))
    for node in (made, python_made):
        assert type(node) is Atom
        assert node == Atom("ontop", ("a", "b")) and hash(node) == hash(Atom("ontop", ("a", "b")))
        assert node.pos == SourcePos("f.bddl", 1, 1)  # the lazy position resolves on read
        assert pickle.loads(pickle.dumps(node)) == node
        assert copy.deepcopy(node) == node
        assert dataclasses.replace(node, args=("c",)) == Atom("ontop", ("c",))
    literal = speedups.Maker(Literal, ("atom", "negated"))(made, True)
    assert literal == Literal(Atom("ontop", ("a", "b")), True)


@needs_extension
def test_a_maker_checks_its_class_fields_and_values() -> None:
    with pytest.raises(AttributeError):
        speedups.Maker(Atom, ("no_such_field",))
    with pytest.raises(TypeError, match="not a writable object slot"):
        speedups.Maker(Atom, ("to_list",))
    with pytest.raises(TypeError, match="not a writable object slot"):
        speedups.Maker(Param, ("var", "type", "pos", "__class__"))
    with pytest.raises(TypeError, match="not a writable object slot"):  # a property
        speedups.Maker(Literal, ("atom", "predicate"))
    make = speedups.Maker(Param, ("var", "type", "pos"))
    with pytest.raises(TypeError, match="takes 3 values"):
        make("?x", "a.n.01")
    with pytest.raises(TypeError, match="positional"):
        make("?x", "a.n.01", NO_POS, extra=1)
    with pytest.raises(ValueError, match="at most"):
        speedups.Maker(Atom, ("predicate",) * 17)


# -- the :init reader --------------------------------------------------------------------

def canonical_init(read, text: str) -> object:
    """What an init reader makes of ``text``'s tokens from the first ``(:init``: (literals with
    their positions, next index), or "not canonical"."""
    toks = tuple(python_split_tokens(text)) + PAD
    src = SourceText(text, "f.bddl")
    start = toks.index(":init") + 1 if ":init" in toks else 0
    try:
        literals, end = read(toks, src, start)
    except Exception:  # noqa: BLE001 - _python_canonical_init gives up by raising, the C reader by None
        return "not canonical"
    return [(lit, str(lit.atom.pos)) for lit in literals], end


def c_init(toks: tuple[str, ...], src: SourceText, i: int) -> tuple:
    read = speedups.canonical_init(toks, src, i, build.make_atom, build.make_literal)
    if read is None:
        raise ValueError("not canonical")
    return read


@needs_extension
def test_every_behavior_init_section_is_read_alike(corpus_texts: dict[Path, str]) -> None:
    for path, text in corpus_texts.items():
        expected = canonical_init(_python_canonical_init, text)
        assert expected != "not canonical" or path.stem in {"wash_a_baseball_cap"}, path
        assert canonical_init(c_init, text) == expected, path


PIECES = ["(", ")", "(", ")", " ", "\n", "not", "(not", "ontop", "a.n.01_1", "b", "-", "", ":goal", ";c\n"]


@needs_extension
@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_fuzzed_init_sections_are_read_alike(pieces: list[str]) -> None:
    text = "(:init " + " ".join(pieces)
    assert canonical_init(c_init, text) == canonical_init(_python_canonical_init, text)


@needs_extension
@pytest.mark.parametrize("start", [-3, -1, 10_000])
def test_an_init_start_outside_the_tokens_is_not_canonical(start: int) -> None:
    toks = tuple(python_split_tokens("(ontop a b))")) + PAD
    assert speedups.canonical_init(toks, None, start, build.make_atom, build.make_literal) is None


@needs_extension
def test_the_init_reader_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="canonical_init"):
        speedups.canonical_init(["(", ")"], None, 0, build.make_atom, build.make_literal)
    with pytest.raises(TypeError, match="canonical_init"):
        speedups.canonical_init(("(", ")"), None, 0, build.make_literal, build.make_atom)


@needs_extension
def test_a_parse_with_the_extension_equals_one_without(corpus_texts: dict[Path, str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from symplan_core.bddl import parser, tokens
    sample = dict(list(corpus_texts.items())[::25])
    compiled = {path: parse_problem(text, str(path)) for path, text in sample.items()}
    monkeypatch.setattr(parser, "split_tokens", python_split_tokens)
    monkeypatch.setattr(tokens, "split_tokens", python_split_tokens)
    monkeypatch.setattr(parser, "_canonical_init", _python_canonical_init)
    for name, (cls, fields) in build.MAKERS.items():
        if hasattr(parser, name):
            monkeypatch.setattr(parser, name, build.python_maker(cls, fields))
    monkeypatch.setattr(build, "make_decl", build.python_maker(*build.MAKERS["make_decl"]))
    for path, text in sample.items():
        pure = parse_problem(text, str(path))
        assert pure == compiled[path] and pure.decls == compiled[path].decls, path
