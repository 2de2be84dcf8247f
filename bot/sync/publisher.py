"""Renders an interaction's message from the stored record and sends it to Slack.

Every change re-renders the whole message from state (never patches blocks
from a payload), and a message is only sent again when what it shows has
changed. The store's message guard serialises everything that touches one
interaction's message, in this process and across replicas, so a poll and
a click never race on the same `chat.update`.
"""

from __future__ import annotations

import logging
from datetime import datetime

from bot.clock import Clock
from bot.metrics import MESSAGES_POSTED, MESSAGES_UPDATED
from bot.slack.gateway import SlackGateway
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.message import fingerprint, render_message
from bot.store import Store, TrackedInteraction

log = logging.getLogger(__name__)


class MessagePublisher:
    def __init__(self, store: Store, slack: SlackGateway, clock: Clock) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock

    async def render(self, tracked: TrackedInteraction) -> RenderedMessage:
        queued = await self._store.open_decision(tracked.id)
        ctx = MessageContext(
            now=self._clock(),
            decided_in_slack=tracked.decided_in_slack,
            queued=queued.decision if queued and tracked.snapshot.is_pending else None,
            gone=tracked.gone,
        )
        return render_message(tracked.snapshot, ctx)

    async def post(self, tracked: TrackedInteraction) -> str:
        """Post a claimed interaction and record its ts; raises SlackApiError on failure.

        Everything that could fail on the message itself (rendering, hashing)
        happens before `chat.postMessage`, so nothing after a successful post
        can leave it looking unposted but for the store write.
        """
        async with self._store.message_guard(tracked.id):
            message = await self.render(tracked)
            digest = fingerprint(message)
            ts = await self._slack.post_message(tracked.channel, message)
            await self._store.mark_posted(tracked.id, ts, digest, self._clock())
            MESSAGES_POSTED.inc()
            log.info("posted %s to %s at %s", tracked.id, tracked.channel, ts)
            return ts

    async def find_posted(self, tracked: TrackedInteraction, since: datetime | None) -> str | None:
        """The ts of a message already posted for it (crash window), found by metadata."""
        return await self._slack.find_posted(tracked.channel, tracked.id, since)

    async def refresh(self, interaction_id: str) -> bool:
        """Re-render from the store and update Slack if anything shown changed."""
        async with self._store.message_guard(interaction_id):
            tracked = await self._store.get(interaction_id)
            if tracked is None or tracked.ts is None:
                return False
            message = await self.render(tracked)
            digest = fingerprint(message)
            if digest == tracked.rendered_hash:
                await self._store.set_rendered_hash(interaction_id, digest)
                return False
            await self._slack.update_message(tracked.channel, tracked.ts, message)
            await self._store.set_rendered_hash(interaction_id, digest)
            MESSAGES_UPDATED.inc()
            log.info("updated message for %s (%s)", interaction_id, tracked.snapshot.status)
            return True
