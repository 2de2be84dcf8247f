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
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.domain import SlackActor
from bot.metrics import MESSAGES_POSTED, MESSAGES_UPDATED
from bot.policy.live import LivePolicy
from bot.slack.gateway import MESSAGE_REFUSED_ERRORS, SlackGateway
from bot.slack.render.allowance import StandingOffer
from bot.slack.render.compact import compact_message
from bot.slack.render.context import MessageContext, Nudge, QuorumState, RenderedMessage
from bot.slack.render.escalation import EscalationFacts, render_escalation
from bot.slack.render.message import fingerprint, render_message
from bot.slack.render.quorum import people_text
from bot.store import QueuedDecision, Store, TakenStep, TrackedInteraction, TrackedMessage
from bot.store.schema import COPY, PRIMARY
from bot.store.sends import MessageKey, SentMessage
from bot.sync.batches import SendBatches
from bot.sync.groups import GroupMessages
from bot.sync.lanes import Send, SendKind, SendLanes
from bot.sync.reads import FactReads

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
        policy: LivePolicy | None = None,
    ) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock
        self._policy = policy or LivePolicy("")
        self.lanes = lanes or SendLanes(post_rate=1.0, update_rate_per_minute=50.0)
        self.groups = GroupMessages(store, slack, clock, self.lanes, self.line_context)
        self.sends = SendBatches(store, clock)
        self.reads = FactReads(store)

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

    async def refresh_quietly(self, interaction_id: str) -> None:
        """A refresh whose failure is logged, not raised: the store still marks the
        message out of step, so the next poll queues it again."""
        try:
            await self.refresh(interaction_id)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else repr(exc)
            log.warning("updating the message for %s failed: %s", interaction_id, error)

    # ------------------------------------------------------------------ sending

    def line_context(
        self, tracked: TrackedInteraction, queued: QueuedDecision | None
    ) -> MessageContext:
        """What a member's line in its step group message needs (its state, who decided,
        what is on its way, the agent's name), from what was already read: no I/O, so a
        group message of 400 members costs two store reads, not two thousand."""
        return MessageContext(
            now=self._clock(),
            decided_in_slack=tracked.decided_in_slack,
            queued=queued.decision if queued and tracked.snapshot.is_pending else None,
            gone=tracked.gone,
            agent_names=self._policy.current.agents,
            run_link_template=self._policy.current.links.run,
            asked_in=tracked.channel,
        )

    async def context(self, tracked: TrackedInteraction) -> MessageContext:
        """Everything a message shows besides its record (one interaction's `contexts`)."""
        return (await self.contexts([tracked]))[tracked.id]

    def _deciders(self, tracked: TrackedInteraction) -> tuple[str, ...]:
        """Who the policy in force lets decide it, users then groups; () when anyone may."""
        deciders = self._policy.route(tracked.snapshot).deciders
        return () if deciders.anyone else (*deciders.users, *deciders.groups)

    async def contexts(self, many: Sequence[TrackedInteraction]) -> dict[str, MessageContext]:
        """`context` of each, by id, from a few queries for all of them rather than several
        for each (Home renders every open interaction's buttons)."""
        facts = await self.reads.facts([t.id for t in many])
        queued, messages, steps = facts.decisions, facts.messages, facts.steps
        granted = facts.allowances
        found: dict[str, MessageContext] = {}
        for tracked in many:
            decision = queued.get(tracked.id)
            found[tracked.id] = MessageContext(
                now=self._clock(),
                decided_in_slack=tracked.decided_in_slack,
                queued=decision.decision if decision and tracked.snapshot.is_pending else None,
                gone=tracked.gone,
                agent_names=self._policy.current.agents,
                run_link_template=self._policy.current.links.run,
                asked_in=tracked.channel,
                also_asked=tuple(m.channel for m in _posted_copies(messages[tracked.id])),
                nudges=_nudges(steps[tracked.id], messages[tracked.id]),
                quorum=await self._quorum(tracked),
                deciders=self._deciders(tracked),
                standing=self._standing(tracked),
                allowances=tuple(granted[tracked.id]),
            )
        return found

    def _standing(self, tracked: TrackedInteraction) -> StandingOffer | None:
        """The standing approvals the policy in force offers on it (approvals only)."""
        if tracked.kind != "approval_request":
            return None
        allowed = self._policy.route(tracked.snapshot).standing
        if allowed is None:
            return None
        return StandingOffer(tuple(allowed.scopes), allowed.max_seconds)

    async def _quorum(self, tracked: TrackedInteraction) -> QuorumState | None:
        """Votes towards the rule's quorum, and who else may still approve."""
        if tracked.kind != "approval_request":
            return None
        route = self._policy.route(tracked.snapshot)
        if route.quorum <= 1:
            return None
        standing = await self._store.votes(tracked.id)
        voted = {v.user_id for v in standing}
        deciders = route.deciders
        others = (
            ""
            if deciders.anyone
            else people_text([u for u in deciders.users if u not in voted], deciders.groups)
        )
        dropped = await self._store.dropped_votes(tracked.id)
        return QuorumState(
            needed=route.quorum,
            approvers=tuple(SlackActor(v.user_id, v.user_name) for v in standing),
            others=others,
            dropped=tuple(
                (SlackActor(v.user_id, v.user_name), v.dropped_why or "") for v in dropped
            ),
        )

    async def _escalations(self, interaction_id: str) -> list[TrackedMessage]:
        return _posted_escalations(await self._store.messages(interaction_id))

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

    async def _copies(self, interaction_id: str) -> list[TrackedMessage]:
        return _posted_copies(await self._store.messages(interaction_id))

    async def _refresh_copies(
        self,
        tracked: TrackedInteraction,
        copies: list[TrackedMessage],
        message: RenderedMessage,
        digest: str,
    ) -> None:
        """Bring each copy in step with the primary's render, before the primary.

        As for escalations: a transport failure propagates (the primary stays out
        of step and the next poll tries again); a refusal by Slack (that DM is
        gone, the message was deleted) is logged and passed over, so one person
        out of reach never keeps the others, or the primary, from the truth.
        """
        for copy in copies:
            if digest == copy.rendered_hash:
                continue
            assert copy.ts is not None
            try:
                await self._fitting(
                    tracked.id, message, partial(self._slack.update_message, copy.shown_in, copy.ts)
                )
            except SlackApiError as exc:
                log.warning(
                    "updating the copy of %s in %s failed: %s",
                    tracked.id,
                    copy.shown_in,
                    exc.response.get("error"),
                )
                continue
            await self._store.set_message_hash(
                tracked.id, COPY, copy.channel, digest, self._clock()
            )
            MESSAGES_UPDATED.inc()

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
        key = MessageKey(tracked.id, PRIMARY, tracked.channel)
        async with self._store.message_guard(tracked.id):
            message = await self.render(tracked)
            digest = fingerprint(message)
            where = await self._slack.conversation_for(tracked.channel)
            if tracked.state == "queued" and not await self.sends.claim(key):
                return None
            shown_in, ts = await self._sending(
                key, message, partial(self._slack.post_message_to, where, thread_ts=thread)
            )
            await self.sends.record(SentMessage(key, ts, digest, shown_in))
            MESSAGES_POSTED.inc()
            log.info("posted %s to %s at %s", tracked.id, shown_in, ts)
        if tracked.group_id:
            self.groups.refresh_soon(tracked.group_id, tracked.channel)
        return ts

    async def _sending(
        self,
        key: MessageKey,
        message: RenderedMessage,
        send: Callable[[RenderedMessage], Awaitable[tuple[str, str]]],
    ) -> tuple[str, str]:
        """`_fitting` for a claimed message: when Slack refuses it (an answer that says
        nothing was done) the claim goes back to `queued`, so no look through history is
        owed; an answer that may hide a post (a 5xx, `internal_error`) leaves it in doubt."""
        try:
            return await self._fitting(key.interaction_id, message, send)
        except SlackApiError as exc:
            if nothing_posted(exc):
                await self._store.unclaim(key, self._clock())
            raise

    async def post_copy(self, interaction_id: str, target: str) -> None:
        """Claim and post a copy to `target` (a user's DM) and record where it landed.

        Read afresh under the guard: it shows what the primary shows at this
        moment, and a copy recorded meanwhile (a look in the DM found it) is
        left alone. Raises SlackApiError when Slack refuses it.
        """
        key = MessageKey(interaction_id, COPY, target)
        async with self._store.message_guard(interaction_id):
            tracked = await self._store.get(interaction_id)
            claimed = await self._store.get_message(interaction_id, COPY, target)
            if tracked is None or claimed is None or claimed.state == "posted":
                return
            message = await self.render(tracked)
            where = await self._slack.conversation_for(target)
            if claimed.state == "queued" and not await self.sends.claim(key):
                return
            shown_in, ts = await self._sending(
                key, message, partial(self._slack.post_message_to, where)
            )
            await self.sends.record(
                SentMessage(key, ts, fingerprint(message), shown_in, {"copy_for": target})
            )
            MESSAGES_POSTED.inc()
            log.info("posted a copy of %s to %s at %s", interaction_id, shown_in, ts)

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
        self, destination: str, claims: Sequence[TrackedInteraction], margin: timedelta
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
            oldest = min(look_from(m, margin) for m in members)
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
            await self._refresh_copies(tracked, copies, message, digest)
            if tracked.ts is None:
                return False  # its copies are out (the primary's post failed): keep them true
            if digest == tracked.rendered_hash:
                await self._store.set_rendered_hash(interaction_id, digest)
                return False
            await self._fitting(
                interaction_id,
                message,
                partial(self._slack.update_message, tracked.shown_in, tracked.ts),
            )
            # the full render's hash, even when the compact form went: it changes only
            # when what the message should show changes, so nothing is re-sent in a loop
            await self._store.set_rendered_hash(interaction_id, digest)
            MESSAGES_UPDATED.inc()
            log.info("updated message for %s (%s)", interaction_id, tracked.snapshot.status)
        if tracked.group_id:  # its line in the group message says the same
            self.groups.refresh_soon(tracked.group_id, tracked.channel)
        return True


# Slack's answers after which a post may have been made all the same
MAYBE_POSTED_ERRORS = frozenset(
    {"internal_error", "fatal_error", "request_timeout", "service_unavailable"}
)


def nothing_posted(exc: SlackApiError) -> bool:
    """Slack refused the post outright (bad channel, too long, rate-limited): it did nothing."""
    status = getattr(exc.response, "status_code", 200)
    return status < 500 and exc.response.get("error") not in MAYBE_POSTED_ERRORS


def look_from(claim: TrackedInteraction, margin: timedelta) -> float:
    """Where a look for an in-doubt claim starts (a Slack ts, in seconds): after the newest
    message of ours its channel had when it was claimed, or, if it had none, `margin`
    before the claim (clocks differ a little)."""
    if claim.after_ts is not None:
        return float(claim.after_ts)
    claimed = claim.claimed_at or datetime.now(tz=UTC)
    return (claimed - margin).timestamp()


def _posted_copies(messages: list[TrackedMessage]) -> list[TrackedMessage]:
    return [m for m in messages if m.purpose == COPY and m.state == "posted" and m.ts is not None]


def _posted_escalations(messages: list[TrackedMessage]) -> list[TrackedMessage]:
    return [
        m for m in messages if m.purpose == ESCALATION and m.state == "posted" and m.ts is not None
    ]


def _nudges(taken: list[TakenStep], messages: list[TrackedMessage]) -> tuple[Nudge, ...]:
    """The reminders and escalations sent (`taken`), an escalation naming where it went."""
    sent = [s for s in taken if s.sent]
    targets: tuple[str, ...] = ()
    if any(s.step == ESCALATE_STEP for s in sent):
        targets = tuple(m.channel for m in _posted_escalations(messages))
    return tuple(
        Nudge("escalate", s.taken_at, targets)
        if s.step == ESCALATE_STEP
        else Nudge("remind", s.taken_at)
        for s in sent
    )
