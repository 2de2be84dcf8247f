"""The audit trail in the store: appended, read in pages, filtered, pruned, on both engines."""

from __future__ import annotations

from datetime import timedelta
from typing import cast

from bot.store import Store

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
