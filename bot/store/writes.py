"""The one write of a decision: whatever it writes, in one transaction, with its audit.

Every way of deciding ends here (`bot.services.deciding` builds the writes). A
decision queues its approval or answer in the outbox; with it may go an allowance
it grants, a vote it casts towards a quorum (the decision queued only by the vote
that meets it), or a standing approval's use (the interaction tracked, the use
recorded). The audit events of exactly what was written join the same
transaction: a decision is never kept without its trail, nor a trail without it,
whatever kills the process in between (bug class 5). Each write re-checks, in its
own statements and under the interactions' locks, that the interaction still
waits for a decision (`DecisionQueries._queue`, `VoteQueries._cast_all`,
`use_one`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import Allowance, SlackDecision
from bot.novo.models import ResolveInteractionBody
from bot.store.allowances import Grant, PlannedUse, insert_grant, use_one
from bot.store.audit import AuditEvent, write_events
from bot.store.rows import QueuedDecision, queued
from bot.store.votes import Ballot, VoteQueries, VoteRequest


@dataclass(frozen=True)
class Written:
    """What a write came to: the decision queued (None: the interaction no longer waits
    for one, or a vote did not meet the quorum), the ballot, the allowance granted."""

    queued: QueuedDecision | None = None
    ballot: Ballot | None = None
    allowance: Allowance | None = None


Trail = Callable[[Written], Sequence[AuditEvent]]
"""The audit events of one write, made from what it wrote."""


def _untrailed(written: Written) -> Sequence[AuditEvent]:
    return ()


@dataclass(frozen=True)
class DecisionWrite:
    """What one decision writes: its outbox row, at most one of a grant, a vote or a
    standing approval's use, and the audit events of what came of them."""

    interaction_id: str
    body: ResolveInteractionBody
    decision: SlackDecision
    grant: Grant | None = None
    vote: VoteRequest | None = None
    use: PlannedUse | None = None
    trail: Trail = _untrailed


class DecisionWrites(VoteQueries):
    async def write_decisions(
        self,
        writes: Sequence[DecisionWrite],
        now: datetime,
        lease_until: datetime,
        *,
        commit_by: float | None = None,
    ) -> list[Written]:
        """Write every decision and its trail in one transaction (Approve all's hundred
        are safe inside Slack's 3 s); `commit_by`: the ack's deadline, past which it is
        rolled back (`StoreBase._transaction`)."""

        async def work(connection: AsyncConnection) -> list[Written]:
            written = await self._write_all(connection, writes, now, lease_until)
            events = [e for w, done in zip(writes, written, strict=True) for e in w.trail(done)]
            await write_events(connection, events)
            return written

        return await self._transaction(work, commit_by=commit_by)

    async def enqueue_decision(
        self,
        interaction_id: str,
        body: ResolveInteractionBody,
        decision: SlackDecision,
        lease_until: datetime,
        *,
        commit_by: float | None = None,
        grant: Grant | None = None,
    ) -> QueuedDecision | None:
        """One decision written with no trail (tools and tests): None when the interaction
        no longer waits for one, or is not tracked at all."""
        write = DecisionWrite(interaction_id, body, decision, grant)
        (written,) = await self.write_decisions(
            [write], decision.at, lease_until, commit_by=commit_by
        )
        return written.queued

    async def enqueue_decisions(
        self,
        items: Sequence[tuple[str, ResolveInteractionBody, SlackDecision]],
        lease_until: datetime,
        *,
        commit_by: float | None = None,
    ) -> list[QueuedDecision | None]:
        """`enqueue_decision` of each, in one transaction."""
        writes = [DecisionWrite(*item) for item in items]
        if not writes:
            return []
        written = await self.write_decisions(
            writes, writes[0].decision.at, lease_until, commit_by=commit_by
        )
        return [w.queued for w in written]

    async def _write_all(
        self,
        connection: AsyncConnection,
        writes: Sequence[DecisionWrite],
        now: datetime,
        lease_until: datetime,
    ) -> list[Written]:
        await self._lock_interactions(connection, [w.interaction_id for w in writes])
        votes = [w.vote for w in writes if w.vote is not None]
        ballots = iter(await self._cast_all(connection, votes, now, lease_until))
        written: list[Written] = []
        for write in writes:
            if write.use is not None:
                written.append(Written(await use_one(connection, write.use, now)))
            elif write.vote is not None:
                ballot = next(ballots)
                written.append(Written(ballot.queued, ballot))
            else:
                written.append(await self._queue_one(connection, write, lease_until))
        return written

    async def _queue_one(
        self, connection: AsyncConnection, write: DecisionWrite, lease_until: datetime
    ) -> Written:
        statement = self._queue(write.interaction_id, write.body, write.decision, lease_until)
        row = (await connection.execute(statement)).mappings().first()
        if row is None:
            return Written()
        kept = queued(row)
        granted = await insert_grant(connection, write.grant) if write.grant is not None else None
        return Written(kept, allowance=granted)
