"""Timed work on APScheduler: polling, redelivering queued decisions, refreshing countdowns.

Jobs never overlap themselves (`max_instances=1`, `coalesce`), and a failing
poll backs off exponentially instead of hammering a Novo that is down.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.metrics import POLLS
from bot.novo.errors import NovoError
from bot.services.container import Services
from bot.services.outcomes import OutcomeKind

log = logging.getLogger(__name__)

REDELIVERY_TICK_SECONDS = 1.0
COUNTDOWN_REFRESH_SECONDS = 30.0
POLL_BACKOFF_MAX_SECONDS = 60.0


class BridgeJobs:
    """The scheduled jobs; each calls the same service functions a click would."""

    def __init__(self, services: Services, poll_seconds: float) -> None:
        self._services = services
        self._poll_seconds = poll_seconds
        self._failures = 0
        self._next_poll_at = 0.0
        # one job body at a time: jobs share the store and publisher, and stop() drains them
        self._running = asyncio.Lock()
        self._stopping = False

    async def idle(self) -> None:
        """Return once no job body is running (benchmarks drive polls themselves)."""
        async with self._running:
            pass

    async def drain(self) -> None:
        """Wait for jobs already running; jobs that start afterwards do nothing.

        Shutdown calls this so it never closes the store under a running job.
        """
        self._stopping = True
        await self.idle()

    async def poll(self) -> None:
        if time.monotonic() < self._next_poll_at:
            return
        async with self._running:
            if not self._stopping:
                await self._poll()

    async def _poll(self) -> None:
        try:
            report = await self._services.engine.poll_once()
        except NovoError as exc:
            POLLS.labels("failed").inc()
            self._failures += 1
            delay = min(POLL_BACKOFF_MAX_SECONDS, self._poll_seconds * 2**self._failures)
            self._next_poll_at = time.monotonic() + delay
            log.warning("poll failed (%s); next try in %.0fs", exc, delay)
            return
        POLLS.labels("ok").inc()
        if self._failures:
            log.info("Novo reachable again after %d failed polls", self._failures)
        self._failures = 0
        if report.posted or report.finalized:
            log.info(
                "poll: %d pending, posted %d, finalized %d",
                report.pending,
                len(report.posted),
                len(report.finalized),
            )

    async def redeliver(self) -> None:
        async with self._running:
            if not self._stopping:
                await self._redeliver()

    async def _redeliver(self) -> None:
        for queued, outcome in await self._services.decisions.deliver_due():
            if outcome.kind not in (OutcomeKind.DELIVERED, OutcomeKind.QUEUED):
                await self._services.presenter.tell(
                    queued.decision.actor.user_id, queued.interaction_id, outcome
                )

    async def refresh_countdowns(self) -> None:
        async with self._running:
            if not self._stopping:
                await self._services.engine.refresh_open()

    def install(self, scheduler: AsyncIOScheduler) -> None:
        common = {"max_instances": 1, "coalesce": True, "misfire_grace_time": None}
        scheduler.add_job(
            self.poll,
            "interval",
            seconds=self._poll_seconds,
            id="poll",
            next_run_time=datetime.now(UTC),
            **common,
        )
        scheduler.add_job(
            self.redeliver, "interval", seconds=REDELIVERY_TICK_SECONDS, id="redeliver", **common
        )
        scheduler.add_job(
            self.refresh_countdowns,
            "interval",
            seconds=COUNTDOWN_REFRESH_SECONDS,
            id="countdowns",
            **common,
        )
