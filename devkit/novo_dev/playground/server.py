"""The playground: a page on loopback where a person sees the local Slack and clicks in it.

`novo-slack demo --no-clicks` leaves the clicking to a person, and this is
where they do it. The server hands the page a snapshot of the local Slack
(`GET /api/state`, polled) and turns each click, pick, type-ahead or
submission the page posts (`POST /api/intent`) into the signed payload
Slack would send, through `SlackDriver`. It binds to loopback only: it
clicks as anyone in the workspace and checks no one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from aiohttp import web
from pydantic import ValidationError

from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.server import LocalSlack
from novo_dev.playground.intents import IntentBody, perform
from novo_dev.playground.narration import describe
from novo_dev.playground.snapshot import ChannelIndex, snapshot

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
DEFAULT_PORT = 8700


class Playground:
    """The page's server; `narrate` (e.g. the demo transcript) hears every click made on it."""

    def __init__(
        self,
        slack: LocalSlack,
        driver: SlackDriver,
        channels: list[str],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        narrate: Callable[[str], None] | None = None,
    ) -> None:
        self.url = ""
        self._slack = slack
        self._driver = driver
        self._index = ChannelIndex(slack, channels)
        self._host = host
        self._port = port
        self._narrate = narrate
        self._runner: web.AppRunner | None = None

    async def start(self) -> Playground:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/api/state", self._state)
        app.router.add_post("/api/intent", self._intent)
        app.router.add_static("/static/", STATIC)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self._host, self._port).start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        log.info("playground on %s", self.url)
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Playground:
        return self if self._runner is not None else await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def _state(self, request: web.Request) -> web.Response:
        user = request.query.get("user") or None
        if user is not None and self._slack.user(user) is None:
            user = None
        return web.json_response(snapshot(self._slack, self._index, user))

    async def _intent(self, request: web.Request) -> web.Response:
        try:
            body = IntentBody.model_validate_json(await request.read())
        except ValidationError as exc:
            return _error(400, f"not an intent: {exc.errors(include_url=False)}")
        said = describe(body.intent, self._slack)
        try:
            result = await perform(body, self._driver, self._slack)
        except (AssertionError, KeyError) as exc:
            # What Slack's own client would not send: nothing reached the bridge.
            return _error(409, str(exc).strip("'\""))
        except httpx.HTTPError as exc:
            return _error(502, f"the bridge did not answer: {exc!r}")
        if said and self._narrate is not None:
            self._narrate(f"*click* {said} (on the playground)")
        return web.json_response(result)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status, dumps=_dumps)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str)


async def start_playground(
    slack: LocalSlack,
    driver: SlackDriver,
    channels: list[str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    narrate: Callable[[str], None] | None = None,
) -> Playground:
    """Serve the page on `host:port` (0 picks a free port) and return once it listens."""
    return await Playground(slack, driver, channels, host=host, port=port, narrate=narrate).start()
