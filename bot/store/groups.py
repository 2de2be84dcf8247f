"""Step groups: approvals of one run's step that wait together, shown under one message.

A group is named by its run, step and channel, so every replica forming it
from the same poll claims the same row and only one posts its message. That
message is a message like any other (kind `group`, its subject the group's id,
tracked with the group in one transaction), carried by the verbs of
`bot.store.messages`. The cards are replies in its thread; membership is a
column on the interaction, set before the card is posted, so a card always
knows where it belongs.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import ID_CHUNK, StoreBase
from bot.store.interactions import TRACKED
from bot.store.messages import MessageKey, new_message
from bot.store.records import dump_record, load_record
from bot.store.rows import StepGroup, TrackedInteraction, step_group, tracked
from bot.store.schema import MessageKind, group_views, interactions, messages, step_groups


def group_key(root_run_id: str, step_number: int, channel: str) -> str:
    return f"{root_run_id}#{step_number}#{channel}"


def group_message(group_id: str, channel: str) -> MessageKey:
    """The key of a step group's own message."""
    return MessageKey(group_id, MessageKind.GROUP, channel)


_GROUP_MESSAGE = and_(
    messages.c.interaction_id == step_groups.c.id,
    messages.c.purpose == MessageKind.GROUP,
    messages.c.channel == step_groups.c.channel,
)
_GROUPS = select(
    step_groups,
    messages.c.state,
    messages.c.ts,
    messages.c.rendered_hash,
    messages.c.claimed_at.label("message_claimed_at"),
    messages.c.after_ts,
).join(messages, _GROUP_MESSAGE)


class GroupQueries(StoreBase):
    async def claim_group(
        self, root_run_id: str, step_number: int, channel: str, agent_id: str, now: datetime
    ) -> str:
        """The group's id, claimed now or before, its message tracked with it (whoever
        claims that message first posts it)."""
        group_id = group_key(root_run_id, step_number, channel)

        async def claim(connection: AsyncConnection) -> None:
            formed = await connection.execute(
                self._insert(step_groups)
                .values(
                    id=group_id,
                    root_run_id=root_run_id,
                    step_number=step_number,
                    channel=channel,
                    agent_id=agent_id,
                    claimed_at=now,
                    updated_at=now,
                )
                .on_conflict_do_nothing()
            )
            if formed.rowcount:
                await connection.execute(
                    messages.insert(), [new_message(group_message(group_id, channel), now)]
                )

        await self._transaction(claim)
        return group_id

    async def join_group(self, interaction_ids: Collection[str], group_id: str) -> None:
        if not interaction_ids:
            return
        await self._write(
            update(interactions)
            .where(interactions.c.id.in_(list(interaction_ids)), interactions.c.group_id.is_(None))
            .values(group_id=group_id)
        )

    async def groups_among(self, group_ids: Collection[str]) -> set[str]:
        """Which of these groups exist: a poll of a thousand new approvals, each of a run
        of its own, asks once, not a thousand times."""
        wanted = list(dict.fromkeys(group_ids))
        found: set[str] = set()
        for start in range(0, len(wanted), ID_CHUNK):
            chunk = wanted[start : start + ID_CHUNK]
            rows = await self._all(select(step_groups.c.id).where(step_groups.c.id.in_(chunk)))
            found.update(row["id"] for row in rows)
        return found

    async def group(self, group_id: str) -> StepGroup | None:
        """The group and the state of its message."""
        row = await self._first(_GROUPS.where(step_groups.c.id == group_id))
        return step_group(row) if row is not None else None

    async def group_members(self, group_id: str) -> list[TrackedInteraction]:
        """Its interactions, oldest first."""
        rows = await self._all(
            TRACKED.where(interactions.c.group_id == group_id).order_by(
                interactions.c.created_at, interactions.c.id
            )
        )
        return [tracked(r, self._show) for r in rows]

    async def set_group_outcome(self, group_id: str, outcome: str, now: datetime) -> None:
        """What the last Approve all / Deny all came to, in words for the group message."""
        await self._write(
            update(step_groups)
            .where(step_groups.c.id == group_id)
            .values(outcome=outcome, updated_at=now)
        )

    async def remember_group_view(
        self, group_id: str, version: str, item_ids: Sequence[str], now: datetime
    ) -> None:
        """What one version of a group message offers to Approve all / Deny all.

        Written before that version is sent, so a click on it always finds what it
        showed; the same version written twice is the same row.
        """
        await self._write(
            self._insert(group_views)
            .values(
                group_id=group_id,
                version=version,
                item_ids=dump_record(list(item_ids)),
                created_at=now,
            )
            .on_conflict_do_nothing()
        )

    async def group_view(self, group_id: str, version: str) -> list[str] | None:
        """The items a version of the group message offered; None for a version unknown."""
        row = await self._first(
            select(group_views.c.item_ids).where(
                group_views.c.group_id == group_id, group_views.c.version == version
            )
        )
        if row is None:
            return None
        items = load_record(row["item_ids"])
        return [str(i) for i in items] if isinstance(items, list) else None
