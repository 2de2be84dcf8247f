"""Assembles and runs the bridge: store, clients, services, Bolt app, scheduler.

`novo-slack run`, the demo and the end-to-end tests all start the bridge
through `Bridge`, so what the tests exercise is what production runs.

Start-up fails with one line (`SettingsError` or `StartupFailure`) and leaves
nothing open behind it, so the process can print that line and exit. Stopping
is bounded whatever Novo or Slack are doing: each wait has a deadline, and
what is still running after it is cancelled.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot import __version__
from bot.bridge.app import build_bolt_app
from bot.bridge.health import Check, Running, add_operator_routes, add_public_routes
from bot.bridge.http_guard import slack_request_guard
from bot.bridge.inflight import InFlight
from bot.bridge.jobs import BridgeJobs
from bot.bridge.socket_mode import SocketConnection
from bot.bridge.startup import StartupFailure
from bot.bridge.wiring import Services
from bot.clock import Clock, utc_now
from bot.config import Settings, SettingsError
from bot.novo.client import NovoClient
from bot.novo.probe import probe_novo
from bot.outages import Outage
from bot.policy.live import LivePolicy
from bot.slack.availability import watch_slack
from bot.slack.call_metrics import install_slack_counter
from bot.slack.credentials import SlackIdentity, check_app_token, check_bot_token
from bot.slack.gateway import SlackGateway, build_web_client, keep_alive_session
from bot.store import Store, StoreOpenError

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
# How long start-up waits for Socket Mode to connect before going on without it.
SOCKET_CONNECT_WAIT_SECONDS = 5.0
# Shutdown's bounds; together they keep stop() under 10 s.
REQUESTS_GRACE_SECONDS = 2.0
LISTENERS_GRACE_SECONDS = 2.5
JOBS_GRACE_SECONDS = 2.5
CLOSE_GRACE_SECONDS = 1.0
# How long start-up waits for Novo's first answer before starting without it.
NOVO_PROBE_SECONDS = 3.0


class Bridge:
    """One running bridge. `start()` then `stop()`, or `async with`."""

    def __init__(
        self,
        settings: Settings,
        *,
        host: str | None = None,
        clock: Clock = utc_now,
        novo_retry_base: float = 0.5,
        redelivery_base: float = 1.0,
    ) -> None:
        self.settings = settings
        self._host = host or settings.host
        self._clock = clock
        self._novo_retry_base = novo_retry_base
        self._redelivery_base = redelivery_base
        self._store: Store | None = None
        self._novo: NovoClient | None = None
        self._slack_session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self._operator: web.AppRunner | None = None
        self._slack_check: Check | None = None
        self._socket: SocketConnection | None = None
        self._scheduler: AsyncIOScheduler | None = None
        self._in_flight = InFlight()
        self.identity: SlackIdentity | None = None
        self.policy = LivePolicy(settings.default_channel)
        self.services: Services | None = None
        self.jobs: BridgeJobs | None = None
        self.url: str | None = None
        """The Slack port: `/slack/events` (HTTP mode), `/healthz`, the short `/readyz`."""
        self.metrics_url: str | None = None
        """The operator port: `/metrics` and the detailed `/readyz`."""
        self._started = False

    async def start(self) -> None:
        """Start everything, or fail with one line having closed whatever was opened."""
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        settings = self.settings
        # a policy file with a mistake is a setting that is wrong: exit 2, one line
        self.policy = LivePolicy.configured(settings.config_path, settings.default_channel)
        self._store = store = await _open_store(settings)
        released = await store.release_leases(self._clock())
        if released:
            log.info("%d decision(s) from an earlier run will be delivered now", released)
        self._slack_session = keep_alive_session()
        web_client = build_web_client(
            settings.slack_bot_token.get_secret_value(),
            settings.slack_api_url,
            session=self._slack_session,
        )
        install_slack_counter(web_client)
        # Slack out of reach, at start-up or later, is said once when it starts and once
        # when it ends, from the client's answers; every failed call between is DEBUG
        watch_slack(web_client)
        self.identity = identity = await check_bot_token(web_client)
        self._slack_check = Check(
            True, f"auth.test: team {identity.team_id}, bot user {identity.bot_user_id}"
        )
        wss_url = None
        if settings.slack_app_token is not None:
            app_token = settings.slack_app_token.get_secret_value()
            wss_url = await check_app_token(web_client, app_token)
        novo_outage = Outage("novo", log)
        await _probe_novo(settings, novo_outage)
        self._novo = novo = NovoClient(
            settings.novo_api_url,
            settings.novo_api_key.get_secret_value(),
            backoff_base=self._novo_retry_base,
        )
        self.services = services = Services.build(
            store=store,
            novo=novo,
            slack=SlackGateway(web_client),
            default_channel=settings.default_channel,
            clock=self._clock,
            redelivery_base=self._redelivery_base,
            post_rate=settings.post_rate,
            update_rate=settings.update_rate,
            policy=self.policy,
            home_team=identity.team_id,
            team_url=identity.url,
        )
        secret = settings.slack_signing_secret
        signing_secret = (
            None if settings.socket_mode or secret is None else secret.get_secret_value()
        )
        app = build_bolt_app(
            web_client, signing_secret, services, identity=identity, in_flight=self._in_flight
        )
        if settings.slack_app_token is not None:
            self._socket = SocketConnection(
                app, settings.slack_app_token.get_secret_value(), wss_url
            )
            await self._socket.connect(SOCKET_CONNECT_WAIT_SECONDS)
            web_app = web.Application()
        else:
            if signing_secret is None:  # the settings refuse this; never serve unverified
                raise SettingsError("SLACK_SIGNING_SECRET is required in HTTP mode")
            web_app = app.web_app(path=EVENTS_PATH, port=settings.port)
            web_app.middlewares.append(slack_request_guard(signing_secret, EVENTS_PATH))
        add_public_routes(web_app, self._running)
        operator_app = web.Application()
        add_operator_routes(operator_app, self._running)
        self._runner, bound = await self._serve(web_app, settings.port, "NOVO_SLACK_PORT")
        self.url = self._local_url(bound)
        self._operator, operator = await self._serve(
            operator_app, settings.metrics_port, "NOVO_SLACK_METRICS_PORT"
        )
        self.metrics_url = self._local_url(operator)
        if self._socket is None:
            log.info(
                "listening for Slack on http://%s%s (and /healthz, /readyz)", bound, EVENTS_PATH
            )
        else:
            log.info("serving /healthz and /readyz on http://%s", bound)
        log.info("serving /metrics and the detailed /readyz on http://%s", operator)
        self.jobs = BridgeJobs(
            services,
            settings.poll_seconds,
            audit_days=settings.audit_days,
            novo=novo_outage,
            policy=self.policy,
        )
        self._scheduler = AsyncIOScheduler(timezone="UTC")
        self.jobs.install(self._scheduler)
        self._scheduler.start()
        self._started = True
        log.info("bridge started: %s", self._summary())

    async def _serve(
        self, app: web.Application, port: int, setting: str
    ) -> tuple[web.AppRunner, str]:
        """Serve `app` on `port` of the bridge's host; the runner and the bound host:port."""
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=REQUESTS_GRACE_SECONDS)
        await runner.setup()
        try:
            await _listen(runner, self._host, port, setting)
        except BaseException:
            await runner.cleanup()
            raise
        return runner, _bound(runner)

    def _local_url(self, bound: str) -> str:
        """Where a client on this host reaches what is bound at `bound`."""
        host, port = bound.rsplit(":", 1)
        return f"http://{'127.0.0.1' if self._host == '0.0.0.0' else host}:{port}"

    def reload_policy(self) -> bool:
        """Re-read the policy file (SIGHUP); a file with a mistake leaves the old one in force."""
        return self.policy.reload()

    async def stop(self) -> None:
        """Stop taking requests, let listeners then jobs finish (bounded), close; safe twice."""
        scheduler, self._scheduler = self._scheduler, None
        socket, self._socket = self._socket, None
        runner, self._runner = self._runner, None
        operator, self._operator = self._operator, None
        jobs, self.jobs = self.jobs, None
        novo, self._novo = self._novo, None
        store, self._store = self._store, None
        slack_session, self._slack_session = self._slack_session, None
        self.services = None
        if scheduler is not None:
            scheduler.pause()  # no job starts from here on; running ones are drained below
        if socket is not None:
            await socket.close(CLOSE_GRACE_SECONDS)
        if runner is not None:
            await runner.cleanup()  # waits REQUESTS_GRACE_SECONDS for requests, then cancels
        if operator is not None:
            await operator.cleanup()
        await self._in_flight.drain(LISTENERS_GRACE_SECONDS)
        if jobs is not None:
            await jobs.drain(JOBS_GRACE_SECONDS)
        if scheduler is not None:
            scheduler.shutdown(wait=False)
        if novo is not None:
            await _bounded(novo.aclose(), "the Novo client")
        if slack_session is not None:
            await _bounded(slack_session.close(), "the Slack client")
        if store is not None:
            await _bounded(store.close(), "the store")
        if self._started:
            self._started = False
            log.info("bridge stopped")

    def _summary(self) -> str:
        """The start-up line: enough to tell from the log alone what this process serves."""
        settings = self.settings
        mode = "Socket Mode" if settings.socket_mode else "HTTP mode"
        novo = urlsplit(settings.novo_api_url)
        novo_host = novo.hostname or novo.netloc
        if novo.port:
            novo_host = f"{novo_host}:{novo.port}"
        store = self._store
        where = f"{store.engine_name} {store.shown}" if store is not None else "?"
        identity = self.identity
        team = f"team {identity.team_id}" if identity is not None else "team ?"
        return (
            f"novo-slack {__version__}, {mode}, channel {settings.default_channel},"
            f" Novo {novo.scheme}://{novo_host}, store {where}, Slack {team}"
        )

    def _running(self) -> Running | None:
        """What `/readyz` looks at, or None while starting or stopping."""
        services, jobs, slack = self.services, self.jobs, self._slack_check
        if services is None or jobs is None or slack is None or not self._started:
            return None
        socket = self._socket
        return Running(
            jobs=jobs,
            engine=services.engine,
            store=services.store,
            poll_seconds=self.settings.poll_seconds,
            slack=slack,
            socket=_socket_check(socket) if socket is not None else None,
            min_free_mb=self.settings.min_free_mb,
        )

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


async def _probe_novo(settings: Settings, outage: Outage) -> None:
    """Stop on a key Novo refuses or a URL that is not its API (exit 2, one line); a Novo
    that is down is no mistake: the outage starts (said once) and the bridge starts."""
    answer = await probe_novo(
        settings.novo_api_url,
        settings.novo_api_key.get_secret_value(),
        timeout=NOVO_PROBE_SECONDS,
    )
    if answer.state in ("key_refused", "not_the_api"):
        raise SettingsError(answer.line)
    if answer.state == "down":
        outage.failed("%s; retrying", answer.line)


async def _open_store(settings: Settings) -> Store:
    try:
        return await Store.open(settings.db_path)
    except StoreOpenError as exc:
        raise StartupFailure(str(exc)) from exc


async def _listen(runner: web.AppRunner, host: str, port: int, setting: str) -> None:
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        cause = "address already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise StartupFailure(f"{setting}: {host}:{port}: {cause or exc}") from exc


async def _bounded(closing: Awaitable[None], what: str) -> None:
    try:
        async with asyncio.timeout(CLOSE_GRACE_SECONDS):
            await closing
    except TimeoutError:
        log.warning("%s did not close within %.0fs", what, CLOSE_GRACE_SECONDS)


def _bound(runner: web.AppRunner) -> str:
    """The address the server really bound, as host:port ([v6]:port)."""
    host, port = runner.addresses[0][:2]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def _socket_check(socket: SocketConnection) -> Callable[[], Awaitable[Check]]:
    async def check() -> Check:
        if await socket.connected():
            return Check(True, "Socket Mode connected")
        return Check(False, "Socket Mode not connected; slack_sdk keeps reconnecting")

    return check
