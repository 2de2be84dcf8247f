"""Timed work on APScheduler: polling, redelivering queued decisions, refreshing
countdowns, reminding and escalating before an expiry, sending the "Remind me"
DMs people asked for, posting the policy's digests, forgetting abandoned form
drafts, keeping recently opened App Home tabs true.

Of several replicas on one database, exactly one polls Novo and runs the
timed jobs: the holder of the `poller` lease, a row in the store renewed
every poll interval by a job of its own (so a slow poll never lets it lapse)
and taken over by another replica within three intervals of the holder's
death. Redelivery, snoozes and digests run on every replica: each queued
decision, each due snooze and each digest's scheduled time is claimed by
exactly one of them in the store. (Digests so, rather than on the lease
holder, because a replica just started must send a digest it missed while
down without first waiting to win the lease, and the claim already keeps
two replicas from both sending.)

The jobs run independently: a poll stuck on a slow Novo, or a 429's
`Retry-After` sleep inside one job, never holds back a queued decision's
redelivery (each job only never overlaps itself: `max_instances=1`). Races
between them on one interaction are settled where they meet: conditional
updates in the store and the publisher's per-message serialisation. A
failing poll backs off exponentially instead of hammering a Novo that is down.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.bridge.clock_steps import ClockStepWatch, replan_jobs
from bot.bridge.wiring import Services
from bot.metrics import POLL_DURATION, POLLS
from bot.novo.errors import NovoError
from bot.novo.probe import retrying
from bot.policy.live import LivePolicy
from bot.services.outcomes import OutcomeKind
from bot.store import StoreFileError

log = logging.getLogger(__name__)

REDELIVERY_TICK_SECONDS = 1.0
REMINDER_TICK_SECONDS = 1.0
SNOOZE_TICK_SECONDS = 1.0
DIGEST_TICK_SECONDS = 2.0  # how late after its cron time a digest may go
COUNTDOWN_REFRESH_SECONDS = 30.0
DRAFT_PRUNE_SECONDS = 600.0
HOME_REFRESH_SECONDS = 2.0  # with HomeService's publishes per tick: views.publish's pace
AUDIT_PRUNE_SECONDS = 24 * 3600.0
AUDIT_DAYS_DEFAULT = 90
AUDIT_FIRST_PRUNE = timedelta(minutes=1)
POLL_BACKOFF_MAX_SECONDS = 60.0
DRAIN_SECONDS = 5.0  # how long shutdown waits for running jobs before cancelling them
POLLER_LEASE = "poller"
# A lease lives two intervals and is renewed every interval: one late renewal
# is forgiven, and a dead holder is replaced within three intervals.
LEASE_TTL_INTERVALS = 2.0


def store_now() -> datetime:
    """Lease times are wall-clock times shared by every replica."""
    return datetime.now(UTC)


def process_identity() -> str:
    """Who holds a lease: readable in the database, unique per process."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class BridgeJobs:
    """The scheduled jobs; each calls the same service functions a click would."""

    def __init__(
        self,
        services: Services,
        poll_seconds: float,
        holder: str | None = None,
        *,
        audit_days: int = AUDIT_DAYS_DEFAULT,
        policy: LivePolicy | None = None,
        novo_down: bool = False,
    ) -> None:
        self._services = services
        self._policy = policy
        # Novo out of reach is said once (at start-up, or by the first poll that fails),
        # and again when it answers: not a warning every poll interval.
        self._said_novo_down = novo_down
        self._poll_seconds = poll_seconds
        self._audit_days = audit_days
        self.holder = holder or process_identity()
        self.leading = False
        self._scheduler: AsyncIOScheduler | None = None
        self._failures = 0
        self._next_poll_at = 0.0
        self._running: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._stopping = False
        self._watch: asyncio.Task[None] | None = None
        self._store_lost = False  # said once: every job would say it every tick
        self.last_poll_ok: float | None = None  # time.monotonic() of the last good poll

    async def _run(self, body: Callable[[], Awaitable[None]]) -> None:
        """Run a job body, known to `drain` while it runs; nothing starts once stopping."""
        if self._stopping:
            return
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        self._idle.clear()
        try:
            await body()
        except StoreFileError as exc:
            # /readyz fails and clicks are refused; one line is enough for the log
            if not self._store_lost:
                self._store_lost = True
                log.error("%s", exc)
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            # cut off by shutdown (see `drain`): not a failure of the job
        finally:
            self._running.discard(task)
            if not self._running:
                self._idle.set()

    async def idle(self) -> None:
        """Return once no job body is running (benchmarks drive polls themselves)."""
        await self._idle.wait()

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Let running jobs finish, within `timeout`; cancel what is left after it.

        Shutdown calls this so it never closes the store under a running job,
        and never waits forever on a job stuck on a hanging Novo or Slack.
        Cancelling is safe: a post cut off between `chat.postMessage` and
        recording its ts is found again by the crash-window search.
        """
        self._stopping = True
        if self._watch is not None:
            self._watch.cancel()
        running = set(self._running)
        if running:
            _, late = await asyncio.wait(running, timeout=timeout)
            for task in late:
                task.cancel()
            if late:
                log.warning("cancelled %d job(s) still running at shutdown", len(late))
                await asyncio.wait(late, timeout=1.0)
        # what the lanes still hold is owed in the store (claims, messages out of
        # step): the next start queues it again
        await self._services.publisher.lanes.close(timeout)
        await self._resign()

    async def _resign(self) -> None:
        """Hand the poller lease back at once, so another replica need not wait it out."""
        if not self.leading:
            return
        self.leading = False
        try:
            async with asyncio.timeout(2.0):
                await self._services.store.release_lease(POLLER_LEASE, self.holder)
        except Exception as exc:  # the lease lapses by itself; shutdown goes on
            log.warning("could not release the poller lease: %r", exc)

    async def hold_lease(self) -> None:
        await self._run(self._hold_lease)

    async def _hold_lease(self) -> None:
        ttl = self._poll_seconds * LEASE_TTL_INTERVALS
        store = self._services.store
        leading = await store.try_acquire_lease(POLLER_LEASE, self.holder, ttl, store_now())
        if leading and not self.leading:
            log.info("this process now polls Novo and runs the timed jobs (%s)", self.holder)
            self._next_poll_at = 0.0
            self.leading = True
            if self._scheduler is not None and self._scheduler.get_job("poll") is not None:
                self._scheduler.modify_job("poll", next_run_time=datetime.now(UTC))  # poll now
        elif self.leading and not leading:
            log.warning("another process took over polling; this one stands by")
        self.leading = leading

    async def poll(self) -> None:
        if not self.leading or time.monotonic() < self._next_poll_at:
            return
        await self._run(self._poll)

    async def _poll(self) -> None:
        try:
            with POLL_DURATION.time():
                report = await self._services.engine.poll_once()
        except NovoError as exc:
            POLLS.labels("failed").inc()
            self._failures += 1
            delay = min(POLL_BACKOFF_MAX_SECONDS, self._poll_seconds * 2**self._failures)
            self._next_poll_at = time.monotonic() + delay
            if self._said_novo_down:
                log.debug("poll failed (%s); next try in %.0fs", exc, delay)
            else:
                log.warning("%s", retrying(self._services.novo.base_url, str(exc)))
                self._said_novo_down = True
            return
        POLLS.labels("ok").inc()
        self.last_poll_ok = time.monotonic()
        if self._said_novo_down:
            log.info(
                "Novo at %s answers again (after %d failed polls)",
                self._services.novo.base_url,
                self._failures,
            )
        self._said_novo_down = False
        self._failures = 0
        if report.queued_posts or report.finalized:
            log.info(
                "poll: %d pending, %d new to post, %d finalized",
                report.pending,
                len(report.queued_posts),
                len(report.finalized),
            )

    async def watch_policy(self) -> None:
        """Every replica: a policy file changed on disk (a ConfigMap update) is reloaded."""
        await self._run(self._watch_policy)

    async def _watch_policy(self) -> None:
        if self._policy is not None:
            self._policy.reload_if_changed()

    async def redeliver(self) -> None:
        await self._run(self._redeliver)

    async def _redeliver(self) -> None:
        for queued, outcome in await self._services.decisions.deliver_due():
            if outcome.kind not in (OutcomeKind.DELIVERED, OutcomeKind.QUEUED):
                await self._services.presenter.tell(
                    queued.decision.actor.user_id, queued.interaction_id, outcome
                )

    async def refresh_countdowns(self) -> None:
        if self.leading:
            await self._run(self._refresh_countdowns)

    async def _refresh_countdowns(self) -> None:
        await self._services.engine.refresh_open()

    async def remind(self) -> None:
        if self.leading:
            await self._run(self._remind)

    async def _remind(self) -> None:
        await self._services.reminders.run_due()

    async def send_snoozes(self) -> None:
        await self._run(self._send_snoozes)

    async def _send_snoozes(self) -> None:
        await self._services.snoozes.run_due()

    async def send_digests(self) -> None:
        await self._run(self._send_digests)

    async def _send_digests(self) -> None:
        await self._services.digests.run_due()

    async def prune_drafts(self) -> None:
        if self.leading:
            await self._run(self._prune_drafts)

    async def _prune_drafts(self) -> None:
        dropped = await self._services.questions.prune_drafts()
        if dropped:
            log.info("forgot %d abandoned form draft(s)", dropped)

    async def prune_receipts(self) -> None:
        if self.leading:
            await self._run(self._prune_receipts)

    async def _prune_receipts(self) -> None:
        await self._services.thread_replies.prune_receipts()

    async def refresh_homes(self) -> None:
        # the lease holder only: two replicas would publish the same change twice
        if self.leading:
            await self._run(self._refresh_homes)

    async def _refresh_homes(self) -> None:
        await self._services.home.refresh_recent()

    async def prune_audit(self) -> None:
        if self.leading:
            await self._run(self._prune_audit)

    async def _prune_audit(self) -> None:
        before = store_now() - timedelta(days=self._audit_days)
        dropped = await self._services.store.prune_audit(before)
        if dropped:
            log.info("pruned %d audit entries older than %d days", dropped, self._audit_days)

    def install(self, scheduler: AsyncIOScheduler) -> None:
        """Add every job; a watch re-plans them when the wall clock steps (APScheduler
        plans in wall-clock time: a step back would hold every job that long)."""
        self._scheduler = scheduler
        watch = ClockStepWatch(lambda _step: replan_jobs(scheduler))
        self._watch = asyncio.get_running_loop().create_task(watch.run())
        common = {"max_instances": 1, "coalesce": True, "misfire_grace_time": None}
        jobs: list[tuple[Callable[[], Awaitable[None]], float, str]] = [
            (self.hold_lease, self._poll_seconds, "lease"),
            (self.poll, self._poll_seconds, "poll"),
            (self.watch_policy, self._poll_seconds, "policy"),
            (self.redeliver, REDELIVERY_TICK_SECONDS, "redeliver"),
            (self.refresh_countdowns, COUNTDOWN_REFRESH_SECONDS, "countdowns"),
            (self.remind, REMINDER_TICK_SECONDS, "reminders"),
            (self.send_snoozes, SNOOZE_TICK_SECONDS, "snoozes"),
            (self.send_digests, DIGEST_TICK_SECONDS, "digests"),
            (self.prune_drafts, DRAFT_PRUNE_SECONDS, "drafts"),
            (self.prune_receipts, DRAFT_PRUNE_SECONDS, "receipts"),
            (self.refresh_homes, HOME_REFRESH_SECONDS, "homes"),
            # daily, and once soon after start: a bridge restarted every night still prunes
            (self.prune_audit, AUDIT_PRUNE_SECONDS, "audit"),
        ]
        for job, seconds, job_id in jobs:
            # the lease and the poll start at once; the others at their first interval
            first = {"next_run_time": datetime.now(UTC)} if job_id in ("lease", "poll") else {}
            if job_id == "audit":
                first = {"next_run_time": datetime.now(UTC) + AUDIT_FIRST_PRUNE}
            scheduler.add_job(job, "interval", seconds=seconds, id=job_id, **first, **common)
