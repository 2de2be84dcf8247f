"""`novo-slack demo`: the whole loop on one machine, narrated.

Starts the Novo simulator (seeded, creating new interactions as it goes),
the local Slack and the bridge, prints what each channel shows and every
resolve Novo receives, and plays a few scripted clicks so a newcomer sees
approvals and questions decided end to end in under a minute. With `ui`,
the playground page serves the same channel on loopback so a person can do
the clicking; the transcript keeps running beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bot.demo.script import script_clicks
from bot.demo.stack import LocalStack, Person, StackConfig, local_stack
from bot.demo.transcript import Transcript
from bot.playground import DEFAULT_PORT, Playground, start_playground

DEMO_API_KEY = "demo-key"
DEMO_SIGNING_SECRET = "demo-signing-secret"
DEMO_CHANNEL = "C0DEMO"
DEMO_CHANNEL_NAME = "agent-approvals"
DEMO_POLL_SECONDS = 1.0
DEMO_NEW_EVERY_SECONDS = 12.0
DEMO_PEOPLE = (
    Person("U0ADA", "ada", "Ada Lovelace"),
    Person("U0GRACE", "grace", "Grace Hopper"),
    Person("U0LINUS", "linus", "Linus Torvalds"),
)


def run_demo(
    *,
    seconds: float = 0,
    scripted_clicks: bool = True,
    ui: bool = False,
    ui_port: int = DEFAULT_PORT,
) -> int:
    logging.getLogger().setLevel(logging.WARNING)
    return asyncio.run(_demo(seconds, scripted_clicks, ui_port if ui else None))


async def _demo(seconds: float, scripted_clicks: bool, ui_port: int | None) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="novo-slack-demo-") as tmp:
        async with (
            local_stack(_config(Path(tmp) / "demo.db")) as stack,
            httpx.AsyncClient(timeout=10) as http,
        ):
            transcript = Transcript(
                stack.slack,
                stack.sim.url,
                DEMO_API_KEY,
                http,
                DEMO_CHANNEL,
                started=time.monotonic(),
            )
            playground = await _playground(stack, ui_port, transcript)
            if ui_port is not None and playground is None:
                return 1
            transcript.banner(stack.sim.url, stack.slack.url, stack.bridge_url)
            if playground is not None:
                who = "scripted people click too" if scripted_clicks else "no scripted clicks"
                print(
                    f"  playground      {playground.url}   (open it and click; {who})\n", flush=True
                )
            tasks = [asyncio.create_task(transcript.follow(stop))]
            if scripted_clicks:
                tasks.append(
                    asyncio.create_task(
                        script_clicks(stack.slack, stack.driver, DEMO_CHANNEL, transcript)
                    )
                )
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=seconds or None)
            finally:
                stop.set()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                if playground is not None:
                    await playground.close()
            transcript.say("demo stopped. Bye!")
    return 0


async def _playground(
    stack: LocalStack, port: int | None, transcript: Transcript
) -> Playground | None:
    """The page on loopback; a port in use ends the demo with one line, not a traceback."""
    if port is None:
        return None
    try:
        return await start_playground(
            stack.slack, stack.driver, [DEMO_CHANNEL], port=port, narrate=transcript.say
        )
    except OSError as exc:
        print(f"novo-slack: --ui-port {port}: {exc.strerror or exc}", file=sys.stderr)
        return None


def _config(db: Path) -> StackConfig:
    return StackConfig(
        db=db,
        channel=DEMO_CHANNEL,
        channel_name=DEMO_CHANNEL_NAME,
        people=DEMO_PEOPLE,
        signing_secret=DEMO_SIGNING_SECRET,
        api_key=DEMO_API_KEY,
        poll_seconds=DEMO_POLL_SECONDS,
        demo=True,
        demo_interval_seconds=DEMO_NEW_EVERY_SECONDS,
        seed=7,
    )
