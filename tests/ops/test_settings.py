"""The operating settings: read by their env names, and named when malformed."""

from __future__ import annotations

import pytest

from bot.config import SettingsError, load_settings

VALID = {
    "SLACK_BOT_TOKEN": "xoxb-1-2-3",
    "SLACK_SIGNING_SECRET": "signing",
    "NOVO_API_URL": "https://novo.example/",
    "NOVO_API_KEY": "novo-key",
    "NOVO_SLACK_CHANNEL": "C0123",
}


def test_defaults_and_any_case() -> None:
    settings = load_settings(**VALID, _env_file=None)
    assert (settings.host, settings.post_rate, settings.update_rate) == ("0.0.0.0", 1.0, 50.0)
    assert (settings.log_level, settings.log_format) == ("INFO", "text")
    tuned = load_settings(
        **VALID,
        NOVO_SLACK_HOST="127.0.0.1",
        NOVO_SLACK_LOG_LEVEL="debug",
        NOVO_SLACK_LOG_FORMAT="JSON",
        NOVO_SLACK_POST_RATE="0.5",
        NOVO_SLACK_UPDATE_RATE="20",
        _env_file=None,
    )
    assert (tuned.host, tuned.log_level, tuned.log_format) == ("127.0.0.1", "DEBUG", "json")
    assert (tuned.post_rate, tuned.update_rate) == (0.5, 20.0)


def test_malformed_ones_are_named_together() -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(
            **VALID,
            NOVO_SLACK_LOG_LEVEL="loud",
            NOVO_SLACK_LOG_FORMAT="xml",
            NOVO_SLACK_POST_RATE="0",
            NOVO_SLACK_UPDATE_RATE="5000",
            _env_file=None,
        )
    line = str(raised.value)
    for name in (
        "NOVO_SLACK_LOG_LEVEL",
        "NOVO_SLACK_LOG_FORMAT",
        "NOVO_SLACK_POST_RATE",
        "NOVO_SLACK_UPDATE_RATE",
    ):
        assert name in line
