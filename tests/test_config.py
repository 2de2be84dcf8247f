"""Start-up configuration: every setting by its env name, and one clear line when one is wrong."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Settings, SettingsError, load_settings

VALID = {
    "SLACK_BOT_TOKEN": "xoxb-1-2-3",
    "SLACK_SIGNING_SECRET": "signing",
    "NOVO_API_URL": "https://novo.example/",
    "NOVO_API_KEY": "novo-key",
    "NOVO_SLACK_CHANNEL": "C0123",
}


def _load(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    unset = [
        "SLACK_APP_TOKEN",
        "NOVO_SLACK_POLL_SECONDS",
        "NOVO_SLACK_PORT",
        "NOVO_SLACK_METRICS_PORT",
    ]
    for name in [*VALID, *unset]:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(_env_file=None)


def test_defaults_and_names(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _load(monkeypatch, **VALID)
    assert settings.novo_api_url == "https://novo.example"
    assert settings.port == 3000
    assert settings.poll_seconds == 2.0
    assert str(settings.db_path) == "novo-slack.db"
    assert settings.socket_mode is False
    assert "novo-key" not in repr(settings) and "xoxb-1-2-3" not in repr(settings)


def test_app_token_turns_on_socket_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _load(monkeypatch, **VALID, SLACK_APP_TOKEN="xapp-1-abc")
    assert settings.socket_mode is True


def test_the_signing_secret_is_http_modes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    without = {k: v for k, v in VALID.items() if k != "SLACK_SIGNING_SECRET"}
    socket = _load(monkeypatch, **without, SLACK_APP_TOKEN="xapp-1-abc")
    assert socket.socket_mode and socket.slack_signing_secret is None
    with pytest.raises(SettingsError) as raised:
        _load(monkeypatch, **without)
    assert str(raised.value) == (
        "SLACK_SIGNING_SECRET is required in HTTP mode (SLACK_APP_TOKEN is not set);"
        " Socket Mode (SLACK_APP_TOKEN=xapp-…) needs none"
    )
    with pytest.raises(SettingsError):
        _load(monkeypatch, **without, SLACK_SIGNING_SECRET="")


def test_the_two_ports_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _load(monkeypatch, **VALID).metrics_port == 9464
    with pytest.raises(SettingsError) as raised:
        _load(monkeypatch, **VALID, NOVO_SLACK_PORT="9000", NOVO_SLACK_METRICS_PORT="9000")
    assert "NOVO_SLACK_PORT and NOVO_SLACK_METRICS_PORT must differ (both 9000)" in str(
        raised.value
    )
    both_free = _load(monkeypatch, **VALID, NOVO_SLACK_PORT="0", NOVO_SLACK_METRICS_PORT="0")
    assert both_free.port == both_free.metrics_port == 0  # each takes a free port


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("NOVO_SLACK_POLL_SECONDS", "soon", "NOVO_SLACK_POLL_SECONDS"),
        ("NOVO_SLACK_POLL_SECONDS", "0", "NOVO_SLACK_POLL_SECONDS"),
        ("NOVO_SLACK_PORT", "70000", "NOVO_SLACK_PORT"),
        ("SLACK_BOT_TOKEN", "xapp-wrong-kind", "SLACK_BOT_TOKEN"),
        ("SLACK_APP_TOKEN", "xoxb-wrong-kind", "SLACK_APP_TOKEN"),
        ("NOVO_API_URL", "novo.example", "NOVO_API_URL"),
    ],
)
def test_malformed_setting_is_named(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        _load(monkeypatch, **{**VALID, name: value})
    assert str(raised.value).startswith(expected)
    assert "\n" not in str(raised.value)


def test_missing_setting_stops_start_up_with_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in VALID}
    env.update({k: v for k, v in VALID.items() if k != "NOVO_API_KEY"})
    result = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,  # no .env here
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "novo-slack: NOVO_API_KEY is required but not set"


def test_an_unreadable_secret_file_says_which_user_must_read_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A 0600 file another user owns, as a single host mounts it. The tests run as root,
    who reads any file, so the refusal is the filesystem's, stood in for."""
    secret = tmp_path / "slack_bot_token"
    secret.write_text("xoxb-1-2")

    def refuse(self: Path, *args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", refuse)
    env = {k: v for k, v in VALID.items() if k != "SLACK_BOT_TOKEN"}
    with pytest.raises(SettingsError) as raised:
        _load(monkeypatch, **env, SLACK_BOT_TOKEN_FILE=str(secret))
    assert str(raised.value) == (
        f"SLACK_BOT_TOKEN_FILE: cannot read {secret}: Permission denied (this process runs"
        f" as user {os.getuid()}, which must be able to read it: chown it to that user, or"
        " make it readable by its group)"
    )
