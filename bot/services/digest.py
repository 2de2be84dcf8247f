"""Scheduled digests: at each cron time of each `digest:` entry, one summary, once.

One rule gives every promise about timing. At each tick the service finds,
for each entry, the latest time its cron fired at or before now:

- not more than an hour ago (`CATCH_UP`): it is claimed in the store and sent.
  A job ticking every few seconds sends it at the cron time; a bridge that
  was down at that time and is back within the hour sends it once on start;
- longer ago: it is claimed as skipped and never sent (a bridge down all
  night does not post yesterday's digest at noon; the next one covers the
  whole gap, since it starts where the last one *sent* left off).

The claim, a row keyed by (the entry's key, the scheduled time), is what
makes it once across restarts, replicas and reloads; the in-memory note of
the last time settled only spares the store a write per tick. The entries
are read from the live policy at every tick, so a SIGHUP applies at once;
an entry it changes is a new digest (its key is a hash of what it says).

Delivery is at most once: a claim cut off before its message was posted is
given back (it may be taken again within the hour); one cut off while the
post was on the wire stays claimed, since it may have reached Slack. One
Slack refused, or that could not be put together, is marked skipped and
logged rather than retried every tick; nothing is lost from the summaries,
since the next digest covers everything since the last one *sent*.

Posts take their turn from the destination's send lane budget, so a digest
never makes a burst of approvals in the same channel hit Slack's rate limit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages import Messages
from bot.outages import level
from bot.policy.digests import PRECISION, DigestEntry, latest_fire, next_fire
from bot.policy.live import LivePolicy
from bot.services.advice import ADVICE_DAYS, advice_from
from bot.services.reports import outcome_of, stats_by_rule
from bot.slack.gateway import SlackGateway
from bot.slack.links import MessageLinks
from bot.slack.render.context import RenderedMessage
from bot.slack.render.digest import (
    SHOWN_ITEMS,
    Asked,
    DigestFacts,
    DigestItem,
    RuleFigures,
    Waiter,
    render_digest,
)
from bot.store import Store, TrackedInteraction

log = logging.getLogger(__name__)

CATCH_UP = timedelta(hours=1)
"""A scheduled time found this late or less is still sent; an older one is skipped."""
LOOKBACK = timedelta(days=35)
"""How far back a missed time is looked for, to record it skipped (a monthly cron fits)."""
FIRST_PERIOD = timedelta(hours=24)
"""What the first digest of an entry covers: there is no previous one to start from."""


def longest_waits(
    ended: Sequence[TrackedInteraction], pending: Sequence[TrackedInteraction], now: datetime
) -> list[Waiter]:
    """Agents' tools by the longest any of their interactions waited on people, longest first.

    An ended one waited until it ended (decided, expired or withdrawn); one
    still pending has waited until now.
    """
    found: dict[tuple[str, str], list[float]] = {}
    still: dict[tuple[str, str], int] = {}
    for tracked, open_ in [(t, False) for t in ended] + [(t, True) for t in pending]:
        snapshot = tracked.snapshot
        until = now if open_ else (snapshot.resolved_at or snapshot.updated_at)
        key = (snapshot.agent_id, snapshot.tool_name)
        found.setdefault(key, []).append(max(0.0, (until - snapshot.created_at).total_seconds()))
        still[key] = still.get(key, 0) + int(open_)
    waiters = [
        Waiter(agent, tool, max(waits), len(waits), still[(agent, tool)])
        for (agent, tool), waits in found.items()
    ]
    return sorted(waiters, key=lambda w: (-w.longest, w.agent_id, w.tool_name))


class DigestService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        publisher: Messages,
        links: MessageLinks,
        policy: LivePolicy,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._publisher = publisher
        self._links = links
        self._policy = policy
        self._clock = clock
        self._settled: dict[str, datetime] = {}  # entry key -> latest time claimed or found taken

    async def run_due(self, now: datetime | None = None) -> int:
        """Send each entry's digest whose time has come; returns how many were sent."""
        now = now or self._clock()
        sent = 0
        for entry in self._policy.current.digest:
            scheduled = self._due(entry, now)
            if scheduled is not None and await self._take(entry, scheduled, now):
                sent += 1
        return sent

    def _due(self, entry: DigestEntry, now: datetime) -> datetime | None:
        """The entry's latest scheduled time not yet settled here, if any."""
        trigger = entry.trigger()
        settled = self._settled.get(entry.key)
        if settled is not None:
            following = next_fire(trigger, settled + PRECISION)
            if following is None or following > now:
                return None  # nothing fired since the time last settled: one question, no search
        scheduled = latest_fire(trigger, now, LOOKBACK)
        return None if scheduled is None or scheduled == settled else scheduled

    async def _take(self, entry: DigestEntry, scheduled: datetime, now: datetime) -> bool:
        """Claim the time and send it; False when late, taken elsewhere, or not delivered."""
        key = entry.key
        if now - scheduled > CATCH_UP:
            if await self._store.claim_digest(key, scheduled, "skipped", now):
                log.info("digest to %s for %s skipped: over an hour late", entry.to, scheduled)
            self._settled[key] = scheduled
            return False
        claimed = await self._store.claim_digest(key, scheduled, "sending", now)
        self._settled[key] = scheduled
        if not claimed:
            return False  # sent, or being sent, by another replica or an earlier run
        return await self._send(entry, scheduled, now)

    async def _send(self, entry: DigestEntry, scheduled: datetime, now: datetime) -> bool:
        key = entry.key
        try:
            message = render_digest(await self._facts(entry, scheduled, now))
            await self._pace(entry.to)
        except asyncio.CancelledError:
            await self._store.release_digest(key, scheduled)  # nothing left: take it again
            self._settled.pop(key, None)
            raise
        except Exception:
            await self._store.skip_digest(key, scheduled)
            log.exception("digest to %s for %s not sent", entry.to, scheduled)
            return False
        return await self._post(entry, scheduled, message)

    async def _post(
        self, entry: DigestEntry, scheduled: datetime, message: RenderedMessage
    ) -> bool:
        key = entry.key
        try:
            await self._slack.post_message_to(entry.to, message)
        except SlackApiError as exc:
            await self._store.skip_digest(key, scheduled)  # refused: it would be again
            log.log(
                level(exc),
                "Slack refused the digest to %s for %s: %s",
                entry.to,
                scheduled,
                exc.response.get("error"),
            )
            return False
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.log(
                level(exc),
                "digest to %s for %s may not have reached Slack: %r",
                entry.to,
                scheduled,
                exc,
            )
            return False
        sent_at = self._clock()
        await self._store.mark_digest_sent(key, scheduled, sent_at)
        await self._store.record(
            "digest_sent", sent_at, digest=key, to=entry.to, scheduled_for=scheduled.isoformat()
        )
        log.info("digest sent to %s for %s", entry.to, scheduled)
        return True

    async def _pace(self, destination: str) -> None:
        """Take a turn from the destination's post budget, as its lane's posts do."""
        bucket = self._publisher.lanes.post_bucket(destination)
        await asyncio.sleep(bucket.wait_time())
        bucket.take()

    async def _facts(self, entry: DigestEntry, scheduled: datetime, now: datetime) -> DigestFacts:
        """What the digest says, as the store and the policy in force say it now."""
        previous = await self._store.previous_digest(entry.key, scheduled)
        since = previous.claimed_at if previous is not None else now - FIRST_PERIOD

        def rule_of(tracked: TrackedInteraction) -> str:
            return self._policy.route(tracked.snapshot).rule

        ended = [t for t in await self._store.ended_since(since) if entry.covers(rule_of(t))]
        pending = [t for t in await self._store.open_interactions() if entry.covers(rule_of(t))]
        stats = stats_by_rule(ended, lambda i: self._policy.route(i).rule)
        expired = [t for t in ended if outcome_of(t) == "expired"]
        return DigestFacts(
            digest=entry.key,
            scheduled_for=scheduled,
            now=now,
            since=since,
            figures=[RuleFigures(s.rule, dict(s.outcomes), s.p50, s.p90) for s in stats.values()],
            expired=[await self._expired_item(t) for t in expired[:SHOWN_ITEMS]]
            + [DigestItem(t.snapshot) for t in expired[SHOWN_ITEMS:]],
            pending=[await self._item(t) for t in pending[:SHOWN_ITEMS]]
            + [DigestItem(t.snapshot) for t in pending[SHOWN_ITEMS:]],
            waiters=longest_waits(ended, pending, now),
            rules=entry.rules,
            agent_names=self._policy.current.agents,
            advice=await self._advice(entry, now),
            trail_head=await self._store.audit_head(),
        )

    async def _advice(self, entry: DigestEntry, now: datetime) -> str | None:
        """The top proposal among the rules the entry covers."""
        advice = await advice_from(self._store, self._policy.current, ADVICE_DAYS, now)
        covered = [p for p in advice.proposals if entry.covers(p.rule)]
        return covered[0].summary if covered else None

    async def _item(self, tracked: TrackedInteraction) -> DigestItem:
        return DigestItem(tracked.snapshot, link=await self._link(tracked))

    async def _expired_item(self, tracked: TrackedInteraction) -> DigestItem:
        """An expired one with who had been asked: where, who could decide, who was nudged."""
        ctx = await self._publisher.context(tracked)
        deciders = self._policy.route(tracked.snapshot).deciders
        asked = Asked(
            where=ctx.asked_in,
            anyone=deciders.anyone,
            users=tuple(deciders.users),
            groups=tuple(deciders.groups),
            nudges=ctx.nudges,
        )
        return DigestItem(tracked.snapshot, asked=asked, link=await self._link(tracked))

    async def _link(self, tracked: TrackedInteraction) -> str | None:
        if tracked.ts is None:
            return None
        return await self._links.link(tracked.shown_in, tracked.ts)
