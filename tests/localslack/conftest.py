"""Fixtures for the local Slack's own tests: a server, a real slack_sdk client, a fake bridge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.support import FakeClock

SIGNING_SECRET = "local-signing-secret"


@dataclass
class CapturedRequest:
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeBridge:
    """Stands where the bridge would: records what arrives, answers with `reply`."""

    url: str = ""
    received: list[CapturedRequest] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    status: int = 200

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append(CapturedRequest(dict(request.headers), await request.read()))
        if self.reply is None:
            return web.Response(status=self.status)
        return web.json_response(self.reply, status=self.status)


START = datetime.fromtimestamp(1_700_000_000, UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
async def slack() -> AsyncIterator[LocalSlack]:
    async with LocalSlack() as server:
        yield server


@pytest.fixture
async def timed_slack(clock: FakeClock) -> AsyncIterator[LocalSlack]:
    """A local Slack whose trigger expiry and rate windows follow `clock`."""
    async with LocalSlack(clock=clock.seconds) as server:
        yield server


@pytest.fixture
def client(slack: LocalSlack) -> AsyncWebClient:
    return AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)


@pytest.fixture
async def bridge() -> AsyncIterator[FakeBridge]:
    fake = FakeBridge()
    app = web.Application()
    app.router.add_post("/slack/events", fake.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    fake.url = f"http://{host}:{port}"
    yield fake
    await runner.cleanup()


@pytest.fixture
async def driver(bridge: FakeBridge, slack: LocalSlack) -> AsyncIterator[SlackDriver]:
    async with SlackDriver(bridge.url, SIGNING_SECRET, slack) as sender:
        yield sender
