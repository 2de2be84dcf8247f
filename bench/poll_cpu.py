"""CPU seconds a steady-state poll costs the bridge, and its memory, with N waiting.

The bridge runs as `novo-slack run` in a process of its own (the simulator
and the local Slack live in this one), so its CPU time and resident memory
are read from /proc for that process alone. After every interaction is
posted, the bridge is left to poll on its own for `--window` seconds; the
CPU it used, divided by the polls Novo saw in that time, is the cost of one
poll interval (the other timed jobs included).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.harness import API_KEY, CHANNEL, SIGNING_SECRET
from bot.localslack.server import start_local_slack
from bot.sim.control import SimControl
from bot.sim.server import start_sim
from tests.support import wait_until

POLL_SECONDS = 1.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
LIST_PATH = "/v1/interactions"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def measure(pending: int, window: float) -> None:
    async with (
        await start_sim(api_key=API_KEY) as sim,
        await start_local_slack() as slack,
        httpx.AsyncClient(timeout=30) as http,
    ):
        control = SimControl(sim.url, http)
        for _ in range(pending):
            await control.approval(expiresInSeconds=86_400)
        with tempfile.TemporaryDirectory() as tmp:
            env = {
                **os.environ,
                "SLACK_BOT_TOKEN": slack.bot_token,
                "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                "SLACK_API_URL": slack.api_url,
                "NOVO_API_URL": sim.url,
                "NOVO_API_KEY": API_KEY,
                "NOVO_SLACK_CHANNEL": CHANNEL,
                "NOVO_SLACK_DB": str(Path(tmp) / "bench.db"),
                "NOVO_SLACK_PORT": str(_free_port()),
                "NOVO_SLACK_POLL_SECONDS": str(POLL_SECONDS),
                "NOVO_SLACK_POST_RATE": "100",
                "NOVO_SLACK_LOG_LEVEL": "WARNING",
            }
            bridge = await asyncio.create_subprocess_exec(
                sys.executable,
                *("-m", "bot", "run"),
                env=env,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            try:
                began = time.monotonic()
                await wait_until(
                    lambda: len(slack.calls("chat.postMessage")) >= pending or None,
                    timeout=pending / 20 + 60,
                    message=f"{pending} posts",
                )
                posted_in = time.monotonic() - began
                await asyncio.sleep(3 * POLL_SECONDS)  # let the last updates settle
                await control.clear_log()
                cpu_before = _cpu_seconds(bridge.pid)
                await asyncio.sleep(window)
                cpu = _cpu_seconds(bridge.pid) - cpu_before
                log = await control.log()
                polls = sum(
                    1 for r in log if r["path"] == LIST_PATH and "cursor" not in r.get("query", {})
                )
                rss = _rss_mb(bridge.pid)
            finally:
                bridge.terminate()
                await bridge.wait()
    per_poll = cpu / polls if polls else float("nan")
    print(f"novo-slack poll CPU: {pending} pending, the bridge in its own process")
    print(f"  all posted after                 {posted_in:>8.1f} s")
    print(f"  polls in {window:.0f} s                    {polls:>8}")
    print(f"  CPU per poll interval            {per_poll:>8.3f} s")
    print(f"  resident memory                  {rss:>8.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--window", type=float, default=30.0)
    args = parser.parse_args(argv)
    asyncio.run(measure(args.pending, args.window))
    return 0


if __name__ == "__main__":
    sys.exit(main())
