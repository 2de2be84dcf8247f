"""Heavy requests take turns and give way to clicks, so that they never starve one.

Type-ahead over a menu of thousands of options and a Home render over
hundreds of open interactions are heavy; fifteen people typing at once send
one every few hundred milliseconds each. Everything runs on one event loop,
and every await of a click (each store read is one) waits behind whatever
else is ready to run, so with fifteen heavy requests in play a click that
needs thirty awaits before its ack takes seconds. So heavy work:

* takes a turn: at most `turns` heavy requests run at once (the others wait
  their turn, which costs nothing), and clicks never take one;
* gives way to clicks: at each of its checkpoints (`pause`: before it reads,
  between slices) it waits while a click is between its arrival and its ack
  (`click`), up to `CLICK_WAIT_SECONDS`, so it can't be starved in turn;
* is bounded: the caller gives each heavy request a deadline past which it
  answers with what it has (and says what that is).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

TURNS = 2
"""Heavy requests running at once: enough to keep the CPU busy between two awaits of a
store read, few enough that a click waits at most a couple of slices."""
CLICK_WAIT_SECONDS = 1.0
"""The longest a heavy request waits at one checkpoint for clicks to be acked."""


class HeavyWork:
    def __init__(self, turns: int = TURNS, *, click_wait: float = CLICK_WAIT_SECONDS) -> None:
        self._turns = asyncio.Semaphore(turns)
        self._click_wait = click_wait
        self._clicks = 0
        self._no_clicks = asyncio.Event()
        self._no_clicks.set()

    @property
    def clicks(self) -> int:
        """Clicks between their arrival and their ack now."""
        return self._clicks

    @asynccontextmanager
    async def click(self) -> AsyncIterator[None]:
        """A click is on its way to its ack while the block runs: heavy work waits."""
        self._clicks += 1
        self._no_clicks.clear()
        try:
            yield
        finally:
            self._clicks -= 1
            if not self._clicks:
                self._no_clicks.set()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold one turn while the block runs; waits (cancellably) for one to be free."""
        async with self._turns:
            await self.pause()
            yield

    async def pause(self) -> None:
        """A checkpoint: give the loop to whatever is ready, and wait while clicks are
        being acked (at most `click_wait`)."""
        await asyncio.sleep(0)
        if self._clicks:
            try:
                async with asyncio.timeout(self._click_wait):
                    await self._no_clicks.wait()
            except TimeoutError:
                pass
