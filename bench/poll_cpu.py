"""What the bridge costs idle: CPU seconds per second of wall time, and memory, with N waiting.

The bridge runs as `novo-slack run` in a process of its own (the simulator
and the local Slack live in this one), so its CPU time and resident memory
are read from /proc for that process alone. After every interaction is
posted, the bridge is left alone for `--window` seconds with its production
poll interval (2 s): the CPU it used in that window over the window's length
is the whole process's idle cost (the poll and every other timed job), and
the CPU divided by the polls Novo saw is the cost of one poll interval. The
stage is set by a bridge polling once a minute (with ten thousand waiting, the
simulator's listing would otherwise starve the local Slack in this process),
then the measured bridge starts on the same database and settles for a few
polls first.
Each `--pending` size is run `--runs` times on a fresh simulator, local
Slack and database; the medians are printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.harness import API_KEY
from bench.lanes_rig import bridge_env, cpu_seconds, running_bridge
from novo_dev.demo.stack import ServersConfig, local_servers
from novo_dev.sim.control import SimControl
from novo_dev.sim.spec import InteractionSpec
from tests.support import wait_until

POLL_SECONDS = 2.0  # the production default
SETUP_POLL_SECONDS = 60.0
SETTLE_POLLS = 5
LIST_PATH = "/v1/interactions"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass(frozen=True)
class IdleCost:
    pending: int
    posted_in: float
    polls: int
    cpu_per_second: float
    cpu_per_poll: float
    rss_mb: float


async def measure(pending: int, window: float) -> IdleCost:
    async with (
        local_servers(ServersConfig(api_key=API_KEY)) as servers,
        httpx.AsyncClient(timeout=30) as http,
    ):
        sim, slack = servers.sim, servers.slack
        spec = InteractionSpec.model_validate(
            {"kind": "approval_request", "expiresInSeconds": 86_400}
        )
        for _ in range(pending):  # straight into its state: 10,000 requests take minutes
            sim.state.create(spec)
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "bench.db"
            # setting the stage: one poll finds them all, and no more polls keep the
            # simulator (in this process) too busy listing for the local Slack to post
            staging = bridge_env(sim, slack, db, post_rate=100, poll_seconds=SETUP_POLL_SECONDS)
            measured = bridge_env(sim, slack, db, post_rate=100, poll_seconds=POLL_SECONDS)
            began = time.monotonic()
            async with running_bridge(staging):
                await wait_until(
                    lambda: len(slack.calls("chat.postMessage")) >= pending or None,
                    timeout=pending / 5 + 60,
                    message=f"{pending} posts",
                )
            posted_in = time.monotonic() - began
            async with running_bridge(measured) as bridge:
                await asyncio.sleep(SETTLE_POLLS * POLL_SECONDS)  # start-up and a first look
                await SimControl(sim.url, http).clear_log()
                cpu_before = cpu_seconds(bridge.pid)
                await asyncio.sleep(window)
                cpu = cpu_seconds(bridge.pid) - cpu_before
                rss = _rss_mb(bridge.pid)
                log = await SimControl(sim.url, http).log()
                polls = sum(
                    1 for r in log if r["path"] == LIST_PATH and "cursor" not in r.get("query", {})
                )
    per_poll = cpu / polls if polls else float("nan")
    return IdleCost(pending, posted_in, polls, cpu / window, per_poll, rss)


def _line(label: str, cost: IdleCost) -> str:
    return (
        f"{label:<8}{cost.pending:>8}{cost.posted_in:>10.1f}{cost.polls:>7}"
        f"{cost.cpu_per_second:>10.3f}{cost.cpu_per_poll:>10.3f}{cost.rss_mb:>9.0f}"
    )


def _median(costs: list[IdleCost]) -> IdleCost:
    return IdleCost(
        costs[0].pending,
        statistics.median(c.posted_in for c in costs),
        int(statistics.median(c.polls for c in costs)),
        statistics.median(c.cpu_per_second for c in costs),
        statistics.median(c.cpu_per_poll for c in costs),
        statistics.median(c.rss_mb for c in costs),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pending", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--window", type=float, default=30.0)
    args = parser.parse_args(argv)
    header = (
        f"{'run':<8}{'pending':>8}{'posted s':>10}{'polls':>7}"
        f"{'CPU-s/s':>10}{'CPU/poll':>10}{'RSS MB':>9}"
    )
    print(
        f"novo-slack idle cost: the bridge in its own process, {POLL_SECONDS:.0f} s poll,"
        f" {args.window:.0f} s window"
    )
    print(header)
    medians = []
    for pending in args.pending:
        costs = []
        for run in range(1, args.runs + 1):
            costs.append(asyncio.run(measure(pending, args.window)))
            print(_line(f"#{run}", costs[-1]), flush=True)
        medians.append(_median(costs))
    print(header)
    for cost in medians:
        print(_line("median", cost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
