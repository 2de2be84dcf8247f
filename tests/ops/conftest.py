"""An in-process bridge against the simulator and the local Slack, in either mode.

Operating the bridge is judged from outside: probes and scrapes over HTTP,
what `novo-slack check` prints, what the log says. The bridge here is the
one `novo-slack run` starts, built from the same settings.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.bridge.runtime import Bridge
from bot.config import load_settings
from novo_dev.demo.stack import Person, ServersConfig, bridge_environment, local_servers
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.support import trigger_ttl

API_KEY = "ops-novo-key"
SIGNING_SECRET = "ops-signing-secret"
CHANNEL = "C0OPS"
POLL_SECONDS = 0.1


@dataclass
class Servers:
    sim: SimServer
    slack: LocalSlack
    http: httpx.AsyncClient
    tmp: Path

    def env(self, **overrides: str) -> dict[str, str]:
        """The environment `novo-slack` reads to work against these two servers."""
        env = bridge_environment(
            self.sim,
            self.slack,
            self.tmp / "bridge.db",
            signing_secret=SIGNING_SECRET,
            api_key=API_KEY,
            channel=CHANNEL,
            poll_seconds=POLL_SECONDS,
            host="127.0.0.1",
        )
        env.update(overrides)
        return env

    def bridge(self, **overrides: str) -> AbstractAsyncContextManager[Bridge]:
        """A started bridge with these settings; stopped on leaving the block."""

        @asynccontextmanager
        async def running() -> AsyncIterator[Bridge]:
            settings = load_settings(**self.env(**overrides), _env_file=None)
            bridge = Bridge(settings, novo_retry_base=0.01, redelivery_base=0.05)
            await bridge.start()
            try:
                yield bridge
            finally:
                await bridge.stop()

        return running()

    @property
    def control(self) -> SimControl:
        return SimControl(self.sim.url, self.http)

    async def create(self, kind: str = "approval_request", **fields: object) -> str:
        return str((await self.control.create(kind, **fields))["id"])

    async def fault(self, **spec: object) -> None:
        await self.control.faults(**spec)

    def shown_ts(self, interaction_id: str) -> str | None:
        """The ts of the channel message for the interaction, once Slack shows one."""
        for message in self.slack.messages(CHANNEL):
            payload = (message.metadata or {}).get("event_payload") or {}
            if payload.get("interaction_id") == interaction_id:
                return message.ts
        return None


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[Servers]:
    config = ServersConfig(
        api_key=API_KEY, people=[Person("U0ADA", "ada", "Ada Lovelace")], trigger_ttl=trigger_ttl()
    )
    async with local_servers(config) as running, httpx.AsyncClient(timeout=10) as http:
        yield Servers(running.sim, running.slack, http, tmp_path)


def sample(text: str, name: str, **labels: str) -> float | None:
    """One sample's value from a Prometheus text page (labels in any order); None if absent."""
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return float(found.value)
    return None
