"""What every test shares: waiting on a condition with a deadline (the only way tests wait
for anything) and the one clock tests move by hand.

Every deadline here is a bound on a condition, never the thing under test: a quiet machine
meets it in a small fraction of the time, and `NOVO_SLACK_TEST_TIME_SCALE` (a factor,
default 1) stretches all of them at once for a machine slower or busier than the ones the
suite is run on here.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine

from bot.clock import utc_now

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]
CHECKOUT_ID = hashlib.sha256(str(REPO).encode()).hexdigest()[:8]
"""Names what the suite makes outside its temporary folders (its PostgreSQL database, its
image tag), so that two checkouts on one machine never meet."""

TIME_SCALE_ENV = "NOVO_SLACK_TEST_TIME_SCALE"
DEFAULT_TIMEOUT = 30.0
"""Seconds a wait gives its condition unless told otherwise (before scaling): about twenty
times what the slowest condition waited on needs on a quiet machine of this kind."""
PROCESS_TIMEOUT = 60.0
"""Seconds (before scaling) for a `novo-slack` process to start, stop or fail: loading
Python and the bridge alone takes 2 s on a quiet machine and several times that on an
overloaded one, before the bridge has done anything."""
POLL_INTERVAL = 0.02


def time_scale() -> float:
    """The factor every test deadline is multiplied by: `NOVO_SLACK_TEST_TIME_SCALE`, at
    least 1 (a deadline is never tightened), 1 when unset."""
    raw = os.environ.get(TIME_SCALE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        factor = float(raw)
    except ValueError:
        raise ValueError(f"{TIME_SCALE_ENV} must be a number, not {raw!r}") from None
    return max(factor, 1.0)


def scaled(seconds: float) -> float:
    """`seconds` as a deadline on this machine: stretched by `time_scale()`."""
    return seconds * time_scale()


def trigger_ttl() -> float:
    """How long the tests' local Slack lets a trigger_id open a modal. Slack allows 3 s, and
    the tests' local Slack enforces that rule only where it is the subject (its own tests):
    elsewhere the bridge opening a form within 3 s is a speed, measured by `bench.forms`,
    and a busy machine may take longer without the bridge doing anything wrong."""
    return scaled(DEFAULT_TIMEOUT)


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
    timeout = scaled(timeout)
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


async def novo_slack(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = PROCESS_TIMEOUT
) -> Ran:
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
    `DeadlinePassed` naming `message` at the deadline (`timeout`, scaled)."""
    timeout = scaled(timeout)
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


async def bounded(awaitable: Awaitable[T], seconds: float = DEFAULT_TIMEOUT) -> T:
    """Await with a deadline (`seconds`, scaled). `asyncio.wait_for` on Python 3.11 can
    swallow a cancellation that races its timeout; an `asyncio.timeout` block cannot."""
    async with asyncio.timeout(scaled(seconds)):
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


@dataclass(frozen=True)
class Statement:
    """One SQL statement as the driver was handed it."""

    sql: str
    parameters: Any

    @property
    def is_read(self) -> bool:
        return self.sql.lstrip().upper().startswith("SELECT")


_COUNTED: contextvars.ContextVar[object | None] = contextvars.ContextVar("counted", default=None)


@contextlib.contextmanager
def statements_run(engine: Engine | type[Engine] = Engine) -> Iterator[list[Statement]]:
    """The statements run on `engine` (every engine by default) by the calling task and the
    tasks it starts while the block runs, in order.

    Only those: a running bridge's poll, lease and timers share the engine, and counting
    theirs too made a count depend on how busy the machine was (a poll that happened to land
    inside the block added its reads). A task started inside the block inherits a copy of the
    caller's context, and SQLAlchemy's async layer runs a statement's sync code in a greenlet
    that shares its awaiting task's context, so a context variable marks these. A shared
    task started earlier by someone else (a reader whose round the block joins) is not
    counted: a test says which statements it expects as well as how many.
    """
    marker = object()
    seen: list[Statement] = []

    def note(_conn: Any, _cursor: Any, sql: str, parameters: Any, *_: Any) -> None:
        if _COUNTED.get() is marker:
            seen.append(Statement(sql, parameters))

    token = _COUNTED.set(marker)
    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)
        _COUNTED.reset(token)
