"""Every contract test runs on both engines: a SQLite file, and a real PostgreSQL.

PostgreSQL is the suite's own database (`tests/postgres.py`). Each test gets
a schema of its own, pinned with `Store.open(…, schema=…)` and dropped
afterwards. When the server can't be reached the
PostgreSQL half is skipped with the reason, unless `CI=true` or
`NOVO_SLACK_REQUIRE_POSTGRES=1`, where that is a failure.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.store import Store
from tests.postgres import PG_URL, asyncpg_url, postgres_required, unreachable

__all__ = ["PG_URL", "postgres_required"]  # where the store tests' PostgreSQL is, for others


@dataclass(frozen=True)
class Database:
    """Where one test's store lives; `open()` gives a new Store on it (a new replica on PG)."""

    engine: str
    target: Path | str
    schema: str | None = None

    async def open(self) -> Store:
        return await Store.open(self.target, schema=self.schema)


async def _create_schema() -> str:
    """A fresh schema; skips (or fails, when PostgreSQL is required) if the server is away."""
    schema = f"t_{secrets.token_hex(6)}"
    engine = create_async_engine(asyncpg_url(), connect_args={"timeout": 5})
    try:
        async with engine.begin() as connection:
            await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:
        unreachable(exc)
    finally:
        await engine.dispose()
    return schema


async def _drop_schema(schema: str) -> None:
    engine = create_async_engine(asyncpg_url())
    try:
        async with engine.begin() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        await engine.dispose()


@pytest.fixture
async def postgres() -> AsyncIterator[Database]:
    schema = await _create_schema()
    try:
        yield Database("postgresql", PG_URL, schema)
    finally:
        await _drop_schema(schema)


@pytest.fixture(params=["sqlite", "postgresql"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        yield Database("sqlite", tmp_path / "store.db")
        return
    schema = await _create_schema()
    try:
        yield Database("postgresql", PG_URL, schema)
    finally:
        await _drop_schema(schema)


@pytest.fixture
async def store(db: Database) -> AsyncIterator[Store]:
    opened = await db.open()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def peer(db: Database, store: Store) -> AsyncIterator[Store]:
    """A second replica on the same data: another Store on PostgreSQL.

    SQLite is one process's alone, so there the "peer" is the same store,
    and races are between tasks.
    """
    if db.engine == "sqlite":
        yield store
        return
    other = await db.open()
    try:
        yield other
    finally:
        await other.close()


async def advisory_waiters() -> int:
    """How many sessions wait on an advisory lock right now (the guard, on PostgreSQL)."""
    engine = create_async_engine(asyncpg_url())
    try:
        async with engine.connect() as connection:
            # this database's alone: another checkout's suite may be waiting on its own
            query = (
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
            return int((await connection.execute(text(query))).scalar_one())
    finally:
        await engine.dispose()
