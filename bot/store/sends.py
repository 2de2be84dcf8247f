"""What a lane's send needs from the store and what it records, for many sends at once.

A new message is tracked `queued` when a poll first sees it; its lane claims it
(`queued` → `posting`) just before sending and records its ts after. Many lanes
send at once, so `record_sends` writes every lane's claims and recorded ts that
are ready in one transaction: one commit per batch, not two per message.

Each claim is still one conditional statement whose row count says whether it
happened (`WHERE state = 'queued'`), so two lanes, or two replicas, never both
send one message. A claim stores `after_ts`, the newest ts of ours in that
channel already recorded: if the message was sent, Slack gave it a later ts,
which is where a look through the channel's history after a crash starts.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import RowMapping, Select, and_, case, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import Allowance
from bot.store.allowances import allowance_of
from bot.store.base import StoreBase
from bot.store.chain import AuditEvent, append_events
from bot.store.interactions import ID_CHUNK
from bot.store.rows import QueuedDecision, TakenStep, TrackedMessage, message, queued, taken_step
from bot.store.schema import (
    MessageKind,
    MessageState,
    allowances,
    decisions,
    messages,
    steps,
)


@dataclass(frozen=True)
class MessageKey:
    """One message about an interaction, as the store names it."""

    interaction_id: str
    purpose: MessageKind
    channel: str


@dataclass(frozen=True)
class SentMessage:
    """A claimed message Slack accepted: its ts to record, and the `posted` audit entry."""

    key: MessageKey
    ts: str
    rendered_hash: str
    slack_channel: str
    audit_detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MessageFacts:
    """What a message shows besides its record: open decisions, messages, steps taken,
    the standing approvals granted on it."""

    decisions: dict[str, QueuedDecision]
    messages: dict[str, list[TrackedMessage]]
    steps: dict[str, list[TakenStep]]
    allowances: dict[str, list[Allowance]]


_newer = messages.alias("newer")
# the newest ts of ours recorded in the claimed message's channel (NULL if none yet)
_NEWEST_IN_CHANNEL = (
    select(func.max(_newer.c.ts))
    .where(_newer.c.channel == messages.c.channel, _newer.c.state == MessageState.POSTED)
    .scalar_subquery()
)


def _named(key: MessageKey) -> Any:
    return and_(
        messages.c.interaction_id == key.interaction_id,
        messages.c.purpose == key.purpose,
        messages.c.channel == key.channel,
    )


class SendQueries(StoreBase):
    async def record_sends(
        self, claims: Sequence[MessageKey], sent: Sequence[SentMessage], now: datetime
    ) -> tuple[set[MessageKey], set[MessageKey]]:
        """Claim `claims` (each `queued` → `posting`) and record the ts of each of `sent`
        (`posting` → `posted`, with its audit entry), all in one transaction.

        Returns the keys claimed now and the keys recorded now; one missing was
        claimed or recorded before (by another lane or replica, or a look after a
        crash), and its sender must leave it alone.
        """

        async def work(connection: AsyncConnection) -> tuple[set[MessageKey], set[MessageKey]]:
            # recorded first, so a claim's `after_ts` counts the posts of this batch
            recorded = {s.key for s in sent if await _record(connection, s, now)}
            claimed = {key for key in claims if await _claim(connection, key, now)}
            entries = [
                AuditEvent(
                    "posted",
                    now,
                    interaction_id=s.key.interaction_id,
                    detail={"channel": s.slack_channel, "ts": s.ts, **s.audit_detail},
                )
                for s in sent
                if s.key in recorded
            ]
            await append_events(connection, entries)  # last: it holds the chain to the commit
            return claimed, recorded

        return await self._transaction(work)

    async def unclaim(self, key: MessageKey, now: datetime) -> bool:
        """Slack answered a post with a refusal, so nothing was posted: the message waits
        `queued` again, and is posted without a look through history next time."""
        return (
            await self._write(
                update(messages)
                .where(_named(key), messages.c.state == MessageState.POSTING)
                .values(state=MessageState.QUEUED, after_ts=None, updated_at=now)
            )
            == 1
        )

    async def message_facts(self, interaction_ids: Collection[str]) -> MessageFacts:
        """Open decisions, messages, steps taken and allowances granted of these
        interactions, in one transaction (every post renders from them)."""
        wanted = list(dict.fromkeys(interaction_ids))

        async def work(connection: AsyncConnection) -> MessageFacts:
            async def rows(query: Select[Any]) -> Sequence[RowMapping]:
                found: Sequence[RowMapping] = (await connection.execute(query)).mappings().all()
                return found

            facts = MessageFacts(
                {}, {i: [] for i in wanted}, {i: [] for i in wanted}, {i: [] for i in wanted}
            )
            for start in range(0, len(wanted), ID_CHUNK):
                chunk = wanted[start : start + ID_CHUNK]
                for row in await rows(
                    select(decisions)
                    .where(decisions.c.interaction_id.in_(chunk), decisions.c.state == "queued")
                    .order_by(decisions.c.id)
                ):
                    facts.decisions.setdefault(row["interaction_id"], queued(row))
                for row in await rows(
                    select(messages)
                    .where(messages.c.interaction_id.in_(chunk))
                    .order_by(messages.c.claimed_at, messages.c.purpose, messages.c.channel)
                ):
                    facts.messages[row["interaction_id"]].append(message(row))
                for row in await rows(
                    select(steps)
                    .where(steps.c.interaction_id.in_(chunk))
                    .order_by(steps.c.taken_at, steps.c.step)
                ):
                    facts.steps[row["interaction_id"]].append(taken_step(row))
                for row in await rows(
                    select(allowances)
                    .where(allowances.c.interaction_id.in_(chunk))
                    .order_by(allowances.c.id)
                ):
                    facts.allowances[row["interaction_id"]].append(allowance_of(row))
            return facts

        return await self._transaction(work)


async def _claim(connection: AsyncConnection, key: MessageKey, now: datetime) -> bool:
    claimed = await connection.execute(
        update(messages)
        .where(_named(key), messages.c.state == MessageState.QUEUED)
        .values(
            state=MessageState.POSTING, claimed_at=now, after_ts=_NEWEST_IN_CHANNEL, updated_at=now
        )
    )
    return bool(claimed.rowcount)


async def _record(connection: AsyncConnection, sent: SentMessage, now: datetime) -> bool:
    key = sent.key
    recorded = await connection.execute(
        update(messages)
        .where(_named(key), messages.c.state == MessageState.POSTING)
        .values(
            state=MessageState.POSTED,
            ts=sent.ts,
            # kept only when it differs, as for every other message
            slack_channel=case(
                (messages.c.channel == sent.slack_channel, None), else_=sent.slack_channel
            ),
            rendered_hash=sent.rendered_hash,
            # a primary is in step once the poll says so; a copy shows what was rendered
            synced=messages.c.synced if key.purpose == MessageKind.PRIMARY else True,
            version=messages.c.version + 1,
            updated_at=now,
        )
    )
    return bool(recorded.rowcount)
