"""Approvals counted towards a rule's quorum, one per person per interaction.

Votes live here, not in a process, so they survive restarts and any replica
counts the same ones. The vote that meets the quorum does three things in one
transaction: it counts the standing votes (locked, so a withdrawal waits or is
seen), queues the decision with those approvals frozen on it, and seals them.
From then on a sealed vote can't be withdrawn, and delivery names exactly the
sealed approvers with their notes, whatever happens to the votes later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Select, and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import Approval, SlackDecision
from bot.novo.models import ResolveInteractionBody
from bot.store.outbox import DecisionQueries
from bot.store.rows import QueuedDecision, Vote, queued, vote
from bot.store.schema import interactions, votes

_ACTIVE = votes.c.withdrawn_at.is_(None)
_UNSEALED = votes.c.sealed_at.is_(None)

Withdrawal = Literal["withdrawn", "sealed", "none"]


@dataclass(frozen=True)
class Ballot:
    """One approval cast towards a quorum, and what it came to.

    `queued` is the decision this vote queued by meeting the quorum (its votes now
    sealed); `closed` says the quorum had been met before, or another decision
    (someone's Deny) is already on its way, so this vote changed nothing.
    """

    counted: bool
    standing: list[Vote]
    queued: QueuedDecision | None = None
    closed: bool = False


@dataclass(frozen=True)
class VoteRequest:
    """An approval to cast on one interaction and the decision to queue if it meets
    the quorum; `drop` names standing votes that no longer qualify, with why."""

    interaction_id: str
    approval: Approval
    quorum: int
    body: ResolveInteractionBody
    decision: SlackDecision
    drop: Mapping[str, str] = field(default_factory=dict)


class VoteQueries(DecisionQueries):
    async def cast_vote(
        self,
        request: VoteRequest,
        now: datetime,
        lease_until: datetime,
        *,
        commit_by: float | None = None,
    ) -> Ballot:
        """Cast one approval; see `Ballot` for what it came to."""
        ballots = await self.cast_votes([request], now, lease_until, commit_by=commit_by)
        return ballots[0]

    async def cast_votes(
        self,
        requests: Sequence[VoteRequest],
        now: datetime,
        lease_until: datetime,
        *,
        commit_by: float | None = None,
    ) -> list[Ballot]:
        """Cast approvals on many interactions in one transaction (Approve all)."""

        async def work(connection: AsyncConnection) -> list[Ballot]:
            return [await self._cast(connection, r, now, lease_until) for r in requests]

        return await self._transaction(work, commit_by=commit_by)

    async def _cast(
        self,
        connection: AsyncConnection,
        request: VoteRequest,
        now: datetime,
        lease_until: datetime,
    ) -> Ballot:
        interaction_id = request.interaction_id
        # One vote at a time per interaction (on PostgreSQL; SQLite has one writer): two
        # votes locking each other's rows in turn would deadlock.
        await connection.execute(
            select(interactions.c.id).where(interactions.c.id == interaction_id).with_for_update()
        )
        for user_id, why in request.drop.items():
            await connection.execute(
                update(votes)
                .where(_one(interaction_id, user_id), _ACTIVE, _UNSEALED)
                .values(withdrawn_at=now, dropped_why=why)
            )
        actor = request.approval.actor
        insert = self._insert(votes).values(
            interaction_id=interaction_id,
            user_id=actor.user_id,
            user_name=actor.display_name,
            voted_at=now,
            withdrawn_at=None,
            note=request.approval.note,
            sealed_at=None,
            dropped_why=None,
        )
        cast = insert.on_conflict_do_update(
            index_elements=[votes.c.interaction_id, votes.c.user_id],
            set_={
                "user_name": actor.display_name,
                "voted_at": now,
                "withdrawn_at": None,
                "note": request.approval.note,
                "dropped_why": None,
            },
            where=votes.c.withdrawn_at.is_not(None),
        ).returning(votes.c.user_id)
        counted = (await connection.execute(cast)).first() is not None
        # Locked: a withdrawal under way is waited for and seen, one after is refused.
        rows = (
            (await connection.execute(_standing(interaction_id).with_for_update())).mappings().all()
        )
        standing = [vote(r) for r in rows]
        if any(v.sealed for v in standing):
            return Ballot(counted, standing, closed=True)
        if len(standing) < request.quorum:
            return Ballot(counted, standing)
        approvers = [v.approval for v in standing]
        insert_decision = self._queue(
            interaction_id, request.body, request.decision, lease_until, approvers
        )
        row = (await connection.execute(insert_decision)).mappings().first()
        if row is None:  # another decision (a Deny) is already on its way
            return Ballot(counted, standing, closed=True)
        await connection.execute(
            update(votes)
            .where(votes.c.interaction_id == interaction_id, _ACTIVE, _UNSEALED)
            .values(sealed_at=now)
        )
        return Ballot(counted, standing, queued=queued(row))

    async def withdraw_vote(self, interaction_id: str, user_id: str, now: datetime) -> Withdrawal:
        """Take back a standing vote; `sealed` when it was already sent in a decision."""

        async def work(connection: AsyncConnection) -> Withdrawal:
            changed = await connection.execute(
                update(votes)
                .where(_one(interaction_id, user_id), _ACTIVE, _UNSEALED)
                .values(withdrawn_at=now)
            )
            if changed.rowcount == 1:
                return "withdrawn"
            row = (
                (await connection.execute(select(votes).where(_one(interaction_id, user_id))))
                .mappings()
                .first()
            )
            return "sealed" if row is not None and row["sealed_at"] is not None else "none"

        return await self._transaction(work)

    async def votes(self, interaction_id: str) -> list[Vote]:
        """The standing votes, oldest first."""
        return [vote(r) for r in await self._all(_standing(interaction_id))]

    async def votes_of(self, interaction_ids: Sequence[str]) -> dict[str, list[Vote]]:
        """The standing votes of many interactions at once (Approve all), oldest first."""
        found: dict[str, list[Vote]] = {i: [] for i in interaction_ids}
        if not interaction_ids:
            return found
        rows = await self._all(
            select(votes)
            .where(votes.c.interaction_id.in_(list(interaction_ids)), _ACTIVE)
            .order_by(votes.c.voted_at, votes.c.user_id)
        )
        for row in rows:
            found[row["interaction_id"]].append(vote(row))
        return found

    async def dropped_votes(self, interaction_id: str) -> list[Vote]:
        """Votes dropped because their givers no longer qualify (and not cast again)."""
        rows = await self._all(
            select(votes)
            .where(
                votes.c.interaction_id == interaction_id,
                votes.c.dropped_why.is_not(None),
                votes.c.withdrawn_at.is_not(None),
            )
            .order_by(votes.c.voted_at, votes.c.user_id)
        )
        return [vote(r) for r in rows]


def _one(interaction_id: str, user_id: str) -> Any:
    return and_(votes.c.interaction_id == interaction_id, votes.c.user_id == user_id)


def _standing(interaction_id: str) -> Select[Any]:
    return (
        select(votes)
        .where(votes.c.interaction_id == interaction_id, _ACTIVE)
        .order_by(votes.c.voted_at, votes.c.user_id)
    )
