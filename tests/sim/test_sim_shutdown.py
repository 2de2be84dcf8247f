"""The simulator always stops: close() returns promptly whatever it was doing.

Tests, the demo and the benchmarks start and close simulators by the
hundred; one close() that never returns hangs the whole run.
"""

from __future__ import annotations

import asyncio

import httpx

from novo_dev.sim import InteractionSpec, SimServer, start_sim
from novo_dev.sim.control import SimControl
from tests.support import DEFAULT_TIMEOUT, scaled, wait_until

CYCLES = 200
CLOSE_WITHIN_SECONDS = scaled(DEFAULT_TIMEOUT)
"""A close that hangs never returns; one that works returns in milliseconds."""


async def _closes_within(sim: SimServer, seconds: float) -> bool:
    """Whether close() finished in time; waits without cancelling it, so a hang shows."""
    closing = asyncio.create_task(sim.close())
    done, _ = await asyncio.wait({closing}, timeout=seconds)
    if not done:
        closing.cancel()  # best effort, so a failing run does not leak the task
    return bool(done)


async def test_close_returns_while_the_expiry_watch_is_woken() -> None:
    """A create wakes the expiry watch as close() cancels it; close() still returns."""
    stuck = 0
    for cycle in range(CYCLES):
        sim = await start_sim()
        sim.state.create(InteractionSpec(kind="approval_request"))
        for _ in range(5):  # let the watch settle on the deadline
            await asyncio.sleep(0)
        sim.state.create(InteractionSpec(kind="approval_request"))
        for _ in range(cycle % 4):  # close at each step of the wake-up
            await asyncio.sleep(0)
        if not await _closes_within(sim, CLOSE_WITHIN_SECONDS):
            stuck += 1
            break
    assert stuck == 0, f"close() hung on cycle {cycle}"


async def test_a_hung_request_neither_blocks_close_nor_outlives_clearing() -> None:
    sim = await start_sim(api_key="k")
    async with httpx.AsyncClient(base_url=sim.url, timeout=30) as http:
        control = SimControl(sim.url, http)
        assert (await control.faults(hang=True, routes="list"))["hang"] is True
        headers = {"Authorization": "Bearer k"}
        first = asyncio.create_task(http.get("/v1/interactions", headers=headers))
        await wait_until(lambda: _logged(control, 1), message="the first request held")
        assert not first.done()
        await control.faults()  # answered 200, or it raises
        assert (await first).status_code == 200  # clearing the faults lets it go

        await control.faults(hang=True)
        second = asyncio.create_task(http.get("/v1/interactions", headers=headers))
        await wait_until(lambda: _logged(control, 2), message="the second request held")
        assert await _closes_within(sim, CLOSE_WITHIN_SECONDS)  # the held request hangs for good
        await asyncio.gather(second, return_exceptions=True)


async def _logged(control: SimControl, count: int) -> bool:
    """Whether the simulator has received `count` public requests (held ones included)."""
    return len(await control.log(prefix="")) == count
