"""Start `opener.py` as another process and talk to it, with deadlines instead of sleeps."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support import DEFAULT_TIMEOUT, bounded

REPO = Path(__file__).resolve().parents[2]
OPENER = Path(__file__).with_name("opener.py")


@dataclass
class Child:
    process: asyncio.subprocess.Process

    @property
    def pid(self) -> int:
        return self.process.pid

    async def line(self, timeout: float = DEFAULT_TIMEOUT) -> str:
        assert self.process.stdout is not None
        raw = await bounded(self.process.stdout.readline(), timeout)
        return raw.decode().rstrip("\n")

    async def finish(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Close its stdin (it lets go and exits) and wait for the exit code."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        return await bounded(self.process.wait(), timeout)

    async def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        await bounded(self.process.wait())


async def start(*args: str) -> Child:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(OPENER),
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return Child(process)
