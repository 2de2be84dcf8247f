"""Step group messages: posted before their first card, kept true after every change.

A group message is rendered from its members as they stand, like any card,
and only sent again when what it shows changed. Its message goes through the
lifecycle of every message (`bot.messages.lifecycle`): tracked with the group,
claimed just before its send and recorded after, under the store's message
guard for the group, so cards of the same group posted at once never post it
twice; one left in doubt (a crash between the send and the record) is looked
for in the channel before it is posted.

A group may hold hundreds of members and every change to one of them asks
for a re-render, so a render costs two store reads whatever the size (the
members, and their open decisions, each in one query), and refreshes of one
group are coalesced: at most one per REFRESH_GAP_SECONDS, the last request
always honoured.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages.doubt import since_claim
from bot.messages.lanes import SendKind, SendLanes
from bot.messages.lifecycle import Lifecycle, Sending
from bot.metrics import MESSAGES_UPDATED
from bot.outages import level
from bot.slack.gateway import SlackGateway
from bot.slack.ids import GROUP_METADATA_EVENT_TYPE
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.group import GroupFacts, GroupItem, group_version, offered, render_group
from bot.slack.render.message import fingerprint
from bot.store import QueuedDecision, StepGroup, Store, TrackedInteraction
from bot.store.groups import group_message
from bot.store.schema import MessageState

log = logging.getLogger(__name__)

REFRESH_GAP_SECONDS = 1.0
THREADS_KEPT = 10_000

# A member's line context from its record and open decision (the publisher's
# `line_context`), so the line agrees with the member's card.
ContextOf = Callable[[TrackedInteraction, QueuedDecision | None], MessageContext]


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
        lifecycle: Lifecycle,
        context: ContextOf,
    ) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock
        self._lanes = lanes
        self._lifecycle = lifecycle
        self._context = context
        self._refreshed_at: dict[str, float] = {}  # group id -> time.monotonic()
        self._later: dict[str, asyncio.TimerHandle] = {}  # a coalesced refresh waiting
        # a posted group's ts never changes: each of its cards' posts need not read it
        self._threads: dict[str, str] = {}

    async def thread_of(self, group_id: str) -> str | None:
        """The ts cards of this group reply under; posts the group message if it isn't yet."""
        known = self._threads.get(group_id)
        if known is not None:
            return known
        ts = await self._thread_of(group_id)
        if ts is not None:
            if len(self._threads) > THREADS_KEPT:
                self._threads.clear()
            self._threads[group_id] = ts
        return ts

    async def _thread_of(self, group_id: str) -> str | None:
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
        """Post its message: one left in doubt is looked for first, and adopted if found."""
        key = group_message(group.id, group.channel)
        if group.state == MessageState.POSTING:
            since = since_claim(group.claimed_at)
            found = await self._slack.find_posted(
                group.channel, group.id, since, event_type=GROUP_METADATA_EVENT_TYPE, key="group_id"
            )
            if await self._lifecycle.reconcile(key, (group.channel, found) if found else None):
                return found
        rendered = await self._render(group)
        if rendered is None:
            return None

        async def prepare() -> tuple[Sending, str]:
            assert rendered is not None
            await self._remember(group, rendered)
            send = partial(self._slack.post_message_to, group.channel, rendered.message)
            return send, fingerprint(rendered.message)

        posted = await self._lifecycle.post(key, group.state, prepare, None)
        if posted is None:  # claimed meanwhile: what the store says now
            again = await self._store.group(group.id)
            return again.ts if again is not None else None
        log.info("posted step group %s to %s at %s", group.id, group.channel, posted[1])
        return posted[1]

    async def _render(self, group: StepGroup) -> _Rendered | None:
        members = await self._store.group_members(group.id)
        if not members:
            return None
        queued = await self._store.open_decisions([m.id for m in members])
        items = [
            GroupItem(m.snapshot, self._context(m, queued.get(m.id)), posted=m.ts is not None)
            for m in members
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
        """Queue a re-render: now if the group's last one is a second old, else once, a
        second after it (requests meanwhile are folded into that one)."""
        if group_id in self._later:
            return  # one is already set for the end of the gap, and will read afresh
        wait = self._refreshed_at.get(group_id, -REFRESH_GAP_SECONDS) + REFRESH_GAP_SECONDS
        wait -= time.monotonic()
        if wait > 0:
            self._later[group_id] = asyncio.get_running_loop().call_later(
                wait, self._submit, group_id, channel
            )
            return
        self._submit(group_id, channel)

    def _submit(self, group_id: str, channel: str) -> None:
        self._later.pop(group_id, None)
        now = time.monotonic()
        if len(self._refreshed_at) > 1000:  # only the last second's entries mean anything
            self._refreshed_at = {
                g: at for g, at in self._refreshed_at.items() if now - at < REFRESH_GAP_SECONDS
            }
        self._refreshed_at[group_id] = now
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
            log.log(level(exc), "updating step group %s failed: %s", group_id, error)

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
            await self._lifecycle.shown(group_message(group_id, group.channel), digest)
            MESSAGES_UPDATED.inc()
            return True


def _guard(group_id: str) -> str:
    """The message-guard key of a group: never an interaction id."""
    return f"group:{group_id}"
