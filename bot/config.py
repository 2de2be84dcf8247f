"""Settings, read from the environment or a `.env` file: the one place env names live.

A missing or malformed setting must stop start-up with one line that names
it, so `load_settings` turns pydantic's report into `SettingsError`. Every
bad setting is named at once: fixing them one restart at a time wastes a
deploy per mistake.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bot.secretfiles import SecretFileError, SecretFileSource

# Conversation ids: public channels C…, private channels G… (older ones), DMs D….
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,}$")


REQUIRED_UNLESS = "required_unless"
"""A field's extra: required unless the setting it names is set (`_settings_agree` says so)."""

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
LogFormat = Literal["text", "json"]


class SettingsError(Exception):
    """Start-up configuration is missing, malformed or refused; the message names the setting."""


class LogSettings(BaseSettings):
    """The logging knobs alone: read before anything else.

    Logging is set up before the other settings are checked (their failure
    is itself a line to print), so these two can be read on their own; a bad
    value falls back to the default there and is named by `load_settings`
    with the rest.
    """

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=True
    )

    log_level: LogLevel = Field(
        default="INFO",
        alias="NOVO_SLACK_LOG_LEVEL",
        description="DEBUG, INFO, WARNING or ERROR (-v is DEBUG)",
    )
    log_format: LogFormat = Field(
        default="text",
        alias="NOVO_SLACK_LOG_FORMAT",
        description="text, or json: one JSON object per line",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_any_case(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _format_any_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class Settings(LogSettings):
    """Every knob of the bridge, by its environment name; secrets never show in a repr."""

    # `description` is each setting's meaning as .env.example shows it (`make env-example`)
    slack_bot_token: SecretStr = Field(
        alias="SLACK_BOT_TOKEN", min_length=1, description="the bot token, xoxb-…"
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        alias="SLACK_SIGNING_SECRET",
        description=(
            "required in HTTP mode (the default): verifies that requests come from Slack;"
            " Socket Mode never reads it"
        ),
        json_schema_extra={REQUIRED_UNLESS: "SLACK_APP_TOKEN"},
    )
    slack_app_token: SecretStr | None = Field(
        default=None,
        alias="SLACK_APP_TOKEN",
        description="app-level token, xapp-…; when set, Socket Mode (else HTTP mode)",
    )
    slack_api_url: str | None = Field(
        default=None,
        alias="SLACK_API_URL",
        description="Slack's Web API base URL (the demo and tests point it at a local Slack)",
    )
    novo_api_url: str = Field(
        alias="NOVO_API_URL",
        min_length=1,
        description="Novo's API base, e.g. https://api.novo.example",
    )
    novo_api_key: SecretStr = Field(
        alias="NOVO_API_KEY",
        min_length=1,
        description="Novo API key (sent as Authorization: Bearer …)",
    )
    default_channel: str = Field(
        alias="NOVO_SLACK_CHANNEL",
        min_length=1,
        description="id of the channel interactions are posted to (C…), unless the policy says",
    )
    # a SQLite file path, or a database URL kept as text (a Path would fold its "//")
    db_path: Path | str = Field(
        default=Path("./novo-slack.db"),
        alias="NOVO_SLACK_DB",
        description=(
            "the store of messages and decisions in flight: a SQLite file, or"
            " postgresql://user@host:5432/db for several replicas"
        ),
    )
    port: int = Field(
        default=3000,
        alias="NOVO_SLACK_PORT",
        ge=0,
        le=65535,
        description=(
            "the Slack port: /slack/events (HTTP mode), /healthz, and a /readyz that says"
            " only ready or not"
        ),
    )
    metrics_port: int = Field(
        default=9464,
        alias="NOVO_SLACK_METRICS_PORT",
        ge=0,
        le=65535,
        description=(
            "the operator port: /metrics and the detailed /readyz; never route it from outside"
        ),
    )
    host: str = Field(
        default="0.0.0.0",
        alias="NOVO_SLACK_HOST",
        min_length=1,
        description="address both ports are bound to (127.0.0.1: this host only; :: for IPv6)",
    )
    poll_seconds: float = Field(
        default=2.0,
        alias="NOVO_SLACK_POLL_SECONDS",
        gt=0,
        le=3600,
        description="how often Novo is polled for pending interactions (seconds)",
    )
    # Slack's own limits, with room: ~1 post per second per channel, Tier 3 for chat.update
    post_rate: float = Field(
        default=1.0,
        alias="NOVO_SLACK_POST_RATE",
        gt=0,
        le=100,
        description="new messages posted per second, per channel (Slack allows about 1)",
    )
    update_rate: float = Field(
        default=50.0,
        alias="NOVO_SLACK_UPDATE_RATE",
        gt=0,
        le=1000,
        description="message updates per minute, whole workspace (chat.update is Tier 3)",
    )
    config_path: Path | None = Field(
        default=None,
        alias="NOVO_SLACK_CONFIG",
        description=(
            "the policy file (YAML): where interactions go, who decides, reminders,"
            " agents' names; reloaded on SIGHUP or when it changes; unset: every default"
        ),
    )
    audit_days: int = Field(
        default=90,
        alias="NOVO_SLACK_AUDIT_DAYS",
        ge=1,
        le=36500,
        description="days the audit trail keeps an entry (older ones are pruned daily)",
    )
    min_free_mb: int = Field(
        default=50,
        alias="NOVO_SLACK_MIN_FREE_MB",
        ge=0,
        le=10**9,
        description="free disk (MB) beside a SQLite store under which /readyz fails",
    )

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
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https"):
            raise ValueError("must be an http(s) URL")
        if not parts.hostname:
            raise ValueError("must name a host, e.g. https://api.example.com")
        return value.rstrip("/")

    @field_validator("default_channel")
    @classmethod
    def _channel_id(cls, value: str) -> str:
        if _CHANNEL_ID.match(value):
            return value
        if value.startswith("#") or not value[:1].isupper():
            raise ValueError(
                f"must be a channel id like C0123ABCD, not a name ({value!r}): "
                "copy the id from the channel's details in Slack"
            )
        raise ValueError(f"must be a channel id like C0123ABCD (C…, G… or D…), got {value!r}")

    @field_validator("db_path", mode="before")
    @classmethod
    def _path_or_url(cls, value: object) -> object:
        if isinstance(value, str) and "://" not in value:
            return Path(value)
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Secrets may come from files (`SLACK_BOT_TOKEN_FILE=…`): see `bot.secretfiles`."""
        layers = [
            init_settings.init_kwargs if isinstance(init_settings, InitSettingsSource) else {},
            env_settings.env_vars if isinstance(env_settings, EnvSettingsSource) else {},
            dotenv_settings.env_vars if isinstance(dotenv_settings, DotEnvSettingsSource) else {},
        ]
        files = SecretFileSource(settings_cls, layers)
        return files, init_settings, env_settings, dotenv_settings, file_secret_settings

    @field_validator("db_path")
    @classmethod
    def _store_kind(cls, value: Path | str) -> Path | str:
        """A URL the store can't use (`mysql://…`) is a wrong value (exit 2), found before
        anything tries to open it."""
        from bot.store import StoreOpenError  # the store package imports this module's users
        from bot.store.target import parse_target

        try:
            parse_target(value)
        except StoreOpenError as exc:
            raise ValueError(f"{exc.where}: {exc.cause}") from None
        return value

    @field_validator("slack_signing_secret")
    @classmethod
    def _empty_secret_is_unset(cls, value: SecretStr | None) -> SecretStr | None:
        return value if value is not None and value.get_secret_value() else None

    @model_validator(mode="after")
    def _settings_agree(self) -> Settings:
        """Rules across settings, each asked only of a command that reads both (`db` and
        `audit` read the store alone).

        HTTP mode takes requests from anyone who reaches the port: without the signing
        secret nothing proves they come from Slack. Socket Mode's requests come down a
        connection the app token opened, so it needs none. The two ports must differ, or
        the metrics would be served where Slack comes in."""
        if self._reads("NOVO_SLACK_PORT", "NOVO_SLACK_METRICS_PORT") and (
            self.port == self.metrics_port != 0
        ):
            raise ValueError(
                f"NOVO_SLACK_PORT and NOVO_SLACK_METRICS_PORT must differ (both {self.port}):"
                " the metrics port is not to be reached from where Slack comes in"
            )
        if (
            self._reads("SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET")
            and self.slack_app_token is None
            and self.slack_signing_secret is None
        ):
            raise ValueError(
                "SLACK_SIGNING_SECRET is required in HTTP mode (SLACK_APP_TOKEN is not set);"
                " Socket Mode (SLACK_APP_TOKEN=xapp-…) needs none"
            )
        return self

    @classmethod
    def _reads(cls, *names: str) -> bool:
        """Whether this command reads all of these settings (see `load_settings_for`)."""
        read = {field.alias for field in cls.model_fields.values()}
        return all(name in read for name in names)

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None


def load_log_settings() -> LogSettings:
    """The logging knobs, or their defaults when either is malformed."""
    try:
        return LogSettings()
    except ValidationError:
        return LogSettings.model_construct()


def load_settings(**overrides: object) -> Settings:
    """Read settings; raise `SettingsError`: one line naming every bad setting and why."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except SecretFileError as exc:
        raise SettingsError(str(exc)) from None
    except ValidationError as exc:
        raise SettingsError("; ".join(_describe(error) for error in exc.errors())) from None


def load_settings_for(names: Collection[str], **overrides: object) -> Settings:
    """Read only the settings named (by their environment names), for a command that uses
    no others: `db`, `audit`, `policy explain --file`. The rest are neither required nor
    read, so the one-line error names only what the command needs.

    The others stay on the object as None under a name no environment sets; every
    validator, source and message is the real `Settings`' own, so each setting read is
    checked exactly as `run` checks it.
    """
    unused: dict[str, Any] = {
        name: (Any, Field(default=None, alias=f"_unused_{name}", validate_default=False))
        for name, field in Settings.model_fields.items()
        if field.alias not in names and field.alias not in _LOG_NAMES
    }
    partial = create_model("PartialSettings", __base__=Settings, **unused)
    try:
        return partial(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise SettingsError("; ".join(_describe(error) for error in exc.errors())) from None


_LOG_NAMES = frozenset({"NOVO_SLACK_LOG_LEVEL", "NOVO_SLACK_LOG_FORMAT"})


def _describe(error: ErrorDetails) -> str:
    if not error["loc"]:  # a rule across settings: its message names them
        return " ".join(str(error["msg"]).removeprefix("Value error, ").split())
    name = str(error["loc"][0])
    if error["type"] == "missing":
        return f"{name} is required but not set"
    problem = " ".join(str(error["msg"]).removeprefix("Value error, ").split())
    return f"{name} {problem}"
