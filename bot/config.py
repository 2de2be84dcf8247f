"""Settings, read from the environment or a `.env` file: the one place env names live.

A missing or malformed setting must stop start-up with one line that names
it, so `load_settings` turns pydantic's report into `SettingsError`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class SettingsError(Exception):
    """Start-up configuration is missing or malformed; the message names the setting."""


class Settings(BaseSettings):
    """Every knob of the bridge, by its environment name; secrets never show in a repr."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=True
    )

    slack_bot_token: SecretStr = Field(alias="SLACK_BOT_TOKEN", min_length=1)
    slack_signing_secret: SecretStr = Field(alias="SLACK_SIGNING_SECRET", min_length=1)
    slack_app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    slack_api_url: str | None = Field(default=None, alias="SLACK_API_URL")
    novo_api_url: str = Field(alias="NOVO_API_URL", min_length=1)
    novo_api_key: SecretStr = Field(alias="NOVO_API_KEY", min_length=1)
    default_channel: str = Field(alias="NOVO_SLACK_CHANNEL", min_length=1)
    db_path: Path = Field(default=Path("./novo-slack.db"), alias="NOVO_SLACK_DB")
    port: int = Field(default=3000, alias="NOVO_SLACK_PORT", ge=0, le=65535)
    poll_seconds: float = Field(default=2.0, alias="NOVO_SLACK_POLL_SECONDS", gt=0, le=3600)

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token_shape(cls, value: SecretStr) -> SecretStr:
        if not value.get_secret_value().startswith("xoxb-"):
            raise ValueError("must be a bot token starting with xoxb-")
        return value

    @field_validator("slack_app_token")
    @classmethod
    def _app_token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None
        if not value.get_secret_value().startswith("xapp-"):
            raise ValueError("must be an app-level token starting with xapp-")
        return value

    @field_validator("novo_api_url", "slack_api_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None


def load_settings(**overrides: object) -> Settings:
    """Read settings; raise `SettingsError` whose message is one line naming the bad setting."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "settings"
        problem = "is required but not set" if first["type"] == "missing" else first["msg"]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SettingsError(f"{name} {problem}{more}") from None
