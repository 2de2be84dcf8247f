"""Snoozes ("Remind me"): each a DM due at a time, claimed by one worker, sent at most once.

A waiting snooze's `due_at` doubles as its lease, as a queued decision's
`next_attempt_at` does in the outbox: claiming pushes it past the lease, so
while the DM waits in a send lane no other worker (or replica) takes it, and
if the claimer dies before sending it falls due again. Sending itself is one
more conditional update (`waiting` → `sent`) made just before the DM goes:
two workers that both hold it after a lapsed lease can't both send it.

One person has at most one waiting snooze per interaction: a new choice
replaces the earlier one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import StoreBase
from bot.store.rows import Snooze, snooze
from bot.store.schema import interactions, snoozes

_waiting = snoozes.c.state == "waiting"


class SnoozeQueries(StoreBase):
    async def add_snooze(
        self, interaction_id: str, user_id: str, due_at: datetime, now: datetime
    ) -> tuple[Snooze, Snooze | None] | None:
        """Keep a snooze: (it, this person's one it replaced); None for an untracked interaction.

        The interaction's row is locked for the transaction (PostgreSQL; SQLite
        writes one at a time anyway), so two quick choices by one person leave
        one waiting snooze, not two.
        """

        async def add(connection: AsyncConnection) -> tuple[Snooze, Snooze | None] | None:
            tracked = await connection.execute(
                select(interactions.c.id)
                .where(interactions.c.id == interaction_id)
                .with_for_update()
            )
            if tracked.first() is None:
                return None
            replaced = (
                (
                    await connection.execute(
                        update(snoozes)
                        .where(
                            snoozes.c.interaction_id == interaction_id,
                            snoozes.c.user_id == user_id,
                            _waiting,
                        )
                        .values(state="dropped", done_at=now)
                        .returning(*snoozes.c)
                    )
                )
                .mappings()
                .all()
            )
            added = (
                (
                    await connection.execute(
                        snoozes.insert()
                        .values(
                            interaction_id=interaction_id,
                            user_id=user_id,
                            due_at=due_at,
                            state="waiting",
                            created_at=now,
                        )
                        .returning(*snoozes.c)
                    )
                )
                .mappings()
                .one()
            )
            earlier = min((snooze(r) for r in replaced), key=lambda s: s.due_at, default=None)
            return snooze(added), earlier

        added = await self._transaction(add)
        if added is not None:
            self._falls_due("snoozes", due_at)
        return added

    async def next_snooze_due(self) -> datetime | None:
        """When the soonest waiting snooze falls due (a claimed one: when its claim lapses)."""
        row = await self._first(select(func.min(snoozes.c.due_at).label("due")).where(_waiting))
        return row["due"] if row is not None else None

    async def claim_due_snoozes(
        self, now: datetime, lease_until: datetime, limit: int = 100
    ) -> list[Snooze]:
        """Find and take the waiting snoozes due by `now` in one statement; each goes to
        exactly one worker. On PostgreSQL rows another replica is claiming are skipped."""
        due = (
            select(snoozes.c.id)
            .where(_waiting, snoozes.c.due_at <= now)
            .order_by(snoozes.c.due_at, snoozes.c.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        claim = (
            update(snoozes)
            .where(snoozes.c.id.in_(due.scalar_subquery()), _waiting, snoozes.c.due_at <= now)
            .values(due_at=lease_until)
            .returning(*snoozes.c)
        )
        rows = await self._all(claim)
        return sorted((snooze(r) for r in rows), key=lambda s: s.id)

    async def take_snooze(self, snooze_id: int, now: datetime) -> bool:
        """Mark it sent just before its DM goes; False when it is no longer waiting."""
        return (
            await self._write(
                update(snoozes)
                .where(snoozes.c.id == snooze_id, _waiting)
                .values(state="sent", done_at=now)
            )
            == 1
        )

    async def drop_snooze(self, snooze_id: int, now: datetime) -> bool:
        """Drop it (its interaction ended, or Slack refused the DM); False if already dropped."""
        return (
            await self._write(
                update(snoozes)
                .where(snoozes.c.id == snooze_id, snoozes.c.state != "dropped")
                .values(state="dropped", done_at=now)
            )
            == 1
        )

    async def drop_snoozes_for(self, interaction_id: str, now: datetime) -> int:
        """Drop every waiting snooze on an interaction that ended; returns how many."""
        return await self._write(
            update(snoozes)
            .where(snoozes.c.interaction_id == interaction_id, _waiting)
            .values(state="dropped", done_at=now)
        )

    async def snoozes_for(self, interaction_id: str) -> list[Snooze]:
        """Every snooze on an interaction, whatever its state, oldest first."""
        rows = await self._all(
            select(snoozes)
            .where(snoozes.c.interaction_id == interaction_id)
            .order_by(snoozes.c.created_at, snoozes.c.id)
        )
        return [snooze(r) for r in rows]
