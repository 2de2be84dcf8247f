"""Assembles and runs the bridge: store, clients, services, Bolt app, scheduler.

`novo-slack run`, the demo and the end-to-end tests all start the bridge
through `Bridge`, so what the tests exercise is what production runs.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Self

from aiohttp import web
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.clock import Clock, utc_now
from bot.config import Settings
from bot.novo.client import NovoClient
from bot.scheduling import BridgeJobs
from bot.services.container import Services
from bot.slack.app import build_bolt_app
from bot.slack.gateway import SlackGateway, build_web_client
from bot.store import Store

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


class Bridge:
    """One running bridge. `start()` then `stop()`, or `async with`."""

    def __init__(
        self,
        settings: Settings,
        *,
        host: str = "0.0.0.0",
        clock: Clock = utc_now,
        novo_retry_base: float = 0.5,
        redelivery_base: float = 1.0,
    ) -> None:
        self.settings = settings
        self._host = host
        self._clock = clock
        self._novo_retry_base = novo_retry_base
        self._redelivery_base = redelivery_base
        self._runner: web.AppRunner | None = None
        self._socket: AsyncSocketModeHandler | None = None
        self._scheduler: AsyncIOScheduler | None = None
        self.services: Services | None = None
        self.jobs: BridgeJobs | None = None
        self.url: str | None = None

    async def start(self) -> None:
        settings = self.settings
        store = await Store.open(settings.db_path)
        released = await store.release_leases(self._clock())
        if released:
            log.info("%d decision(s) from an earlier run will be delivered now", released)
        novo = NovoClient(
            settings.novo_api_url,
            settings.novo_api_key.get_secret_value(),
            backoff_base=self._novo_retry_base,
        )
        web_client = build_web_client(
            settings.slack_bot_token.get_secret_value(), settings.slack_api_url
        )
        self.services = services = Services.build(
            store=store,
            novo=novo,
            slack=SlackGateway(web_client),
            default_channel=settings.default_channel,
            clock=self._clock,
            redelivery_base=self._redelivery_base,
        )
        app = build_bolt_app(web_client, settings.slack_signing_secret.get_secret_value(), services)
        if settings.slack_app_token is not None:
            self._socket = AsyncSocketModeHandler(app, settings.slack_app_token.get_secret_value())
            await self._socket.connect_async()  # type: ignore[no-untyped-call]
            log.info("connected to Slack in Socket Mode")
        else:
            web_app = app.web_app(path=EVENTS_PATH, port=settings.port)
            web_app.router.add_get("/healthz", _healthz)
            web_app.router.add_get("/metrics", _metrics)
            self._runner = web.AppRunner(web_app, access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, self._host, settings.port)
            await site.start()
            port = self._runner.addresses[0][1]
            self.url = f"http://{'127.0.0.1' if self._host == '0.0.0.0' else self._host}:{port}"
            log.info("listening for Slack on %s%s", self.url, EVENTS_PATH)
        self.jobs = BridgeJobs(services, settings.poll_seconds)
        self._scheduler = AsyncIOScheduler(timezone="UTC")
        self.jobs.install(self._scheduler)
        self._scheduler.start()

    async def stop(self) -> None:
        """Stop taking requests, then jobs, then close connections; safe to call twice."""
        scheduler, self._scheduler = self._scheduler, None
        socket, self._socket = self._socket, None
        runner, self._runner = self._runner, None
        services, self.services = self.services, None
        if socket is not None:
            await socket.close_async()  # type: ignore[no-untyped-call]
        if runner is not None:
            await runner.cleanup()
        if scheduler is not None:
            # pause first: shutdown cancels running jobs, which could cut a
            # post off between chat.postMessage and recording its ts
            scheduler.pause()
            if self.jobs is not None:
                await self.jobs.drain()
            scheduler.shutdown(wait=False)
        if services is not None:
            await services.novo.aclose()
            await services.store.close()
            log.info("bridge stopped")

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()


async def _healthz(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def _metrics(request: web.Request) -> web.Response:
    return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})
