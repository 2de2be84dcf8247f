"""A wall clock stepping back re-plans the timed jobs instead of holding them that long."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.bridge.clock_steps import ClockStepWatch, replan_jobs
from tests.support import wait_until


class SteppingWall:
    """A wall clock a test sets back, beside the real monotonic one."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return datetime.now(UTC).timestamp() + self.offset


def test_a_step_is_told_once_and_drift_is_not() -> None:
    wall, mono = SteppingWall(), [100.0]
    steps: list[float] = []
    watch = ClockStepWatch(steps.append, wall=lambda: 0.0 + wall.offset, monotonic=lambda: mono[0])
    mono[0] += 1.5  # a slow tick: the two clocks drift apart by 1.5 s
    assert watch.check() is None
    wall.offset -= 3600.0
    assert watch.check() == -3600.0
    assert watch.check() is None  # told once
    assert len(steps) == 1


async def test_jobs_planned_an_hour_ahead_by_a_step_back_run_at_once() -> None:
    ran = asyncio.Event()

    async def job() -> None:
        ran.set()

    scheduler = AsyncIOScheduler(timezone="UTC")
    # what a step back leaves: the interval job's next run an hour ahead of the clock
    later = datetime.now(UTC) + timedelta(hours=1)
    scheduler.add_job(job, "interval", seconds=1, id="poll", next_run_time=later)
    scheduler.start()
    try:
        wall = SteppingWall()
        watch = ClockStepWatch(lambda _step: replan_jobs(scheduler), wall=wall)
        assert watch.check() is None
        wall.offset -= 3600.0
        assert watch.check() is not None
        # planned an hour ahead: only the replan runs it within the wait
        await wait_until(ran.is_set, message="the job ran after the step")
        job_next = scheduler.get_job("poll").next_run_time
        assert job_next is not None and job_next < datetime.now(UTC) + timedelta(seconds=5)
    finally:
        scheduler.shutdown(wait=False)
