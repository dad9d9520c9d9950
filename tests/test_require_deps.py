"""``make test`` (SYMPLAN_REQUIRE_DEPS=1) turns a skip for a missing dependency into a failure,
whether the skip comes while a test runs or while its module is collected."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
MISSING = "no_such_module_for_symplan"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makepyfile(
        test_module_skip=f'import pytest\npytest.importorskip("{MISSING}", reason="{MISSING} is not installed")\n'
                         "def test_a():\n    pass\n",
        test_runtime_skip=f'import pytest\ndef test_b():\n    pytest.importorskip("{MISSING}", reason="{MISSING} is not installed")\n',
    )
    return pytester


def test_missing_dependency_skips_fail_under_make_test(suite: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setenv("SYMPLAN_REQUIRE_DEPS", "1")
    for path in ("test_module_skip.py", "test_runtime_skip.py"):
        result = suite.runpytest_inprocess(path)
        assert result.ret != 0, path
        result.stdout.fnmatch_lines(["*SYMPLAN_REQUIRE_DEPS=1 but a dependency is missing*"])


def test_missing_dependency_skips_stay_skips_outside_make_test(suite: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.delenv("SYMPLAN_REQUIRE_DEPS", raising=False)
    suite.runpytest_inprocess().assert_outcomes(skipped=2)
