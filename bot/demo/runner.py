"""`novo-slack demo`: the whole loop on one machine, narrated.

Starts the Novo simulator (seeded, creating new interactions as it goes),
the local Slack and the bridge, prints what each channel shows and every
resolve Novo receives, and plays a few scripted clicks so a newcomer sees
approvals and questions decided end to end in under a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import tempfile
import time
from pathlib import Path

import httpx

from bot.config import Settings
from bot.demo.script import script_clicks
from bot.demo.stack import local_bridge_settings
from bot.demo.transcript import Transcript
from bot.localslack.driver import SlackDriver
from bot.localslack.server import LocalSlack, start_local_slack
from bot.runtime import Bridge
from bot.sim.server import SimServer, start_sim

DEMO_API_KEY = "demo-key"
DEMO_SIGNING_SECRET = "demo-signing-secret"
DEMO_CHANNEL = "C0DEMO"
DEMO_POLL_SECONDS = 1.0
DEMO_NEW_EVERY_SECONDS = 12.0


def run_demo(*, seconds: float = 0, scripted_clicks: bool = True) -> int:
    logging.getLogger().setLevel(logging.WARNING)
    return asyncio.run(_demo(seconds, scripted_clicks))


async def _demo(seconds: float, scripted_clicks: bool) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="novo-slack-demo-") as tmp:
        async with (
            await start_sim(
                api_key=DEMO_API_KEY,
                demo=True,
                demo_interval_seconds=DEMO_NEW_EVERY_SECONDS,
                seed=7,
            ) as sim,
            await start_local_slack() as slack,
            httpx.AsyncClient(timeout=10) as http,
        ):
            slack.add_channel(DEMO_CHANNEL, "agent-approvals")
            for user_id, name, display in DEMO_PEOPLE:
                slack.add_user(user_id, name, display)
            bridge = Bridge(_settings(sim, slack, Path(tmp) / "demo.db"), host="127.0.0.1")
            await bridge.start()
            assert bridge.url is not None
            transcript = Transcript(
                slack, sim.url, DEMO_API_KEY, http, DEMO_CHANNEL, started=time.monotonic()
            )
            transcript.banner(sim.url, slack.url, bridge.url)
            tasks = [asyncio.create_task(transcript.follow(stop))]
            if scripted_clicks:
                driver = SlackDriver(bridge.url, DEMO_SIGNING_SECRET, slack)
                tasks.append(
                    asyncio.create_task(script_clicks(slack, driver, DEMO_CHANNEL, transcript))
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=seconds or None)
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await bridge.stop()
            transcript.say("demo stopped. Bye!")
    return 0


DEMO_PEOPLE = (
    ("U0ADA", "ada", "Ada Lovelace"),
    ("U0GRACE", "grace", "Grace Hopper"),
    ("U0LINUS", "linus", "Linus Torvalds"),
)


def _settings(sim: SimServer, slack: LocalSlack, db: Path) -> Settings:
    return local_bridge_settings(
        sim,
        slack,
        db,
        signing_secret=DEMO_SIGNING_SECRET,
        api_key=DEMO_API_KEY,
        channel=DEMO_CHANNEL,
        poll_seconds=DEMO_POLL_SECONDS,
    )
