"""Step group messages: posted before their first card, kept true after every change.

A group message is rendered from its members as they stand, like any card,
and only sent again when what it shows changed. It is posted under the
store's message guard for the group, so cards of the same group posted at
once never post it twice; a group claimed but not recorded as posted (a
crash between the two) is looked for in the channel before it is posted.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.metrics import MESSAGES_POSTED, MESSAGES_UPDATED
from bot.slack.gateway import SlackGateway
from bot.slack.ids import GROUP_METADATA_EVENT_TYPE
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.group import GroupFacts, GroupItem, group_version, offered, render_group
from bot.slack.render.message import fingerprint
from bot.store import StepGroup, Store, TrackedInteraction
from bot.sync.lanes import SendKind, SendLanes

log = logging.getLogger(__name__)

CLAIM_MARGIN = timedelta(minutes=2)

# What a card shows besides its record (the publisher's `context`): a member's line agrees.
ContextOf = Callable[[TrackedInteraction], Awaitable[MessageContext]]


@dataclass(frozen=True)
class _Rendered:
    message: RenderedMessage
    offered: list[str]
    """The ids its Approve all / Deny all act on."""


class GroupMessages:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        clock: Clock,
        lanes: SendLanes,
        context: ContextOf,
    ) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock
        self._lanes = lanes
        self._context = context

    async def thread_of(self, group_id: str) -> str | None:
        """The ts cards of this group reply under; posts the group message if it isn't yet."""
        group = await self._store.group(group_id)
        if group is None:
            return None
        if group.ts is not None:
            return group.ts
        async with self._store.message_guard(_guard(group_id)):
            group = await self._store.group(group_id)
            if group is None:
                return None
            if group.ts is not None:
                return group.ts
            return await self._post(group)

    async def _post(self, group: StepGroup) -> str | None:
        since = group.claimed_at - CLAIM_MARGIN
        found = await self._slack.find_posted(
            group.channel, group.id, since, event_type=GROUP_METADATA_EVENT_TYPE, key="group_id"
        )
        if found is not None:
            await self._store.mark_group_posted(group.id, found, "", self._clock())
            log.info("reconciled step group %s with its message %s", group.id, found)
            return found
        rendered = await self._render(group)
        if rendered is None:
            return None
        await self._remember(group, rendered)
        _, ts = await self._slack.post_message_to(group.channel, rendered.message)
        await self._store.mark_group_posted(
            group.id, ts, fingerprint(rendered.message), self._clock()
        )
        MESSAGES_POSTED.inc()
        log.info("posted step group %s to %s at %s", group.id, group.channel, ts)
        return ts

    async def _render(self, group: StepGroup) -> _Rendered | None:
        members = await self._store.group_members(group.id)
        if not members:
            return None
        items = [
            GroupItem(m.snapshot, await self._context(m), posted=m.ts is not None) for m in members
        ]
        facts = GroupFacts(group.id, group.step_number, group.outcome)
        return _Rendered(render_group(facts, items), [i.interaction.id for i in offered(items)])

    async def _remember(self, group: StepGroup, rendered: _Rendered) -> None:
        """Keep what this version's buttons offer before Slack shows it to anyone."""
        if rendered.offered:
            await self._store.remember_group_view(
                group.id, group_version(rendered.offered), rendered.offered, self._clock()
            )

    def refresh_soon(self, group_id: str, channel: str) -> None:
        self._lanes.submit(
            channel,
            SendKind.URGENT_UPDATE,
            _guard(group_id),
            lambda: self.refresh_quietly(group_id),
        )

    async def refresh_soon_by_id(self, group_id: str) -> None:
        group = await self._store.group(group_id)
        if group is not None and group.ts is not None:
            self.refresh_soon(group_id, group.channel)

    async def refresh_quietly(self, group_id: str) -> None:
        try:
            await self.refresh(group_id)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else repr(exc)
            log.warning("updating step group %s failed: %s", group_id, error)

    async def refresh(self, group_id: str) -> bool:
        async with self._store.message_guard(_guard(group_id)):
            group = await self._store.group(group_id)
            if group is None or group.ts is None:
                return False
            rendered = await self._render(group)
            if rendered is None:
                return False
            digest = fingerprint(rendered.message)
            if digest == group.rendered_hash:
                return False
            await self._remember(group, rendered)
            await self._slack.update_message(group.channel, group.ts, rendered.message)
            await self._store.set_group_hash(group_id, digest, self._clock())
            MESSAGES_UPDATED.inc()
            return True


def _guard(group_id: str) -> str:
    """The message-guard key of a group: never an interaction id."""
    return f"group:{group_id}"
