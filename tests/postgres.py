"""The suite's PostgreSQL: one database of this checkout's own, made at the start of a run
and dropped at its end, and the fresh databases the replica tests make inside the server.

Two checkouts on one machine (or a checkout and the machine's own databases) never meet:
the database is named after the checkout's path (`novo_slack_test_<8 hex>`), every
database a test makes starts with that name, and the run drops what it made. Store tests
work in a schema of their own inside it (`tests/store/conftest.py`).

`NOVO_SLACK_TEST_DATABASE_URL` points the suite at another database instead (used as it
is: made and dropped by whoever set it); the server's user must be allowed to create
databases. Out of reach, the PostgreSQL tests skip with the reason, unless `CI=true` or
`NOVO_SLACK_REQUIRE_POSTGRES=1` make that a failure.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.support import CHECKOUT_ID

DATABASE_URL_ENV = "NOVO_SLACK_TEST_DATABASE_URL"
REQUIRE_ENV = "NOVO_SLACK_REQUIRE_POSTGRES"
SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
"""The machine's PostgreSQL (trust auth on loopback), through its maintenance database."""
SUITE_DATABASE = f"novo_slack_test_{CHECKOUT_ID}"
CONNECT_SECONDS = 5


def suite_owns_database() -> bool:
    """Whether this run makes and drops the suite's database (no URL was given)."""
    return not os.environ.get(DATABASE_URL_ENV)


def _suite_url() -> str:
    given = os.environ.get(DATABASE_URL_ENV)
    if given:
        return given
    return make_url(SERVER_URL).set(database=SUITE_DATABASE).render_as_string(False)


PG_URL = _suite_url()
"""Where the PostgreSQL tests work: the suite's own database, or the one given."""


def postgres_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get(REQUIRE_ENV) == "1"


def asyncpg_url(url: str = PG_URL) -> URL:
    return make_url(url).set(drivername="postgresql+asyncpg")


def shown(url: str = PG_URL) -> str:
    return make_url(url).render_as_string(hide_password=True)


def unreachable(exc: BaseException) -> None:
    """Skip the test (or fail it, where PostgreSQL is required), saying why."""
    reason = f"PostgreSQL not reachable at {shown()}: {type(exc).__name__}: {exc}"
    if postgres_required():
        pytest.fail(reason)
    pytest.skip(reason)


async def admin(url: str, *statements: str) -> None:
    """Statements outside a transaction (CREATE/DROP DATABASE refuse to run in one)."""
    engine = create_async_engine(
        asyncpg_url(url), isolation_level="AUTOCOMMIT", connect_args={"timeout": CONNECT_SECONDS}
    )
    try:
        async with engine.connect() as connection:
            for statement in statements:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()


def _drop(name: str) -> list[str]:
    # a replica killed with SIGKILL leaves its sessions behind until the server notices
    return [
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        f" WHERE datname = '{name}' AND pid <> pg_backend_pid()",
        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
    ]


async def create_suite_database() -> None:
    """The suite's database, anew (a run killed before its end may have left one behind)."""
    if suite_owns_database():
        await admin(SERVER_URL, *_drop(SUITE_DATABASE), f'CREATE DATABASE "{SUITE_DATABASE}"')


async def drop_suite_database() -> None:
    """The suite's database and every database a test made in it and left behind."""
    if not suite_owns_database():
        return
    engine = create_async_engine(asyncpg_url(SERVER_URL), connect_args={"timeout": 5})
    try:
        async with engine.connect() as connection:
            query = text("SELECT datname FROM pg_database WHERE datname LIKE :prefix")
            rows = await connection.execute(query, {"prefix": f"{SUITE_DATABASE}%"})
            names = [str(row[0]) for row in rows]
    finally:
        await engine.dispose()
    for name in names:
        await admin(SERVER_URL, *_drop(name))


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """A fresh, empty database named after the suite's, dropped afterwards; its URL is what
    `NOVO_SLACK_DB` gets."""
    name = f"{make_url(PG_URL).database or 'novo_slack_test'}_{secrets.token_hex(4)}"
    try:
        await admin(PG_URL, f'CREATE DATABASE "{name}"')
    except Exception as exc:
        print(f"skipped: PostgreSQL not reachable at {shown()}: {exc}")
        unreachable(exc)
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        await admin(PG_URL, *_drop(name))


class Relay:
    """A TCP relay in front of the PostgreSQL server, to take the database out of reach.

    `cut()` drops every connection through it and refuses new ones, as a server that
    went away or a network that broke does; `mend()` lets them through again on the
    same port. `url` is the database's URL through it.
    """

    def __init__(self, url: str) -> None:
        target = make_url(url)
        self._target = (target.host or "127.0.0.1", target.port or 5432)
        self._url = target
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return self._url.set(host="127.0.0.1", port=self.port).render_as_string(False)

    async def mend(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._open |= {writer, up_writer}
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        self._open -= {writer, up_writer}

    async def __aenter__(self) -> Relay:
        await self.mend()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.cut()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.transport.abort()
