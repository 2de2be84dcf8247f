"""What `/readyz` says: whether this bridge is doing its job, and if not, why.

Liveness (`/healthz`) only says the process answers. Readiness names each
check, so an operator reading the JSON knows what to fix: polls failing
(Novo down or refusing the key), the store unreadable, and records Novo
lists that the bridge cannot read (named by id; they are skipped, so they
do not make the bridge unready, but someone should look at them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.scheduling import POLLER_LEASE, BridgeJobs
from bot.store import Store
from bot.sync.engine import SyncEngine

STALE_POLL_INTERVALS = 3  # a poll older than this many intervals means polling is stuck
UNREADABLE_SHOWN = 20  # ids named in the answer; the metric counts them all


@dataclass(frozen=True)
class Check:
    ok: bool
    detail: str


async def readiness(
    jobs: BridgeJobs, engine: SyncEngine, store: Store, poll_seconds: float
) -> tuple[bool, dict[str, Any]]:
    """(ready, the JSON body): every check by name, with what it saw."""
    checks = {
        "poll": await _poll_check(jobs, store, poll_seconds),
        "store": await _store_check(store),
    }
    unreadable = dict(list(engine.unreadable.items())[:UNREADABLE_SHOWN])
    ready = all(c.ok for c in checks.values())
    body: dict[str, Any] = {
        "ready": ready,
        "checks": {name: {"ok": c.ok, "detail": c.detail} for name, c in checks.items()},
        "unreadable_records": unreadable,
    }
    return ready, body


async def _poll_check(jobs: BridgeJobs, store: Store, poll_seconds: float) -> Check:
    if not jobs.leading:
        holder = await store.lease_holder(POLLER_LEASE, datetime.now(UTC))
        if holder is None:
            return Check(False, "no process holds the poller lease")
        return Check(True, f"another process polls ({holder})")
    if jobs.last_poll_ok is None:
        return Check(False, "no successful poll yet")
    age = time.monotonic() - jobs.last_poll_ok
    ok = age <= STALE_POLL_INTERVALS * poll_seconds
    return Check(ok, f"last successful poll {age:.1f}s ago")


async def _store_check(store: Store) -> Check:
    try:
        await store.lease_holder(POLLER_LEASE, datetime.now(UTC))
    except Exception as exc:
        return Check(False, f"store unreadable: {type(exc).__name__}")
    return Check(True, f"{store.engine_name} store answers")
