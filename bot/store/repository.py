"""The store: one class the rest of the bridge talks to, on SQLite or PostgreSQL.

Its queries live in one module per concern (interactions, messages, the
decision outbox, replica coordination, drafts, reminder steps, snoozes,
quorum votes, step groups, the audit trail, App Home tabs, scheduled
digests, standing approvals, Events API receipts); this module only opens and
closes it.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Self

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.allowances import AllowanceQueries
from bot.store.audit import AuditQueries
from bot.store.coordination import CoordinationQueries
from bot.store.digests import DigestQueries
from bot.store.drafts import DraftQueries
from bot.store.errors import StoreOpenError
from bot.store.facts import FactQueries
from bot.store.groups import GroupQueries
from bot.store.home import HomeQueries
from bot.store.interactions import InteractionQueries
from bot.store.messages import MessageQueries
from bot.store.migrate import current_revision, head_revision, upgrade_to_head
from bot.store.opening import open_engine
from bot.store.outbox import DecisionQueries
from bot.store.receipts import ReceiptQueries
from bot.store.snoozes import SnoozeQueries
from bot.store.steps import StepQueries
from bot.store.target import parse_target
from bot.store.votes import VoteQueries
from bot.store.writes import DecisionWrites


class Store(
    InteractionQueries,
    MessageQueries,
    FactQueries,
    DecisionWrites,  # every way of deciding writes through it
    VoteQueries,  # before DecisionQueries: a vote that meets a quorum queues its decision
    DecisionQueries,
    CoordinationQueries,
    DraftQueries,
    StepQueries,
    SnoozeQueries,
    GroupQueries,
    AuditQueries,
    HomeQueries,
    DigestQueries,
    AllowanceQueries,
    ReceiptQueries,
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

    @classmethod
    async def open_reader(cls, target: Path | str, *, schema: str | None = None) -> Store:
        """A store to read from beside a running bridge (an export): no file lock, no
        migration; a database not at the newest revision is refused, naming the fix."""
        found = ""

        async def look(connection: AsyncConnection) -> None:
            nonlocal found
            found = await connection.run_sync(current_revision)

        opened = await open_engine(target, look, schema=schema, exclusive=False)
        if found != head_revision():
            await opened.close()
            shown = parse_target(target).shown
            raise StoreOpenError(
                shown,
                f"at revision {found or 'none'}, not {head_revision()}:"
                " run `novo-slack db upgrade`",
            )
        return cls(opened)

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
