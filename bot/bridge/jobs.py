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

Idle costs what the work costs. Each job is one row of `BridgeJobs.table`, run
by one helper (`run`) on the bridge's clock. A waking job (redelivery,
countdowns, snoozes, Home tabs) ticks like the others, but its tick only compares the clock with
the time its work next falls due; its body, the part that reads the store,
runs then. The body says when that is (the outbox's next due decision, the
next change of a countdown's words, the next snooze); whatever brings work sooner
wakes it (the store tells of each decision this process queues or re-plans, each
snooze it keeps, each Home tab opened; a poll that found new or changed records
wakes the countdowns); and it looks on its own at least
every `longest` seconds, for what another replica left behind.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.bridge.clock_steps import ClockStepWatch, replan_jobs
from bot.bridge.wiring import Services
from bot.metrics import POLL_DURATION, POLLS
from bot.novo.errors import NovoError
from bot.novo.probe import retrying
from bot.outages import Outage
from bot.outcomes import OutcomeKind
from bot.policy.live import LivePolicy
from bot.store import StoreFileError
from bot.store.errors import cause, one_line
from bot.store.errors import unreachable as store_unreachable

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0  # redelivery, reminders, snoozes, and a waking job's look at its alarm
DIGEST_TICK_SECONDS = 2.0  # how late after its cron time a digest may go
DRAFT_PRUNE_SECONDS = 600.0
HOME_REFRESH_SECONDS = 2.0  # with HomeService's publishes per tick: views.publish's pace
AUDIT_PRUNE_SECONDS = 24 * 3600.0
AUDIT_DAYS_DEFAULT = 90
AUDIT_FIRST_PRUNE = timedelta(minutes=1)
POLL_BACKOFF_MAX_SECONDS = 60.0
DRAIN_SECONDS = 5.0  # how long shutdown waits for running jobs before cancelling them
POLLER_LEASE = "poller"
# A lease lives two intervals and is renewed at half of that, every interval: one late
# renewal is forgiven, and a dead holder is replaced within three intervals.
LEASE_TTL_INTERVALS = 2.0
LEASE_RENEW_FRACTION = 0.5
# How long a waking job sleeps at most with nothing to wake it. On SQLite this
# process alone writes the store, and tells the job of every decision it queues, every
# snooze it keeps and every Home tab opened; on PostgreSQL another replica may have
# (a decision it died delivering, a Home opened there): looked for this often.
LOOK_SECONDS = {"sqlite": 60.0, "postgresql": 2.0}
COUNTDOWN_LOOK_SECONDS = 300.0
NOW = timedelta(0)


def scheduler_now() -> datetime:
    """APScheduler plans on the wall clock it reads itself, not on the bridge's clock."""
    return datetime.now(UTC)


def process_identity() -> str:
    """Who holds a lease: readable in the database, unique per process."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class Job:
    """One timed job. `longest`: a waking job's longest sleep; its body returns when it
    next has work (None: not before it is woken). `first`: how soon after start it
    first runs (None: after one interval)."""

    name: str
    every: float
    leader_only: bool
    body: Callable[[], Awaitable[object]]
    first: timedelta | None = None
    longest: float | None = None


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
        novo: Outage | None = None,
    ) -> None:
        self._services = services
        self._clock = services.clock
        self._policy = policy
        # Novo out of reach is said once (at start-up, or by the first poll that fails),
        # and again when it answers: not a warning every poll interval.
        self._novo = novo or Outage("novo", log)
        # The database out of reach fails every job each tick; said once, and again when
        # the lease (renewed every interval on every replica) is written once more.
        self._database = Outage("database", log)
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
        self.jobs = {job.name: job for job in self.table()}
        # when each waking job next has work: due at once at start
        self._alarms: dict[str, datetime] = {
            job.name: self._clock() for job in self.jobs.values() if job.longest is not None
        }
        services.store.watch_due("decisions", lambda at: self.wake("redeliver", at))
        services.store.watch_due("snoozes", lambda at: self.wake("snoozes", at))
        services.store.watch_due("homes", lambda at: self.wake("homes", at))

    def table(self) -> list[Job]:
        """Every timed job: name, interval, leader only (or every replica), body."""
        s = self._services
        poll = self._poll_seconds
        look = LOOK_SECONDS.get(s.store.engine_name, min(LOOK_SECONDS.values()))
        lease_ttl = poll * LEASE_TTL_INTERVALS
        countdowns = COUNTDOWN_LOOK_SECONDS
        return [
            Job("lease", lease_ttl * LEASE_RENEW_FRACTION, False, self._hold_lease, NOW),
            Job("poll", poll, True, self._poll, NOW),
            # a policy file changed on disk (a ConfigMap update) is reloaded
            Job("policy", poll, False, self._watch_policy),
            Job("redeliver", TICK_SECONDS, False, self._redeliver, longest=look),
            Job("countdowns", TICK_SECONDS, True, s.engine.refresh_open, longest=countdowns),
            Job("reminders", TICK_SECONDS, True, s.reminders.run_due),
            Job("snoozes", TICK_SECONDS, False, s.snoozes.run_while_due, longest=look),
            Job("digests", DIGEST_TICK_SECONDS, False, s.digests.run_due),
            Job("drafts", DRAFT_PRUNE_SECONDS, True, self._prune_drafts),
            Job("receipts", DRAFT_PRUNE_SECONDS, True, s.thread_replies.prune_receipts),
            # the lease holder only: two replicas would publish the same change twice
            Job("homes", HOME_REFRESH_SECONDS, True, s.home.refresh_while_watched, longest=look),
            # daily, and once soon after start: a bridge restarted every night still prunes
            Job("audit", AUDIT_PRUNE_SECONDS, True, self._prune_audit, AUDIT_FIRST_PRUNE),
        ]

    async def run(self, name: str) -> None:
        """One tick of a job: the scheduler's, or a caller's who wants it now (tests,
        benchmarks). A leader-only job does nothing on a replica that does not lead; a
        waking job nothing before its alarm."""
        job = self.jobs[name]
        if self._stopping or (job.leader_only and not self.leading):
            return
        if job.longest is None:
            await self._run(job.body)
            return
        now = self._clock()
        longest = timedelta(seconds=job.longest)
        if now < self._alarms[name] <= now + longest:
            return  # asleep (an alarm further ahead than its longest sleep: the clock stepped)
        # its longest sleep, unless the body says (or a wake while it runs asks) sooner
        self._alarms[name] = now + longest
        due = await self._run(job.body)
        if isinstance(due, datetime):
            self.wake(name, due)

    def wake(self, name: str, at: datetime | None = None) -> None:
        """Have a waking job run at its first tick at or after `at` (None: now)."""
        when = at or self._clock()
        if when < self._alarms[name]:
            self._alarms[name] = when

    async def poll(self) -> None:
        """A poll now, if this replica leads and is not backing off (tests, benchmarks)."""
        await self.run("poll")

    async def _run(self, body: Callable[[], Awaitable[object]]) -> object:
        """Run a job body, known to `drain` while it runs; nothing starts once stopping.
        Returns what the body returned (None if it failed)."""
        if self._stopping:
            return None
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        self._idle.clear()
        try:
            return await body()
        except StoreFileError as exc:
            # /readyz fails and clicks are refused; one line is enough for the log
            if not self._store_lost:
                self._store_lost = True
                log.error("%s", exc)
        except Exception as exc:
            if not store_unreachable(exc):
                raise  # a bug: APScheduler logs it with its traceback
            line = "the database at %s does not answer (%s); the timed jobs keep trying"
            self._database.failed(line, self._services.store.shown, one_line(cause(exc)))
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            # cut off by shutdown (see `drain`): not a failure of the job
        finally:
            self._running.discard(task)
            if not self._running:
                self._idle.set()
        return None

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

    async def _hold_lease(self) -> None:
        ttl = self._poll_seconds * LEASE_TTL_INTERVALS
        store = self._services.store
        leading = await store.try_acquire_lease(POLLER_LEASE, self.holder, ttl, self._clock())
        self._database.answered("the database at %s answers again", store.shown)
        if leading and not self.leading:
            log.info("this process now polls Novo and runs the timed jobs (%s)", self.holder)
            self._next_poll_at = 0.0
            self.leading = True
            if self._scheduler is not None and self._scheduler.get_job("poll") is not None:
                self._scheduler.modify_job("poll", next_run_time=scheduler_now())  # poll now
        elif self.leading and not leading:
            log.warning("another process took over polling; this one stands by")
        self.leading = leading

    async def _poll(self) -> None:
        if time.monotonic() < self._next_poll_at:
            return  # backing off
        try:
            with POLL_DURATION.time():
                report = await self._services.engine.poll_once()
        except NovoError as exc:
            POLLS.labels("failed").inc()
            self._failures += 1
            delay = min(POLL_BACKOFF_MAX_SECONDS, self._poll_seconds * 2**self._failures)
            self._next_poll_at = time.monotonic() + delay
            if self._novo.down:
                self._novo.failed("poll failed (%s); next try in %.0fs", exc, delay)
            else:
                self._novo.failed("%s", retrying(self._services.novo.base_url, str(exc)))
            return
        POLLS.labels("ok").inc()
        self.last_poll_ok = time.monotonic()
        self._novo.answered("Novo at %s answers again", self._services.novo.base_url)
        self._failures = 0
        if report.queued_posts or report.followed:
            self.wake("countdowns")  # a deadline it has not seen yet
        if report.queued_posts or report.finalized:
            log.info(
                "poll: %d pending, %d new to post, %d finalized",
                report.pending,
                len(report.queued_posts),
                len(report.finalized),
            )

    async def _watch_policy(self) -> None:
        if self._policy is not None:
            self._policy.reload_if_changed()

    async def _redeliver(self) -> datetime | None:
        """Deliver what is due; returns when the outbox next holds work, if it holds any."""
        for queued, outcome in await self._services.decisions.deliver_due():
            if outcome.kind not in (OutcomeKind.DELIVERED, OutcomeKind.QUEUED):
                await self._services.presenter.tell(
                    queued.decision.actor.user_id, queued.interaction_id, outcome
                )
        return await self._services.store.next_decision_due(self._clock())

    async def _prune_drafts(self) -> None:
        dropped = await self._services.questions.prune_drafts()
        if dropped:
            log.info("forgot %d abandoned form draft(s)", dropped)

    async def _prune_audit(self) -> None:
        before = self._clock() - timedelta(days=self._audit_days)
        dropped = await self._services.store.prune_audit(before)
        if dropped:
            log.info("pruned %d audit entries older than %d days", dropped, self._audit_days)

    def install(self, scheduler: AsyncIOScheduler) -> None:
        """Add every job; a watch re-plans them when the wall clock steps (APScheduler
        plans in wall-clock time: a step back would hold every job that long)."""
        self._scheduler = scheduler
        watch = ClockStepWatch(lambda _step: self._replan(scheduler))
        self._watch = asyncio.get_running_loop().create_task(watch.run())
        now = scheduler_now()
        for job in self.jobs.values():
            first = {} if job.first is None else {"next_run_time": now + job.first}
            scheduler.add_job(
                self.run,
                "interval",
                args=[job.name],
                seconds=job.every,
                id=job.name,
                max_instances=1,
                coalesce=True,
                misfire_grace_time=None,
                **first,
            )

    def _replan(self, scheduler: AsyncIOScheduler) -> None:
        """After a step of the wall clock: every job, and every waking job's body, now."""
        for name in self._alarms:
            self._alarms[name] = self._clock()
        replan_jobs(scheduler)
