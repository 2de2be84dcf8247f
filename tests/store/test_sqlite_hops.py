"""SQLite's statements take one trip to its thread each, and a connection given back
inside a transaction is still rolled back (the pool no longer rolls back after every
commit)."""

from __future__ import annotations

from pathlib import Path

import aiosqlite.core
import pytest
from sqlalchemy import text

from bot.store import Store

from .helpers import NOW, interaction


async def test_a_read_is_one_trip_and_a_transaction_no_rollback_after_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await Store.open(tmp_path / "store.db")
    await store.claim_for_posting(interaction("int_1"), "C1", NOW)
    trips: list[str] = []
    real = aiosqlite.core.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: object, *args: object) -> object:
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await real(self, fn, *args)  # type: ignore[no-untyped-call]

    monkeypatch.setattr(aiosqlite.core.Connection, "_execute", counted)
    try:
        tracked = await store.get("int_1")
        assert tracked is not None and tracked.id == "int_1"
        # BEGIN rides with the first statement, each statement is one trip, then COMMIT;
        # no rollback after it
        assert set(trips) == {"_run", "commit"}
        trips.clear()
        async with store._engine.begin():
            pass  # a transaction that runs nothing sends nothing
        assert trips == []
    finally:
        await store.close()


async def test_a_connection_given_back_inside_a_transaction_is_rolled_back(
    tmp_path: Path,
) -> None:
    store = await Store.open(tmp_path / "store.db")
    try:
        async with store._engine.connect() as connection:
            raw = await connection.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            await driver.execute("BEGIN IMMEDIATE")
            await driver.execute(
                "UPDATE messages SET state = 'posted' WHERE interaction_id = 'nobody'"
            )
            assert driver.in_transaction
        # the write lock was let go: the next writer does not wait on it
        async with store._engine.begin() as connection:
            await connection.execute(text("SELECT 1"))
            raw = await connection.get_raw_connection()
            assert raw.driver_connection is not None
        await store.claim_for_posting(interaction("int_2"), "C1", NOW)
        assert await store.get("int_2") is not None
    finally:
        await store.close()
