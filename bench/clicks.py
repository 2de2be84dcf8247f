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
on PostgreSQL. The simulator, the local Slack and the clicking all run in
this one process, so on a small machine they share its cores with the
replicas: the figures are the whole loop's on this machine, not a ceiling
of the bridge alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

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
from novo_dev.localslack.driver import SlackDriver
from novo_dev.sim.control import SimControl
from tests.support import wait_until

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


async def run(options: Options) -> int:
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
    args = parser.parse_args()
    raise SystemExit(asyncio.run(run(Options(args.approvals, args.concurrency, args.poll_seconds))))


if __name__ == "__main__":
    main()
