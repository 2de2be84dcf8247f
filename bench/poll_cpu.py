"""CPU seconds one steady-state poll costs the bridge, with N interactions waiting.

The simulator runs in a process of its own, so the figure is the bridge's
(plus the idle local Slack beside it): listing every page, comparing each
record with the stored one, and finding nothing to send. Also prints the
process's resident memory with that many interactions tracked.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.harness import API_KEY, CHANNEL, SIGNING_SECRET, checking, wait_for
from bot.demo.stack import local_bridge_settings
from bot.localslack.server import start_local_slack
from bot.runtime import Bridge

SAMPLES = 7


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _SimAt:
    def __init__(self, url: str) -> None:
        self.url = url


async def _sim_ready(http: httpx.AsyncClient, url: str) -> None:
    deadline = time.monotonic() + 15
    while True:
        try:
            await http.get(f"{url}/_sim/faults")
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def measure(pending: int) -> None:
    port = _free_port()
    sim = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bot", "sim", "--port", str(port), "--api-key", API_KEY),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            await _sim_ready(http, url)
            for _ in range(pending):
                body = {"kind": "approval_request", "expiresInSeconds": 86_400}
                await http.post(f"{url}/_sim/interactions", json=body)
            with tempfile.TemporaryDirectory() as tmp:
                async with await start_local_slack() as slack:
                    settings = local_bridge_settings(
                        _SimAt(url),  # type: ignore[arg-type]
                        slack,
                        Path(tmp) / "bench.db",
                        signing_secret=SIGNING_SECRET,
                        api_key=API_KEY,
                        channel=CHANNEL,
                        poll_seconds=3600.0,
                    ).model_copy(update={"post_rate": 100.0})
                    bridge = Bridge(settings, host="127.0.0.1")
                    await bridge.start()
                    try:
                        await _steady(bridge, pending)
                    finally:
                        await bridge.stop()
    finally:
        sim.terminate()
        await sim.wait()


async def _steady(bridge: Bridge, pending: int) -> None:
    jobs, services = bridge.jobs, bridge.services
    assert jobs is not None and services is not None
    await wait_for(checking(lambda: jobs.leading or None), within=10, what="the poller lease")
    began = time.monotonic()
    await jobs.poll()
    await services.publisher.lanes.idle()
    first = time.monotonic() - began
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(SAMPLES):
        c, w = time.process_time(), time.monotonic()
        await jobs.poll()
        await services.publisher.lanes.idle()
        cpu.append(time.process_time() - c)
        wall.append(time.monotonic() - w)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"novo-slack poll CPU: {pending} pending (simulator in its own process)")
    print(f"  first poll (posts them all)      {first:>8.2f} s wall")
    print(f"  steady poll, CPU (median, max)   {statistics.median(cpu):>8.3f} s  {max(cpu):.3f} s")
    print(f"  steady poll, wall (median)       {statistics.median(wall):>8.3f} s")
    print(f"  peak resident memory             {rss_mb:>8.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pending", type=int, default=1000)
    args = parser.parse_args(argv)
    asyncio.run(measure(args.pending))
    return 0


if __name__ == "__main__":
    sys.exit(main())
