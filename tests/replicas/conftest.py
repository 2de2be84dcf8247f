"""Several `novo-slack run` processes sharing one fresh PostgreSQL database.

Replicas are separate processes, so what is shared between them is only what
the database holds; killing one with SIGKILL is the crash a deployment sees.
Each test gets a database of its own (not just a schema: `NOVO_SLACK_DB` is a
plain URL, as an operator writes it), dropped afterwards. PostgreSQL out of
reach skips these tests with the reason, unless `CI=true` or
`NOVO_SLACK_REQUIRE_POSTGRES=1` make that a failure.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime

import pytest

from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import _LISTENING, SIGNING_SECRET, Bridge, World, world
from tests.postgres import fresh_database
from tests.support import PROCESS_TIMEOUT

__all__ = ["fresh_database", "world"]  # the lifecycle harness's fixture, offered to these tests too

POLL_SECONDS = 0.2
TAKEOVER = "this process now polls Novo"
USERS = (("U0ADA", "ada", "Ada Lovelace"), ("U0GRACE", "grace", "Grace Hopper"))


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    async with fresh_database() as url:
        yield url


@dataclass
class Replica:
    """One `novo-slack run` of the set, with a driver that sends it Slack's clicks."""

    name: str
    bridge: Bridge
    url: str
    driver: SlackDriver
    killed_at: float | None = None

    @property
    def alive(self) -> bool:
        return self.killed_at is None and self.bridge.process.returncode is None

    def takeovers(self) -> list[float]:
        """When (epoch seconds, from its own log line) this process took the poller lease."""
        return [_logged_at(line) for line in self.bridge.lines if TAKEOVER in line]

    async def kill(self) -> float:
        """SIGKILL, as a crashed host or the OOM killer would; returns when it was sent."""
        self.killed_at = time.time()
        await self.bridge.kill()
        return self.killed_at


def _logged_at(line: str) -> float:
    """The `asctime` a log line starts with (local time, milliseconds), as epoch seconds."""
    stamp = " ".join(line.split(" ", 2)[:2])
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


@dataclass
class Replicas:
    world: World
    members: list[Replica] = field(default_factory=list)

    def alive(self) -> list[Replica]:
        return [r for r in self.members if r.alive]

    def holder(self) -> Replica | None:
        """The live replica that took the poller lease last (by its own log line)."""
        best: tuple[float, Replica] | None = None
        for replica in self.alive():
            for at in replica.takeovers():
                if best is None or at > best[0]:
                    best = (at, replica)
        return best[1] if best else None


@pytest.fixture
async def replicas(world: World, database_url: str) -> AsyncIterator[Replicas]:
    """Three replicas on one database, started together (so migrations race, as in a rollout)."""
    for user in USERS:
        world.slack.add_user(*user)
    bridges = [
        await world.run(NOVO_SLACK_DB=database_url, NOVO_SLACK_POLL_SECONDS=str(POLL_SECONDS))
        for _ in range(3)
    ]
    members = []
    for index, bridge in enumerate(bridges):
        # three start-ups at once share the cores with the rest of a busy test run
        url = (await bridge.saw(_LISTENING.pattern, within=PROCESS_TIMEOUT)).group(1)
        driver = SlackDriver(url, SIGNING_SECRET, world.slack, http=world.http)
        members.append(Replica(f"replica-{'ABC'[index]}", bridge, url, driver))
    try:
        yield Replicas(world, members)
    finally:
        for member in members:  # before the database goes, so none of them logs its loss
            await member.bridge.kill()
