"""Options and set-up shared by the whole suite.

``--update-golden`` rewrites every golden file from what the code renders now,
so an intended change in what people see is one command, reviewed with
``git diff`` before it is committed.

A run makes the suite's own PostgreSQL database at its start and drops it (with every
database its tests left) at its end (`tests/postgres.py`); with pytest-xdist only the
controller does, before any worker starts and after all have finished.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.postgres import create_suite_database, drop_suite_database
from tests.support import time_scale


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """pytest-timeout's per-test bound (a guard against a hang, 60 s) stretches with every
    other deadline: `NOVO_SLACK_TEST_TIME_SCALE` (tests/support.py)."""
    if config.getoption("timeout", None) is None and config.getini("timeout"):
        config.option.timeout = float(config.getini("timeout")) * time_scale()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test's own `timeout` mark (a longer bound, for a build) stretches the same way."""
    scale = time_scale()
    if scale == 1.0:
        return
    for item in items:
        mark = item.get_closest_marker("timeout")
        if mark is not None and mark.args:
            item.add_marker(pytest.mark.timeout(float(mark.args[0]) * scale), append=False)


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _controller(session.config):
        try:
            asyncio.run(create_suite_database())
        except Exception as exc:  # out of reach: each PostgreSQL test skips or fails, saying why
            print(f"the suite's PostgreSQL database was not made: {type(exc).__name__}: {exc}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _controller(session.config):
        try:
            asyncio.run(drop_suite_database())
        except Exception as exc:
            print(f"the suite's PostgreSQL database was not dropped: {type(exc).__name__}: {exc}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current rendering instead of comparing with them",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
