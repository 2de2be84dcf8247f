"""The outbox: decisions taken in Slack, kept until Novo has acknowledged them.

A queued decision's `next_attempt_at` doubles as its lease: while it lies
ahead, the attempt under way (or a retry's backoff) keeps every other worker
off it; once it has passed, the decision is due and any one worker may claim
it with a conditional update.

These times are wall-clock times, shared with other replicas, so a clock
that steps back (an NTP correction, a VM restored) would leave every stored
plan far in the future: a retry due in two seconds would wait an hour. No
plan is ever made further ahead than PLAN_HORIZON (the longest backoff plus
the lease, with room), so a time beyond it can only come from a clock that
stepped back: such a decision is due now, and is re-planned from the clock
as it reads when claimed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, exists, func, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.dml import ReturningInsert

from bot.domain import Approval, SlackDecision
from bot.novo.models import ResolveInteractionBody
from bot.store.allowances import end_refused_grants
from bot.store.base import ID_CHUNK, StoreBase
from bot.store.records import dump_record, wire_record
from bot.store.rows import DecisionState, QueuedDecision, approvals_record, queued
from bot.store.schema import decisions, interactions

_queued = decisions.c.state == "queued"
_earlier = decisions.alias("earlier")
# Far beyond any backoff (60 s at most) plus a delivery lease (8 s) a decision is given.
PLAN_HORIZON = timedelta(minutes=10)


def _due(now: datetime) -> ColumnElement[bool]:
    """Its time has come, or lies further ahead than any plan: the clock stepped back."""
    at = decisions.c.next_attempt_at
    if now > datetime.max.replace(tzinfo=now.tzinfo) - PLAN_HORIZON:
        return at <= now  # "everything queued" (the outbox metric): nothing lies beyond
    return or_(at <= now, at > now + PLAN_HORIZON)


class DecisionQueries(StoreBase):
    def _queue(
        self,
        interaction_id: str,
        body: ResolveInteractionBody,
        decision: SlackDecision,
        lease_until: datetime,
        approvers: Sequence[Approval] = (),
    ) -> ReturningInsert[Any]:
        """The insert that queues one decision while the interaction still waits for one:
        tracked, pending, not gone, with no decision open and none delivered.

        The checks before it (who may decide) take a look-up in Slack, and another
        decision may be delivered meanwhile; so the insert checks again, in the same
        statement, under the interaction's lock (`_lock_interactions`).
        `approvers`: the approvals a quorum decision is sealed with."""
        self._falls_due("decisions", lease_until)  # should the attempt under way not finish
        values: dict[str, object] = {
            "interaction_id": interaction_id,
            "body": dump_record(wire_record(body)),
            "actor_id": decision.actor.user_id,
            "actor_name": decision.actor.display_name,
            "verb": decision.verb,
            "note": decision.note,
            "via": decision.via,
            "reply_channel": decision.reply.channel if decision.reply else None,
            "reply_ts": decision.reply.ts if decision.reply else None,
            "state": "queued",
            "attempts": 0,
            "next_attempt_at": lease_until,
            "approvers": dump_record(approvals_record(list(approvers))) if approvers else None,
            "created_at": decision.at,
            "updated_at": decision.at,
        }
        waiting = exists().where(
            interactions.c.id == interaction_id,
            interactions.c.status == "pending",
            interactions.c.gone.is_(False),
        )
        delivered = exists().where(
            _earlier.c.interaction_id == interaction_id, _earlier.c.state == "delivered"
        )
        row = select(*(literal(v, decisions.c[k].type) for k, v in values.items()))
        return (
            self._insert(decisions)
            .from_select(list(values), row.where(waiting, ~delivered))
            .on_conflict_do_nothing()
            .returning(*decisions.c)
        )

    async def _lock_interactions(self, connection: AsyncConnection, ids: Sequence[str]) -> None:
        """Lock the interactions' rows until the transaction ends (PostgreSQL; SQLite has
        one writer anyway), so queueing a decision and closing a delivered one, or two
        votes, take their turns. Sorted, so two transactions never wait on each other."""
        if self.engine_name != "postgresql":
            return
        ordered = sorted(set(ids))
        for start in range(0, len(ordered), ID_CHUNK):
            await connection.execute(
                select(interactions.c.id)
                .where(interactions.c.id.in_(ordered[start : start + ID_CHUNK]))
                .order_by(interactions.c.id)
                .with_for_update()
            )

    async def open_decision(self, interaction_id: str) -> QueuedDecision | None:
        row = await self._first(
            select(decisions).where(decisions.c.interaction_id == interaction_id, _queued)
        )
        return queued(row) if row is not None else None

    async def decision_given_in(self, channel: str, ts: str) -> QueuedDecision | None:
        """The decision a thread reply gave (its *Send*), whatever became of it since; None
        for a reply that gave none."""
        row = await self._first(
            select(decisions)
            .where(decisions.c.reply_channel == channel, decisions.c.reply_ts == ts)
            .order_by(decisions.c.id.desc())
            .limit(1)
        )
        return queued(row) if row is not None else None

    async def open_decisions(self, interaction_ids: Collection[str]) -> dict[str, QueuedDecision]:
        """`open_decision` of each of these interactions that has one, in one query per
        `ID_CHUNK` of them."""
        found: dict[str, QueuedDecision] = {}
        wanted = list(interaction_ids)
        for start in range(0, len(wanted), ID_CHUNK):
            chunk = wanted[start : start + ID_CHUNK]
            query = select(decisions).where(decisions.c.interaction_id.in_(chunk), _queued)
            for row in await self._all(query.order_by(decisions.c.id)):
                found.setdefault(row["interaction_id"], queued(row))
        return found

    async def due_decisions(self, now: datetime) -> list[QueuedDecision]:
        rows = await self._all(select(decisions).where(_queued, _due(now)).order_by(decisions.c.id))
        return [queued(r) for r in rows]

    async def claim_due(self, decision_id: int, now: datetime, lease_until: datetime) -> bool:
        """Take a due decision for one delivery attempt; False when another worker took it."""
        return (
            await self._write(
                update(decisions)
                .where(decisions.c.id == decision_id, _queued, _due(now))
                .values(next_attempt_at=lease_until)
            )
            == 1
        )

    async def claim_due_decisions(
        self, now: datetime, lease_until: datetime, limit: int = 100
    ) -> list[QueuedDecision]:
        """Find and take due decisions in one statement; each goes to exactly one worker.

        On PostgreSQL rows another replica is claiming are skipped, not waited on.
        """
        due = (
            select(decisions.c.id)
            .where(_queued, _due(now))
            .order_by(decisions.c.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        claim = (
            update(decisions)
            .where(decisions.c.id.in_(due.scalar_subquery()), _due(now))
            .values(next_attempt_at=lease_until)
            .returning(*decisions.c)
        )
        rows = await self._all(claim)
        return sorted((queued(r) for r in rows), key=lambda d: d.id)

    async def release_expired_leases(self, now: datetime) -> int:
        """Decisions whose lease has passed are due now; a live lease is never touched.

        Returns how many queued decisions are due, for the start-up log line.
        """
        self._falls_due("decisions", now)
        return await self._write(
            update(decisions).where(_queued, _due(now)).values(next_attempt_at=now)
        )

    async def release_leases(self, now: datetime) -> int:
        """At start-up: decisions an earlier process was delivering are due again now.

        On SQLite this process owns the file alone (the file lock proves the
        earlier one is gone), so every queued decision is due at once. On
        PostgreSQL other replicas may be delivering: only expired leases go.
        """
        if self.engine_name != "sqlite":
            return await self.release_expired_leases(now)
        self._falls_due("decisions", now)
        return await self._write(update(decisions).where(_queued).values(next_attempt_at=now))

    async def next_decision_due(self, now: datetime) -> datetime | None:
        """When the next queued decision falls due (`now` if one is already), or None
        when nothing is queued: how long the redelivery job may sleep."""
        row = await self._first(
            select(func.min(decisions.c.next_attempt_at).label("at")).where(_queued)
        )
        at = row["at"] if row is not None else None
        if at is None:
            return None
        return now if at > now + PLAN_HORIZON else at  # beyond any plan: the clock stepped back

    async def queued_count(self) -> int:
        row = await self._first(
            select(func.count().label("n")).select_from(decisions).where(_queued)
        )
        return int(row["n"]) if row is not None else 0

    async def set_response_view(self, decision_id: int, view_id: str) -> None:
        await self._write(
            update(decisions).where(decisions.c.id == decision_id).values(response_view_id=view_id)
        )

    async def finish_decision(
        self, decision_id: int, state: DecisionState, now: datetime, error: str | None = None
    ) -> bool:
        """Close a queued decision; False when someone else closed it first.

        Under its interaction's lock: a decision being queued meanwhile sees this one
        either still open or already delivered, never neither. Closed undelivered, the
        allowances it granted end with it (`refused`): they never took effect."""
        close = (
            update(decisions)
            .where(decisions.c.id == decision_id, _queued)
            .values(
                state=state, last_error=error, attempts=decisions.c.attempts + 1, updated_at=now
            )
        )
        owner = select(decisions.c.interaction_id).where(decisions.c.id == decision_id)

        async def work(connection: AsyncConnection) -> bool:
            interaction_id = (await connection.execute(owner)).scalar()
            if interaction_id is None:
                return False
            await self._lock_interactions(connection, [interaction_id])
            closed = int((await connection.execute(close)).rowcount) == 1
            if closed and state != "delivered":
                await end_refused_grants(connection, interaction_id, now)
            return closed

        return await self._transaction(work)

    async def retry_decision_later(
        self, decision_id: int, next_attempt_at: datetime, error: str, now: datetime
    ) -> None:
        self._falls_due("decisions", next_attempt_at)
        await self._write(
            update(decisions)
            .where(decisions.c.id == decision_id, _queued)
            .values(
                attempts=decisions.c.attempts + 1,
                next_attempt_at=next_attempt_at,
                last_error=error,
                updated_at=now,
            )
        )
