"""Every lane's claims, recorded ts and fact reads, done together: one transaction a round.

Ten lanes posting twenty messages a second each would otherwise ask the store
for six hundred transactions a second (a read of what each render shows, a
claim before each send, a record after), one after another on SQLite's single
connection, each several hops through its driver's thread, and spend their time
waiting for it instead of for Slack's pace. So each claim, ts or read a lane
wants is handed here and awaited; whatever arrives while one round is being
written goes into the next (group commit: no timer, so a lone send waits for one
round, never longer). A round starts only after every request in it was made, so
each read still sees everything committed before it asked.

While sends keep coming (a round ended a moment ago), a round first waits a few
milliseconds for company (`ROUND_LINGER_SECONDS`): ten lanes at Slack's pace ask every
five milliseconds or so, and a round of one or two was most of what a post cost the
store. A send after a quiet spell is written at once.

A round that fails as a whole (a bad row, a lost connection) is done again one
request at a time, so one bad message fails only its own send.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field

from bot.clock import Clock
from bot.outages import level
from bot.store import Store
from bot.store.facts import MessageFacts
from bot.store.messages import MessageKey, SentMessage

log = logging.getLogger(__name__)

ROUND_LINGER_SECONDS = 0.004
"""How long a round waits for company while sends keep coming: a tenth of the gap
between two posts to one channel at Slack's pace, so no lane's pace is felt; in a burst
of a thousand over ten channels the bridge spent a tenth less CPU per post."""
BUSY_SECONDS = 0.05
"""A round that ended this recently means sends keep coming: the next one lingers."""


@dataclass
class _Batch:
    claims: dict[MessageKey, asyncio.Future[bool]] = field(default_factory=dict)
    sent: list[tuple[SentMessage, asyncio.Future[bool]]] = field(default_factory=list)
    reads: dict[str, None] = field(default_factory=dict)  # ordered, no repeats
    facts: asyncio.Future[MessageFacts] | None = None

    def __bool__(self) -> bool:
        return bool(self.claims or self.sent or self.reads)

    def read_future(self) -> asyncio.Future[MessageFacts]:
        if self.facts is None:
            self.facts = asyncio.get_running_loop().create_future()
            # a caller cancelled meanwhile must not leave a failure unretrieved
            self.facts.add_done_callback(lambda f: f.cancelled() or f.exception())
        return self.facts


class SendBatches:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        linger: float = ROUND_LINGER_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._store = store
        self._clock = clock
        self._linger = linger
        self._monotonic = monotonic
        self._sleep = sleep
        self._next = _Batch()
        self._writer: asyncio.Task[None] | None = None
        self._last_round_end = float("-inf")

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

    async def message_facts(self, interaction_ids: Collection[str]) -> MessageFacts:
        """The facts of these interactions (and maybe others read beside them), read in
        the next round (`bot.messages.reads` gathers the renders that ask)."""
        batch = self._next
        batch.reads.update(dict.fromkeys(interaction_ids))
        future = batch.read_future()
        self._start()
        return await asyncio.shield(future)

    def _start(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_all())

    async def _write_all(self) -> None:
        while self._next:
            if self._monotonic() - self._last_round_end < BUSY_SECONDS:
                try:
                    await self._sleep(self._linger)
                except asyncio.CancelledError:
                    _cancel(self._next)  # its requests would otherwise wait for a next round
                    self._next = _Batch()
                    raise
            batch, self._next = self._next, _Batch()
            try:
                await self._write(batch)
            except asyncio.CancelledError:
                _cancel(batch)
                raise
            except Exception as exc:
                log.log(
                    level(exc),
                    "a round of %d sends at once failed (%r); one by one",
                    _size(batch),
                    exc,
                )
                await self._write_alone(batch)
            finally:
                self._last_round_end = self._monotonic()

    async def _write(self, batch: _Batch) -> None:
        done = await self._store.record_sends(
            list(batch.claims), [s for s, _ in batch.sent], self._clock(), read=list(batch.reads)
        )
        for key, future in batch.claims.items():
            _settle(future, key in done.claimed)
        for sent, future in batch.sent:
            _settle(future, sent.key in done.recorded)
        if batch.facts is not None and not batch.facts.done():
            batch.facts.set_result(done.facts or MessageFacts({}, {}, {}, {}))

    async def _write_alone(self, batch: _Batch) -> None:
        for key, future in batch.claims.items():
            await _each(future, self._write(_Batch(claims={key: future})))
        for sent, future in batch.sent:
            await _each(future, self._write(_Batch(sent=[(sent, future)])))
        if batch.facts is not None:
            alone = _Batch(reads=batch.reads, facts=batch.facts)
            await _each(batch.facts, self._write(alone))


def _size(batch: _Batch) -> int:
    return len(batch.claims) + len(batch.sent) + len(batch.reads)


def _settle(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


def _cancel(batch: _Batch) -> None:
    """Every request of a round that will not be written hears so (its sender's claim,
    record or read is left to the store's look after a restart)."""
    for future in [*batch.claims.values(), *(f for _, f in batch.sent), batch.facts]:
        if future is not None:
            future.cancel()


async def _each(
    future: asyncio.Future[bool] | asyncio.Future[MessageFacts], write: Awaitable[None]
) -> None:
    try:
        await write
    except Exception as exc:
        if not future.done():
            future.set_exception(exc)
