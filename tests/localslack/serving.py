"""A real Bolt app served against the local Slack, over HTTP or Socket Mode, for its tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack
from tests.support import wait_until


@asynccontextmanager
async def served(app: AsyncApp) -> AsyncIterator[str]:
    """`app` listening on loopback; yields its base URL (events at /slack/events)."""
    runner = web.AppRunner(app.web_app(path="/slack/events"), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def over_socket(app: AsyncApp, slack: LocalSlack) -> AsyncIterator[AsyncSocketModeHandler]:
    """`app` connected to the local Slack's Socket Mode endpoint."""
    slack.serve_socket()
    handler = AsyncSocketModeHandler(app, slack.app_token)
    handler.client.web_client = AsyncWebClient(token=slack.app_token, base_url=slack.api_url)
    await handler.connect_async()  # type: ignore[no-untyped-call]
    await wait_until(lambda: slack.socket_connections == 1)
    try:
        yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
