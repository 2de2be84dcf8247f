"""What `/healthz`, `/readyz` and `/metrics` say, served the same in HTTP mode and Socket Mode.

Two ports, two audiences. The Slack port (`NOVO_SLACK_PORT`) is the one Slack
and an Ingress reach: it serves `/slack/events` (HTTP mode), `/healthz`, and a
`/readyz` that says only ready or not, and when not, why in one word (the
failing check's name). Whoever can reach it learns nothing of the store, the
workspace or the channels. The operator port (`NOVO_SLACK_METRICS_PORT`), for
the cluster's Prometheus and whoever runs the bridge, serves `/metrics` and the
detailed `/readyz` below; it is never routed from outside.

Liveness (`/healthz`) only says the process answers: restart it if it does
not. Readiness names each check, so an operator reading the JSON knows what
to fix: polls failing (Novo down or refusing the key), the store not
writable, Slack refusing the bot token, the Socket Mode connection down, and
records Novo lists that the bridge cannot read (named by id; they are
skipped, so they do not make the bridge unready, but someone should look at
them).

In Socket Mode Slack reaches no port, but both servers still listen: an
orchestrator probes and a Prometheus scrapes either mode the same way.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.bridge.jobs import POLLER_LEASE, BridgeJobs
from bot.metrics import OUTBOX_DEPTH, OUTBOX_OLDEST_AGE
from bot.outages import level
from bot.store import Store
from bot.sync.engine import SyncEngine

log = logging.getLogger(__name__)

MEBIBYTE = 1024 * 1024
STALE_POLL_INTERVALS = 3  # a poll older than this many intervals means polling is stuck
UNREADABLE_SHOWN = 20  # ids named in the answer; the metric counts them all
# A lease nobody ever holds: written, read back and removed by every probe.
WRITE_PROBE_LEASE = "readiness-probe"


@dataclass(frozen=True)
class Check:
    ok: bool
    detail: str


@dataclass(frozen=True)
class Running:
    """What readiness looks at; absent while the bridge starts or stops."""

    jobs: BridgeJobs
    engine: SyncEngine
    store: Store
    poll_seconds: float
    slack: Check
    socket: Callable[[], Awaitable[Check]] | None = None
    min_free_mb: int = 50


async def readiness(running: Running) -> tuple[bool, dict[str, Any]]:
    """(ready, the JSON body): every check by name, with what it saw."""
    checks = {
        "poll": await _poll_check(running.jobs, running.store, running.poll_seconds),
        "store": await store_check(running.store, running.min_free_mb),
        "slack": running.slack,
    }
    if running.socket is not None:
        checks["socket"] = await running.socket()
    unreadable = dict(list(running.engine.unreadable.items())[:UNREADABLE_SHOWN])
    ready = all(c.ok for c in checks.values())
    body: dict[str, Any] = {
        "ready": ready,
        "checks": {name: {"ok": c.ok, "detail": c.detail} for name, c in checks.items()},
        "failing": [name for name, c in checks.items() if not c.ok],
        "unreadable_records": unreadable,
    }
    return ready, body


async def _poll_check(jobs: BridgeJobs, store: Store, poll_seconds: float) -> Check:
    if not jobs.leading:
        holder = await store.lease_holder(POLLER_LEASE, datetime.now(UTC))
        if holder is None:
            return Check(False, "no process holds the poller lease")
        if holder != jobs.holder:  # ours: just taken, and not yet polled with
            return Check(True, f"another process polls ({holder})")
    if jobs.last_poll_ok is None:
        return Check(False, "no successful poll yet")
    age = time.monotonic() - jobs.last_poll_ok
    ok = age <= STALE_POLL_INTERVALS * poll_seconds
    return Check(ok, f"last successful poll {age:.1f}s ago")


async def store_check(store: Store, min_free_mb: int) -> Check:
    """The store as it is: its file still the one opened, a row really written and read
    back, and room on the disk for the next decision (SQLite; PostgreSQL's disk is the
    server's to watch)."""
    problem = store.file_problem()
    if problem is not None:
        return Check(False, f"the store file {store.shown} {problem}; restart the bridge")
    try:
        await store.probe_write(WRITE_PROBE_LEASE, uuid.uuid4().hex, datetime.now(UTC))
    except Exception as exc:
        return Check(False, f"store not writable: {type(exc).__name__}: {str(exc)[:200]}")
    free = store.free_bytes()
    if free is not None and free < min_free_mb * MEBIBYTE:
        return Check(
            False,
            f"{free / MEBIBYTE:.0f} MB free beside {store.shown}, under the"
            f" {min_free_mb} MB NOVO_SLACK_MIN_FREE_MB asks for",
        )
    room = f", {free / MEBIBYTE:.0f} MB free" if free is not None else ""
    return Check(True, f"{store.engine_name} store {store.shown} takes writes{room}")


Probe = Callable[[], "Running | None"]
STARTING = "starting"


def add_public_routes(app: web.Application, probe: Probe) -> None:
    """The Slack port's `/healthz` and `/readyz`: ready or not, and the one word why."""

    async def readyz(request: web.Request) -> web.Response:
        running = probe()
        if running is None:
            return web.json_response({"ready": False, "reason": STARTING}, status=503)
        ready, body = await readiness(running)
        if ready:
            return web.json_response({"ready": True})
        return web.json_response({"ready": False, "reason": body["failing"][0]}, status=503)

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)


def add_operator_routes(app: web.Application, probe: Probe) -> None:
    """The operator port's `/healthz`, detailed `/readyz` and `/metrics`; `probe` gives
    what the bridge runs now."""

    async def readyz(request: web.Request) -> web.Response:
        running = probe()
        if running is None:
            body = {"ready": False, "checks": {}, "failing": [STARTING]}
            return web.json_response(body, status=503)
        ready, body = await readiness(running)
        return web.json_response(body, status=200 if ready else 503)

    async def metrics(request: web.Request) -> web.Response:
        running = probe()
        if running is not None:
            try:
                await refresh_outbox(running.store)
            except Exception as exc:  # the other metrics are still worth serving
                # the database out of reach is its outage's to say, not each scrape's
                log.log(level(exc), "could not read the outbox for /metrics: %r", exc)
        return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def refresh_outbox(store: Store, now: datetime | None = None) -> None:
    """Set the outbox gauges from the store; called on each scrape."""
    now = now or datetime.now(UTC)
    waiting = await store.due_decisions(datetime.max.replace(tzinfo=UTC))
    OUTBOX_DEPTH.set(len(waiting))
    oldest = min((d.decision.at for d in waiting), default=None)
    OUTBOX_OLDEST_AGE.set(max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)
