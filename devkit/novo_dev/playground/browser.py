"""A headless Chromium for the page's tests and screenshots, started from the system's binary.

Browsers are not downloaded here: Playwright drives the Chromium the system
package installed (`apt-get install chromium`), each run in a fresh profile,
so what the tests click and what the README shows come from the same
browser a developer can open.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Page

CHROMIUM_ENV = "NOVO_SLACK_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT = {"width": 1200, "height": 860}


class BrowserMissing(RuntimeError):
    """No Chromium (or no Playwright) here; the message says what to install."""


def chromium_path() -> Path:
    return Path(os.environ.get(CHROMIUM_ENV) or DEFAULT_CHROMIUM)


def check_browser() -> Path:
    """The Chromium binary to drive, or BrowserMissing naming what is not installed."""
    path = chromium_path()
    if not path.is_file():
        raise BrowserMissing(
            f"Chromium not found at {path}: install it (apt-get install chromium) "
            f"or point {CHROMIUM_ENV} at a Chromium binary"
        )
    try:
        import playwright.async_api  # noqa: F401
    except ImportError as exc:
        raise BrowserMissing(
            f"Playwright is not installed ({exc}): pip install -e '.[test]'"
        ) from exc
    return path


@asynccontextmanager
async def headless_page(*, scale: float = 1.0) -> AsyncIterator[Page]:
    """A page in a headless Chromium with a fresh profile, closed (profile removed) after."""
    executable = check_browser()
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="novo-slack-chromium-") as profile:
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile,
                executable_path=str(executable),
                headless=True,
                args=list(CHROMIUM_FLAGS),
                viewport={"width": VIEWPORT["width"], "height": VIEWPORT["height"]},
                device_scale_factor=scale,
                locale="en-US",
                timezone_id="UTC",
            )
            try:
                page = context.pages[0] if context.pages else await context.new_page()
                yield page
            finally:
                await context.close()
