"""Every Slack message the bridge posts, named by (subject, kind, channel): the one set of
verbs that carry each kind (`MessageKind`) through one lifecycle.

- track: `track_message` (an interaction's primary and copies are tracked with the
  interaction itself, `claim_many_for_posting`; a step group's with the group,
  `claim_group`), `queued`: nothing sent;
- claim and record posted: `record_sends`, many lanes' claims (`queued` →
  `posting`, just before the send), recorded ts (`posting` → `posted`) and the facts
  their renders read, in one transaction; `record_posted` records one (a message
  found in Slack after a crash);
- unclaim: `unclaim`, Slack refused the send, so nothing was posted;
- drop: `drop_claim`, Slack will never take it (that person cannot be DMed);
- record what was shown: `record_shown`;
- in doubt: `unposted_messages`, what was tracked and not recorded posted.

Each change is one conditional statement whose row count says whether it happened
(`WHERE state = 'queued'`), so two lanes, or two replicas, never both send one message.
A claim stores `after_ts`, the newest ts of ours in that channel already recorded: if
the message was sent, Slack gave it a later ts, which is where a look through the
channel's history after a crash starts. `version` rises with each change of what a
message shows, for writers that compare-and-set.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Update,
    and_,
    bindparam,
    case,
    delete,
    func,
    select,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import ID_CHUNK, StoreBase
from bot.store.chain import AuditEvent, append_events
from bot.store.facts import MessageFacts, read_facts
from bot.store.rows import TrackedMessage, message
from bot.store.schema import (
    UNPOSTED,
    MessageKind,
    MessageState,
    interactions,
    messages,
    step_groups,
)


@dataclass(frozen=True)
class MessageKey:
    """One message, as the store names it: its subject (an interaction's id, or a step
    group's for its group message), its kind and its destination."""

    interaction_id: str
    purpose: MessageKind
    channel: str


POSTED_EVENT = "posted"
"""The audit event a message's post writes unless its kind names another."""


@dataclass(frozen=True)
class SentMessage:
    """A message Slack holds: its ts to record, and the detail of the audit entry written
    with it (None: none is written, as for a card found after a crash); `audit_event`
    names that entry (`posted`; an escalation's says `escalated`)."""

    key: MessageKey
    ts: str
    rendered_hash: str
    slack_channel: str
    audit_detail: dict[str, Any] | None = field(default_factory=dict)
    audit_event: str = POSTED_EVENT


@dataclass(frozen=True)
class SendRound:
    """What one round of sends did: the keys claimed and recorded now, and the facts read
    (None when none were asked for)."""

    claimed: set[MessageKey]
    recorded: set[MessageKey]
    facts: MessageFacts | None = None


_ORDER = (messages.c.claimed_at, messages.c.purpose, messages.c.channel)
_newer = messages.alias("newer")
# the newest ts of ours recorded in the claimed message's channel (NULL if none yet)
_NEWEST_IN_CHANNEL = (
    select(func.max(_newer.c.ts))
    .where(_newer.c.channel == messages.c.channel, _newer.c.state == MessageState.POSTED)
    .scalar_subquery()
)


def _named(key: MessageKey) -> ColumnElement[bool]:
    return and_(
        messages.c.interaction_id == key.interaction_id,
        messages.c.purpose == key.purpose,
        messages.c.channel == key.channel,
    )


def new_message(key: MessageKey, now: datetime) -> dict[str, Any]:
    """The row of a message tracked now: `queued`, claimed by its lane just before it is sent."""
    return {
        "interaction_id": key.interaction_id,
        "purpose": key.purpose,
        "channel": key.channel,
        "state": MessageState.QUEUED,
        "synced": False,
        "version": 0,
        "claimed_at": now,
        "updated_at": now,
    }


class MessageQueries(StoreBase):
    async def messages(self, interaction_id: str) -> list[TrackedMessage]:
        """Every message about one interaction, oldest claim first."""
        rows = await self._all(
            select(messages).where(messages.c.interaction_id == interaction_id).order_by(*_ORDER)
        )
        return [message(r) for r in rows]

    async def messages_of(
        self, interaction_ids: Collection[str]
    ) -> dict[str, list[TrackedMessage]]:
        """`messages` of each of these interactions, in one query per `ID_CHUNK` of them
        (a list of hundreds would otherwise ask once for each)."""
        found: dict[str, list[TrackedMessage]] = {i: [] for i in interaction_ids}
        wanted = list(found)
        for start in range(0, len(wanted), ID_CHUNK):
            rows = await self._all(
                select(messages)
                .where(messages.c.interaction_id.in_(wanted[start : start + ID_CHUNK]))
                .order_by(*_ORDER)
            )
            for row in rows:
                found[row["interaction_id"]].append(message(row))
        return found

    async def interaction_at(self, channel: str, ts: str) -> str | None:
        """The interaction whose message is at `ts` in `channel` (its channel, or the DM
        Slack put it in), or None: a thread under any other message (a step group's
        included) is none of ours."""
        row = await self._first(
            select(messages.c.interaction_id)
            .where(
                messages.c.ts == ts,
                messages.c.state == MessageState.POSTED,
                messages.c.purpose != MessageKind.GROUP,
                (messages.c.channel == channel) | (messages.c.slack_channel == channel),
            )
            .limit(1)
        )
        return str(row["interaction_id"]) if row is not None else None

    async def get_message(
        self, interaction_id: str, purpose: MessageKind, channel: str
    ) -> TrackedMessage | None:
        key = MessageKey(interaction_id, purpose, channel)
        row = await self._first(select(messages).where(_named(key)))
        return message(row) if row is not None else None

    async def track_message(self, key: MessageKey, now: datetime) -> bool:
        """Track a message to post (`queued`); False when it was tracked before, so each
        is posted once because the database says so, or when its subject (an
        interaction, a step group) is not tracked."""
        subjects = union_all(
            select(interactions.c.id).where(interactions.c.id == key.interaction_id),
            select(step_groups.c.id).where(step_groups.c.id == key.interaction_id),
        )
        track = (
            self._insert(messages)
            .values(**new_message(key, now))
            .on_conflict_do_nothing()
            .returning(messages.c.interaction_id)
        )

        async def work(connection: AsyncConnection) -> bool:
            # a subject is never deleted: known once, it stays known to the insert
            if (await connection.execute(subjects)).first() is None:
                return False
            return (await connection.execute(track)).first() is not None

        return await self._transaction(work)

    async def record_sends(
        self,
        claims: Sequence[MessageKey],
        sent: Sequence[SentMessage],
        now: datetime,
        *,
        read: Collection[str] = (),
    ) -> SendRound:
        """Claim `claims` (each `queued` → `posting`), record the ts of each of `sent`
        (`posting` → `posted`, with its audit entry) and read the facts of the
        interactions in `read` (`bot.store.facts`), all in one transaction: one round of
        every lane's sends and renders, not one transaction for each.

        A key missing from `claimed` or `recorded` was claimed or recorded before (by
        another lane or replica, or a look after a crash), and its sender must leave it
        alone.
        """

        async def work(connection: AsyncConnection) -> SendRound:
            # recorded first, so a claim's `after_ts` counts the posts of this batch
            recorded = await _record_all(connection, sent, now)
            claimed = await _claim(connection, claims, now)
            facts = await read_facts(connection, read) if read else None
            entries = [
                AuditEvent(
                    s.audit_event,
                    now,
                    interaction_id=s.key.interaction_id,
                    detail={"channel": s.slack_channel, "ts": s.ts, **s.audit_detail},
                )
                for s in recorded.values()
                if s.audit_detail is not None
            ]
            if entries:
                await append_events(connection, entries)  # last: it holds the chain to the commit
            return SendRound(claimed, set(recorded), facts)

        return await self._transaction(work)

    async def record_posted(self, sent: SentMessage, now: datetime) -> bool:
        """`record_sends` of one claimed message alone (one in doubt that a look found in
        Slack); False when it was recorded before."""
        done = await self.record_sends((), [sent], now)
        return sent.key in done.recorded

    async def record_shown(
        self,
        key: MessageKey,
        rendered_hash: str,
        now: datetime,
        *,
        expected_version: int | None = None,
    ) -> bool:
        """What Slack shows now (the message is in step with its record); with
        `expected_version`, only if nobody wrote since."""
        conditions = [_named(key)]
        if expected_version is not None:
            conditions.append(messages.c.version == expected_version)
        return (
            await self._write(
                update(messages)
                .where(*conditions)
                .values(
                    rendered_hash=rendered_hash,
                    synced=True,
                    version=messages.c.version + 1,
                    updated_at=now,
                )
            )
            == 1
        )

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

    async def drop_claim(self, key: MessageKey) -> bool:
        """Forget a message Slack will never let us post (that person cannot be DMed), so
        it is not retried forever; a message already posted is never dropped."""
        return (
            await self._write(delete(messages).where(_named(key), messages.c.state.in_(UNPOSTED)))
            == 1
        )

    async def unposted_messages(self, kind: MessageKind | None = None) -> list[TrackedMessage]:
        """Every message tracked but not recorded posted (of `kind`, or of any), oldest
        first: `queued` (nothing sent) or `posting` (claimed, maybe sent). A poll asks
        for the copies alone: during a burst every primary waits here too."""
        wanted: list[ColumnElement[bool]] = [messages.c.state.in_(UNPOSTED)]
        if kind is not None:
            wanted.append(messages.c.purpose == kind)
        rows = await self._all(
            select(messages)
            .where(*wanted)
            .order_by(messages.c.claimed_at, messages.c.interaction_id, *_ORDER[1:])
        )
        return [message(r) for r in rows]


_CLAIM = (
    update(messages)
    .where(
        tuple_(messages.c.interaction_id, messages.c.purpose, messages.c.channel).in_(
            bindparam("c_keys", expanding=True)
        ),
        messages.c.state == MessageState.QUEUED,
    )
    .values(
        state=MessageState.POSTING,
        claimed_at=bindparam("c_now", type_=messages.c.claimed_at.type),
        after_ts=_NEWEST_IN_CHANNEL,
        updated_at=bindparam("c_now", type_=messages.c.updated_at.type),
    )
    .returning(messages.c.interaction_id, messages.c.purpose, messages.c.channel)
)
"""A round's claims, built once (like `_recording`): one runs for nearly every round."""


async def _claim(
    connection: AsyncConnection, keys: Sequence[MessageKey], now: datetime
) -> set[MessageKey]:
    """Claim each of `keys` still `queued`, in one statement (not one per lane: each is a
    thread hop on SQLite's driver); the keys claimed."""
    if not keys:
        return set()
    claimed = await connection.execute(
        _CLAIM,
        {"c_keys": [(k.interaction_id, k.purpose.value, k.channel) for k in keys], "c_now": now},
    )
    return {MessageKey(r.interaction_id, MessageKind(r.purpose), r.channel) for r in claimed}


def _recording(primary: bool) -> Update:
    """The change that records a claimed message's ts, built once for each case: one runs
    for every post, and building it cost more than running it."""
    shown_in = bindparam("r_shown_in", type_=messages.c.slack_channel.type)
    return (
        update(messages)
        .where(
            messages.c.interaction_id == bindparam("k_interaction_id"),
            messages.c.purpose == bindparam("k_purpose"),
            messages.c.channel == bindparam("k_channel"),
            messages.c.state == MessageState.POSTING,
        )
        .values(
            state=MessageState.POSTED,
            ts=bindparam("r_ts", type_=messages.c.ts.type),
            # kept only when it differs from where it was sent (a DM posted to a user id)
            slack_channel=case((messages.c.channel == shown_in, None), else_=shown_in),
            rendered_hash=bindparam("r_hash", type_=messages.c.rendered_hash.type),
            # a primary is in step once the poll says so; the others show what was rendered
            synced=messages.c.synced if primary else True,
            version=messages.c.version + 1,
            updated_at=bindparam("r_now", type_=messages.c.updated_at.type),
        )
    )


_RECORD_PRIMARY = _recording(primary=True)
_RECORD_OTHER = _recording(primary=False)


_POSTING_AMONG = (
    select(messages.c.interaction_id, messages.c.purpose, messages.c.channel)
    .where(
        tuple_(messages.c.interaction_id, messages.c.purpose, messages.c.channel).in_(
            bindparam("r_keys", expanding=True)
        ),
        messages.c.state == MessageState.POSTING,
    )
    # PostgreSQL: locked until the commit, so each is still `posting` when it is recorded
    # (SQLite's IMMEDIATE transaction already keeps every other writer out)
    .with_for_update()
)


async def _record_all(
    connection: AsyncConnection, sent: Sequence[SentMessage], now: datetime
) -> dict[MessageKey, SentMessage]:
    """Record each of `sent` still `posting`; what was recorded, by key (a key sent twice
    is recorded, and audited, once).

    A round of several is recorded in one batch per statement shape, not one statement
    each (a round at Slack's pace over ten channels records several). Which of them were
    still `posting`: on PostgreSQL one read first, its rows locked to the commit, since
    its driver does not count a batch's rows; on SQLite this transaction is the only
    writer, and the batch's row count says whether all were, so a read follows only when
    some were not. Alone: one statement, its row count the answer."""
    if not sent:
        return {}
    if len(sent) == 1:
        return {sent[0].key: sent[0]} if await _record(connection, sent[0], now) else {}
    chosen: dict[MessageKey, SentMessage] = {}
    for one in sent:
        chosen.setdefault(one.key, one)
    if not connection.dialect.supports_sane_multi_rowcount:
        keys = [(k.interaction_id, k.purpose.value, k.channel) for k in chosen]
        found = await connection.execute(_POSTING_AMONG, {"r_keys": keys})
        posting = {MessageKey(r.interaction_id, MessageKind(r.purpose), r.channel) for r in found}
        chosen = {k: s for k, s in chosen.items() if k in posting}
        await _record_many(connection, chosen, now)
        return chosen
    if await _record_many(connection, chosen, now) == len(chosen):
        return chosen
    # some had been recorded before (a look after a crash found them): ours carry our ts
    # (the guard around a message's send and a look keeps the two from recording one
    # message with one ts)
    return {k: s for k, s in chosen.items() if (await _ts_of(connection, k)) == s.ts}


async def _record_many(
    connection: AsyncConnection, chosen: dict[MessageKey, SentMessage], now: datetime
) -> int:
    """Record each of `chosen` still `posting`; the rows changed (SQLite counts them)."""
    changed = 0
    for primary in (True, False):
        rows = [
            _recorded(s, now)
            for k, s in chosen.items()
            if (k.purpose == MessageKind.PRIMARY) is primary
        ]
        if rows:
            done = await connection.execute(_RECORD_PRIMARY if primary else _RECORD_OTHER, rows)
            changed += done.rowcount
    return changed


async def _ts_of(connection: AsyncConnection, key: MessageKey) -> str | None:
    found = await connection.execute(select(messages.c.ts).where(_named(key)))
    return found.scalar_one_or_none()


def _recorded(sent: SentMessage, now: datetime) -> dict[str, Any]:
    key = sent.key
    return {
        "k_interaction_id": key.interaction_id,
        "k_purpose": key.purpose,
        "k_channel": key.channel,
        "r_ts": sent.ts,
        "r_shown_in": sent.slack_channel,
        "r_hash": sent.rendered_hash,
        "r_now": now,
    }


async def _record(connection: AsyncConnection, sent: SentMessage, now: datetime) -> bool:
    primary = sent.key.purpose == MessageKind.PRIMARY
    recorded = await connection.execute(
        _RECORD_PRIMARY if primary else _RECORD_OTHER, _recorded(sent, now)
    )
    return bool(recorded.rowcount)
