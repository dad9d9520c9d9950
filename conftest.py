"""Repository-wide pytest hooks.

Under ``make test`` (``SYMPLAN_REQUIRE_DEPS=1``) a test skipped because a dependency
"is not installed" is a failure: the make target installs everything, so such a skip
would hide a broken install step.
"""

from __future__ import annotations

import os

import pytest


def _fail_missing_dependency(report) -> None:
    if os.environ.get("SYMPLAN_REQUIRE_DEPS") != "1" or not report.skipped:
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if "not installed" in reason:
        report.outcome = "failed"
        report.longrepr = f"SYMPLAN_REQUIRE_DEPS=1 but a dependency is missing: {reason}"


# pluggy passes a hook implementation only the arguments it names, so these name none.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport():
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report():
    # A module-level ``pytest.importorskip`` skips while collecting, before any test runs.
    outcome = yield
    _fail_missing_dependency(outcome.get_result())
