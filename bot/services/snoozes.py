"""Snoozes ("Remind me"): keep a person's choice, and DM them when it falls due.

A choice is judged when it arrives, whatever the menu showed (see
`slack.snooze_choices`): only on an interaction that still accepts
decisions, and only if the reminder would fall due before its expiry;
otherwise the person is told why and nothing is kept. A new choice replaces
the person's earlier one on the same interaction.

Kept snoozes live in the store, so they outlive restarts and any replica may
send them: the job claims the due ones (each by one worker, with a lease)
and queues each DM on the person's send lane. Just before sending, the
interaction is read again: if it ended (decided, expired, cancelled, gone)
or a decision is on its way, every waiting snooze on it is dropped and
nothing is sent. That check, not any eager clean-up, is what guarantees a
finished interaction never reminds anyone.

Delivery is at most once: a snooze is marked sent just before its DM goes,
so a crash in between loses one reminder rather than sending it twice; one
claimed but still waiting in a lane when the process stops falls due again
once its lease lapses.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages import Messages
from bot.messages.lanes import SendKind
from bot.metrics import SNOOZES
from bot.outages import level
from bot.slack.gateway import SlackGateway
from bot.slack.render.context import MessageContext
from bot.slack.render.snooze import (
    SnoozeAnswer,
    SnoozeFacts,
    SnoozeKept,
    SnoozeNotWaiting,
    SnoozeTooLate,
    render_snooze_reminder,
)
from bot.slack.render.snooze_choices import CHOICES, SnoozeChoice, choice_for
from bot.slack.render.status import accepts_decisions
from bot.store import Snooze, Store, TrackedInteraction
from bot.store.schema import MessageKind

log = logging.getLogger(__name__)

SNOOZE_LEASE = timedelta(minutes=1)
"""How long a claimed snooze may wait in its lane before another worker may take it."""


class SnoozeService:
    """`choices` are the menu's (`snooze_choices.CHOICES`); a test may give shorter waits."""

    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        publisher: Messages,
        clock: Clock,
        *,
        choices: Sequence[SnoozeChoice] = CHOICES,
        lease: timedelta = SNOOZE_LEASE,
    ) -> None:
        self._store = store
        self._slack = slack
        self._publisher = publisher
        self._clock = clock
        self._choices = choices
        self._lease = lease

    def is_choice(self, value: str | None) -> bool:
        """Whether an overflow option's value is one of the "Remind me" choices."""
        return choice_for(value, self._choices) is not None

    async def snooze(self, interaction_id: str, user_id: str, value: str) -> SnoozeAnswer:
        """Keep `user_id`'s choice `value` on the interaction; what to tell them of it."""
        choice = choice_for(value, self._choices)
        if choice is None:
            raise ValueError(f"not a Remind me choice: {value!r}")
        now = self._clock()
        tracked = await self._store.get(interaction_id)
        if tracked is None or await self._still_waiting(tracked, now) is None:
            return SnoozeNotWaiting()
        expires = tracked.snapshot.expires_at
        due = choice.due_at(now, expires)
        if due is None or not choice.accepts(now, expires):
            return SnoozeTooLate(choice, now, expires)
        added = await self._store.add_snooze(interaction_id, user_id, due, now)
        if added is None:
            return SnoozeNotWaiting()
        snooze, replaced = added
        log.info("snooze %d: %s on %s due %s", snooze.id, user_id, interaction_id, due)
        return SnoozeKept(choice, due, replaced.due_at if replaced is not None else None)

    async def run_due(self) -> int:
        """Claim the snoozes due now and queue their DMs; returns how many were queued."""
        now = self._clock()
        claimed = await self._store.claim_due_snoozes(now, now + self._lease)
        for snooze in claimed:
            self._publisher.lanes.submit(
                snooze.user_id, SendKind.POST, f"snooze {snooze.id}", partial(self._send, snooze)
            )
        return len(claimed)

    async def run_while_due(self) -> datetime | None:
        """`run_due` as a waking job runs it; returns when the next snooze falls due (the
        store tells of each one this process keeps)."""
        await self.run_due()
        return await self._store.next_snooze_due()

    async def _still_waiting(
        self, tracked: TrackedInteraction, now: datetime
    ) -> MessageContext | None:
        """The message context while the interaction still accepts decisions; else None."""
        expires = tracked.snapshot.expires_at
        if not tracked.is_open or (expires is not None and now >= expires):
            return None
        ctx = await self._publisher.context(tracked)
        return ctx if accepts_decisions(tracked.snapshot, ctx) else None

    async def _send(self, snooze: Snooze) -> None:
        now = self._clock()
        tracked = await self._store.get(snooze.interaction_id)
        ctx = await self._still_waiting(tracked, now) if tracked is not None else None
        if tracked is None or ctx is None:
            dropped = await self._store.drop_snoozes_for(snooze.interaction_id, now)
            if dropped:
                SNOOZES.labels("dropped").inc(dropped)
                log.info(
                    "dropped %d snooze(s) on %s: it ended first", dropped, snooze.interaction_id
                )
            return
        message = render_snooze_reminder(
            tracked.snapshot, ctx, SnoozeFacts(await self._link(tracked, snooze.user_id))
        )
        if not await self._store.take_snooze(snooze.id, self._clock()):
            return  # another worker took it after this one's lease lapsed
        try:
            await self._slack.post_message_to(snooze.user_id, message)
        except SlackApiError as exc:
            # not posted (a DM is sent at most once: it is taken before the post), and
            # refused it would be again; Slack down is said by its outage, this at DEBUG
            await self._store.drop_snooze(snooze.id, self._clock())
            SNOOZES.labels("dropped").inc()
            log.log(
                level(exc),
                "Slack refused snooze %d for %s: %s",
                snooze.id,
                snooze.user_id,
                exc.response.get("error"),
            )
            return
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.log(
                level(exc),
                "snooze %d for %s may not have reached Slack: %r",
                snooze.id,
                snooze.user_id,
                exc,
            )
            return
        SNOOZES.labels("sent").inc()
        log.info("reminded %s of %s (snooze %d)", snooze.user_id, snooze.interaction_id, snooze.id)

    async def _link(self, tracked: TrackedInteraction, user_id: str) -> str | None:
        """The permalink of the message this person has: their own copy when the rule
        sent it to people's DMs (a link into someone else's DM opens nothing); None if
        Slack won't say (the DM names the channel)."""
        channel, ts = tracked.shown_in, tracked.ts
        own = await self._store.get_message(tracked.id, MessageKind.COPY, user_id)
        if own is not None and own.ts is not None:
            channel, ts = own.shown_in, own.ts
        if ts is None:
            return None
        try:
            return await self._slack.permalink(channel, ts)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.log(level(exc), "no permalink for %s: %r", tracked.id, exc)
            return None
