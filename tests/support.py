"""Waiting on conditions with a deadline: the only way tests wait for anything."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_TIMEOUT = 10.0
POLL_INTERVAL = 0.02


async def wait_until(
    probe: Callable[[], Awaitable[Any]] | Callable[[], Any],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    message: str = "condition",
) -> Any:
    """Call `probe` until it returns something truthy; fail with `message` at the deadline."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        result = probe()
        if isinstance(result, Awaitable):
            result = await result
        last = result
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}; last={last!r}")
        await asyncio.sleep(POLL_INTERVAL)
