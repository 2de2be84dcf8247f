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
from typing import Any, Literal, TypeVar

from sqlalchemy import Select, and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import Approval, SlackDecision
from bot.novo.models import ResolveInteractionBody
from bot.store.outbox import DecisionQueries
from bot.store.rows import QueuedDecision, Vote, queued, vote
from bot.store.schema import votes

T = TypeVar("T")

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
        """Cast approvals on many interactions (one each) in one transaction, a few
        statements for all of them: Approve all of 200 must be safe well inside 3 s."""

        async def work(connection: AsyncConnection) -> list[Ballot]:
            return await self._cast_all(connection, requests, now, lease_until)

        return await self._transaction(work, commit_by=commit_by)

    async def _cast_all(
        self,
        connection: AsyncConnection,
        requests: Sequence[VoteRequest],
        now: datetime,
        lease_until: datetime,
    ) -> list[Ballot]:
        ids = sorted({r.interaction_id for r in requests})
        if not ids:
            return []
        # one vote at a time per interaction: two votes locking each other's rows in turn
        # would deadlock
        await self._lock_interactions(connection, ids)
        for request in requests:
            for user_id, why in request.drop.items():
                await connection.execute(
                    update(votes)
                    .where(_one(request.interaction_id, user_id), _ACTIVE, _UNSEALED)
                    .values(withdrawn_at=now, dropped_why=why)
                )
        counted: set[tuple[str, str]] = set()
        for part in _chunks(list(requests)):
            rows = (await connection.execute(_upsert(self._insert(votes), part, now))).all()
            counted.update((str(r[0]), str(r[1])) for r in rows)
        standing: dict[str, list[Vote]] = {i: [] for i in ids}
        for chunk in _chunks(ids):
            query = (
                select(votes)
                .where(votes.c.interaction_id.in_(chunk), _ACTIVE)
                .order_by(votes.c.voted_at, votes.c.user_id)
            )
            # Locked: a withdrawal under way is waited for and seen, one after is refused.
            for row in (await connection.execute(query.with_for_update())).mappings():
                standing[row["interaction_id"]].append(vote(row))
        ballots: list[Ballot] = []
        met: list[str] = []
        for request in requests:
            mine = standing[request.interaction_id]
            was_counted = (request.interaction_id, request.approval.actor.user_id) in counted
            if any(v.sealed for v in mine):
                ballots.append(Ballot(was_counted, mine, closed=True))
                continue
            if len(mine) < request.quorum:
                ballots.append(Ballot(was_counted, mine))
                continue
            insert_decision = self._queue(
                request.interaction_id,
                request.body,
                request.decision,
                lease_until,
                [v.approval for v in mine],
            )
            row = (await connection.execute(insert_decision)).mappings().first()
            if row is None:  # another decision (a Deny) is already on its way
                ballots.append(Ballot(was_counted, mine, closed=True))
                continue
            met.append(request.interaction_id)
            ballots.append(Ballot(was_counted, mine, queued=queued(row)))
        for chunk in _chunks(met):
            await connection.execute(
                update(votes)
                .where(votes.c.interaction_id.in_(chunk), _ACTIVE, _UNSEALED)
                .values(sealed_at=now)
            )
        return ballots

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


CHUNK = 400
"""Rows or ids per statement: well inside every engine's parameter limit."""


def _chunks(items: Sequence[T]) -> list[Sequence[T]]:
    return [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]


def _upsert(insert: Any, requests: Sequence[VoteRequest], now: datetime) -> Any:
    """Cast each request's vote: new, or again after a withdrawal; a standing vote stays."""
    statement = insert.values(
        [
            {
                "interaction_id": r.interaction_id,
                "user_id": r.approval.actor.user_id,
                "user_name": r.approval.actor.display_name,
                "voted_at": now,
                "withdrawn_at": None,
                "note": r.approval.note,
                "sealed_at": None,
                "dropped_why": None,
            }
            for r in requests
        ]
    )
    return statement.on_conflict_do_update(
        index_elements=[votes.c.interaction_id, votes.c.user_id],
        set_={
            "user_name": statement.excluded.user_name,
            "voted_at": statement.excluded.voted_at,
            "withdrawn_at": None,
            "note": statement.excluded.note,
            "dropped_why": None,
        },
        where=votes.c.withdrawn_at.is_not(None),
    ).returning(votes.c.interaction_id, votes.c.user_id)


def _one(interaction_id: str, user_id: str) -> Any:
    return and_(votes.c.interaction_id == interaction_id, votes.c.user_id == user_id)


def _standing(interaction_id: str) -> Select[Any]:
    return (
        select(votes)
        .where(votes.c.interaction_id == interaction_id, _ACTIVE)
        .order_by(votes.c.voted_at, votes.c.user_id)
    )
