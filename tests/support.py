"""What every test shares: waiting on a condition with a deadline (the only way tests wait
for anything) and the one clock tests move by hand."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from bot.clock import utc_now

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]

DEFAULT_TIMEOUT = 20.0
POLL_INTERVAL = 0.02


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


async def run(
    *argv: str,
    timeout: float,
    check: bool = True,
    env: dict[str, str] | None = None,
    cwd: Path = REPO,
) -> Ran:
    """A command run to its end (killed past `timeout`, a generous bound); raises with its
    output if it fails and `check`."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(f"{' '.join(argv)} still running after {timeout}s") from None
    ran = Ran(process.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace"))
    if check and ran.code != 0:
        raise AssertionError(f"{' '.join(argv)} exited {ran.code}:\n{ran.err}{ran.out}")
    return ran


async def novo_slack(*args: str, env: dict[str, str], cwd: Path, timeout: float = 60.0) -> Ran:
    """`novo-slack ARGS` from this checkout, run as a person runs it, to its end."""
    return await run(
        sys.executable, "-m", "bot", *args, timeout=timeout, check=False, env=env, cwd=cwd
    )


class DeadlinePassed(AssertionError, TimeoutError):
    """A wait ran out: a failed assertion to pytest, a timeout to a benchmark that expects one."""


async def wait_until(
    probe: Callable[[], Awaitable[Any]] | Callable[[], Any],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    message: str = "condition",
) -> Any:
    """Call `probe` (sync or async) until it returns something truthy, and return that; raise
    `DeadlinePassed` naming `message` at the deadline."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        result = probe()
        if isinstance(result, Awaitable):
            result = await result
        last = result
        if last:
            return last
        if time.monotonic() >= deadline:
            raise DeadlinePassed(f"timed out after {timeout}s waiting for {message}; last={last!r}")
        await asyncio.sleep(POLL_INTERVAL)


async def bounded(awaitable: Awaitable[T], seconds: float) -> T:
    """Await with a deadline. `asyncio.wait_for` on Python 3.11 can swallow a
    cancellation that races its timeout; an `asyncio.timeout` block cannot."""
    async with asyncio.timeout(seconds):
        return await awaitable


@dataclass
class FakeClock:
    """A clock that moves only when a test says so, so expiry and schedules are tested without
    waiting them out.

    Fixed at `start`; with no `start` it follows real time (the bridge's clock in a loop whose
    Novo keeps real deadlines). Either way it is ahead by whatever `advance` added. Code that
    counts seconds rather than datetimes (the local Slack) takes `clock.seconds`.
    """

    start: datetime | None = None
    offset: timedelta = timedelta(0)

    def __call__(self) -> datetime:
        base = utc_now() if self.start is None else self.start
        return base + self.offset

    def advance(self, by: float | timedelta) -> None:
        """Move forward by `by` (seconds or a timedelta; negative moves back)."""
        self.offset += by if isinstance(by, timedelta) else timedelta(seconds=by)

    forward = advance  # the loop scenarios' word for it: `loop.clock.forward(QUARTER)`

    def seconds(self) -> float:
        """The same moment as `time.time()` counts it."""
        return self().timestamp()
