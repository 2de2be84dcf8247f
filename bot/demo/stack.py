"""The local trio — Novo simulator, local Slack, bridge — wired as production wires a bridge.

The demo, the playground, the end-to-end tests and the benchmarks all run
this same trio, so they build the bridge's settings in one place, as
production does: through the environment names of `bot.config`, never a
`.env` file. `local_stack` starts all three (and the driver that clicks as
Slack would) and stops them in the right order, whatever fails in between.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.bridge.runtime import Bridge
from bot.config import Settings, load_settings
from bot.localslack.driver import SlackDriver
from bot.localslack.server import LocalSlack, start_local_slack
from bot.sim.server import SimServer, start_sim


def local_bridge_settings(
    sim: SimServer,
    slack: LocalSlack,
    db: Path,
    *,
    signing_secret: str,
    api_key: str,
    channel: str,
    poll_seconds: float,
    policy: Path | None = None,
) -> Settings:
    extra: dict[str, object] = {} if policy is None else {"NOVO_SLACK_CONFIG": str(policy)}
    return load_settings(
        **extra,
        SLACK_BOT_TOKEN=slack.bot_token,
        SLACK_SIGNING_SECRET=signing_secret,
        SLACK_API_URL=slack.api_url,
        NOVO_API_URL=sim.url,
        NOVO_API_KEY=api_key,
        NOVO_SLACK_CHANNEL=channel,
        NOVO_SLACK_DB=str(db),
        NOVO_SLACK_PORT=0,
        NOVO_SLACK_POLL_SECONDS=poll_seconds,
        _env_file=None,
    )


@dataclass(frozen=True)
class Person:
    """Someone in the local workspace: who clicks in the demo or on the playground page."""

    user_id: str
    name: str
    display_name: str


@dataclass(frozen=True)
class Group:
    """A user group of the local workspace (`S…`, `@handle`), as a policy names deciders."""

    group_id: str
    handle: str
    members: Sequence[str]


@dataclass(frozen=True)
class StackConfig:
    """Everything that differs between the demo, the playground's tests and its screenshots."""

    db: Path
    channel: str
    channel_name: str
    people: Sequence[Person]
    signing_secret: str
    api_key: str
    poll_seconds: float
    demo: bool = False  # the simulator creates the demo's interactions
    demo_interval_seconds: float = 12.0  # a new run step this often; 0: never after the seed
    demo_seed: bool = True  # with demo: open on every template once
    seed: int | None = None
    novo_retry_base: float = 0.5
    redelivery_base: float = 1.0
    policy: Path | None = None
    more_channels: Sequence[tuple[str, str]] = ()  # (id, name) besides `channel`
    groups: Sequence[Group] = ()


@dataclass(frozen=True)
class LocalStack:
    sim: SimServer
    slack: LocalSlack
    bridge: Bridge
    driver: SlackDriver

    @property
    def bridge_url(self) -> str:
        if self.bridge.url is None:  # start() sets it before local_stack yields
            raise RuntimeError("the bridge is not listening")
        return self.bridge.url


@asynccontextmanager
async def local_stack(config: StackConfig) -> AsyncIterator[LocalStack]:
    """A running simulator, local Slack (channel and people added) and bridge, on loopback."""
    async with (
        await start_sim(
            api_key=config.api_key,
            demo=config.demo,
            demo_interval_seconds=config.demo_interval_seconds,
            demo_seed=config.demo_seed,
            seed=config.seed,
        ) as sim,
        await start_local_slack() as slack,
    ):
        for channel_id, name in ((config.channel, config.channel_name), *config.more_channels):
            slack.add_channel(channel_id, name)
        for person in config.people:
            slack.add_user(person.user_id, person.name, person.display_name)
        for group in config.groups:
            slack.add_usergroup(group.group_id, group.handle, list(group.members))
        settings = local_bridge_settings(
            sim,
            slack,
            config.db,
            signing_secret=config.signing_secret,
            api_key=config.api_key,
            channel=config.channel,
            poll_seconds=config.poll_seconds,
            policy=config.policy,
        )
        bridge = Bridge(
            settings,
            host="127.0.0.1",
            novo_retry_base=config.novo_retry_base,
            redelivery_base=config.redelivery_base,
        )
        await bridge.start()
        try:
            assert bridge.url is not None
            async with SlackDriver(bridge.url, config.signing_secret, slack) as driver:
                yield LocalStack(sim, slack, bridge, driver)
        finally:
            await bridge.stop()
