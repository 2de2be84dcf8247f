"""The local trio — Novo simulator, local Slack, bridge — wired as production wires a bridge.

The demo, the playground, the tests and the benchmarks all run this same
trio, so they start the two stand-ins and point a bridge at them in one
place, as production does: through the environment names of `bot.config`,
never a `.env` file. A bridge in a process of its own gets that environment;
one in this process gets the settings loaded from it, so both read the same
values the same way. `local_stack` starts all three (and the driver that
clicks as Slack would) and stops them in the right order, whatever fails in
between.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.bridge.runtime import Bridge
from bot.clock import Clock, utc_now
from bot.config import Settings, load_settings
from bot.secretfiles import file_setting_names
from bot.slack import limits
from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.server import LocalSlack, start_local_slack
from novo_dev.sim.demo_data import DEFAULT_INTERVAL_SECONDS
from novo_dev.sim.server import SimServer, start_sim

SettingValue = str | float | Path


def bridge_environment(
    sim: SimServer,
    slack: LocalSlack,
    db: Path | str,
    *,
    signing_secret: str,
    api_key: str,
    channel: str,
    poll_seconds: float,
    policy: Path | None = None,
    **more: SettingValue,
) -> dict[str, str]:
    """What `novo-slack run` reads to bridge these two stand-ins, on a port of its choosing.

    `more` sets further settings by field name (`post_rate=50`, `host="127.0.0.1"`,
    `port=…`): the environment names come from `bot.config` alone, so a renamed
    one cannot leave a harness setting the old name unnoticed.
    """
    values: dict[str, SettingValue | None] = {
        "slack_bot_token": slack.bot_token,
        "slack_signing_secret": signing_secret,
        "slack_api_url": slack.api_url,
        "novo_api_url": sim.url,
        "novo_api_key": api_key,
        "default_channel": channel,
        "db_path": db,
        "port": 0,
        "metrics_port": 0,
        "poll_seconds": poll_seconds,
        "config_path": policy,
        **more,
    }
    return {_name(field): str(value) for field, value in values.items() if value is not None}


def _name(field: str) -> str:
    setting = Settings.model_fields.get(field)
    if setting is None or setting.alias is None:
        raise TypeError(f"the bridge has no setting {field!r}")
    return setting.alias


def without_bridge_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` less every name the bridge reads (secret files too): a bridge started
    from it sees only the settings it is handed, not the caller's own."""
    ours = {field.alias for field in Settings.model_fields.values() if field.alias}
    ours.update(file_setting_names(Settings))
    return {name: value for name, value in environ.items() if name not in ours}


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
class ServersConfig:
    """How the two stand-ins start: the simulator's options and what the workspace holds."""

    api_key: str
    channels: Sequence[tuple[str, str]] = ()  # (id, name)
    people: Sequence[Person] = ()
    groups: Sequence[Group] = ()  # after `people`: a group's members must exist
    demo: bool = False  # the simulator creates the demo's interactions
    demo_interval_seconds: float = DEFAULT_INTERVAL_SECONDS  # with demo; 0: never after the seed
    demo_seed: bool = True  # with demo: open on every template once
    seed: int | None = None
    trigger_ttl: float = limits.TRIGGER_TTL_SECONDS
    """How long a trigger_id opens a modal: Slack's 3 s unless a test stretches it (how fast
    the bridge opens a form is `bench.forms`'s figure, not a verdict of a behaviour test)."""


@dataclass(frozen=True)
class LocalServers:
    """The simulator and the local Slack, running on loopback."""

    sim: SimServer
    slack: LocalSlack
    api_key: str

    def environment(
        self,
        db: Path | str,
        *,
        signing_secret: str,
        channel: str,
        poll_seconds: float,
        policy: Path | None = None,
        **more: SettingValue,
    ) -> dict[str, str]:
        """`bridge_environment` for these two, with the simulator's own API key."""
        return bridge_environment(
            self.sim,
            self.slack,
            db,
            signing_secret=signing_secret,
            api_key=self.api_key,
            channel=channel,
            poll_seconds=poll_seconds,
            policy=policy,
            **more,
        )


@asynccontextmanager
async def local_servers(config: ServersConfig) -> AsyncIterator[LocalServers]:
    """A running simulator and local Slack (channels, people and groups added), stopped on exit."""
    async with (
        await start_sim(
            api_key=config.api_key,
            demo=config.demo,
            demo_interval_seconds=config.demo_interval_seconds,
            demo_seed=config.demo_seed,
            seed=config.seed,
        ) as sim,
        await start_local_slack(trigger_ttl=config.trigger_ttl) as slack,
    ):
        for channel_id, name in config.channels:
            slack.add_channel(channel_id, name)
        for person in config.people:
            slack.add_user(person.user_id, person.name, person.display_name)
        for group in config.groups:
            slack.add_usergroup(group.group_id, group.handle, list(group.members))
        yield LocalServers(sim, slack, config.api_key)


@dataclass(frozen=True)
class StackConfig:
    """Everything that differs between the demo, the playground, the tests and the benchmarks."""

    servers: ServersConfig
    db: Path | str
    channel: str  # the bridge's default channel
    signing_secret: str
    poll_seconds: float
    policy: Path | None = None
    novo_retry_base: float = 0.5  # the bridge's production backoffs unless a harness hurries
    redelivery_base: float = 1.0


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
async def local_stack(
    config: StackConfig,
    *,
    clock: Clock = utc_now,
    settings_changes: Mapping[str, Any] | None = None,
) -> AsyncIterator[LocalStack]:
    """A running simulator, local Slack and bridge, on loopback.

    `settings_changes` replace settings by field name once they are read, as they
    are given (`post_rate=50.0`, `db_path=<a test's database URL>`), so a harness
    changes one knob without spelling the bridge's environment again.
    """
    async with local_servers(config.servers) as servers:
        environment = servers.environment(
            config.db,
            signing_secret=config.signing_secret,
            channel=config.channel,
            poll_seconds=config.poll_seconds,
            policy=config.policy,
        )
        # read as `novo-slack run` reads them, never from a `.env` file
        settings = load_settings(**environment, _env_file=None)
        if settings_changes:
            settings = settings.model_copy(update=dict(settings_changes))
        bridge = Bridge(
            settings,
            host="127.0.0.1",
            clock=clock,
            novo_retry_base=config.novo_retry_base,
            redelivery_base=config.redelivery_base,
        )
        await bridge.start()  # stops whatever it opened if it fails
        try:
            if bridge.url is None:
                raise RuntimeError("the bridge did not open its HTTP listener")
            async with SlackDriver(bridge.url, config.signing_secret, servers.slack) as driver:
                yield LocalStack(servers.sim, servers.slack, bridge, driver)
        finally:
            await bridge.stop()
