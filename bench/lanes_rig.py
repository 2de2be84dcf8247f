"""A bridge in a process of its own posting into many channels, for `burst` and `restart`.

The simulator and the local Slack live in the benchmark's process; the bridge
runs as `novo-slack run` (so its CPU time is read from /proc for it alone, and
`kill -9` is a real crash). Agent N's approvals go to channel N by a policy
rule per agent, as an operator would route them. `BENCH_BRIDGE_PREFIX` puts
interpreter options before `-m bot run` (`-m cProfile -o bridge.prof` profiles
the bridge; it writes the profile when the bench stops it).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.harness import API_KEY, CHANNEL, SIGNING_SECRET
from novo_dev.demo.stack import ServersConfig, bridge_environment, local_servers
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.server import SimServer

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SLACK_BURST = 5


def channel_names(count: int) -> list[str]:
    return [f"C0BURST{n:02d}" for n in range(count)]


def write_policy(folder: Path, channels: list[str]) -> Path:
    """One rule per agent: `agt_N` to channel N."""
    lines = ["rules:"]
    for n, channel in enumerate(channels):
        lines += [
            f"  - name: lane-{n}",
            f"    match: {{kind: approval_request, agentId: agt_{n}}}",
            f"    channel: {channel}",
        ]
    path = folder / "policy.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


@dataclass
class BridgeProcess:
    process: asyncio.subprocess.Process

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """kill -9: no shutdown, no last writes."""
        self.process.kill()

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
        await self.process.wait()


def bridge_env(
    sim: SimServer,
    slack: LocalSlack,
    db: Path,
    *,
    post_rate: float,
    poll_seconds: float = 1.0,
    policy: Path | None = None,
) -> dict[str, str]:
    """The environment `novo-slack run` needs to bridge these two stand-ins."""
    return {
        **os.environ,
        **bridge_environment(
            sim,
            slack,
            db,
            signing_secret=SIGNING_SECRET,
            api_key=API_KEY,
            channel=CHANNEL,
            poll_seconds=poll_seconds,
            policy=policy,
            port=free_port(),
            post_rate=post_rate,
            log_level="WARNING",
        ),
    }


@asynccontextmanager
async def running_bridge(env: dict[str, str]) -> AsyncIterator[BridgeProcess]:
    """`novo-slack run` in a process of its own (its CPU is the bridge's alone), stopped
    with SIGTERM on the way out; `BENCH_BRIDGE_PREFIX` (e.g. `-m cProfile -o f.prof`)
    goes before `-m bot`."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *os.environ.get("BENCH_BRIDGE_PREFIX", "").split(),
        *("-m", "bot", "run"),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    bridge = BridgeProcess(process)
    try:
        yield bridge
    finally:
        await bridge.stop()


@dataclass(frozen=True)
class LaneStage:
    """Approvals waiting over several channels, as `burst` and `restart` set them out."""

    sim: SimServer
    slack: LocalSlack
    db: Path
    policy: Path
    rate: float

    def bridge(self) -> AbstractAsyncContextManager[BridgeProcess]:
        """A bridge routing by the stage's policy at its pace, on its store."""
        env = bridge_env(self.sim, self.slack, self.db, post_rate=self.rate, policy=self.policy)
        return running_bridge(env)


@asynccontextmanager
async def lane_stage(count: int, channels: int, rate: float) -> AsyncIterator[LaneStage]:
    """`count` approvals over `channels` channels (agent N's to channel N), the local Slack
    allowing each channel `rate` posts a second after a burst of `SLACK_BURST`."""
    names = channel_names(channels)
    config = ServersConfig(api_key=API_KEY, channels=[(name, name.lower()) for name in names])
    async with local_servers(config) as servers, httpx.AsyncClient(timeout=30) as http:
        servers.slack.set_post_message_rate(int(rate), retry_after=1, burst=SLACK_BURST)
        await create_approvals(http, servers.sim, count, channels)
        with tempfile.TemporaryDirectory(prefix="novo-slack-lanes-") as tmp:
            folder = Path(tmp)
            policy = write_policy(folder, names)
            yield LaneStage(servers.sim, servers.slack, folder / "bench.db", policy, rate)


async def create_approvals(http: httpx.AsyncClient, sim: SimServer, count: int, lanes: int) -> None:
    for n in range(count):
        body = {
            "kind": "approval_request",
            "toolName": "deploy_service",
            "agentId": f"agt_{n % lanes}",
            "expiresInSeconds": 3600,
        }
        response = await http.post(f"{sim.url}/_sim/interactions", json=body)
        response.raise_for_status()


def accepted_ids(slack: LocalSlack) -> Counter[str]:
    """How many times Slack accepted a post for each interaction."""
    return Counter(
        c.args["metadata"]["event_payload"]["interaction_id"]
        for c in slack.calls("chat.postMessage")
        if c.ok and isinstance(c.args.get("metadata"), dict)
    )
