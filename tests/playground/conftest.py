"""A running stack with the playground over it, and a headless Chromium to click in it.

Browser tests skip, saying why, where no Chromium is installed; in CI (or
with NOVO_SLACK_REQUIRE_BROWSER=1) a missing browser fails them instead, so
a green CI always means the page was clicked.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from novo_dev.demo.screenshots import Stage, stage
from novo_dev.playground.browser import BrowserMissing, check_browser, headless_page

if TYPE_CHECKING:
    from playwright.async_api import Page

STEP_TIMEOUT_MS = 10_000
_skipped: list[str] = []


def browser_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("NOVO_SLACK_REQUIRE_BROWSER") == "1"


@pytest.fixture
def chromium() -> Path:
    try:
        return check_browser()
    except BrowserMissing as exc:
        if browser_required():
            pytest.fail(f"{exc} (required: CI=true or NOVO_SLACK_REQUIRE_BROWSER=1)")
        _skipped.append(str(exc))
        pytest.skip(str(exc))


@pytest.fixture
async def scene(tmp_path: Path) -> AsyncIterator[Stage]:
    async with stage(tmp_path) as running:
        yield running


@pytest.fixture
async def page(chromium: Path) -> AsyncIterator[Page]:
    async with headless_page() as opened:
        opened.set_default_timeout(STEP_TIMEOUT_MS)
        yield opened


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The skip reason in the summary even under `-q`: a skipped browser test must be seen."""
    if _skipped:
        terminalreporter.write_line(f"playground browser tests skipped: {_skipped[0]}")
