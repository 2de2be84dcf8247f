"""The simulator's HTTP face: the public Interactions API and the `/_sim` control API.

The bridge, its tests, its demo and its benchmarks all talk to this server as
they would to Novo, so everything a client can observe over HTTP is here or
in `routes.py`: auth, the error bodies and statuses of Part 2, injected
faults and latency, and a log of what the public routes were asked. This
module wraps the handlers in that behaviour, wires the app and runs it.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import signal
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

from aiohttp import web

from bot.novo.errors import ResolveRuleError
from bot.novo.models import format_timestamp
from novo_dev.sim import demo_data
from novo_dev.sim.errors import SimError
from novo_dev.sim.routes import (
    CONTROL,
    STATE,
    SimControl,
    add_raw_records,
    clear_log,
    clear_raw_records,
    create_interaction,
    expire_interaction,
    extend_interaction,
    get_faults,
    get_interaction,
    get_log,
    list_interactions,
    reset,
    resolve_batch,
    resolve_interaction,
    set_faults,
    terminate_run,
)
from novo_dev.sim.state import DEFAULT_PARK_SECONDS, SimState

log = logging.getLogger(__name__)

PUBLIC_PREFIX = "/v1/"
RETRY_AFTER_SECONDS = 1
SHUTDOWN_GRACE_SECONDS = 1.0
_FAULT_TYPES = {
    400: "invalid_request",
    401: "unauthorized",
    404: "interaction_not_found",
    409: "idempotency_key_conflict",
    429: "rate_limited",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, type_: str, message: str, **headers: str) -> web.Response:
    body = {"error": {"type": type_, "message": message}}
    return web.json_response(body, status=status, headers=headers or None)


# -- middlewares (outermost first) ------------------------------------------------------------


@web.middleware
async def _record(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Log every public request, faulted and refused ones included, in the order received,
    with how many others were unanswered when it came (`alongside`: requests sent together
    overlap, requests sent one after another, each awaited, never do)."""
    if not request.path.startswith(PUBLIC_PREFIX):
        return await handler(request)
    control = request.app[CONTROL]
    entry: dict[str, Any] = {
        "method": request.method,
        "path": request.path,
        "query": dict(request.query),
        "status": None,
        "at": format_timestamp(request.app[STATE].now()),
        "alongside": control.in_flight,
    }
    control.requests.append(entry)
    control.in_flight += 1
    try:
        response = await handler(request)
    finally:
        control.in_flight -= 1
    entry["status"] = response.status
    return response


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every refusal into Part 2's error body, so no client meets an HTML page."""
    try:
        return await handler(request)
    except SimError as exc:
        return _error(exc.status, exc.type, exc.message)
    except ResolveRuleError as exc:
        return _error(400, exc.type, exc.message)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        kinds = {404: "not_found", 405: "method_not_allowed"}
        return _error(exc.status, kinds.get(exc.status, "invalid_request"), exc.reason)
    except ConnectionResetError:
        raise  # the client went away (e.g. while a fault held its request): nothing failed here
    except Exception:
        log.exception("simulator failed on %s %s", request.method, request.path)
        return _error(500, "internal_error", "the simulator failed; see its log")


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Auth, then injected faults, on public routes; expiry applied before any request.
    Faults come before the request is applied, or after it with `afterApply`."""
    control = request.app[CONTROL]
    public = request.path.startswith(PUBLIC_PREFIX)
    if public:
        _check_auth(request, control.api_key)
        if not control.faults.after_apply:
            faulted = await _fault(request, control)
            if faulted is not None:
                return faulted
    request.app[STATE].expire_due()
    response = await handler(request)
    if public and control.faults.after_apply:
        faulted = await _fault(request, control)
        if faulted is not None:
            return faulted  # applied all the same: only its answer is lost
    return response


def _check_auth(request: web.Request, api_key: str | None) -> None:
    if api_key is None:
        return
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.encode(), api_key.encode()):
        raise SimError(401, "unauthorized", "missing or wrong API key")


async def _fault(request: web.Request, control: SimControl) -> web.Response | None:
    """An injected failure (a hang, latency, an error answer), or None to go on."""
    faults = control.faults
    if not faults.covers(request.match_info.route.name):
        return None
    if faults.hang:
        await control.unhang.wait()
    if faults.latency_ms:
        await asyncio.sleep(faults.latency_ms / 1000)
    if control.rng.random() >= faults.error_rate:
        return None
    status = faults.status
    type_ = "internal_error" if status >= 500 else _FAULT_TYPES.get(status, "invalid_request")
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 429 else {}
    return _error(status, type_, "injected fault", **headers)


# -- wiring -----------------------------------------------------------------------------------


def build_app(state: SimState, *, api_key: str | None, rng: random.Random) -> web.Application:
    app = web.Application(middlewares=[_record, _errors, _guard])
    app[STATE] = state
    app[CONTROL] = SimControl(api_key=api_key, rng=rng)
    app.router.add_get("/v1/interactions", list_interactions, name="list")
    app.router.add_get("/v1/interactions/{id}", get_interaction, name="get")
    app.router.add_post("/v1/interactions/{id}/resolve", resolve_interaction, name="resolve")
    app.router.add_post(
        "/v1/runs/{root_run_id}/interactions/resolve", resolve_batch, name="resolve_batch"
    )
    app.router.add_post("/_sim/interactions", create_interaction)
    app.router.add_post("/_sim/interactions/{id}/extend", extend_interaction)
    app.router.add_post("/_sim/interactions/{id}/expire", expire_interaction)
    app.router.add_post("/_sim/runs/{run_id}/terminate", terminate_run)
    app.router.add_post("/_sim/raw", add_raw_records)
    app.router.add_delete("/_sim/raw", clear_raw_records)
    app.router.add_post("/_sim/faults", set_faults)
    app.router.add_get("/_sim/faults", get_faults)
    app.router.add_get("/_sim/log", get_log)
    app.router.add_delete("/_sim/log", clear_log)
    app.router.add_post("/_sim/reset", reset)
    return app


# -- running it -------------------------------------------------------------------------------


class SimServer:
    """A running simulator: its base URL, its state, and the tasks that keep time for it."""

    def __init__(
        self, url: str, state: SimState, runner: web.AppRunner, tasks: list[asyncio.Task[None]]
    ) -> None:
        self.url = url
        self.state = state
        self._runner = runner
        self._tasks = tasks
        self._closed = False

    async def close(self) -> None:
        """Stop the timers and the listener; calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        for task in self._tasks:
            task.cancel()
        # gather, not `suppress(CancelledError)`: a close() that is itself cancelled must
        # stay cancelled instead of swallowing its caller's cancellation
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self._runner.app[CONTROL].release_hung()
        await self._runner.cleanup()

    async def __aenter__(self) -> SimServer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


async def start_sim(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    api_key: str | None = None,
    park_seconds: float = DEFAULT_PARK_SECONDS,
    demo: bool = False,
    demo_interval_seconds: float = demo_data.DEFAULT_INTERVAL_SECONDS,
    seed: int | None = None,
    demo_seed: bool = True,
) -> SimServer:
    """Start a simulator on `host:port` (0 picks a free port) and return once it listens.

    With `demo`, it opens on every demo template once (unless `demo_seed` is false) and
    then creates a run step every `demo_interval_seconds` (never when that is 0).
    """
    state = SimState(park_seconds=park_seconds)
    if demo and demo_seed:
        demo_data.seed(state)
    app = build_app(state, api_key=api_key or None, rng=random.Random(seed))
    # a request held by a fault must not hold up close() for aiohttp's default minute
    runner = web.AppRunner(app, shutdown_timeout=SHUTDOWN_GRACE_SECONDS)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError:
        await runner.cleanup()
        raise
    bound_port = int(runner.addresses[0][1])
    tasks = [asyncio.create_task(state.watch_expiry(), name="sim-expiry")]
    if demo and demo_interval_seconds > 0:
        feed = demo_data.feed(state, demo_interval_seconds)
        tasks.append(asyncio.create_task(feed, name="sim-demo-feed"))
    return SimServer(_url(host, bound_port), state, runner, tasks)


async def _serve(
    host: str, port: int, *, api_key: str | None, park_seconds: float, demo: bool
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with await start_sim(
        host, port, api_key=api_key, park_seconds=park_seconds, demo=demo
    ) as sim:
        log.info(
            "Novo simulator listening on %s (auth %s, demo %s)",
            sim.url,
            "on" if api_key else "off",
            "on" if demo else "off",
        )
        await stop.wait()
    log.info("Novo simulator stopped")


def run_sim(host: str, port: int, *, api_key: str | None, park_seconds: float, demo: bool) -> None:
    """Serve until SIGINT or SIGTERM, for `novo-slack sim`; the API key is never logged."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(_serve(host, port, api_key=api_key, park_seconds=park_seconds, demo=demo))
