"""Renders an interaction's message from the stored record and sends it to Slack.

Every change re-renders the whole message from state (never patches blocks
from a payload), and a message is only sent again when what it shows has
changed. The store's message guard serialises everything that touches one
interaction's message, in this process and across replicas, so a poll and
a click never race on the same `chat.update`.

An escalation message is kept true the same way: every refresh of the
interaction's message re-renders its escalations too, so when the
interaction ends they say how.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.metrics import MESSAGES_POSTED, MESSAGES_UPDATED
from bot.policy.file import PolicyFile
from bot.slack.gateway import MESSAGE_REFUSED_ERRORS, SlackGateway
from bot.slack.render.compact import compact_message
from bot.slack.render.context import MessageContext, Nudge, RenderedMessage
from bot.slack.render.escalation import EscalationFacts, render_escalation
from bot.slack.render.message import fingerprint, render_message
from bot.store import Store, TrackedInteraction, TrackedMessage
from bot.sync.lanes import Send, SendKind, SendLanes

T = TypeVar("T")

log = logging.getLogger(__name__)

ESCALATION = "escalation"
"""The purpose of an escalation message (one per target channel or user)."""
ESCALATE_STEP = "escalate"
"""The name of the escalation step in the store."""


class MessagePublisher:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        clock: Clock,
        lanes: SendLanes | None = None,
        policy: PolicyFile | None = None,
    ) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock
        self._policy = policy or PolicyFile()
        self.lanes = lanes or SendLanes(post_rate=1.0, update_rate_per_minute=50.0)

    # ------------------------------------------------------------------ queuing (never waits)

    def post_soon(self, tracked: TrackedInteraction, send: Send) -> None:
        """Queue a post on its channel's lane; soonest-expiring posts go first."""
        expires = tracked.snapshot.expires_at
        self.lanes.submit(
            tracked.channel,
            SendKind.POST,
            tracked.id,
            send,
            expires_at=expires.timestamp() if expires is not None else None,
        )

    def refresh_soon(self, interaction_id: str, channel: str, *, urgent: bool = True) -> None:
        """Queue a re-render; `urgent` for a decision, an ending or a changed deadline."""
        kind = SendKind.URGENT_UPDATE if urgent else SendKind.COSMETIC_UPDATE
        self.lanes.submit(
            channel, kind, interaction_id, partial(self.refresh_quietly, interaction_id)
        )

    async def refresh_soon_by_id(self, interaction_id: str) -> None:
        """`refresh_soon` for a caller that knows only the id (a click, a redelivery)."""
        tracked = await self._store.get(interaction_id)
        if tracked is not None and tracked.ts is not None:
            self.refresh_soon(interaction_id, tracked.channel)

    async def refresh_quietly(self, interaction_id: str) -> None:
        """A refresh whose failure is logged, not raised: the store still marks the
        message out of step, so the next poll queues it again."""
        try:
            await self.refresh(interaction_id)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else repr(exc)
            log.warning("updating the message for %s failed: %s", interaction_id, error)

    # ------------------------------------------------------------------ sending

    async def context(self, tracked: TrackedInteraction) -> MessageContext:
        queued = await self._store.open_decision(tracked.id)
        return MessageContext(
            now=self._clock(),
            decided_in_slack=tracked.decided_in_slack,
            queued=queued.decision if queued and tracked.snapshot.is_pending else None,
            gone=tracked.gone,
            agent_names=self._policy.agents,
            run_link_template=self._policy.links.run,
            asked_in=tracked.channel,
            nudges=await self._nudges(tracked.id),
        )

    async def _nudges(self, interaction_id: str) -> tuple[Nudge, ...]:
        """The reminders and escalations sent, as the store recorded them."""
        sent = [
            s for s in (await self._store.steps_taken([interaction_id]))[interaction_id] if s.sent
        ]
        if not sent:
            return ()
        targets: tuple[str, ...] = ()
        if any(s.step == ESCALATE_STEP for s in sent):
            targets = tuple(m.channel for m in await self._escalations(interaction_id))
        return tuple(
            Nudge("escalate", s.taken_at, targets)
            if s.step == ESCALATE_STEP
            else Nudge("remind", s.taken_at)
            for s in sent
        )

    async def _escalations(self, interaction_id: str) -> list[TrackedMessage]:
        return [
            m
            for m in await self._store.messages(interaction_id)
            if m.purpose == ESCALATION and m.state == "posted" and m.ts is not None
        ]

    async def render(self, tracked: TrackedInteraction) -> RenderedMessage:
        return render_message(tracked.snapshot, await self.context(tracked))

    async def _render_escalation(self, tracked: TrackedInteraction) -> RenderedMessage:
        taken = (await self._store.steps_taken([tracked.id]))[tracked.id]
        step = next((s for s in taken if s.step == ESCALATE_STEP), None)
        escalate = self._policy.defaults.escalate
        facts = EscalationFacts(
            escalated_at=step.taken_at if step is not None else self._clock(),
            link=step.link if step is not None else None,
            groups=tuple(escalate.to.groups) if escalate is not None else (),
        )
        return render_escalation(tracked.snapshot, await self.context(tracked), facts)

    async def post_escalation(self, tracked: TrackedInteraction, target: str) -> None:
        """Post a claimed escalation message to `target` (a channel or a user's DM)."""
        async with self._store.message_guard(tracked.id):
            message = await self._render_escalation(tracked)
            shown_in, ts = await self._slack.post_message_to(target, message)
            await self._store.mark_message_posted(
                tracked.id,
                ESCALATION,
                target,
                ts,
                fingerprint(message),
                self._clock(),
                slack_channel=shown_in,
            )

    async def _refresh_escalations(self, tracked: TrackedInteraction) -> None:
        """Bring its escalation messages in step, before the primary message.

        A transport failure propagates, so the primary stays out of step and the
        next poll tries both again. A refusal by Slack (the bot left that channel,
        the message was deleted) is logged and passed over: it would refuse every
        time, and must not keep the interaction's own message from its update.
        """
        for sent in await self._escalations(tracked.id):
            message = await self._render_escalation(tracked)
            digest = fingerprint(message)
            if digest == sent.rendered_hash:
                continue
            assert sent.ts is not None
            try:
                await self._slack.update_message(sent.shown_in, sent.ts, message)
            except SlackApiError as exc:
                log.warning(
                    "updating the escalation of %s in %s failed: %s",
                    tracked.id,
                    sent.channel,
                    exc.response.get("error"),
                )
                continue
            await self._store.set_message_hash(
                tracked.id, ESCALATION, sent.channel, digest, self._clock()
            )

    async def post(self, tracked: TrackedInteraction) -> str:
        """Post a claimed interaction and record its ts; raises SlackApiError on failure.

        Everything that could fail on the message itself (rendering, hashing)
        happens before `chat.postMessage`, so nothing after a successful post
        can leave it looking unposted but for the store write.
        """
        async with self._store.message_guard(tracked.id):
            message = await self.render(tracked)
            digest = fingerprint(message)
            ts = await self._fitting(
                tracked.id, message, partial(self._slack.post_message, tracked.channel)
            )
            await self._store.mark_posted(tracked.id, ts, digest, self._clock())
            MESSAGES_POSTED.inc()
            log.info("posted %s to %s at %s", tracked.id, tracked.channel, ts)
            return ts

    async def _fitting(
        self,
        interaction_id: str,
        message: RenderedMessage,
        send: Callable[[RenderedMessage], Awaitable[T]],
    ) -> T:
        """Send `message`; if Slack refuses it as too long, send its compact form instead
        (the same payload would be refused forever)."""
        try:
            return await send(message)
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error not in MESSAGE_REFUSED_ERRORS:
                raise
            log.warning(
                "Slack refused the message for %s (%s); sending its compact form",
                interaction_id,
                error,
            )
            return await send(compact_message(message, interaction_id))

    async def find_posted(self, tracked: TrackedInteraction, since: datetime | None) -> str | None:
        """The ts of a message already posted for it (crash window), found by metadata."""
        return await self._slack.find_posted(tracked.channel, tracked.id, since)

    async def refresh(self, interaction_id: str) -> bool:
        """Re-render from the store and update Slack if anything shown changed."""
        async with self._store.message_guard(interaction_id):
            tracked = await self._store.get(interaction_id)
            if tracked is None or tracked.ts is None:
                return False
            await self._refresh_escalations(tracked)
            message = await self.render(tracked)
            digest = fingerprint(message)
            if digest == tracked.rendered_hash:
                await self._store.set_rendered_hash(interaction_id, digest)
                return False
            await self._fitting(
                interaction_id,
                message,
                partial(self._slack.update_message, tracked.channel, tracked.ts),
            )
            # the full render's hash, even when the compact form went: it changes only
            # when what the message should show changes, so nothing is re-sent in a loop
            await self._store.set_rendered_hash(interaction_id, digest)
            MESSAGES_UPDATED.inc()
            log.info("updated message for %s (%s)", interaction_id, tracked.snapshot.status)
            return True
