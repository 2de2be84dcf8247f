"""The rig every harness starts from points a bridge at the stand-ins through bot.config's names.

A subprocess bridge gets `bridge_environment`, an in-process one the settings
loaded from it; if the two drifted, a harness would test a bridge no
deployment runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Settings, load_settings
from novo_dev.demo.stack import (
    Group,
    Person,
    ServersConfig,
    local_servers,
    without_bridge_settings,
)

API_KEY = "rig-novo-key"
SIGNING_SECRET = "rig-signing-secret"
CHANNEL = "C0RIG"


async def test_the_environment_loads_into_settings_pointing_at_both_stand_ins(
    tmp_path: Path,
) -> None:
    people = [Person("U0ADA", "ada", "Ada Lovelace")]
    config = ServersConfig(
        api_key=API_KEY,
        channels=[(CHANNEL, "rig")],
        people=people,
        groups=[Group("S0RIG", "rig", ["U0ADA"])],
    )
    async with local_servers(config) as servers:
        environment = servers.environment(
            tmp_path / "bridge.db",
            signing_secret=SIGNING_SECRET,
            channel=CHANNEL,
            poll_seconds=0.1,
            policy=tmp_path / "policy.yml",
            post_rate=50,
        )
        settings = load_settings(**environment, _env_file=None)
        assert settings.novo_api_url == servers.sim.url
        assert settings.slack_api_url == servers.slack.api_url.rstrip("/")
        assert settings.slack_bot_token.get_secret_value() == servers.slack.bot_token
        assert settings.novo_api_key.get_secret_value() == API_KEY
        assert settings.slack_signing_secret is not None
        assert settings.slack_signing_secret.get_secret_value() == SIGNING_SECRET
        assert (settings.default_channel, settings.db_path) == (CHANNEL, tmp_path / "bridge.db")
        assert (settings.port, settings.poll_seconds, settings.post_rate) == (0, 0.1, 50.0)
        assert settings.config_path == tmp_path / "policy.yml"
        assert servers.slack.channel_name(CHANNEL) == "rig"
        assert servers.slack.usergroup("S0RIG").users == ["U0ADA"]


async def test_a_setting_the_bridge_does_not_have_is_refused(tmp_path: Path) -> None:
    async with local_servers(ServersConfig(api_key=API_KEY)) as servers:
        with pytest.raises(TypeError, match="no setting 'post_rates'"):
            servers.environment(
                tmp_path / "bridge.db",
                signing_secret=SIGNING_SECRET,
                channel=CHANNEL,
                poll_seconds=0.1,
                post_rates=50,
            )


def test_the_callers_own_settings_are_left_behind() -> None:
    caller = {
        "PATH": "/usr/bin",
        "NOVO_SLACK_DB": "elsewhere.db",
        "SLACK_BOT_TOKEN_FILE": "/run/secrets/token",
        "NOVO_SLACK_DB_PASSWORD_FILE": "/run/secrets/db",
    }
    assert without_bridge_settings(caller) == {"PATH": "/usr/bin"}
    every_name = [field.alias for field in Settings.model_fields.values() if field.alias]
    assert without_bridge_settings(dict.fromkeys(every_name, "x")) == {}
