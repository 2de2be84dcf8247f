"""What every part of the store shares: the engine, and SQL said once for both dialects.

Only one thing differs by dialect in the queries themselves: which `insert`
construct carries `ON CONFLICT` (SQLite and PostgreSQL spell it the same).
Each public method runs in one short transaction of its own, in a task of its
own: a caller cancelled half-way (a job stopped at shutdown) never abandons a
connection mid-query, and `close` waits for what is still running.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, Literal, TypeVar

from sqlalchemy import RowMapping, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import Executable

from bot.store.errors import TooLate
from bot.store.locks import KeyedLocks
from bot.store.opening import Opened
from bot.store.parsed import ParsedRecords
from bot.store.rows import Show

Insert = postgresql.Insert | sqlite.Insert
T = TypeVar("T")
ID_CHUNK = 500  # ids per IN (...) list: well inside every engine's parameter limit


def insert_for(connection: AsyncConnection, table: Table) -> Insert:
    """The `insert` carrying ON CONFLICT in the dialect of `connection`."""
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


DueWork = Literal["decisions", "snoozes", "homes"]
"""What a sleeping job can be woken for: a queued decision, a snooze, a Home tab opened."""


class StoreBase:
    def __init__(self, opened: Opened) -> None:
        self._opened = opened
        self._engine: AsyncEngine = opened.engine
        self._local_locks = KeyedLocks()
        self._running: set[asyncio.Future[Any]] = set()
        self._show: Show | None = None
        self._parsed = ParsedRecords()  # records parsed once, reused while unchanged
        self._watches: dict[DueWork, Callable[[datetime], None]] = {}  # see `watch_due`

    def watch_due(self, work: DueWork, on_due: Callable[[datetime], None]) -> None:
        """Tell `on_due` when work of this kind that this process keeps falls due.

        In-process only, so the job doing that work can sleep while there is none
        for it; what other replicas keep, it finds by looking (see `bot.bridge.jobs`).
        """
        self._watches[work] = on_due

    def _falls_due(self, work: DueWork, at: datetime) -> None:
        watch = self._watches.get(work)
        if watch is not None:
            watch(at)

    def show_with(self, show: Show) -> None:
        """Hand out every tracked interaction as `show` makes it (the policy's redaction).

        Set once when the bridge's services are built: from then on no reader of
        the store gets a record with its secrets in, unless it asks for `raw`.
        """
        self._show = show

    @property
    def engine_name(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._engine.dialect.name

    @property
    def shown(self) -> str:
        """Where the data lives, password masked: fit for logs."""
        return self._opened.target.shown

    def file_problem(self) -> str | None:
        """What became of the SQLite file since it was opened (deleted, replaced), or None."""
        return self._opened.file_problem()

    def free_bytes(self) -> int | None:
        """Free space where the SQLite file lives; None on PostgreSQL (the server's disk)."""
        path = self._opened.target.path
        return None if path is None else shutil.disk_usage(path.parent).free

    def _insert(self, table: Table) -> Insert:
        if self.engine_name == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    async def _transaction(
        self, work: Callable[[AsyncConnection], Awaitable[T]], *, commit_by: float | None = None
    ) -> T:
        """Run `work` in one transaction that completes even if our caller is cancelled.

        `commit_by` (the event loop's clock) is a deadline the caller promised someone:
        a transaction whose work ends after it is rolled back with `TooLate` instead of
        committed. The transaction outlives a cancelled caller, so this is what keeps a
        decision the person was told was not saved from being saved a moment later.
        """

        async def run() -> T:
            async with self._engine.begin() as connection:
                result = await work(connection)
                if commit_by is not None and asyncio.get_running_loop().time() > commit_by:
                    raise TooLate("the deadline passed before the change could be committed")
                return result

        task = asyncio.ensure_future(run())
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return await asyncio.shield(task)

    async def _finish_running(self) -> None:
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)

    async def _write(self, statement: Executable) -> int:
        """Run one change; its row count says whether the condition held."""

        async def work(connection: AsyncConnection) -> int:
            return int((await connection.execute(statement)).rowcount)

        return await self._transaction(work)

    async def _all(self, statement: Executable) -> Sequence[RowMapping]:
        """Rows of a query, or those a change returned (`RETURNING`)."""

        async def work(connection: AsyncConnection) -> Sequence[RowMapping]:
            return (await connection.execute(statement)).mappings().all()

        return await self._transaction(work)

    async def _first(self, statement: Executable) -> RowMapping | None:
        rows = await self._all(statement)
        return rows[0] if rows else None
