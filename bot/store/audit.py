"""The audit trail: every transition an interaction went through in the bridge.

One row per event, written where the event happens, so "who approved this,
and what did Novo answer?" has an answer after the messages have scrolled
away. Details are the facts only (ids, verbs, statuses, the body as sent,
which Novo holds anyway); never a token. Old rows are pruned daily.

`record` is what the bridge calls: the trail is for people reading it
afterwards, and a row that can't be written (the disk is full) must not undo
or stop a transition already made, so its failure is logged, not raised.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import StoreBase
from bot.store.records import dump_record, load_record
from bot.store.schema import audit

log = logging.getLogger(__name__)

AUDIT_PAGE = 10_000
"""Entries read per query: an export streams in pages of this many."""


@dataclass(frozen=True)
class AuditEvent:
    """An entry to write: what happened, when, to which interaction, by whom."""

    event: str
    at: datetime
    interaction_id: str | None = None
    actor_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    event: str
    interaction_id: str | None
    actor_id: str | None
    detail: dict[str, Any]


def _audit_row(entry: AuditEvent) -> dict[str, Any]:
    return {
        "at": entry.at,
        "event": entry.event,
        "interaction_id": entry.interaction_id,
        "actor_id": entry.actor_id,
        "detail": dump_record(entry.detail),
    }


async def write_events(connection: AsyncConnection, entries: Sequence[AuditEvent]) -> None:
    """Write entries inside a transaction that does what they tell (a decision, a use of
    an allowance): the trail then says exactly what was committed, never more nor less."""
    if entries:
        await connection.execute(audit.insert(), [_audit_row(e) for e in entries])


class AuditQueries(StoreBase):
    async def audit(
        self,
        event: str,
        at: datetime,
        *,
        interaction_id: str | None = None,
        actor_id: str | None = None,
        **detail: Any,
    ) -> None:
        await self._write(
            audit.insert().values(
                at=at,
                event=event,
                interaction_id=interaction_id,
                actor_id=actor_id,
                detail=dump_record(detail),
            )
        )

    async def record(
        self,
        event: str,
        at: datetime,
        *,
        interaction_id: str | None = None,
        actor_id: str | None = None,
        **detail: Any,
    ) -> None:
        """`audit`, whose failure is logged and never raised."""
        try:
            await self.audit(event, at, interaction_id=interaction_id, actor_id=actor_id, **detail)
        except Exception as exc:
            log.warning("could not write the audit entry %s for %s: %r", event, interaction_id, exc)

    async def record_many(self, entries: Sequence[AuditEvent]) -> None:
        """Several entries in one transaction (Approve all); failure logged, never raised."""
        if not entries:
            return
        try:
            await self._transaction(partial(write_events, entries=entries))
        except Exception as exc:
            log.warning("could not write %d audit entries: %r", len(entries), exc)

    async def audit_entries(
        self,
        *,
        since: datetime | None = None,
        interaction_id: str | None = None,
        after_id: int = 0,
        limit: int = AUDIT_PAGE,
    ) -> list[AuditEntry]:
        """Entries oldest first; page on with `after_id` = the last id read."""
        query = select(audit).where(audit.c.id > after_id)
        if since is not None:
            query = query.where(audit.c.at >= since)
        if interaction_id is not None:
            query = query.where(audit.c.interaction_id == interaction_id)
        rows = await self._all(query.order_by(audit.c.id).limit(limit))
        return [
            AuditEntry(
                id=int(r["id"]),
                at=r["at"],
                event=r["event"],
                interaction_id=r["interaction_id"],
                actor_id=r["actor_id"],
                detail=dict(load_record(r["detail"])),
            )
            for r in rows
        ]

    async def prune_audit(self, before: datetime) -> int:
        """Drop entries older than `before`; how many went."""
        return await self._write(delete(audit).where(audit.c.at < before))
