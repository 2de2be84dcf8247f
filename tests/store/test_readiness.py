"""Readiness sees the store as it is: a row really written and read back, room on the disk,
and (SQLite) the file the bridge opened still the one at its path. Both engines."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.bridge.health import WRITE_PROBE_LEASE, store_check
from bot.store import Store, StoreFileError

from .conftest import PG_URL, Database
from .helpers import NOW, decision, interaction


async def _swallow_probe_writes(db: Database) -> None:
    """A store that takes the probe's insert without error and keeps nothing."""
    if db.engine == "sqlite":
        with sqlite3.connect(db.target) as connection:
            connection.execute(
                "CREATE TRIGGER keep_nothing BEFORE INSERT ON leases"
                f" WHEN NEW.name = '{WRITE_PROBE_LEASE}' BEGIN SELECT RAISE(IGNORE); END"
            )
        return
    url = PG_URL.replace("postgresql://", "postgresql+asyncpg://", 1)
    engine = create_async_engine(url, connect_args={"server_settings": {"search_path": db.schema}})
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "CREATE FUNCTION keep_nothing() RETURNS trigger LANGUAGE plpgsql AS"
                    " $$ BEGIN RETURN NULL; END $$"
                )
            )
            await connection.execute(
                text(
                    "CREATE TRIGGER keep_nothing BEFORE INSERT ON leases FOR EACH ROW"
                    f" WHEN (NEW.name = '{WRITE_PROBE_LEASE}') EXECUTE FUNCTION keep_nothing()"
                )
            )
    finally:
        await engine.dispose()


async def test_the_write_check_reads_its_row_back(db: Database, store: Store) -> None:
    healthy = await store_check(store, 50)
    assert healthy.ok, healthy.detail
    assert "takes writes" in healthy.detail
    assert await store.lease_holder(WRITE_PROBE_LEASE, datetime(2000, 1, 1, tzinfo=UTC)) is None
    await _swallow_probe_writes(db)
    swallowed = await store_check(store, 50)
    assert not swallowed.ok
    assert "read back None" in swallowed.detail


async def test_free_disk_under_the_threshold_fails_the_check(db: Database, store: Store) -> None:
    free = store.free_bytes()
    everything = 10**9  # more megabytes than any disk here has
    check = await store_check(store, everything)
    if db.engine == "postgresql":  # the server's disk: not ours to see
        assert free is None and check.ok
        return
    assert free is not None and free > 0
    assert not check.ok
    assert f"under the {everything} MB NOVO_SLACK_MIN_FREE_MB asks for" in check.detail


async def test_a_deleted_or_replaced_sqlite_file_refuses_every_write(db: Database) -> None:
    if db.engine != "sqlite":
        pytest.skip("a PostgreSQL server has no file of ours to lose")
    store = await db.open()
    try:
        await store.claim_for_posting(interaction(), "C1", NOW)
        assert store.file_problem() is None
        path = db.target
        assert not isinstance(path, str)
        # replaced: another file (another inode) now sits at the path
        path.rename(path.with_name("moved.db"))
        path.write_bytes(path.with_name("moved.db").read_bytes())
        assert store.file_problem() == "was replaced by another file"
        path.unlink()
        assert store.file_problem() == "was deleted"
        with pytest.raises(StoreFileError, match="was deleted under the running bridge"):
            await store.enqueue_decision("int_1", *decision("U1"), NOW)
        check = await store_check(store, 0)
        assert not check.ok and "was deleted; restart the bridge" in check.detail
    finally:
        await store.close()
