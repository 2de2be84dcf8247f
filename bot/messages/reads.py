"""What every lane's render needs from the store, read together: one read per batch.

Each post renders from its interaction's facts (open decisions, messages,
steps taken, allowances): four queries in a transaction. Ten lanes posting
twenty messages a second would ask for eight hundred queries a second, one
after another on SQLite's single connection, mostly to learn that a new
interaction has none of these. So a render asks here, and every render that
asks while one read is under way is served by the next (the same group commit
as `bot.messages.batches`: no timer, so a lone render waits for one read, never
longer). The publisher's source is that round of sends itself
(`SendBatches.message_facts`), so the reads share a transaction with other lanes'
claims and records.

A batch read starts only after every request in it was made, so each render
still sees everything committed before it asked: what it shows is as fresh
as a read of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Protocol

from bot.store.facts import MessageFacts


class FactSource(Protocol):
    """The store's one read this batches (`Store.message_facts`)."""

    async def message_facts(self, interaction_ids: Collection[str]) -> MessageFacts: ...


@dataclass
class _Batch:
    ids: dict[str, None] = field(default_factory=dict)  # ordered, no repeats
    facts: asyncio.Future[MessageFacts] | None = None

    def future(self) -> asyncio.Future[MessageFacts]:
        if self.facts is None:
            self.facts = asyncio.get_running_loop().create_future()
            # a caller cancelled meanwhile must not leave a failure unretrieved
            self.facts.add_done_callback(lambda f: f.cancelled() or f.exception())
        return self.facts


class FactReads:
    def __init__(self, store: FactSource) -> None:
        self._store = store
        self._next = _Batch()
        self._reader: asyncio.Task[None] | None = None

    async def facts(self, interaction_ids: Collection[str]) -> MessageFacts:
        """The facts of these interactions (and maybe others read beside them)."""
        if not interaction_ids:
            return MessageFacts({}, {}, {}, {})
        batch = self._next
        batch.ids.update(dict.fromkeys(interaction_ids))
        future = batch.future()
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read_all())
        return await asyncio.shield(future)

    async def _read_all(self) -> None:
        while self._next.ids:
            batch, self._next = self._next, _Batch()
            future = batch.future()
            try:
                facts = await self._store.message_facts(list(batch.ids))
            except asyncio.CancelledError:
                future.cancel()
                raise
            except Exception as exc:  # each render waiting on it fails as its own read would
                future.set_exception(exc)
            else:
                future.set_result(facts)
