"""Options shared by the whole suite.

``--update-golden`` rewrites every golden file from what the code renders now,
so an intended change in what people see is one command, reviewed with
``git diff`` before it is committed.
"""

from __future__ import annotations

import pytest


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
