"""The audit trail in the store: appended, read in pages, filtered, pruned, on both engines."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import cast

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.audit import CSV_FIELDS, FORMULA_STARTS, export_audit
from bot.store import Store
from tests.support import bounded

from .conftest import PG_URL, Database
from .helpers import NOW


async def test_entries_come_back_in_order_with_their_details(store: Store) -> None:
    await store.audit("posted", NOW, interaction_id="int_1", channel="C1", ts="1.2")
    await store.audit("clicked", NOW, interaction_id="int_1", actor_id="U0ADA", verb="Approved")
    await store.audit("posted", NOW, interaction_id="int_2", channel="C1", ts="1.3")
    entries = await store.audit_entries()
    assert [(e.event, e.interaction_id) for e in entries] == [
        ("posted", "int_1"),
        ("clicked", "int_1"),
        ("posted", "int_2"),
    ]
    assert entries[1].actor_id == "U0ADA" and entries[1].detail == {"verb": "Approved"}
    only = await store.audit_entries(interaction_id="int_2")
    assert [e.detail["ts"] for e in only] == ["1.3"]
    page = await store.audit_entries(after_id=entries[0].id, limit=1)
    assert [e.event for e in page] == ["clicked"]


async def test_since_and_pruning(store: Store) -> None:
    await store.audit("old", NOW - timedelta(days=100))
    await store.audit("new", NOW)
    assert [e.event for e in await store.audit_entries(since=NOW - timedelta(days=1))] == ["new"]
    assert await store.prune_audit(NOW - timedelta(days=90)) == 1
    assert [e.event for e in await store.audit_entries()] == ["new"]


async def test_a_failed_write_is_logged_not_raised(store: Store) -> None:
    no_event = cast(str, None)  # NOT NULL refuses it: the write fails, the caller goes on
    await store.record(no_event, NOW, interaction_id="int_1")
    assert await store.audit_entries() == []


async def _export(db: Database, fmt: str) -> str:
    out = io.StringIO()
    await export_audit(db.target, fmt=fmt, out=out, schema=db.schema)
    return out.getvalue()


async def test_csv_cells_a_spreadsheet_would_run_are_neutralised(
    db: Database, store: Store
) -> None:
    hostile = ['=HYPERLINK("http://x")', "+1+2", "-3", "@SUM(A1)", "\tx", "\rx"]
    for n, value in enumerate(hostile):
        await store.audit("posted", NOW, interaction_id=value, actor_id=f"U{n}", ts="1.2")
    await store.audit("posted", NOW, interaction_id="int_ok", actor_id="U0ADA")
    rows = list(csv.DictReader(io.StringIO(await _export(db, "csv"), newline="")))
    assert [r["interaction_id"] for r in rows] == ["'" + v for v in hostile] + ["int_ok"]
    assert all(not r[f].startswith(FORMULA_STARTS) for r in rows for f in CSV_FIELDS)
    # JSON lines keep the ids as Novo sent them
    lines = [json.loads(line) for line in (await _export(db, "jsonl")).splitlines()]
    assert [e["interaction_id"] for e in lines] == [*hostile, "int_ok"]


@asynccontextmanager
async def _another_writer(db: Database) -> AsyncIterator[None]:
    """Another connection holding a write transaction on the audit table until exit."""
    if db.engine == "sqlite":
        holder = sqlite3.connect(db.target, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        holder.execute(
            "INSERT INTO audit (at, event, detail, prev_hash, hash)"
            " VALUES ('2026-11-30', 'x', '{}', '', '')"
        )
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    url = make_url(PG_URL).set(drivername="postgresql+asyncpg").render_as_string(False)
    engine = create_async_engine(url, connect_args={"server_settings": {"search_path": db.schema}})
    try:
        async with engine.connect() as connection:
            transaction = await connection.begin()
            # EXCLUSIVE blocks every writer but lets plain reads through
            await connection.execute(text("LOCK TABLE audit IN EXCLUSIVE MODE"))
            try:
                yield
            finally:
                await transaction.rollback()
    finally:
        await engine.dispose()


async def test_the_export_reads_beside_a_writer_holding_the_store(
    db: Database, store: Store
) -> None:
    await store.audit("posted", NOW, interaction_id="int_1", channel="C1", ts="1.2")
    async with _another_writer(db):
        # the writer holds its lock until the export is back: one that waited would never be
        text_out = await bounded(_export(db, "jsonl"))
    assert [json.loads(line)["interaction_id"] for line in text_out.splitlines()] == ["int_1"]
