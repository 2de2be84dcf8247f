"""Standing approvals ("allowances") and each use of one: the store decides what happens once.

An allowance is written in the transaction that queues the approval it is granted
with (`Store.write_decisions`), and takes effect only once that approval
is delivered: an approval Novo refuses ends it as `refused` (`end_refused_grants`,
in the transaction that closes the decision).

An allowance's use is one transaction that first locks the allowance's row and
checks it is in force at this moment (not ended, not past its time nor the rule's
current `max`, its granting approval delivered), then tracks the interaction (as a
claim to post would, but with no message: it is never posted), records the use
keyed by the interaction id, queues the approval in the outbox and writes the use's
audit event. A revoke updates the same row, so a revoke and a use take turns (a row
lock on PostgreSQL, the single writer on SQLite): no use is queued once a revoke
has committed. Whichever replica polls, and however often a poll is retried after a
crash, the interaction is tracked once, so it is used once and approved once; a
replica that lost the race sees nothing inserted and leaves the interaction alone.

Ending one (a revoke, its expiry, a policy that no longer allows it) is a
conditional update on a row not yet ended, so two replicas sweeping at once
audit it once. Thread reports are claimed the same way before they are sent.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import RowMapping, and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import (
    Allowance,
    AllowanceEnd,
    AllowanceScope,
    AllowanceUse,
    SlackActor,
    SlackDecision,
)
from bot.novo.models import Interaction, ResolveInteractionBody
from bot.store.audit import AuditEvent, write_events
from bot.store.base import StoreBase
from bot.store.interactions import track_new
from bot.store.records import dump_record, wire_record
from bot.store.rows import QueuedDecision, allowance_of, queued
from bot.store.schema import allowance_uses, allowances, decisions

_open = allowances.c.ended.is_(None)


@dataclass(frozen=True)
class Grant:
    """What a decider allows when they approve with an allowance."""

    rule: str
    scope: AllowanceScope
    agent_id: str
    tool_name: str
    root_run_id: str | None
    granted_by: SlackActor
    granted_at: datetime
    until: datetime
    interaction_id: str


@dataclass(frozen=True)
class PlannedUse:
    """An allowance about to approve a new pending interaction, with the decision to queue."""

    interaction: Interaction
    allowance: Allowance
    body: ResolveInteractionBody
    decision: SlackDecision
    lease_until: datetime
    max_seconds: float
    """The rule's `max` as the policy in force has it now: a lowered `max` shortens
    allowances granted under the old one."""
    events: Sequence[AuditEvent] = ()
    """The use's audit trail, written in the use's own transaction."""


def _use_of(row: RowMapping) -> AllowanceUse:
    return AllowanceUse(
        interaction_id=row["interaction_id"],
        allowance_id=int(row["allowance_id"]),
        run_id=row["run_id"],
        step_number=int(row["step_number"]),
        tool_name=row["tool_name"],
        used_at=row["used_at"],
    )


async def insert_grant(connection: AsyncConnection, grant: Grant) -> Allowance:
    """Write an allowance (in the transaction that queues its granting approval)."""
    row = (
        (
            await connection.execute(
                allowances.insert()
                .values(
                    rule=grant.rule,
                    scope=grant.scope,
                    agent_id=grant.agent_id,
                    tool_name=grant.tool_name,
                    root_run_id=grant.root_run_id,
                    granted_by_id=grant.granted_by.user_id,
                    granted_by_name=grant.granted_by.display_name,
                    granted_at=grant.granted_at,
                    until=grant.until,
                    interaction_id=grant.interaction_id,
                )
                .returning(*allowances.c)
            )
        )
        .mappings()
        .one()
    )
    return allowance_of(row)


async def end_refused_grants(
    connection: AsyncConnection, interaction_id: str, now: datetime
) -> list[Allowance]:
    """End the allowances granted with the approval of `interaction_id`, which Novo did
    not take (the decision is being closed undelivered): they never took effect."""
    rows = (
        (
            await connection.execute(
                update(allowances)
                .where(allowances.c.interaction_id == interaction_id, _open)
                .values(ended="refused", ended_at=now)
                .returning(*allowances.c)
            )
        )
        .mappings()
        .all()
    )
    return [allowance_of(r) for r in rows]


def in_force_at(allowance: Allowance, now: datetime, max_seconds: float) -> bool:
    """Not ended, before its time, and within the rule's `max` as it is now."""
    cap = allowance.granted_at + timedelta(seconds=max_seconds)
    return allowance.in_force(now) and now < cap


class AllowanceQueries(StoreBase):
    async def grant_allowance(self, grant: Grant) -> Allowance:
        return await self._transaction(partial(insert_grant, grant=grant))

    async def allowances_granted_on(self, interaction_id: str) -> list[Allowance]:
        rows = await self._all(
            select(allowances)
            .where(allowances.c.interaction_id == interaction_id)
            .order_by(allowances.c.id)
        )
        return [allowance_of(r) for r in rows]

    async def allowance(self, allowance_id: int) -> Allowance | None:
        row = await self._first(select(allowances).where(allowances.c.id == allowance_id))
        return allowance_of(row) if row is not None else None

    async def open_allowances(self) -> list[Allowance]:
        """Every allowance not yet ended (its expiry may have passed: the sweep ends it)."""
        rows = await self._all(select(allowances).where(_open).order_by(allowances.c.id))
        return [allowance_of(r) for r in rows]

    async def end_allowances(
        self,
        allowance_ids: Collection[int],
        ended: AllowanceEnd,
        now: datetime,
        *,
        by: str | None = None,
    ) -> list[Allowance]:
        """End those not yet ended; the ones this call ended (another may have been first)."""
        if not allowance_ids:
            return []
        rows = await self._all(
            update(allowances)
            .where(allowances.c.id.in_(list(allowance_ids)), _open)
            .values(ended=ended, ended_by_id=by, ended_at=now)
            .returning(*allowances.c)
        )
        return sorted((allowance_of(r) for r in rows), key=lambda a: a.id)

    async def use_allowance(self, plan: PlannedUse, now: datetime) -> bool:
        """Check the allowance is in force now, then track the interaction, record the use,
        queue its approval and audit it, in one transaction; False when it was not used
        (the allowance ended, or the interaction is tracked already, by a poll or another
        replica). (The bridge uses allowances through `Store.write_decisions`.)"""

        async def work(connection: AsyncConnection) -> bool:
            used = await use_one(connection, plan, now)
            if used is not None:
                await write_events(connection, plan.events)
            return used is not None

        return await self._transaction(work)

    async def use_allowances(self, planned: Sequence[PlannedUse], now: datetime) -> list[str]:
        """`use_allowance` of each, in order; the ids used now."""
        return [p.interaction.id for p in planned if await self.use_allowance(p, now)]

    async def claim_unreported_uses(self, now: datetime) -> list[AllowanceUse]:
        """Uses Novo has taken the approval of (delivered) whose thread report has not gone
        out, each claimed by this call alone. A use whose approval waits in the outbox is
        reported by the poll after its delivery, so a report never says "approved" early.
        (A look first: most polls find none, and a poll should not write for nothing.)"""
        due = and_(
            allowance_uses.c.reported_at.is_(None),
            allowance_uses.c.interaction_id.in_(
                select(decisions.c.interaction_id).where(decisions.c.state == "delivered")
            ),
        )
        if await self._first(select(allowance_uses.c.interaction_id).where(due).limit(1)) is None:
            return []
        rows = await self._all(
            update(allowance_uses).where(due).values(reported_at=now).returning(*allowance_uses.c)
        )
        return sorted((_use_of(r) for r in rows), key=lambda u: (u.used_at, u.interaction_id))

    async def allowance_uses_of(self, allowance_id: int) -> list[AllowanceUse]:
        rows = await self._all(
            select(allowance_uses)
            .where(allowance_uses.c.allowance_id == allowance_id)
            .order_by(allowance_uses.c.used_at)
        )
        return [_use_of(r) for r in rows]


async def _lock_allowance(connection: AsyncConnection, allowance_id: int) -> Allowance | None:
    """The allowance as committed now, its row locked until the transaction ends (a revoke
    waits for a use under way, and a use after a revoke sees it ended)."""
    query = select(allowances).where(allowances.c.id == allowance_id)
    if connection.dialect.name == "postgresql":
        query = query.with_for_update()
    row = (await connection.execute(query)).mappings().first()
    return allowance_of(row) if row is not None else None


async def _took_effect(connection: AsyncConnection, allowance: Allowance) -> bool:
    """Its granting approval was delivered: only then does an allowance take effect."""
    delivered = (
        select(decisions.c.id)
        .where(
            decisions.c.interaction_id == allowance.interaction_id,
            decisions.c.state == "delivered",
        )
        .limit(1)
    )
    return (await connection.execute(delivered)).first() is not None


async def use_one(
    connection: AsyncConnection, plan: PlannedUse, now: datetime
) -> QueuedDecision | None:
    """Inside the caller's transaction: the use's checks and rows, and the approval it
    queued; None when the allowance may not be used on it now (see the module)."""
    interaction = plan.interaction
    allowance = await _lock_allowance(connection, plan.allowance.id)
    if allowance is None or not in_force_at(allowance, now, plan.max_seconds):
        return None
    if not await _took_effect(connection, allowance):
        return None
    if not await track_new(connection, interaction, now):
        return None
    await connection.execute(
        allowance_uses.insert().values(
            interaction_id=interaction.id,
            allowance_id=plan.allowance.id,
            run_id=interaction.run_id,
            step_number=interaction.step_number,
            tool_name=interaction.tool_name or "",
            used_at=now,
        )
    )
    decision = plan.decision
    inserted = await connection.execute(
        decisions.insert()
        .values(
            interaction_id=interaction.id,
            body=dump_record(wire_record(plan.body)),
            actor_id=decision.actor.user_id,
            actor_name=decision.actor.display_name,
            verb=decision.verb,
            note=decision.note,
            state="queued",
            attempts=0,
            next_attempt_at=plan.lease_until,
            standing_until=min(
                allowance.until, allowance.granted_at + timedelta(seconds=plan.max_seconds)
            ),
            created_at=decision.at,
            updated_at=decision.at,
        )
        .returning(*decisions.c)
    )
    return queued(inserted.mappings().one())
