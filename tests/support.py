"""Waiting on conditions with a deadline: the only way tests wait for anything."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

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


async def bounded(awaitable: Awaitable[T], seconds: float) -> T:
    """Await with a deadline. `asyncio.wait_for` on Python 3.11 can swallow a
    cancellation that races its timeout; an `asyncio.timeout` block cannot."""
    async with asyncio.timeout(seconds):
        return await awaitable
