"""Every lane's claims and recorded ts, written together: one transaction per batch.

Ten lanes posting twenty messages a second each would otherwise ask the store
for four hundred commits a second, one after another on SQLite's single
connection, and spend their time waiting for it instead of for Slack's pace.
So each claim or ts a lane wants written is handed here and awaited; whatever
arrives while one batch is being written goes into the next (group commit: no
timer, so a lone send waits for one commit, never longer).

A batch that fails as a whole (a bad row, a lost connection) is written again
one request at a time, so one bad message fails only its own send.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field

from bot.clock import Clock
from bot.store import Store
from bot.store.messages import MessageKey, SentMessage

log = logging.getLogger(__name__)


@dataclass
class _Batch:
    claims: dict[MessageKey, asyncio.Future[bool]] = field(default_factory=dict)
    sent: list[tuple[SentMessage, asyncio.Future[bool]]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.claims or self.sent)


class SendBatches:
    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._next = _Batch()
        self._writer: asyncio.Task[None] | None = None

    async def claim(self, key: MessageKey) -> bool:
        """Claim a `queued` message just before sending it; False: someone else has it."""
        future = self._next.claims.get(key)
        if future is None:
            future = self._next.claims[key] = asyncio.get_running_loop().create_future()
        self._start()
        return await asyncio.shield(future)

    async def record(self, sent: SentMessage) -> bool:
        """Record a sent message's ts; False when it was recorded before."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._next.sent.append((sent, future))
        self._start()
        return await asyncio.shield(future)

    def _start(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_all())

    async def _write_all(self) -> None:
        while self._next:
            batch, self._next = self._next, _Batch()
            try:
                await self._write(batch)
            except Exception as exc:
                log.warning("writing %d sends at once failed (%r); one by one", _size(batch), exc)
                await self._write_alone(batch)

    async def _write(self, batch: _Batch) -> None:
        claimed, recorded = await self._store.record_sends(
            list(batch.claims), [s for s, _ in batch.sent], self._clock()
        )
        for key, future in batch.claims.items():
            _settle(future, key in claimed)
        for sent, future in batch.sent:
            _settle(future, sent.key in recorded)

    async def _write_alone(self, batch: _Batch) -> None:
        for key, future in batch.claims.items():
            await _each(future, self._write(_Batch(claims={key: future})))
        for sent, future in batch.sent:
            await _each(future, self._write(_Batch(sent=[(sent, future)])))


def _size(batch: _Batch) -> int:
    return len(batch.claims) + len(batch.sent)


def _settle(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


async def _each(future: asyncio.Future[bool], write: Awaitable[None]) -> None:
    try:
        await write
    except Exception as exc:
        if not future.done():
            future.set_exception(exc)
