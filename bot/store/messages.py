"""Any Slack message about an interaction, named by (interaction, purpose, channel).

The primary message (purpose `channel`) is created by `claim_for_posting`;
reminders, copies and the like are claimed here before they are sent, so each
is posted once because the database says so. `version` rises with each change
of what a message shows, for writers that compare-and-set.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import ColumnElement, delete, select, update

from bot.store.base import StoreBase
from bot.store.interactions import ID_CHUNK
from bot.store.rows import TrackedMessage, message
from bot.store.schema import UNPOSTED, MessageKind, MessageState, messages


def _named(interaction_id: str, purpose: MessageKind, channel: str) -> list[ColumnElement[bool]]:
    return [
        messages.c.interaction_id == interaction_id,
        messages.c.purpose == purpose,
        messages.c.channel == channel,
    ]


class MessageQueries(StoreBase):
    async def messages(self, interaction_id: str) -> list[TrackedMessage]:
        """Every message about one interaction, oldest claim first."""
        rows = await self._all(
            select(messages)
            .where(messages.c.interaction_id == interaction_id)
            .order_by(messages.c.claimed_at, messages.c.purpose, messages.c.channel)
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
                .order_by(messages.c.claimed_at, messages.c.purpose, messages.c.channel)
            )
            for row in rows:
                found[row["interaction_id"]].append(message(row))
        return found

    async def interaction_at(self, channel: str, ts: str) -> str | None:
        """The interaction whose message is at `ts` in `channel` (its channel, or the DM
        Slack put it in), or None: a thread under any other message is none of ours."""
        row = await self._first(
            select(messages.c.interaction_id)
            .where(
                messages.c.ts == ts,
                messages.c.state == MessageState.POSTED,
                (messages.c.channel == channel) | (messages.c.slack_channel == channel),
            )
            .limit(1)
        )
        return str(row["interaction_id"]) if row is not None else None

    async def get_message(
        self, interaction_id: str, purpose: MessageKind, channel: str
    ) -> TrackedMessage | None:
        row = await self._first(select(messages).where(*_named(interaction_id, purpose, channel)))
        return message(row) if row is not None else None

    async def claim_message(
        self, interaction_id: str, purpose: MessageKind, channel: str, now: datetime
    ) -> bool:
        """Record the intent to post before posting; False when it was claimed before.

        The interaction must be tracked already (claimed for posting).
        """
        claim = (
            self._insert(messages)
            .values(
                interaction_id=interaction_id,
                purpose=purpose,
                channel=channel,
                state=MessageState.POSTING,
                synced=False,
                version=0,
                claimed_at=now,
                updated_at=now,
            )
            .on_conflict_do_nothing()
            .returning(messages.c.interaction_id)
        )
        return await self._first(claim) is not None

    async def mark_message_posted(
        self,
        interaction_id: str,
        purpose: MessageKind,
        channel: str,
        ts: str,
        rendered_hash: str,
        now: datetime,
        *,
        slack_channel: str | None = None,
    ) -> bool:
        """Record the ts of a claimed message; False when it was recorded before.

        `slack_channel`: where Slack put it, when that is not `channel` (a DM).
        """
        return (
            await self._write(
                update(messages)
                .where(
                    *_named(interaction_id, purpose, channel),
                    messages.c.state.in_(UNPOSTED),
                )
                .values(
                    state=MessageState.POSTED,
                    ts=ts,
                    slack_channel=slack_channel if slack_channel != channel else None,
                    rendered_hash=rendered_hash,
                    synced=True,
                    version=messages.c.version + 1,
                    updated_at=now,
                )
            )
            == 1
        )

    async def set_message_hash(
        self,
        interaction_id: str,
        purpose: MessageKind,
        channel: str,
        rendered_hash: str,
        now: datetime,
        *,
        expected_version: int | None = None,
    ) -> bool:
        """What Slack shows now; with `expected_version`, only if nobody wrote since."""
        conditions = _named(interaction_id, purpose, channel)
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

    async def unposted_messages(self) -> list[TrackedMessage]:
        """Every message tracked but not confirmed posted, of any purpose, oldest first:
        `queued` (nothing sent) or `posting` (claimed, maybe sent)."""
        rows = await self._all(
            select(messages)
            .where(messages.c.state.in_(UNPOSTED))
            .order_by(
                messages.c.claimed_at,
                messages.c.interaction_id,
                messages.c.purpose,
                messages.c.channel,
            )
        )
        return [message(r) for r in rows]

    async def drop_claim(self, interaction_id: str, purpose: MessageKind, channel: str) -> bool:
        """Forget a claim Slack will never let us post (that person cannot be DMed), so it
        is not retried forever; a message already posted is never dropped."""
        return (
            await self._write(
                delete(messages).where(
                    *_named(interaction_id, purpose, channel),
                    messages.c.state.in_(UNPOSTED),
                )
            )
            == 1
        )
