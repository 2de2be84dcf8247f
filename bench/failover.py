"""`python -m bench.failover`: how long Novo goes unpolled when the polling replica dies.

Three `novo-slack run` processes share a fresh PostgreSQL database; one
holds the `poller` lease. Each sample waits a random moment within one poll
interval (seeded: a kill right after a renewal is the worst case, and a
tight loop would land there every time), kills the holder with SIGKILL and
times two things from the kill:

- *lease taken*: until another replica logs that it now polls Novo (the
  time its log line carries, milliseconds);
- *first poll*: until the simulator receives that replica's first listing
  request (the time its log carries).

A replacement replica is started after each kill, so every sample has three.
Also home to the replica processes `bench.clicks` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import secrets
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
from sqlalchemy.engine import make_url

from bench.harness import (
    API_KEY,
    CHANNEL,
    HTTP_TIMEOUT_SECONDS,
    SIGNING_SECRET,
    USER_ID,
    epoch_of,
    format_table,
)
from novo_dev.demo.stack import Person, ServersConfig, bridge_environment, local_servers
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.postgres import DATABASE_URL_ENV, SERVER_URL, admin
from tests.support import wait_until

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SAMPLES = 8
DEFAULT_POLL_SECONDS = 1.0
DEFAULT_SEED = 1
START_WITHIN_SECONDS = 30.0
TAKEOVER = "this process now polls Novo"
LIST_PATH = "/v1/interactions"
_LISTENING = re.compile(r"listening for Slack on (http://\S+?)/slack/events")
# settings a replica must not inherit from whoever runs the benchmark
_OUR_PREFIXES = ("SLACK_", "NOVO_")


# -- replica processes ------------------------------------------------------------------------


@dataclass
class Replica:
    """One `novo-slack run` subprocess and its stderr, line by line as it comes."""

    process: asyncio.subprocess.Process
    lines: list[str] = field(default_factory=list)
    url: str = ""
    _reader: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    def takeovers(self) -> list[float]:
        """When (epoch seconds, from its own log lines) it took the poller lease."""
        return [logged_at(line) for line in self.lines if TAKEOVER in line]

    async def kill(self) -> float:
        """SIGKILL, the crash a host failure or the OOM killer causes; returns when sent."""
        killed_at = time.time()
        if self.alive:
            self.process.kill()
        await self.process.wait()
        if self._reader is not None:
            await self._reader
        return killed_at


def logged_at(line: str) -> float:
    """A bridge log line's `asctime` (local time, milliseconds) as epoch seconds."""
    stamp = " ".join(line.split(" ", 2)[:2])
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


@dataclass
class Loopback:
    """The simulator and local Slack, and the environment that points a replica at them."""

    sim: SimServer
    slack: LocalSlack
    http: httpx.AsyncClient
    env: dict[str, str]  # the benchmark's own, less any setting of ours
    replicas: list[Replica] = field(default_factory=list)

    async def start_replica(self, db: str, poll_seconds: float, **settings: str) -> Replica:
        """`novo-slack run` on `db`, with these settings (environment names) besides;
        returns once it listens."""
        pointers = bridge_environment(
            self.sim,
            self.slack,
            db,
            signing_secret=SIGNING_SECRET,
            api_key=API_KEY,
            channel=CHANNEL,
            poll_seconds=poll_seconds,
        )
        env = {**self.env, **pointers, **settings}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            env=env,
            cwd=REPO,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        replica = Replica(process)
        self.replicas.append(replica)

        async def read() -> None:
            assert process.stderr is not None
            async for raw in process.stderr:
                replica.lines.append(raw.decode(errors="replace").rstrip("\n"))

        replica._reader = asyncio.create_task(read())

        async def listening() -> str | None:
            if not replica.alive:
                raise RuntimeError("replica exited at start-up:\n" + "\n".join(replica.lines))
            return next((m.group(1) for ln in replica.lines if (m := _LISTENING.search(ln))), None)

        replica.url = await wait_until(listening, timeout=START_WITHIN_SECONDS, message="a replica")
        return replica

    async def start_replicas(
        self, count: int, db: str, poll_seconds: float, **settings: str
    ) -> list[Replica]:
        """Started together, as a rollout does (their migrations take turns)."""
        starting = (self.start_replica(db, poll_seconds, **settings) for _ in range(count))
        return list(await asyncio.gather(*starting))

    def alive(self) -> list[Replica]:
        return [r for r in self.replicas if r.alive]

    def holder(self) -> Replica | None:
        """The live replica that took the poller lease last."""
        taken = [(t, r) for r in self.alive() for t in r.takeovers()]
        return max(taken, key=lambda pair: pair[0])[1] if taken else None

    async def stop_replicas(self) -> None:
        for replica in self.replicas:
            await replica.kill()
        self.replicas.clear()

    async def first_listing_after(self, moment: float) -> float | None:
        for entry in await SimControl(self.sim.url, self.http).log():
            if entry["method"] == "GET" and entry["path"] == LIST_PATH:
                at = epoch_of(str(entry["at"]))
                if at >= moment:
                    return at
        return None


@asynccontextmanager
async def loopback() -> AsyncIterator[Loopback]:
    """Simulator and local Slack on loopback; every replica started is killed on exit."""
    people = [Person(USER_ID, "bench", "Bench User")]
    async with (
        local_servers(ServersConfig(api_key=API_KEY, people=people)) as servers,
        httpx.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS) as http,
    ):
        env = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_PREFIXES)}
        env["PYTHONPATH"] = str(REPO)
        world = Loopback(servers.sim, servers.slack, http, env)
        try:
            yield world
        finally:
            await world.stop_replicas()


# -- a database of its own --------------------------------------------------------------------


def server_url() -> str:
    return os.environ.get(DATABASE_URL_ENV, SERVER_URL)


@asynccontextmanager
async def fresh_database(url: str) -> AsyncIterator[str]:
    """A new empty database on the server `url` names, dropped on exit; yields its URL."""
    name = f"bench_{secrets.token_hex(6)}"
    await admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        await admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def postgres_or_reason(url: str) -> str | None:
    """None when the server answers; else why not, in one line."""
    try:
        await admin(url, "SELECT 1")
    except Exception as exc:
        shown = make_url(url).render_as_string(hide_password=True)
        return f"PostgreSQL not reachable at {shown}: {type(exc).__name__}: {exc}"
    return None


# -- the benchmark ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    samples: int
    poll_seconds: float
    seed: int


async def _sample(world: Loopback, db: str, options: Options, rng: random.Random) -> list[float]:
    holder = await wait_until(world.holder, timeout=10.0, message="a poller")
    await asyncio.sleep(rng.uniform(0.0, options.poll_seconds))
    killed_at = await holder.kill()
    replacement = asyncio.create_task(world.start_replica(db, options.poll_seconds))

    async def taken() -> float | None:
        times = [t for r in world.alive() for t in r.takeovers() if t >= killed_at - 0.01]
        return min(times) if times else None

    deadline = 10 * options.poll_seconds
    taken_at = await wait_until(taken, timeout=deadline, message="another replica taking the lease")
    listed_at = await wait_until(
        lambda: world.first_listing_after(killed_at), timeout=deadline, message="a listing"
    )
    await replacement
    return [(taken_at - killed_at) * 1000, (listed_at - killed_at) * 1000]


async def run(options: Options) -> int:
    url = server_url()
    reason = await postgres_or_reason(url)
    if reason is not None:
        print(f"bench.failover needs PostgreSQL; skipped: {reason}", file=sys.stderr)
        return 0
    rng = random.Random(options.seed)
    lease: list[float] = []
    polled: list[float] = []
    async with fresh_database(url) as db, loopback() as world:
        print(f"starting 3 replicas (poll every {options.poll_seconds}s)", file=sys.stderr)
        await world.start_replicas(3, db, options.poll_seconds)
        for n in range(options.samples):
            took, listed = await _sample(world, db, options, rng)
            lease.append(took)
            polled.append(listed)
            print(f"  sample {n + 1}: lease {took:.0f} ms, poll {listed:.0f} ms", file=sys.stderr)
    interval_ms = options.poll_seconds * 1000
    print(f"failover: kill -9 of the polling replica (of 3), poll interval {interval_ms:.0f} ms")
    print(f"(lease TTL 2 intervals, renewed every interval: bound 3 x {interval_ms:.0f} ms)\n")
    print(format_table([("kill -> lease taken", lease), ("kill -> first poll", polled)]))
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.failover", description=__doc__)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--poll-seconds", type=float, default=DEFAULT_POLL_SECONDS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()
    options = Options(args.samples, args.poll_seconds, args.seed)
    raise SystemExit(asyncio.run(run(options)))


if __name__ == "__main__":
    main()
