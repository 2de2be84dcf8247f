"""Reminders and escalation before an interaction lapses, planned from the policy.

Each step ("remind 50%", "remind 5m", "escalate") is due at a point before
the interaction's current expiry, so a window that moves later re-plans every
step not yet taken. A step is claimed in the store before it is sent: once
per interaction across restarts and replicas. Sending claims; if the
interaction has ended by the time its lane sends, the step is marked skipped
and nothing goes out.

A step found due long after its time (the bridge was down) still goes out if
more than a minute is left, else it is skipped: a nudge with seconds to spare
helps nobody. Of several reminders due at once only the latest is sent.

Steps are at most once: one claimed but cut off by a shutdown before its lane
sent it is not sent again (a repeated nudge would be worse than a lost one).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Literal

from bot.clock import Clock
from bot.messages import Messages
from bot.messages.context import ESCALATE_STEP
from bot.messages.lanes import SendKind
from bot.messages.posting import escalating
from bot.metrics import REMINDERS_SENT
from bot.policy.live import LivePolicy
from bot.policy.routes import Route
from bot.policy.timing import Lead
from bot.slack.gateway import SlackGateway
from bot.slack.render.reminder import reminder_text
from bot.store import Store, TrackedInteraction
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind

log = logging.getLogger(__name__)

ON_TIME = timedelta(seconds=5)
"""A step this late was merely waiting for the next tick: it is on time."""
LATE_MIN_LEFT = timedelta(minutes=1)
"""A late step goes out only with more than this left before the expiry."""


def is_too_late(due_at: datetime, now: datetime, expires_at: datetime) -> bool:
    """A step found long after its time (the bridge was down) with a minute or less left."""
    return now - due_at > ON_TIME and expires_at - now <= LATE_MIN_LEFT


@dataclass(frozen=True)
class Step:
    name: str
    kind: Literal["remind", "escalate"]
    lead: Lead


def plan(route: Route) -> list[Step]:
    """The steps an interaction's rule asks for, named stably so a claim survives restarts."""
    steps = [Step(f"remind {lead.text}", "remind", lead) for lead in route.remind]
    if route.escalate is not None:
        steps.append(Step(ESCALATE_STEP, "escalate", route.escalate.at))
    return steps


class ReminderService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        publisher: Messages,
        policy: LivePolicy,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._publisher = publisher
        self._policy = policy
        self._clock = clock

    def _any_steps(self) -> bool:
        policy = self._policy.current
        return any(s.remind or s.escalate is not None for s in (policy.defaults, *policy.rules))

    async def run_due(self) -> int:
        """Claim every step due now and queue its send; returns how many were queued."""
        if not self._any_steps():
            return 0
        now = self._clock()
        waiting = [
            t
            for t in await self._store.open_interactions()
            if t.ts is not None and t.snapshot.expires_at is not None
        ]
        if not waiting:
            return 0
        taken = await self._store.steps_taken(t.id for t in waiting)
        queued = 0
        for tracked in waiting:
            done = {s.step for s in taken[tracked.id]}
            queued += await self._take_due(tracked, done, now)
        return queued

    async def _take_due(self, tracked: TrackedInteraction, done: set[str], now: datetime) -> int:
        expires = tracked.snapshot.expires_at
        assert expires is not None
        if now >= expires:
            return 0  # its ending is the poll's to show
        created = tracked.snapshot.created_at
        route = self._policy.route(tracked.snapshot)
        due = sorted(
            (
                (at, step)
                for step in plan(route)
                if step.name not in done and (at := step.lead.due_at(created, expires)) <= now
            ),
            key=lambda pair: pair[0],
        )
        reminders = [step.name for _, step in due if step.kind == "remind"]
        latest_reminder = reminders[-1] if reminders else None
        queued = 0
        for at, step in due:
            too_late = is_too_late(at, now, expires)
            superseded = step.kind == "remind" and step.name != latest_reminder
            if too_late or superseded:
                await self._store.claim_step(tracked.id, step.name, "skipped", now)
                log.info("skipped %s for %s: its time passed", step.name, tracked.id)
                continue
            if not await self._store.claim_step(tracked.id, step.name, "sent", now):
                continue
            if step.kind == "remind":
                self._queue_reminder(tracked, step)
            else:
                await self._queue_escalation(tracked, route)
            queued += 1
        return queued

    # ------------------------------------------------------------------ reminders

    def _queue_reminder(self, tracked: TrackedInteraction, step: Step) -> None:
        self._publisher.lanes.submit(
            tracked.channel,
            SendKind.POST,
            f"{tracked.id} {step.name}",
            partial(self._remind, tracked.id, step.name),
        )

    @staticmethod
    def _mentions(route: Route) -> list[str]:
        """Who a reminder mentions: the rule's deciders (users and groups), or @here."""
        if route.mention == "here":
            return ["<!here>"]
        if route.mention == "deciders" and not route.deciders.anyone:
            users = [f"<@{user}>" for user in route.deciders.users]
            return users + [f"<!subteam^{group}>" for group in route.deciders.groups]
        return []

    async def _remind(self, interaction_id: str, step: str) -> None:
        current = await self._still_open(interaction_id, step)
        if current is None or current.ts is None:
            return
        expires = current.snapshot.expires_at
        assert expires is not None
        route = self._policy.route(current.snapshot)
        text = reminder_text(expires, self._clock(), self._mentions(route))
        await self._slack.post_reply(current.shown_in, current.ts, text)
        REMINDERS_SENT.labels(route.rule).inc()
        await self._store.record(
            "reminded", self._clock(), interaction_id=interaction_id, step=step, rule=route.rule
        )
        log.info("reminded %s (%s)", interaction_id, step)

    async def _still_open(self, interaction_id: str, step: str) -> TrackedInteraction | None:
        """The interaction if it still waits; otherwise the step is marked skipped."""
        current = await self._store.get(interaction_id)
        if current is not None and current.waits_at(self._clock()):
            return current
        await self._store.skip_step(interaction_id, step)
        return None

    # ------------------------------------------------------------------ escalation

    async def _queue_escalation(self, tracked: TrackedInteraction, route: Route) -> None:
        escalate = route.escalate
        assert escalate is not None
        targets = ([escalate.to.channel] if escalate.to.channel else []) + escalate.to.users
        now = self._clock()
        for target in targets:
            key = MessageKey(tracked.id, MessageKind.ESCALATION, target)
            if await self._store.track_message(key, now):
                self._publisher.lanes.submit(
                    target,
                    SendKind.POST,
                    escalating(tracked.id),
                    partial(self._escalate, tracked.id, target),
                )

    async def _escalate(self, interaction_id: str, target: str) -> None:
        current = await self._still_open(interaction_id, ESCALATE_STEP)
        if current is None or current.ts is None:
            return
        await self._publisher.post_escalation(current, target)
