"""`python -m bench.clicks`: how many Approve clicks a second the bridge takes to Novo.

Each configuration gets a fresh simulator, local Slack and database, and
`novo-slack run` processes (the production command, production poll
interval and backoffs; only posting is unpaced, so setting the stage takes
seconds, not minutes). `--approvals` pending approvals are created and
posted; then their Approve buttons are clicked, signed as Slack signs them,
`--concurrency` clicks in flight at a time, spread round-robin over the
replicas. A click counts once Slack got its ack (HTTP 200) and Novo
received its resolve and answered 200 (the simulator's log time).

Configurations: one process on SQLite, one on PostgreSQL, three replicas
on PostgreSQL.

First, what chaining the audit trail adds to a click's writes (`--chain-only`: that
alone): on a store already holding `--trail` events, each click's `clicked` event is
appended as the bridge appends it, and every statement the store sends is counted, and
the newest-event read's query plan shown (SQLite calls its walk of the table in rowid
order, stopped by the LIMIT after one row, `SCAN audit`: no sort, one row read).
Beside it, the same events inserted as they were before the chain (one INSERT, no
read), for the time per event.

The simulator, the local Slack and the clicking all run in this one process, so
on a small machine they share its cores with the replicas: the figures are the
whole loop's on this machine, not a ceiling of the bridge alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event, select, text

from bench.failover import Loopback, fresh_database, loopback, postgres_or_reason, server_url
from bench.harness import (
    CHANNEL,
    DEFAULT_POLL_SECONDS,
    RESOLVE_PATH,
    SIGNING_SECRET,
    USER_ID,
    Summary,
    epoch_of,
    summarize,
)
from bot.slack.ids import ActionId
from bot.store import Store
from bot.store.chain import AuditEvent
from bot.store.records import dump_record
from bot.store.schema import audit
from novo_dev.localslack.driver import SlackDriver
from novo_dev.sim.control import SimControl
from tests.support import wait_until

DEFAULT_TRAIL = 20_000
CHAIN_APPENDS = 300
DEFAULT_APPROVALS = 200
DEFAULT_CONCURRENCY = 16
EXPIRES_IN_SECONDS = 3600.0
DEADLINE_SECONDS = 60.0
# Posting is paced to Slack's ~1 message per second per channel in production; the
# approvals are only the stage for the clicks, so they are posted at the fastest pace.
SETUP_POST_RATE = "100"


@dataclass(frozen=True)
class Options:
    approvals: int
    concurrency: int
    poll_seconds: float
    trail: int = DEFAULT_TRAIL
    chain_only: bool = False


@dataclass(frozen=True)
class Result:
    label: str
    acked_per_second: float
    resolved_per_second: float
    click_to_resolve_ms: Summary


async def _posted(world: Loopback, ids: list[str]) -> dict[str, str]:
    """Wait until every approval has its message; interaction id -> message ts."""
    wanted = set(ids)

    async def all_posted() -> dict[str, str] | None:
        shown: dict[str, str] = {}
        for message in world.slack.messages(CHANNEL):
            payload = (message.metadata or {}).get("event_payload") or {}
            if payload.get("interaction_id") in wanted:
                shown[str(payload["interaction_id"])] = message.ts
        return shown if len(shown) == len(wanted) else None

    shown: dict[str, str] = await wait_until(
        all_posted, timeout=DEADLINE_SECONDS, message="every approval posted"
    )
    return shown


async def _resolved_at(world: Loopback, ids: list[str]) -> dict[str, float]:
    """Wait until Novo has answered 200 to a resolve of each; id -> when (its log time)."""
    paths = {RESOLVE_PATH.format(id=i): i for i in ids}

    async def all_resolved() -> dict[str, float] | None:
        done: dict[str, float] = {}
        for entry in await SimControl(world.sim.url, world.http).log():
            if entry["method"] == "POST" and entry["status"] == 200 and entry["path"] in paths:
                done.setdefault(paths[entry["path"]], epoch_of(str(entry["at"])))
        return done if len(done) == len(ids) else None

    resolved: dict[str, float] = await wait_until(
        all_resolved, timeout=DEADLINE_SECONDS, message="every click resolved"
    )
    return resolved


async def _measure(label: str, db: str, replicas: int, options: Options) -> Result:
    async with loopback() as world:
        print(f"{label}: starting {replicas} process(es)", file=sys.stderr)
        started = await world.start_replicas(
            replicas, db, options.poll_seconds, NOVO_SLACK_POST_RATE=SETUP_POST_RATE
        )
        drivers = [
            SlackDriver(r.url, SIGNING_SECRET, world.slack, http=world.http) for r in started
        ]
        control = SimControl(world.sim.url, world.http)
        ids = []
        for _ in range(options.approvals):
            created = await control.approval(
                toolName="deploy_service", expiresInSeconds=EXPIRES_IN_SECONDS
            )
            ids.append(str(created["id"]))
        ts_of = await _posted(world, ids)
        print(f"{label}: {len(ids)} approvals posted; clicking", file=sys.stderr)

        queue: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        for n, interaction_id in enumerate(ids):
            queue.put_nowait((n, interaction_id))
        clicked_at: dict[str, float] = {}
        acked_at: dict[str, float] = {}

        async def clicker() -> None:
            while not queue.empty():
                n, interaction_id = queue.get_nowait()
                driver = drivers[n % len(drivers)]
                clicked_at[interaction_id] = time.time()
                response = await driver.click_message_button(
                    USER_ID, CHANNEL, ts_of[interaction_id], ActionId.APPROVE
                )
                if response.status_code != 200:
                    raise RuntimeError(f"click on {interaction_id} answered {response.status_code}")
                acked_at[interaction_id] = time.time()

        start = time.time()
        await asyncio.gather(*(clicker() for _ in range(options.concurrency)))
        resolved_at = await _resolved_at(world, ids)
        await world.stop_replicas()
    n = len(ids)
    return Result(
        label,
        n / (max(acked_at.values()) - start),
        n / (max(resolved_at.values()) - start),
        summarize([(resolved_at[i] - clicked_at[i]) * 1000 for i in ids]),
    )


def epoch_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ChainCost:
    label: str
    statements: dict[str, float]
    """Per appended event, by the statement's first word (SELECT, INSERT, …)."""
    chained_us: float
    plain_us: float
    plan: str


def _verb(statement: str) -> str:
    """The statement's kind: the advisory lock is a SELECT that reads no table."""
    if "pg_advisory_xact_lock" in statement:
        return "advisory lock"
    return statement.lstrip().split(None, 1)[0].upper()


async def _chain_cost(label: str, target: str, trail: int) -> ChainCost:
    """One store, `trail` events already in it, then `CHAIN_APPENDS` click events each
    appended alone (as a click's `clicked` is): the statements each took and the time."""
    store = await Store.open(target)
    try:
        seed = [
            AuditEvent("posted", epoch_now(), f"int_{n}", None, {"channel": CHANNEL, "ts": str(n)})
            for n in range(1_000)
        ]
        for _ in range(trail // len(seed)):
            await store.append_audit(seed)
        engine = store._engine  # the bench looks inside: the statements are the figure
        seen: list[str] = []

        def count(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
            seen.append(statement)

        event.listen(engine.sync_engine, "before_cursor_execute", count)
        started = time.perf_counter()
        for n in range(CHAIN_APPENDS):
            await store.audit(
                "clicked", epoch_now(), interaction_id=f"int_{n}", actor_id=USER_ID, verb="Approved"
            )
        chained = time.perf_counter() - started
        event.remove(engine.sync_engine, "before_cursor_execute", count)
        verbs: dict[str, float] = {}
        for statement in seen:
            verb = _verb(statement)
            if verb not in ("BEGIN", "COMMIT", "ROLLBACK"):
                verbs[verb] = verbs.get(verb, 0) + 1 / CHAIN_APPENDS
        row = {"at": epoch_now(), "event": "clicked", "detail": dump_record({"verb": "Approved"})}
        plain = {**row, "prev_hash": "", "hash": ""}
        started = time.perf_counter()
        for n in range(CHAIN_APPENDS):
            await store._write(audit.insert().values(id=10_000_000 + n, **plain))
        plain_time = time.perf_counter() - started
        newest = select(audit.c.id, audit.c.hash).order_by(audit.c.id.desc()).limit(1)
        explain = "EXPLAIN QUERY PLAN " if store.engine_name == "sqlite" else "EXPLAIN "
        compiled = str(newest.compile(engine, compile_kwargs={"literal_binds": True}))
        rows = await store._all(text(explain + compiled))
        plan = " / ".join(str(list(r.values())[-1]) for r in rows)
    finally:
        await store.close()
    return ChainCost(
        label, verbs, chained / CHAIN_APPENDS * 1e6, plain_time / CHAIN_APPENDS * 1e6, plan
    )


async def chain_costs(trail: int) -> list[ChainCost]:
    costs = []
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as tmp:
        costs.append(await _chain_cost("SQLite", str(Path(tmp) / "chain.db"), trail))
    url = server_url()
    reason = await postgres_or_reason(url)
    if reason is not None:
        print(f"PostgreSQL figures skipped: {reason}", file=sys.stderr)
    else:
        async with fresh_database(url) as pg:
            costs.append(await _chain_cost("PostgreSQL", pg, trail))
    print(f"audit chain: {CHAIN_APPENDS} click events appended to a trail of {trail:,}\n")
    for c in costs:
        per = ", ".join(f"{v:.2f} {k}" for k, v in sorted(c.statements.items()))
        print(f"{c.label}: per click event {per}")
        print(f"  {c.chained_us:,.0f} µs chained, {c.plain_us:,.0f} µs as a plain insert")
        print(f"  the SELECT, the newest event: {c.plan}")
    print()
    return costs


async def run(options: Options) -> int:
    await chain_costs(options.trail)
    if options.chain_only:
        return 0
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as tmp:
        db = str(Path(tmp) / "bench.db")
        results.append(await _measure("SQLite, 1 process", db, 1, options))
    url = server_url()
    reason = await postgres_or_reason(url)
    if reason is not None:
        print(f"PostgreSQL figures skipped: {reason}", file=sys.stderr)
    else:
        for label, count in (("PostgreSQL, 1 process", 1), ("PostgreSQL, 3 replicas", 3)):
            async with fresh_database(url) as pg:
                results.append(await _measure(label, pg, count, options))
    print(
        f"clicks: {options.approvals} Approve clicks on distinct pending approvals,"
        f" {options.concurrency} in flight, poll every {options.poll_seconds}s\n"
    )
    width = max(len(r.label) for r in results)
    header = (
        f"{'configuration':<{width}}  {'acked/s':>8}  {'resolved/s':>10}"
        f"  {'click->resolve median':>21}  {'p95':>7}  {'max':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        s = r.click_to_resolve_ms
        print(
            f"{r.label:<{width}}  {r.acked_per_second:>8.1f}  {r.resolved_per_second:>10.1f}"
            f"  {s.median:>18.1f} ms  {s.p95:>7.1f}  {s.max:>7.1f}"
        )
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.clicks", description=__doc__)
    parser.add_argument("--approvals", type=int, default=DEFAULT_APPROVALS)
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    parser.add_argument("--poll-seconds", type=float, default=DEFAULT_POLL_SECONDS)
    parser.add_argument("--trail", type=int, default=DEFAULT_TRAIL, help="events already there")
    parser.add_argument("--chain-only", action="store_true", help="only the audit chain's cost")
    args = parser.parse_args()
    options = Options(
        args.approvals, args.concurrency, args.poll_seconds, args.trail, args.chain_only
    )
    raise SystemExit(asyncio.run(run(options)))


if __name__ == "__main__":
    main()
