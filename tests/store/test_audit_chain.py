"""The audit trail's hash chain in the store, on both engines: appended by every writer,
tampering found and named, one chain whatever the number of replicas, older events
brought in by the migration, pruning moving the chain's start."""

from __future__ import annotations

import asyncio
import io
import itertools
from datetime import timedelta
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.audit import export_audit
from bot.audit_verify import Verdict, verify_file, verify_store
from bot.store import Store
from bot.store.chain import GENESIS
from bot.store.migrate import upgrade_to
from bot.store.opening import open_engine

from .conftest import Database
from .helpers import NOW


async def _history(store: Store, count: int = 6) -> None:
    for n in range(count):
        await store.audit(
            "clicked", NOW + timedelta(seconds=n), interaction_id=f"int_{n}", actor_id="U0ADA", n=n
        )


async def _verdict(db: Database) -> Verdict:
    return await verify_store(db.target, schema=db.schema)


async def _sql(store: Store, statement: str) -> None:
    """Tamper as someone with write access to the store would: plain SQL."""

    async def work(connection: AsyncConnection) -> None:
        await connection.execute(text(statement))

    await store._transaction(work)


async def test_every_writer_chains_and_the_chain_verifies(db: Database, store: Store) -> None:
    await _history(store, 3)
    await store.record("expired", NOW, interaction_id="int_9")
    verdict = await _verdict(db)
    assert verdict.ok, verdict.line()
    assert verdict.line() == "4 events, chain intact from 2026-11-30 09:00 UTC"
    entries = await store.audit_entries()
    assert [e.id for e in entries] == [1, 2, 3, 4]
    assert entries[0].prev_hash == GENESIS
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(entries))
    assert await store.audit_head() == (4, entries[-1].hash)


async def test_an_edited_event_is_named(db: Database, store: Store) -> None:
    await _history(store)
    await _sql(store, "UPDATE audit SET actor_id = 'U0MALLORY' WHERE id = 3")
    verdict = await _verdict(db)
    assert not verdict.ok
    assert verdict.line().startswith("event #3 (2026-11-30 09:00:02 UTC, clicked): edited")


async def test_a_deleted_event_is_named(db: Database, store: Store) -> None:
    await _history(store)
    await _sql(store, "DELETE FROM audit WHERE id = 3")
    verdict = await _verdict(db)
    assert verdict.line() == (
        "event #4 (2026-11-30 09:00:03 UTC, clicked): missing (1 event(s) before it are gone)"
    )


async def test_the_first_event_deleted_is_missing_too(db: Database, store: Store) -> None:
    await _history(store)
    await _sql(store, "DELETE FROM audit WHERE id = 1")
    assert "event #2" in (await _verdict(db)).line() and "missing" in (await _verdict(db)).line()


async def test_swapped_events_are_out_of_order(db: Database, store: Store) -> None:
    await _history(store)
    # the rows' places exchanged: each keeps its content and hashes, under the other's id
    await _sql(store, "UPDATE audit SET id = 100 WHERE id = 3")
    await _sql(store, "UPDATE audit SET id = 3 WHERE id = 4")
    await _sql(store, "UPDATE audit SET id = 4 WHERE id = 100")
    verdict = await _verdict(db)
    assert verdict.line() == (
        "event #3 (2026-11-30 09:00:03 UTC, clicked): out of order (event #4 should come before it)"
    )


async def test_a_forged_event_is_found(db: Database, store: Store) -> None:
    """A row written beside the chain (its hashes made up) is edited as far as it knows."""
    await _history(store, 3)
    await _sql(
        store,
        "INSERT INTO audit (id, at, event, detail, prev_hash, hash) VALUES "
        "(4, '2026-11-30 09:00:05', 'resolved', '{}', 'x', 'y')",
    )
    assert "event #4" in (await _verdict(db)).line()
    assert "edited" in (await _verdict(db)).line()


async def test_two_replicas_appending_at_once_leave_one_chain(
    db: Database, store: Store, peer: Store
) -> None:
    async def burst(replica: Store, name: str) -> None:
        for n in range(25):
            await replica.audit("clicked", NOW, interaction_id=f"{name}_{n}")

    await asyncio.gather(burst(store, "a"), burst(peer, "b"), burst(store, "c"), burst(peer, "d"))
    entries = await store.audit_entries()
    assert [e.id for e in entries] == list(range(1, 101))  # no fork, no gap
    verdict = await _verdict(db)
    assert verdict.ok and verdict.count == 100, verdict.line()


async def test_pruning_moves_the_start_and_what_is_left_verifies(
    db: Database, store: Store
) -> None:
    await store.audit("old", NOW - timedelta(days=100))
    await store.audit("old", NOW - timedelta(days=99))
    await _history(store, 2)
    assert await store.prune_audit(NOW - timedelta(days=90)) == 2
    anchor = await store.audit_anchor()
    assert anchor.after_id == 2
    assert (await _verdict(db)).line() == "2 events, chain intact from 2026-11-30 09:00 UTC"
    await _sql(store, "DELETE FROM audit WHERE id = 3")  # not a prune: the start stays put
    assert "missing" in (await _verdict(db)).line()


async def test_everything_pruned_then_the_chain_goes_on(db: Database, store: Store) -> None:
    await store.audit("old", NOW - timedelta(days=100))
    assert await store.prune_audit(NOW) == 1
    await store.audit("new", NOW)
    assert [e.id for e in await store.audit_entries()] == [2]
    assert (await _verdict(db)).ok


async def test_an_export_verifies_and_an_edited_line_does_not(
    db: Database, store: Store, tmp_path: Path
) -> None:
    await _history(store)
    out = io.StringIO()
    await export_audit(db.target, fmt="jsonl", out=out, schema=db.schema)
    export = tmp_path / "export.jsonl"
    export.write_text(out.getvalue())
    assert verify_file(export).line() == "6 events, chain intact from 2026-11-30 09:00 UTC"
    lines = out.getvalue().splitlines()
    lines[2] = lines[2].replace('"U0ADA"', '"U0MALLORY"')
    export.write_text("\n".join(lines) + "\n")
    assert (
        verify_file(export).line().startswith("event #3 (2026-11-30 09:00:02 UTC, clicked): edited")
    )
    del lines[2]
    export.write_text("\n".join(lines) + "\n")
    assert "event #4" in verify_file(export).line() and "missing" in verify_file(export).line()
    export.write_text("not json\n")
    assert verify_file(export).line() == "line 1: not an audit event with its chain fields"


async def test_the_migration_chains_the_events_already_there(db: Database) -> None:
    zone = "+00" if db.engine == "postgresql" else ""

    async def at_0012_with_events(connection: AsyncConnection) -> None:
        await connection.run_sync(upgrade_to, "0012")
        for n in (1, 2, 5):  # ids with a gap, as a rolled-back write leaves
            await connection.execute(
                text(
                    "INSERT INTO audit (id, at, event, detail) VALUES "
                    f"({n}, '2026-11-30 09:00:0{n}.000000{zone}', 'posted',"
                    f' \'{{"ts": "{n}"}}\')'
                )
            )

    opened = await open_engine(db.target, at_0012_with_events, schema=db.schema)
    await opened.close()
    store = await db.open()
    try:
        anchor = await store.audit_anchor()
        assert (anchor.after_id, anchor.prev_hash, anchor.chained_through) == (0, GENESIS, 5)
        await store.audit("clicked", NOW + timedelta(minutes=1))
        assert [e.id for e in await store.audit_entries()] == [1, 2, 5, 6]
    finally:
        await store.close()
    assert (await _verdict(db)).line() == "4 events, chain intact from 2026-11-30 09:00 UTC"
