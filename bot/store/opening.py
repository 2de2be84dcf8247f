"""Turn `NOVO_SLACK_DB` into a ready engine, or into one line saying why not.

Order matters: the path is checked before anything is created beside it, the
SQLite file lock is taken before the file is touched, and on any failure
everything already started (the engine and its connections, aiosqlite's
thread, the lock) is let go before `StoreOpenError` is raised, so a process
that prints the error and returns exits at once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import PoolResetState

from bot.store.errors import StoreFileError, StoreOpenError, cause
from bot.store.filelock import PRIVATE, FileLock
from bot.store.sqlite_hops import defer_begin, forget_begin, one_hop
from bot.store.target import Target, parse_target

CONNECT_TIMEOUT_SECONDS = 10.0
STATEMENT_TIMEOUT_SECONDS = 5.0
"""A locked or overloaded database refuses instead of hanging: the server cancels a
statement after this long (`statement_timeout`; the message guard's lock wait alone is
exempt), and a request waits no longer than this for a pooled connection. SQLite's
counterpart is its `busy_timeout`. A server that does not answer at all is bounded by the
callers' own deadlines (a click's ack, a job's drain)."""
SQLITE_SIDECARS = ("-wal", "-shm")


FileIdentity = tuple[int, int]
"""A SQLite file's (device, inode): another file at the same path has another one."""


@dataclass
class Opened:
    engine: AsyncEngine
    target: Target
    lock: FileLock | None
    file_id: FileIdentity | None = None

    def file_problem(self) -> str | None:
        """What happened to the SQLite file since it was opened, or None (PostgreSQL too)."""
        path = self.target.path
        if path is None or self.file_id is None:
            return None
        try:
            now = path.stat()
        except FileNotFoundError:
            return "was deleted"
        except OSError as exc:
            return f"can't be looked at ({exc.strerror or exc})"
        if (now.st_dev, now.st_ino) != self.file_id:
            return "was replaced by another file"
        return None

    async def close(self) -> None:
        try:
            await self.engine.dispose()
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None


async def open_engine(
    target: Path | str,
    prepare: Callable[[AsyncConnection], Awaitable[Any]],
    *,
    schema: str | None = None,
    exclusive: bool = True,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
) -> Opened:
    """Open and run `prepare` (migrations, or a look at the revision) in one transaction.

    `schema` pins PostgreSQL's `search_path`, so tables and Alembic's version
    table live in that schema. `exclusive` takes the SQLite file lock; without
    it the engine only reads (an export beside a running bridge): its
    transactions take no write lock on either engine, so another writer
    holding the file never makes it wait, nor does it make that writer wait.
    """
    where = parse_target(target)
    lock: FileLock | None = None
    engine: AsyncEngine | None = None
    try:
        if where.path is not None:
            _check_path(where.path)
            if not exclusive and not where.path.exists():
                raise StoreOpenError(where.shown, "no such file")
            lock = FileLock.acquire(where.path, where.shown) if exclusive else None
            _create_private(where.path)
            engine = _sqlite_engine(where, read_only=not exclusive)
        else:
            engine = _postgres_engine(where, schema, connect_timeout, read_only=not exclusive)
        async with engine.begin() as connection:
            await prepare(connection)
        opened = Opened(engine, where, lock)
        if where.path is not None:
            _make_private(where.path)
            found = where.path.stat()
            opened.file_id = (found.st_dev, found.st_ino)
            _refuse_writes_once_moved(opened)
        return opened
    except BaseException as exc:
        if engine is not None:
            await engine.dispose()
        if lock is not None:
            lock.release()
        if isinstance(exc, StoreOpenError):
            raise
        if isinstance(exc, Exception):
            raise StoreOpenError(where.shown, cause(exc)) from exc
        raise


def _check_path(path: Path) -> None:
    shown = str(path)
    parent = path.parent
    if not parent.exists():
        raise StoreOpenError(shown, f"directory {parent} does not exist")
    if not parent.is_dir():
        raise StoreOpenError(shown, f"{parent} is not a directory")
    if path.is_dir():
        raise StoreOpenError(shown, "is a directory, not a database file")
    if path.exists():
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise StoreOpenError(shown, "is not a regular file")
        if not os.access(path, os.W_OK) or not mode & stat.S_IWUSR:
            raise StoreOpenError(shown, "the file is read-only")
    elif not os.access(parent, os.W_OK):
        raise StoreOpenError(shown, f"directory {parent} is not writable")


def _create_private(path: Path) -> None:
    """Create the file 0600 ourselves: SQLite gives its -wal and -shm the same mode."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE)
    os.close(fd)
    _make_private(path)


def _make_private(path: Path) -> None:
    for name in (path, *(path.with_name(path.name + s) for s in SQLITE_SIDECARS)):
        try:
            if stat.S_IMODE(name.stat().st_mode) != PRIVATE:
                name.chmod(PRIVATE)
        except FileNotFoundError:
            continue


def _sqlite_engine(where: Target, *, read_only: bool = False) -> AsyncEngine:
    """The owner's transactions take the write lock at BEGIN (IMMEDIATE), so two never
    deadlock upgrading; a reader's are deferred and `query_only`: in WAL mode they
    read a snapshot beside a writer and never wait on it."""
    # no rollback after every commit (a trip to SQLite's thread each): one is sent only
    # for a connection given back inside a transaction (`_on_reset`)
    engine = create_async_engine(where.url, pool_size=1, max_overflow=0, pool_reset_on_return=None)
    busy = f"busy_timeout={int(STATEMENT_TIMEOUT_SECONDS * 1000)}"
    pragmas = (
        ("query_only=ON", busy) if read_only else ("journal_mode=WAL", busy, "foreign_keys=ON")
    )
    begin = "BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE"

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        one_hop(dbapi_connection)
        # we say BEGIN ourselves (below) so DDL is transactional too
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in pragmas:
                cursor.execute(f"PRAGMA {pragma}")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        defer_begin(connection.connection.dbapi_connection, begin)

    @event.listens_for(engine.sync_engine.pool, "reset")
    def _on_reset(dbapi_connection: Any, _record: Any, state: PoolResetState) -> None:
        forget_begin(dbapi_connection)
        if state.asyncio_safe and dbapi_connection.driver_connection.in_transaction:
            dbapi_connection.rollback()

    return engine


_READS = ("SELECT", "PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _refuse_writes_once_moved(opened: Opened) -> None:
    """Every write raises StoreFileError once the SQLite file is not the one opened.

    SQLite goes on writing to a deleted file (its inode lives while it is open),
    so a decision would be "saved" where no restart ever finds it. Reads go on
    (they show what was there); a stat per write is the whole cost.
    """

    @event.listens_for(opened.engine.sync_engine, "before_cursor_execute")
    def _check(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip()[:9].upper().startswith(_READS):
            return
        problem = opened.file_problem()
        if problem is not None:
            raise StoreFileError(opened.target.shown, problem)


def _postgres_engine(
    where: Target, schema: str | None, timeout: float, *, read_only: bool = False
) -> AsyncEngine:
    connect_args: dict[str, Any] = {"timeout": timeout}
    server_settings = {"statement_timeout": str(int(STATEMENT_TIMEOUT_SECONDS * 1000))}
    if schema is not None:
        server_settings["search_path"] = schema
    if read_only:  # a reader's transactions are READ ONLY: no row or table write locks
        server_settings["default_transaction_read_only"] = "on"
    if server_settings:
        connect_args["server_settings"] = server_settings
    # room for a message guard (held across a Slack call) beside the queries it makes
    return create_async_engine(
        where.url,
        connect_args=connect_args,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=20,
        pool_timeout=STATEMENT_TIMEOUT_SECONDS,
    )
