"""Noticing the wall clock step, so timed jobs are not held up by it.

Waits inside this process are measured on the monotonic clock (the sync
engine's holds, the send lanes' pacing, the poll's backoff), which never
jumps. APScheduler 3, though, plans each interval job's next run as a
wall-clock time and sleeps until it: when the wall clock steps back an hour
(an NTP correction, a VM restored from a snapshot), every job's next run
lies an hour ahead and polling, redelivery and reminders all stop for that
hour. APScheduler offers no monotonic mode, so this watch compares the wall
clock with the monotonic one every second (its own sleep is monotonic) and,
when they drift apart by more than a tolerance, calls `on_step` with the
step in seconds: the jobs are re-planned from the clock as it now reads.
Times stored for other processes stay wall-clock times; the outbox copes
with a step on its own (see `bot.store.outbox`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.schedulers.base import BaseScheduler

log = logging.getLogger(__name__)

CHECK_SECONDS = 1.0
STEP_TOLERANCE_SECONDS = 2.0  # drift below this is a slow tick or a busy loop, not a step


class ClockStepWatch:
    def __init__(
        self,
        on_step: Callable[[float], None],
        *,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        tolerance: float = STEP_TOLERANCE_SECONDS,
    ) -> None:
        self._on_step = on_step
        self._wall = wall
        self._monotonic = monotonic
        self._tolerance = tolerance
        self._offset = wall() - monotonic()

    def check(self) -> float | None:
        """The step since the last check (seconds, negative: back), or None if none."""
        offset = self._wall() - self._monotonic()
        step = offset - self._offset
        self._offset = offset
        if abs(step) < self._tolerance:
            return None
        log.warning("the wall clock stepped %+.0fs; timed jobs are re-planned", step)
        self._on_step(step)
        return step

    async def run(self, every: float = CHECK_SECONDS) -> None:
        while True:
            await asyncio.sleep(every)
            self.check()


def replan_jobs(scheduler: BaseScheduler) -> None:
    """Every job runs now, and then at its interval from the clock as it reads now."""
    now = datetime.now(UTC)
    for job in scheduler.get_jobs():
        job.modify(next_run_time=now)
    scheduler.wakeup()
