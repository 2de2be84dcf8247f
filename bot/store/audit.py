"""The audit trail: every transition an interaction went through in the bridge.

One row per event, written where the event happens, so "who approved this,
and what did Novo answer?" has an answer after the messages have scrolled
away. Details are the facts only (ids, verbs, statuses, the body as sent,
which Novo holds anyway); never a token. Old rows are pruned daily.
Every write goes through `bot.store.chain.append_events`, which links it
into the store's one hash chain.

`record` is what the bridge calls: the trail is for people reading it
afterwards, and a row that can't be written (the disk is full) must not undo
or stop a transition already made, so its failure is logged, not raised.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.novo.models import Interaction
from bot.store.base import StoreBase
from bot.store.chain import Anchor, append_events, prune_before, read_anchor, utc_text
from bot.store.chain import AuditEvent as AuditEvent  # what the services build entries with
from bot.store.records import load_record
from bot.store.schema import audit

log = logging.getLogger(__name__)

AUDIT_PAGE = 10_000
"""Entries read per query: an export streams in pages of this many."""


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    event: str
    interaction_id: str | None
    actor_id: str | None
    detail: dict[str, Any]
    prev_hash: str
    hash: str


def interaction_facts(interaction: Interaction, rule: str) -> dict[str, Any]:
    """What an ending event says of the interaction, so the trail alone answers "which
    rule, tool and agent, asked when" (`policy advise` counts by them) after the
    interaction itself has been forgotten."""
    return {
        "rule": rule,
        "kind": interaction.kind,
        "tool": interaction.tool_name,
        "agent": interaction.agent_id,
        "created_at": utc_text(interaction.created_at),
    }


async def write_events(connection: AsyncConnection, entries: Sequence[AuditEvent]) -> None:
    """Write entries inside a transaction that does what they tell (a decision, a use of
    an allowance): the trail then says exactly what was committed, never more nor less.
    They join the chain like every other event (`append_events`)."""
    await append_events(connection, entries)


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
        await self.append_audit(
            [AuditEvent(event, at, interaction_id=interaction_id, actor_id=actor_id, detail=detail)]
        )

    async def append_audit(self, entries: Sequence[AuditEvent]) -> None:
        """Chain `entries` in one transaction of their own (raises on failure)."""

        async def work(connection: AsyncConnection) -> None:
            await append_events(connection, entries)

        await self._transaction(work)

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
            await self.append_audit(entries)
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
                prev_hash=r["prev_hash"],
                hash=r["hash"],
            )
            for r in rows
        ]

    async def audit_pages(
        self, *, since: datetime | None = None, interaction_id: str | None = None
    ) -> AsyncIterator[list[AuditEntry]]:
        """Every entry (of the span, of one interaction), oldest first, a page at a time."""
        after = 0
        while page := await self.audit_entries(
            since=since, interaction_id=interaction_id, after_id=after
        ):
            yield page
            after = page[-1].id

    async def audit_head(self) -> tuple[int, str] | None:
        """The newest event's id and hash: what a copy kept elsewhere pins."""
        row = await self._first(
            select(audit.c.id, audit.c.hash).order_by(audit.c.id.desc()).limit(1)
        )
        return None if row is None else (int(row["id"]), str(row["hash"]))

    async def audit_anchor(self) -> Anchor:
        """Where the kept chain starts (LookupError when its record is gone)."""
        return await self._transaction(read_anchor)

    async def prune_audit(self, before: datetime) -> int:
        """Drop the oldest entries while older than `before` (the chain's start moves
        onto the last one dropped); how many went."""

        async def work(connection: AsyncConnection) -> int:
            return await prune_before(connection, before)

        return await self._transaction(work)
