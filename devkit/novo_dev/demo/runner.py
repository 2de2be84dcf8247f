"""`novo-slack demo`: the whole loop on one machine, narrated.

Starts the Novo simulator (opening on one round of every kind of
interaction, and creating more only with `--rate`), the local Slack (people,
channels and user groups) and the bridge with the bundled policy
(`policy.yml` here: named agents, run links, a quorum, a DM rule, reminders
and an escalation), prints what each channel shows and every resolve Novo
receives, and plays a few scripted clicks so a newcomer sees approvals and
questions decided end to end in under a minute. It also prints the settings
that point the CLI and curl at its simulator and local Slack. With `ui`,
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
from dataclasses import dataclass
from pathlib import Path

import httpx

from novo_dev.demo.script import script_clicks
from novo_dev.demo.stack import Group, LocalStack, Person, ServersConfig, StackConfig, local_stack
from novo_dev.demo.transcript import Transcript
from novo_dev.playground import DEFAULT_PORT, Playground, start_playground

DEMO_API_KEY = "demo-key"
DEMO_SIGNING_SECRET = "demo-signing-secret"
DEMO_CHANNEL = "C0DEMO"
DEMO_CHANNEL_NAME = "agent-approvals"
MANAGERS_CHANNEL = ("C0MANAGERS", "managers")
DEMO_POLL_SECONDS = 1.0
DEMO_PEOPLE = (
    Person("U0ADA", "ada", "Ada Lovelace"),
    Person("U0GRACE", "grace", "Grace Hopper"),
    Person("U0LINUS", "linus", "Linus Torvalds"),
)
DEMO_GROUPS = (
    Group("S0SRE", "sre", ("U0ADA", "U0LINUS")),
    Group("S0LEADS", "leads", ("U0GRACE",)),
)
DEMO_POLICY = Path(__file__).with_name("policy.yml")
"""The bundled policy: named agents, run links, a quorum, a DM rule, reminders, escalation."""


def run_demo(
    *,
    seconds: float = 0,
    scripted_clicks: bool = True,
    ui: bool = False,
    ui_port: int = DEFAULT_PORT,
    policy: Path | None = DEMO_POLICY,
    seed: bool = True,
    rate: float = 0,
) -> int:
    """`rate`: new run steps a minute after the first round (0: none; it stays readable)."""
    logging.getLogger().setLevel(logging.WARNING)
    options = DemoOptions(seconds, scripted_clicks, ui_port if ui else None, policy, seed, rate)
    return asyncio.run(_demo(options))


@dataclass(frozen=True)
class DemoOptions:
    seconds: float
    scripted_clicks: bool
    ui_port: int | None
    policy: Path | None
    seed: bool
    rate: float


async def _demo(options: DemoOptions) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="novo-slack-demo-") as tmp:
        async with (
            local_stack(demo_config(Path(tmp) / "demo.db", options)) as stack,
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
            playground = await _playground(stack, options.ui_port, transcript)
            if options.ui_port is not None and playground is None:
                return 1
            transcript.banner(stack.sim.url, stack.slack.url, stack.bridge_url)
            print(cli_environment(stack, options.policy), flush=True)
            if playground is not None:
                scripted = options.scripted_clicks
                who = "scripted people click too" if scripted else "no scripted clicks"
                print(
                    f"  playground      {playground.url}   (open it and click; {who})\n", flush=True
                )
            tasks = [asyncio.create_task(transcript.follow(stop))]
            if options.scripted_clicks:
                clicks = script_clicks(
                    stack.slack,
                    stack.driver,
                    [DEMO_CHANNEL],
                    transcript,
                    dm_people=[p.user_id for p in DEMO_PEOPLE],
                )
                tasks.append(asyncio.create_task(clicks))
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=options.seconds or None)
            finally:
                stop.set()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                if playground is not None:
                    await playground.close()
            transcript.say("demo stopped. Bye!")
    return 0


def cli_environment(stack: LocalStack, policy: Path | None) -> str:
    """The settings that point `novo-slack` (check, policy explain) and curl at this demo,
    ready to paste into another shell: the local Slack's Web API is under `/api/`."""
    lines = [
        "To point novo-slack and curl at this demo from another shell, paste:",
        f"  export NOVO_API_URL={stack.sim.url} NOVO_API_KEY={DEMO_API_KEY}",
        f"  export SLACK_API_URL={stack.slack.api_url} SLACK_BOT_TOKEN={stack.slack.bot_token}",
        f"  export SLACK_SIGNING_SECRET={DEMO_SIGNING_SECRET} NOVO_SLACK_CHANNEL={DEMO_CHANNEL}",
    ]
    if policy is not None:
        lines.append(f"  export NOVO_SLACK_CONFIG={policy.resolve()}")
    lines += [
        "then, for instance:",
        "  novo-slack policy explain --id <an int_… id from the lines below>",
        '  curl -s "$NOVO_API_URL/v1/interactions?status=pending"'
        ' -H "Authorization: Bearer $NOVO_API_KEY"',
        "",
    ]
    return "\n".join(lines)


async def _playground(
    stack: LocalStack, port: int | None, transcript: Transcript
) -> Playground | None:
    """The page on loopback; a port in use ends the demo with one line, not a traceback."""
    if port is None:
        return None
    try:
        return await start_playground(
            stack.slack,
            stack.driver,
            [DEMO_CHANNEL, MANAGERS_CHANNEL[0]],
            port=port,
            narrate=transcript.say,
        )
    except OSError as exc:
        print(f"novo-slack: --ui-port {port}: {exc.strerror or exc}", file=sys.stderr)
        return None


def demo_config(db: Path, options: DemoOptions) -> StackConfig:
    servers = ServersConfig(
        api_key=DEMO_API_KEY,
        channels=((DEMO_CHANNEL, DEMO_CHANNEL_NAME), MANAGERS_CHANNEL),
        people=DEMO_PEOPLE,
        groups=DEMO_GROUPS,
        demo=True,
        demo_seed=options.seed,
        demo_interval_seconds=60.0 / options.rate if options.rate > 0 else 0.0,
        seed=7,
    )
    return StackConfig(
        servers=servers,
        db=db,
        channel=DEMO_CHANNEL,
        signing_secret=DEMO_SIGNING_SECRET,
        poll_seconds=DEMO_POLL_SECONDS,
        policy=options.policy,
    )
