"""The audit trail as a hash chain: each event's hash covers its content and the hash
of the event before it, so an edited, deleted, inserted or reordered event shows.

The format (never to change: exports made today must verify tomorrow):

    content = canonical JSON of {at, event, interaction_id, actor_id, detail}
    hash    = sha256(prev_hash + "\\n" + content), hex

Canonical JSON is sorted keys, no spaces, ASCII, no NaN; `at` is UTC ISO 8601 with
microseconds and a `Z`. The event's id is *not* hashed: its place in the chain is
its `prev_hash`, so a swap of ids or of rows shows as a break in the links.

One chain per store. `append_events` is the only writer: on PostgreSQL a
transaction-scoped advisory lock (per schema) makes appends from every replica
take turns, then the newest event is read by primary key and the new events get
the ids after it (explicit ids, so no gap a rolled-back sequence value would
leave); on SQLite the store's transactions are already one writer at a time
(BEGIN IMMEDIATE). The primary key refuses a second event at the same place, so a
fork cannot be written even by code that skipped the lock.

`audit_chain` holds the anchor: the id and hash the first kept event follows
(0 and `GENESIS` until pruning moves it), when the chain was started, and the last
id of the events that were already there and were chained by the migration.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.records import dump_record, load_record
from bot.store.schema import audit, audit_chain

GENESIS = "0" * 64
"""The `prev_hash` of the very first event of a chain."""
CHAIN_LOCK_KEY = 1_869_571_433
"""First half of the advisory lock appends take on PostgreSQL (the second: the schema)."""


@dataclass(frozen=True)
class AuditEvent:
    """An entry to write: what happened, when, to which interaction, by whom."""

    event: str
    at: datetime
    interaction_id: str | None = None
    actor_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Anchor:
    """Where the kept chain starts, and what the store remembers of how it began."""

    after_id: int
    """The id of the event the first kept one follows (0: nothing before it)."""
    prev_hash: str
    started_at: datetime
    """When this store's chain began (the migration that chained the older events)."""
    chained_through: int
    """Events up to this id existed before the chain and were chained at `started_at`."""


def utc_text(at: datetime) -> str:
    """The instant as the chain hashes it and an export prints it."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def content_bytes(
    at: datetime | str,
    event: str,
    interaction_id: str | None,
    actor_id: str | None,
    detail: Any,
) -> bytes:
    """What an event's hash covers, in the one canonical form."""
    fields = {
        "at": at if isinstance(at, str) else utc_text(at),
        "event": event,
        "interaction_id": interaction_id,
        "actor_id": actor_id,
        "detail": detail,
    }
    canonical = json.dumps(
        fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
    return canonical.encode("ascii")


def link_hash(prev_hash: str, content: bytes) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + content).hexdigest()


def text_hash(shown: str) -> str:
    """The hash a decision event keeps of the text its card showed."""
    return hashlib.sha256(shown.encode("utf-8")).hexdigest()


_NEWEST = select(audit.c.id, audit.c.hash).order_by(audit.c.id.desc()).limit(1)
_APPEND = audit.insert()
"""Built once: every round of sends that posts something appends to the chain."""


async def append_events(connection: AsyncConnection, events: Sequence[AuditEvent]) -> None:
    """Chain `events` after the newest one, in the caller's transaction.

    Call it last in a transaction: the lock it takes is held to the commit, and
    a transaction that then waited on another row could hold every replica's
    appends behind it.
    """
    if not events:
        return
    await _take_turn(connection)
    newest = (await connection.execute(_NEWEST)).first()
    if newest is not None:
        last_id, prev = int(newest.id), str(newest.hash)
    else:  # nothing kept (a new store, or everything pruned): the anchor says where
        anchor = await read_anchor(connection)
        last_id, prev = anchor.after_id, anchor.prev_hash
    rows = []
    for offset, entry in enumerate(events, start=1):
        stored = dump_record(entry.detail)
        content = content_bytes(
            entry.at, entry.event, entry.interaction_id, entry.actor_id, load_record(stored)
        )
        own = link_hash(prev, content)
        rows.append(
            {
                "id": last_id + offset,
                "at": entry.at,
                "event": entry.event,
                "interaction_id": entry.interaction_id,
                "actor_id": entry.actor_id,
                "detail": stored,
                "prev_hash": prev,
                "hash": own,
            }
        )
        prev = own
    await connection.execute(_APPEND, rows)


async def _take_turn(connection: AsyncConnection) -> None:
    """Hold the chain to the commit: PostgreSQL replicas append one at a time (SQLite's
    BEGIN IMMEDIATE already made this transaction the only writer)."""
    if connection.dialect.name == "postgresql":
        await connection.execute(
            text("SELECT pg_advisory_xact_lock(:key, hashtext(current_schema()))"),
            {"key": CHAIN_LOCK_KEY},
        )


async def read_anchor(connection: AsyncConnection) -> Anchor:
    row = (await connection.execute(select(audit_chain))).mappings().first()
    if row is None:
        raise LookupError("the audit chain's start record (audit_chain) is missing")
    return anchor_of(row)


def anchor_of(row: RowMapping) -> Anchor:
    return Anchor(
        after_id=int(row["after_id"]),
        prev_hash=str(row["prev_hash"]),
        started_at=row["started_at"],
        chained_through=int(row["chained_through"]),
    )


async def prune_before(connection: AsyncConnection, before: datetime) -> int:
    """Drop the oldest events while they are older than `before`, moving the anchor
    onto the last one dropped; how many went.

    Only a prefix goes (up to the first event not older than `before`), so the
    kept events still link one to the next and to the anchor.
    """
    await _take_turn(connection)
    kept = select(audit.c.id).where(audit.c.at >= before).order_by(audit.c.id).limit(1)
    first_kept = (await connection.execute(kept)).scalar()
    last_gone_query = select(audit.c.id, audit.c.hash).order_by(audit.c.id.desc()).limit(1)
    if first_kept is not None:
        last_gone_query = last_gone_query.where(audit.c.id < first_kept)
    last_gone = (await connection.execute(last_gone_query)).first()
    if last_gone is None:
        return 0
    await connection.execute(
        update(audit_chain).values(after_id=int(last_gone.id), prev_hash=str(last_gone.hash))
    )
    gone = await connection.execute(audit.delete().where(audit.c.id <= int(last_gone.id)))
    return int(gone.rowcount)
