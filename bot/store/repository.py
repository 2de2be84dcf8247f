"""The store: one class the rest of the bridge talks to, on SQLite or PostgreSQL.

Its queries live in one module per concern (interactions, messages, the
decision outbox, replica coordination, drafts, reminder steps, snoozes,
quorum votes, step groups); this module only opens and closes it.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Self

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.coordination import CoordinationQueries
from bot.store.drafts import DraftQueries
from bot.store.groups import GroupQueries
from bot.store.interactions import InteractionQueries
from bot.store.messages import MessageQueries
from bot.store.migrate import upgrade_to_head
from bot.store.opening import open_engine
from bot.store.outbox import DecisionQueries
from bot.store.snoozes import SnoozeQueries
from bot.store.steps import StepQueries
from bot.store.votes import VoteQueries


class Store(
    InteractionQueries,
    MessageQueries,
    DecisionQueries,
    CoordinationQueries,
    DraftQueries,
    StepQueries,
    SnoozeQueries,
    VoteQueries,
    GroupQueries,
):
    """Owns the engine; one instance per process.

    `Store.open(target)` takes a SQLite file path or a `postgresql://` URL,
    brings the schema to the newest revision and, on SQLite, takes the file
    lock that keeps a second process out. `schema` pins PostgreSQL's
    `search_path` (tests give each run a schema of its own).
    """

    @classmethod
    async def open(cls, target: Path | str, *, schema: str | None = None) -> Store:
        async def migrate(connection: AsyncConnection) -> None:
            await connection.run_sync(upgrade_to_head)

        return cls(await open_engine(target, migrate, schema=schema))

    async def close(self) -> None:
        await self._finish_running()
        await self._opened.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
