"""One trip to SQLite's thread per statement, not four.

aiosqlite runs every call on a thread of its own, and each call is a round trip: a
queue put, the thread woken, the answer handed back through the event loop's self-pipe.
SQLAlchemy's aiosqlite cursor makes four of them per statement (open a cursor, execute,
fetch the rows, close), so a transaction of six statements cost some thirty trips, and
the trips, not the SQL, were most of what a post cost the store. This cursor does the
four steps in one call on that thread and keeps what the caller reads afterwards (the
rows, the description, the row count, the last row id).

A transaction's BEGIN goes in the same trip as its first statement (`defer_begin`).

`one_hop` is applied to each new connection (`bot.store.opening`); everything else about
the driver (its errors, its transactions, executemany's batches) stays SQLAlchemy's.
"""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
)
from sqlalchemy.util import EMPTY_DICT

_Ran = tuple[Any, int, int | None, list[Any] | None]
"""What a statement left: its description, row count, last row id and rows (if any)."""


_PENDING = "_novo_begin"
"""Where a connection keeps the BEGIN its next statement opens with (`defer_begin`)."""


def _run(
    connection: sqlite3.Connection,
    operation: str,
    parameters: Any,
    many: bool,
    begin: str | None,
) -> _Ran:
    """On SQLite's thread: (begin,) open, execute, fetch and close, as one call."""
    if begin is not None:
        connection.execute(begin)
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else None
        return description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


class _OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    __slots__ = ("_ran",)

    def __init__(self, adapt_connection: Any) -> None:  # no cursor opened on the thread
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._ran: _Ran = (None, -1, None, None)

    @property
    def description(self) -> Any:
        return self._ran[0]

    @property
    def rowcount(self) -> int:
        return self._ran[1]

    @property
    def lastrowid(self) -> int:
        return self._ran[2] or 0

    async def _async_soft_close(self) -> None:
        return None  # nothing is open on the thread between calls

    def close(self) -> None:
        self._rows.clear()

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        await self._call(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Sequence[Any]) -> Any:
        await self._call(operation, seq_of_parameters, many=True)

    async def _call(self, operation: Any, parameters: Any, *, many: bool) -> None:
        connection = self._connection
        async with self._adapt_connection._execute_mutex:
            begin = getattr(connection, _PENDING, None)
            setattr(connection, _PENDING, None)  # tried once, whatever comes of it
            self._ran = await connection._execute(
                _run, connection._conn, operation, parameters, many, begin
            )
        rows = self._ran[3]
        self._rows = collections.deque(rows) if rows else collections.deque()


class _OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = _OneHopCursor

    def commit(self) -> None:
        if not _take_pending(self):  # nothing ran: nothing was begun, nothing to end
            super().commit()

    def rollback(self) -> None:
        if not _take_pending(self):
            super().rollback()


def _take_pending(dbapi_connection: Any) -> bool:
    """Forget a BEGIN no statement has sent yet; whether there was one."""
    driver = dbapi_connection.driver_connection
    pending = getattr(driver, _PENDING, None) is not None
    setattr(driver, _PENDING, None)
    return pending


def one_hop(dbapi_connection: Any) -> None:
    """Make a new connection's cursors take one trip per statement."""
    if type(dbapi_connection) is AsyncAdapt_aiosqlite_connection:
        dbapi_connection.__class__ = _OneHopConnection


def defer_begin(dbapi_connection: Any, begin: str) -> None:
    """Send `begin` with the transaction's first statement, in the same trip, rather than
    in a trip of its own; a transaction that runs nothing sends neither it nor its end."""
    if isinstance(dbapi_connection, _OneHopConnection):
        setattr(dbapi_connection.driver_connection, _PENDING, begin)
    else:
        dbapi_connection.cursor().execute(begin)


def forget_begin(dbapi_connection: Any) -> None:
    """A connection given back: a BEGIN never sent is dropped with it."""
    if isinstance(dbapi_connection, _OneHopConnection):
        _take_pending(dbapi_connection)
