"""A `novo-slack run` process against a simulator and a local Slack this test starts.

Start-up and shutdown are what a process does, so these tests run the real
command in a subprocess and judge it as an operator would: its exit code,
what it printed, and how long it took.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from novo_dev.demo.stack import ServersConfig, local_servers, without_bridge_settings
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.support import PROCESS_TIMEOUT, DeadlinePassed, bounded, trigger_ttl, wait_until

REPO = Path(__file__).resolve().parents[2]
SIGNING_SECRET = "lifecycle-signing-secret"
API_KEY = "lifecycle-novo-key"
CHANNEL = "C0LIFECYCLE"
POLL_SECONDS = 0.2
POST_RATE = 50
_LISTENING = re.compile(r"listening for Slack on (http://\S+?)/slack/events")


@dataclass
class Bridge:
    """A running `novo-slack run`, its stderr collected line by line as it comes."""

    process: asyncio.subprocess.Process
    started: float
    lines: list[str] = field(default_factory=list)
    _reader: asyncio.Task[None] | None = None

    def follow(self) -> None:
        async def read() -> None:
            assert self.process.stderr is not None
            async for raw in self.process.stderr:
                self.lines.append(raw.decode(errors="replace").rstrip("\n"))

        self._reader = asyncio.create_task(read())

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)

    async def saw(self, pattern: str, within: float = PROCESS_TIMEOUT) -> re.Match[str]:
        """The first stderr line matching `pattern`, waiting up to `within` seconds (scaled);
        fails at once when the process has ended without one."""

        def found() -> re.Match[str] | None:
            for line in self.lines:
                match = re.search(pattern, line)
                if match:
                    return match
            if self.process.returncode is not None:
                raise AssertionError(f"exited with no line matching {pattern!r}:\n{self.stderr}")
            return None

        try:
            match: re.Match[str] = await wait_until(found, timeout=within, message=pattern)
        except DeadlinePassed:
            raise AssertionError(f"no line matching {pattern!r}; stderr:\n{self.stderr}") from None
        return match

    async def url(self) -> str:
        return (await self.saw(_LISTENING.pattern)).group(1)

    async def exit_code(self, within: float = PROCESS_TIMEOUT) -> int:
        """The exit code, once the process has ended; killed and failed if it takes longer
        than `within` seconds (scaled)."""
        try:
            code = await bounded(self.process.wait(), within)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"still running after {within}s; stderr:\n{self.stderr}") from None
        if self._reader is not None:
            await self._reader
        return code

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        if self._reader is not None:
            await self._reader


@dataclass
class World:
    """The simulator and local Slack, and the environment pointing `novo-slack run` at them."""

    sim: SimServer
    slack: LocalSlack
    http: httpx.AsyncClient
    env: dict[str, str]
    cwd: Path
    running: list[Bridge] = field(default_factory=list)

    async def run(self, *args: str, **overrides: str | None) -> Bridge:
        """Start `novo-slack [args] run` with these settings changed (None unsets one)."""
        env = dict(self.env)
        for name, value in overrides.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            *args,
            "run",
            cwd=self.cwd,  # no .env there
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        bridge = Bridge(process, time.monotonic())
        bridge.follow()
        self.running.append(bridge)
        return bridge

    @property
    def control(self) -> SimControl:
        return SimControl(self.sim.url, self.http)

    async def fault(self, **spec: object) -> None:
        await self.control.faults(**spec)

    async def sim_log(self) -> list[dict[str, object]]:
        return await self.control.log(prefix="")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with (
        local_servers(ServersConfig(api_key=API_KEY, trigger_ttl=trigger_ttl())) as servers,
        httpx.AsyncClient(timeout=10) as http,
    ):
        env = without_bridge_settings(os.environ)
        env["PYTHONPATH"] = str(REPO)
        env.update(
            servers.environment(
                tmp_path / "bridge.db",
                signing_secret=SIGNING_SECRET,
                channel=CHANNEL,
                poll_seconds=POLL_SECONDS,
                post_rate=POST_RATE,
            )
        )
        world = World(servers.sim, servers.slack, http, env, tmp_path)
        try:
            yield world
        finally:
            for number, bridge in enumerate(world.running, 1):
                await bridge.kill()
                # pytest shows a test's captured output only when it failed: what each
                # bridge said is then beside the assertion, for a failure seen once
                print(f"--- bridge {number} stderr ---\n{bridge.stderr}")
