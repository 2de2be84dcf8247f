"""The operating settings: read by their env names, and named when malformed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

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


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_secrets_from_files_lose_only_their_trailing_newline(tmp_path: Path) -> None:
    given = {k: v for k, v in VALID.items() if k not in ("SLACK_BOT_TOKEN", "NOVO_API_KEY")}
    settings = load_settings(
        **given,
        SLACK_BOT_TOKEN_FILE=_file(tmp_path, "bot", "xoxb-from-a-file\n"),
        NOVO_API_KEY_FILE=_file(tmp_path, "novo", " key with spaces \r\n"),
        SLACK_APP_TOKEN_FILE=_file(tmp_path, "app", "xapp-1-A1-2-abc"),
        _env_file=None,
    )
    assert settings.slack_bot_token.get_secret_value() == "xoxb-from-a-file"
    assert settings.novo_api_key.get_secret_value() == " key with spaces "
    assert settings.slack_app_token is not None and settings.socket_mode


def test_the_database_password_file_goes_into_the_url(tmp_path: Path) -> None:
    settings = load_settings(
        **VALID,
        NOVO_SLACK_DB="postgresql://novo@db.internal:5432/novo",
        NOVO_SLACK_DB_PASSWORD_FILE=_file(tmp_path, "pw", "p@ss:w/rd\n"),
        _env_file=None,
    )
    url = make_url(str(settings.db_path))
    assert (url.username, url.password, url.host, url.database) == (
        "novo",
        "p@ss:w/rd",
        "db.internal",
        "novo",
    )


@pytest.mark.parametrize(
    ("db", "expected"),
    [
        (
            "postgresql://novo:inline@db/novo",
            "NOVO_SLACK_DB has a password and NOVO_SLACK_DB_PASSWORD_FILE is set: give one",
        ),
        (
            "./novo-slack.db",
            "NOVO_SLACK_DB_PASSWORD_FILE is set but NOVO_SLACK_DB is not a database URL",
        ),
    ],
)
def test_a_database_password_file_that_cannot_apply_is_refused(
    tmp_path: Path, db: str, expected: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(
            **VALID,
            NOVO_SLACK_DB=db,
            NOVO_SLACK_DB_PASSWORD_FILE=_file(tmp_path, "pw", "secret\n"),
            _env_file=None,
        )
    assert str(raised.value) == expected


def test_both_ways_from_the_environment_and_a_dotenv_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"SLACK_SIGNING_SECRET_FILE={_file(tmp_path, 's', 'x')}\n")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "also-here")
    given = {k: v for k, v in VALID.items() if k != "SLACK_SIGNING_SECRET"}
    with pytest.raises(SettingsError) as raised:
        load_settings(**given, _env_file=dotenv)
    assert str(raised.value) == (
        "SLACK_SIGNING_SECRET and SLACK_SIGNING_SECRET_FILE are both set: give one"
    )
