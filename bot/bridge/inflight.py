"""Listener runs in flight, so shutdown can let them finish before the store closes.

Bolt acks first and runs each listener in a task of its own
(`process_before_response=False`), which nobody awaits: closing the store
under one would cut a decision off half way. Bolt calls its listener start
and completion handlers inside that task, so wrapping them sees every run
begin and end, in HTTP and Socket Mode alike.
"""

from __future__ import annotations

import asyncio
import logging

from slack_bolt.async_app import AsyncApp
from slack_bolt.listener.async_listener_completion_handler import (
    AsyncListenerCompletionHandler,
)
from slack_bolt.listener.async_listener_start_handler import AsyncListenerStartHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

log = logging.getLogger(__name__)

CANCEL_GRACE_SECONDS = 1.0


class InFlight:
    """The listener tasks Bolt has started and not finished."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def install(self, app: AsyncApp) -> None:
        runner = app.listener_runner
        runner.listener_start_handler = _Started(self, runner.listener_start_handler)
        runner.listener_completion_handler = _Finished(self, runner.listener_completion_handler)

    def began(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)

    def ended(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.discard(task)

    async def drain(self, within: float) -> int:
        """Wait up to `within` seconds for runs to finish, then cancel the rest; how many."""
        pending = {t for t in self._tasks if not t.done()}
        if pending:
            _, pending = await asyncio.wait(pending, timeout=within)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("cancelled %d listener(s) still running at shutdown", len(pending))
            await asyncio.wait(pending, timeout=CANCEL_GRACE_SECONDS)
        return len(pending)


class _Started(AsyncListenerStartHandler):
    def __init__(self, tracker: InFlight, inner: AsyncListenerStartHandler) -> None:
        self._tracker = tracker
        self._inner = inner

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        self._tracker.began()
        await self._inner.handle(request, response)


class _Finished(AsyncListenerCompletionHandler):
    def __init__(self, tracker: InFlight, inner: AsyncListenerCompletionHandler) -> None:
        self._tracker = tracker
        self._inner = inner

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        self._tracker.ended()
        await self._inner.handle(request, response)
