"""Renders an interaction's message from the stored record and sends it to Slack.

Every change re-renders the whole message from state (never patches blocks
from a payload), and a message is only sent again when what it shows has
changed. The store's message guard serialises everything that touches one
interaction's message, in this process and across replicas, so a poll and
a click never race on the same `chat.update`.

An escalation message is kept true the same way: every refresh of the
interaction's message re-renders its escalations too, so when the
interaction ends they say how.

So is each copy (a route that DMs several people posts the primary message
to the first and a `copy` to each other): a copy shows exactly what the
primary shows, so one render serves all of them, and every refresh brings
the copies in step before the primary. A decision taken from any copy, or an
ending, therefore reaches every DM. Messages to a user are posted to the
bot's DM with them (its `D…` id), which is what Slack wants named afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import partial
from typing import TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages.context import (
    ESCALATE_STEP,
    StoredFacts,
    Wording,
    message_context,
    posted,
    wants_votes,
)
from bot.messages.doubt import look_from, since_claim
from bot.messages.groups import GroupMessages
from bot.messages.lanes import Send, SendKind, SendLanes
from bot.messages.lifecycle import Lifecycle, Sending
from bot.messages.reads import FactReads
from bot.metrics import ESCALATIONS_SENT, MESSAGES_UPDATED
from bot.outages import level
from bot.policy.live import LivePolicy
from bot.slack.gateway import MESSAGE_REFUSED_ERRORS, SlackGateway
from bot.slack.ids import ESCALATION_METADATA_EVENT_TYPE
from bot.slack.render.compact import compact_message
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.escalation import EscalationFacts, render_escalation
from bot.slack.render.message import fingerprint, render_message
from bot.store import QueuedDecision, Store, TrackedInteraction, TrackedMessage
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind, MessageState

T = TypeVar("T")

log = logging.getLogger(__name__)

ESCALATED = "escalated"
"""The audit event an escalation message's post or adoption writes."""


class MessagePublisher:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        clock: Clock,
        lanes: SendLanes | None = None,
        policy: LivePolicy | None = None,
    ) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock
        self._policy = policy or LivePolicy("")
        self.lanes = lanes or SendLanes(post_rate=1.0, update_rate_per_minute=50.0)
        self.lifecycle = Lifecycle(store, clock)
        self.groups = GroupMessages(
            store, slack, clock, self.lanes, self.lifecycle, self.line_context
        )
        # a render's facts are read in the round that claims and records other lanes' sends
        self.reads = FactReads(self.lifecycle.sends)

    # ------------------------------------------------------------------ queuing (never waits)

    def post_soon(self, tracked: TrackedInteraction, send: Send) -> None:
        """Queue a post on its channel's lane. A step group's cards take turns with the
        channel's other posts (one flow), so a big group never holds the others back."""
        expires = tracked.snapshot.expires_at
        self.lanes.submit(
            tracked.channel,
            SendKind.POST,
            tracked.id,
            send,
            expires_at=expires.timestamp() if expires is not None else None,
            flow=f"group:{tracked.group_id}" if tracked.group_id else None,
        )

    def post_copy_soon(self, tracked: TrackedInteraction, target: str, send: Send) -> None:
        """Queue a copy's post on its own lane (a DM is a channel of its own)."""
        expires = tracked.snapshot.expires_at
        self.lanes.submit(
            target,
            SendKind.POST,
            tracked.id,
            send,
            expires_at=expires.timestamp() if expires is not None else None,
        )

    def reconcile_soon(self, channel: str, send: Send) -> None:
        """Queue the look for a channel's claims in doubt ahead of its posts: a post
        sent first would only lengthen the walk through the channel's history."""
        self.lanes.submit(channel, SendKind.URGENT_UPDATE, f"reconcile:{channel}", send)

    def refresh_soon(self, interaction_id: str, channel: str, *, urgent: bool = True) -> None:
        """Queue a re-render; `urgent` for a decision, an ending or a changed deadline."""
        kind = SendKind.URGENT_UPDATE if urgent else SendKind.COSMETIC_UPDATE
        self.lanes.submit(
            channel, kind, interaction_id, partial(self.refresh_quietly, interaction_id)
        )

    async def refresh_soon_by_id(self, interaction_id: str) -> None:
        """`refresh_soon` for a caller that knows only the id (a click, a redelivery)."""
        tracked = await self._store.get(interaction_id)
        if tracked is None:
            return
        # a copy may be out while the primary is not (its first person can't be reached)
        if tracked.ts is not None or await self._copies(interaction_id):
            self.refresh_soon(interaction_id, tracked.channel)

    async def refresh_group_soon(self, group_id: str) -> None:
        """Queue a re-render of a step group's own message (if it is posted)."""
        await self.groups.refresh_soon_by_id(group_id)

    async def refresh_quietly(self, interaction_id: str) -> None:
        """A refresh whose failure is logged, not raised: the store still marks the
        message out of step, so the next poll queues it again."""
        try:
            await self.refresh(interaction_id)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else repr(exc)
            log.log(level(exc), "updating the message for %s failed: %s", interaction_id, error)

    # ------------------------------------------------------------------ sending

    def _wording(self) -> Wording:
        current = self._policy.current
        return Wording(current.agents, current.links.run)

    def line_context(
        self, tracked: TrackedInteraction, queued: QueuedDecision | None
    ) -> MessageContext:
        """What a member's line in its step group message needs (its state, who decided,
        what is on its way, the agent's name), from what was already read: no I/O, so a
        group message of 400 members costs two store reads, not two thousand."""
        return message_context(
            tracked, StoredFacts(queued=queued), now=self._clock(), wording=self._wording()
        )

    async def context(self, tracked: TrackedInteraction) -> MessageContext:
        """Everything a message shows besides its record (one interaction's `contexts`)."""
        return (await self.contexts([tracked]))[tracked.id]

    async def contexts(self, many: Sequence[TrackedInteraction]) -> dict[str, MessageContext]:
        """`context` of each, by id, from a few queries for all of them rather than several
        for each (Home renders every open interaction's buttons); each route looked up once."""
        facts = await self.reads.facts([t.id for t in many])
        now, wording = self._clock(), self._wording()
        found: dict[str, MessageContext] = {}
        for tracked in many:
            route = self._policy.route(tracked.snapshot)
            votes, dropped = [], []
            if wants_votes(tracked, route):
                votes = await self._store.votes(tracked.id)
                dropped = await self._store.dropped_votes(tracked.id)
            stored = StoredFacts(
                queued=facts.decisions.get(tracked.id),
                messages=facts.messages[tracked.id],
                steps=facts.steps[tracked.id],
                allowances=facts.allowances[tracked.id],
                votes=votes,
                dropped_votes=dropped,
            )
            found[tracked.id] = message_context(
                tracked, stored, now=now, wording=wording, route=route
            )
        return found

    async def _escalations(self, interaction_id: str) -> list[TrackedMessage]:
        return posted(await self._store.messages(interaction_id), MessageKind.ESCALATION)

    async def render(self, tracked: TrackedInteraction) -> RenderedMessage:
        return render_message(tracked.snapshot, await self.context(tracked))

    async def _render_escalation(self, tracked: TrackedInteraction) -> RenderedMessage:
        taken = (await self._store.steps_taken([tracked.id]))[tracked.id]
        step = next((s for s in taken if s.step == ESCALATE_STEP), None)
        escalate = self._policy.route(tracked.snapshot).escalate
        facts = EscalationFacts(
            escalated_at=step.taken_at if step is not None else self._clock(),
            link=step.link if step is not None else None,
            groups=tuple(escalate.to.groups) if escalate is not None else (),
        )
        return render_escalation(tracked.snapshot, await self.context(tracked), facts)

    async def post_escalation(self, tracked: TrackedInteraction, target: str) -> bool:
        """Post a tracked escalation message to `target` (a channel or a user's DM); True
        when this call posted it or found it posted (and recorded it).

        The one way an escalation goes out, when its step comes due and when a later
        process finds one tracked and not recorded (a crash, a lost answer). One left in
        doubt (claimed, maybe sent) is looked for in `target` first and adopted if found;
        one not found, or never claimed, is posted only while its interaction waits, and
        otherwise dropped (an escalation of what has ended says nothing), and only once
        the interaction's own message is in Slack (the escalation links to it). Its
        `escalated` audit entry is written with its ts, in one transaction, however it
        was recorded. The interaction is read again under the guard: the record handed
        over was read before a wait in a lane, and it may have ended meanwhile.
        """
        key = MessageKey(tracked.id, MessageKind.ESCALATION, target)
        async with self._store.message_guard(tracked.id):
            current = await self._store.get(tracked.id)
            claimed = await self._store.get_message(tracked.id, key.purpose, target)
            if current is None or claimed is None or claimed.state == MessageState.POSTED:
                return False
            tracked = current
            route = self._policy.route(tracked.snapshot)
            audit = {"to": target, "rule": route.rule}
            if claimed.state == MessageState.POSTING:
                where = await self._slack.conversation_for(target)
                found = await self._slack.find_posted(
                    where,
                    tracked.id,
                    since_claim(claimed.claimed_at),
                    event_type=ESCALATION_METADATA_EVENT_TYPE,
                )
                if await self.lifecycle.reconcile(
                    key,
                    (where, found) if found else None,
                    audit_detail=audit,
                    audit_event=ESCALATED,
                ):
                    ESCALATIONS_SENT.labels(route.rule).inc()
                    return True
            if not tracked.waits_at(self._clock()):
                await self._store.drop_claim(key)
                return False
            if tracked.ts is None:
                return False  # its own message first: a later poll brings this one
            await self._link_original(tracked)

            async def prepare() -> tuple[Sending, str]:
                message = await self._render_escalation(tracked)
                return self._sender(tracked.id, message, target), fingerprint(message)

            posted = await self.lifecycle.post(
                key, claimed.state, prepare, audit, audit_event=ESCALATED
            )
        if posted is None:
            return False
        ESCALATIONS_SENT.labels(route.rule).inc()
        log.info("escalated %s to %s", tracked.id, target)
        return True

    async def _link_original(self, tracked: TrackedInteraction) -> None:
        """Keep the link to the interaction's own message with its escalate step, once:
        every escalation message of it shows that link."""
        assert tracked.ts is not None
        taken = (await self._store.steps_taken([tracked.id]))[tracked.id]
        if not any(s.step == ESCALATE_STEP and s.link for s in taken):
            link = await self._slack.permalink(tracked.shown_in, tracked.ts)
            await self._store.set_step_link(tracked.id, ESCALATE_STEP, link)

    async def _refresh_escalations(self, tracked: TrackedInteraction) -> None:
        """Bring its escalation messages in step, before the primary message."""
        for sent in await self._escalations(tracked.id):
            message = await self._render_escalation(tracked)
            await self._refresh_further(tracked, sent, message, fingerprint(message))

    async def _refresh_further(
        self,
        tracked: TrackedInteraction,
        sent: TrackedMessage,
        message: RenderedMessage,
        digest: str,
    ) -> None:
        """Bring one further message (a copy, an escalation) in step, before the primary.

        A transport failure propagates, so the primary stays out of step and the next
        poll tries again. A refusal by Slack (that DM is gone, the bot left that
        channel, the message was deleted) is logged and passed over: it would refuse
        every time, and one destination out of reach must never keep the others, or the
        primary, from the truth.
        """
        if digest == sent.rendered_hash:
            return
        assert sent.ts is not None
        try:
            await self._fitting(
                tracked.id, message, partial(self._slack.update_message, sent.shown_in, sent.ts)
            )
        except SlackApiError as exc:
            log.log(
                level(exc),
                "updating the %s of %s in %s failed: %s",
                sent.purpose,
                tracked.id,
                sent.shown_in,
                exc.response.get("error"),
            )
            return
        await self.lifecycle.shown(MessageKey(tracked.id, sent.purpose, sent.channel), digest)
        MESSAGES_UPDATED.inc()

    async def _copies(self, interaction_id: str) -> list[TrackedMessage]:
        return posted(await self._store.messages(interaction_id), MessageKind.COPY)

    async def post(self, tracked: TrackedInteraction) -> str | None:
        """Claim and post a tracked interaction, and record its ts; None when it was not
        this call's to post (claimed or posted meanwhile). Raises SlackApiError on failure.

        `queued` (nothing sent yet) is claimed just before the send, with every other
        lane's claims of the moment in one transaction; `posting` (a claim looked for
        and not found) is posted as it is. Everything that could fail on the message
        itself (rendering, hashing) happens before `chat.postMessage`, so nothing after
        a successful post can leave it looking unposted but for the store write.
        """
        # a card of a step group is a reply in its group's thread, posted after the group
        thread = await self.groups.thread_of(tracked.group_id) if tracked.group_id else None
        key = MessageKey(tracked.id, MessageKind.PRIMARY, tracked.channel)
        async with self._store.message_guard(tracked.id):

            async def prepare() -> tuple[Sending, str]:
                message = await self.render(tracked)
                where = await self._slack.conversation_for(tracked.channel)
                return self._sender(tracked.id, message, where, thread), fingerprint(message)

            posted = await self.lifecycle.post(key, tracked.state, prepare, {})
            if posted is None:
                return None
            shown_in, ts = posted
            log.info("posted %s to %s at %s", tracked.id, shown_in, ts)
        if tracked.group_id:
            self.groups.refresh_soon(tracked.group_id, tracked.channel)
        return ts

    def _sender(
        self,
        interaction_id: str,
        message: RenderedMessage,
        where: str,
        thread: str | None = None,
    ) -> Sending:
        """The post of `message` to `where`, in its compact form if Slack finds it too long."""
        post = partial(self._slack.post_message_to, where, thread_ts=thread)
        return partial(self._fitting, interaction_id, message, post)

    async def post_copy(self, interaction_id: str, target: str) -> None:
        """Claim and post a copy to `target` (a user's DM) and record where it landed.

        Read afresh under the guard: it shows what the primary shows at this
        moment, and a copy recorded meanwhile (a look in the DM found it) is
        left alone. Raises SlackApiError when Slack refuses it.
        """
        key = MessageKey(interaction_id, MessageKind.COPY, target)
        async with self._store.message_guard(interaction_id):
            tracked = await self._store.get(interaction_id)
            claimed = await self._store.get_message(interaction_id, MessageKind.COPY, target)
            if tracked is None or claimed is None:
                return

            async def prepare() -> tuple[Sending, str]:
                message = await self.render(tracked)
                where = await self._slack.conversation_for(target)
                return self._sender(interaction_id, message, where), fingerprint(message)

            posted = await self.lifecycle.post(key, claimed.state, prepare, {"copy_for": target})
            if posted is not None:
                log.info("posted a copy of %s to %s at %s", interaction_id, *posted)

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

    async def find_posted(
        self,
        interaction_id: str,
        destination: str,
        since: datetime | None,
        *,
        group_id: str | None = None,
    ) -> tuple[str, str | None]:
        """Where its message to `destination` is posted (a user's DM by its own id), and
        the ts of one already there (the crash window), found by metadata.

        A card of a step group is a reply in its group message's thread, so it is
        looked for there; a group not posted yet has no card under it.
        """
        where = await self._slack.conversation_for(destination)
        if group_id is None:
            return where, await self._slack.find_posted(where, interaction_id, since)
        group = await self._store.group(group_id)
        if group is None or group.ts is None:
            return where, None
        found = await self._slack.find_posted(where, interaction_id, since, thread_ts=group.ts)
        return where, found

    async def find_many_posted(
        self, destination: str, claims: Sequence[TrackedInteraction]
    ) -> dict[str, tuple[str, str]]:
        """Which of these claims to `destination` are in Slack: id → (where, ts).

        One walk of the channel's history for all of them, and one of each step
        group's thread their cards reply in, each from the oldest point any of
        them could have been posted at (`look_from`).
        """
        where = await self._slack.conversation_for(destination)
        by_thread: dict[str | None, list[TrackedInteraction]] = {}
        for claim in claims:
            by_thread.setdefault(claim.group_id, []).append(claim)
        found: dict[str, tuple[str, str]] = {}
        for group_id, members in by_thread.items():
            thread = None
            if group_id is not None:
                group = await self._store.group(group_id)
                if group is None or group.ts is None:
                    continue  # a group not posted yet has no card under it
                thread = group.ts
            oldest = min(look_from(m) for m in members)
            posted = await self._slack.posted_since(where, f"{oldest:.6f}", thread_ts=thread)
            found.update({m.id: (where, posted[m.id]) for m in members if m.id in posted})
        return found

    async def refresh(self, interaction_id: str) -> bool:
        """Re-render from the store and update Slack if anything shown changed."""
        async with self._store.message_guard(interaction_id):
            tracked = await self._store.get(interaction_id)
            if tracked is None:
                return False
            copies = await self._copies(interaction_id)
            if tracked.ts is None and not copies:
                return False
            await self._refresh_escalations(tracked)
            message = await self.render(tracked)
            digest = fingerprint(message)
            for copy in copies:  # each shows exactly what the primary shows: one render
                await self._refresh_further(tracked, copy, message, digest)
            if tracked.ts is None:
                return False  # its copies are out (the primary's post failed): keep them true
            primary = MessageKey(interaction_id, MessageKind.PRIMARY, tracked.channel)
            if digest == tracked.rendered_hash:
                await self.lifecycle.shown(primary, digest)
                return False
            await self._fitting(
                interaction_id,
                message,
                partial(self._slack.update_message, tracked.shown_in, tracked.ts),
            )
            # the full render's hash, even when the compact form went: it changes only
            # when what the message should show changes, so nothing is re-sent in a loop
            await self.lifecycle.shown(primary, digest)
            MESSAGES_UPDATED.inc()
            log.info("updated message for %s (%s)", interaction_id, tracked.snapshot.status)
        if tracked.group_id:  # its line in the group message says the same
            self.groups.refresh_soon(tracked.group_id, tracked.channel)
        return True
