"""`python -m bench.lifecycle`: how long `novo-slack run` takes to start, to fail and to stop.

Each sample runs the bridge as production does (`python -m bot run`, its own process)
against the simulator and the local Slack on loopback. Figures, in milliseconds:

- *start -> listening*: from the process start until it logs the port it serves;
- *port in use -> exit*: a start whose port is taken, until the process has exited (the
  tests check it exits 1 with one line naming the port);
- *loading the bridge*: `python -c "import bot.bridge.runtime"` alone, the floor of both;
- *SIGTERM -> exit, idle* and *SIGTERM -> exit, Novo hanging on a poll*: a running bridge
  told to stop, until it has exited (the tests check exit 0 and no traceback).

An orchestrator kills a pod some seconds after SIGTERM (Kubernetes: 30 s by default), so
the stop figures are what matters against that grace.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from bench.harness import format_table
from novo_dev.demo.stack import ServersConfig, local_servers, without_bridge_settings
from novo_dev.sim.control import SimControl
from tests.support import wait_until

REPO = Path(__file__).resolve().parents[1]
API_KEY = "bench-lifecycle-key"
LISTENING = re.compile(r"listening for Slack on (http://\S+?)/slack/events")


class _Run:
    """One `python -m bot run` and the stderr lines it printed so far."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.lines.append(raw.decode(errors="replace"))

    def saw(self, pattern: re.Pattern[str]) -> bool:
        return any(pattern.search(line) for line in self.lines)

    async def ended(self) -> int:
        code = await asyncio.wait_for(self.process.wait(), timeout=120)
        await self._reader
        return code


async def _start(env: Mapping[str, str], cwd: Path, **changes: str) -> _Run:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=cwd,
        env={**env, **changes},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    return _Run(process)


def _ms_since(began: float) -> float:
    return (time.monotonic() - began) * 1000


async def _loading_ms() -> float:
    began = time.monotonic()
    loader = await asyncio.create_subprocess_exec(sys.executable, "-c", "import bot.bridge.runtime")
    await loader.wait()
    return _ms_since(began)


async def _listening_then_stopped(
    env: Mapping[str, str], cwd: Path, control: SimControl, *, hang: bool
) -> tuple[float, float]:
    began = time.monotonic()
    run = await _start(env, cwd)
    await wait_until(lambda: run.saw(LISTENING), timeout=120, message="listening")
    listening = _ms_since(began)
    if hang:
        await control.faults(hang=True)
        await wait_until(lambda: _held_poll(control), timeout=60, message="a poll held by Novo")
    stopping = time.monotonic()
    run.process.send_signal(signal.SIGTERM)
    code = await run.ended()
    stopped = _ms_since(stopping)
    await control.faults()
    if code != 0:
        raise RuntimeError(f"exit {code} after SIGTERM:\n{''.join(run.lines)}")
    return listening, stopped


async def _held_poll(control: SimControl) -> bool:
    return any(r["status"] is None for r in await control.log())


async def _port_in_use_ms(env: Mapping[str, str], cwd: Path) -> float:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        began = time.monotonic()
        run = await _start(env, cwd, NOVO_SLACK_PORT=str(taken.getsockname()[1]))
        code = await run.ended()
        took = _ms_since(began)
    if code != 1:
        raise RuntimeError(f"expected exit 1, got {code}:\n{''.join(run.lines)}")
    return took


async def measure(samples: int) -> list[tuple[str, list[float]]]:
    rows: dict[str, list[float]] = {
        "start -> listening": [],
        "port in use -> exit": [],
        "loading the bridge": [],
        "SIGTERM -> exit, idle": [],
        "SIGTERM -> exit, Novo hanging": [],
    }
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as folder:
        cwd = Path(folder)
        async with (
            local_servers(ServersConfig(api_key=API_KEY)) as servers,
            httpx.AsyncClient(timeout=30) as http,
        ):
            control = SimControl(servers.sim.url, http)
            env = without_bridge_settings(os.environ)
            env["PYTHONPATH"] = str(REPO)
            env.update(
                servers.environment(
                    cwd / "bridge.db",
                    signing_secret="bench-lifecycle-secret",
                    channel="C0BENCH",
                    poll_seconds=0.5,
                )
            )
            env["NOVO_SLACK_PORT"] = "0"
            for sample in range(samples):
                print(f"  sample {sample + 1} of {samples}", file=sys.stderr)
                rows["loading the bridge"].append(await _loading_ms())
                listening, stopped = await _listening_then_stopped(env, cwd, control, hang=False)
                rows["start -> listening"].append(listening)
                rows["SIGTERM -> exit, idle"].append(stopped)
                _, stopped_hanging = await _listening_then_stopped(env, cwd, control, hang=True)
                rows["SIGTERM -> exit, Novo hanging"].append(stopped_hanging)
                rows["port in use -> exit"].append(await _port_in_use_ms(env, cwd))
    return list(rows.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lifecycle", description=__doc__)
    parser.add_argument("--samples", type=int, default=5)
    options = parser.parse_args(argv)
    rows = asyncio.run(measure(options.samples))
    load = os.getloadavg()[0]
    print(f"novo-slack lifecycle: {options.samples} samples, load average {load:.1f}\n")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
