"""Secrets given as files: `SLACK_BOT_TOKEN_FILE=/run/secrets/slack_bot_token`.

Platforms hand secrets to containers as files (a Kubernetes Secret volume,
compose and swarm secrets), and a secret in a file stays out of `env`
listings, `/proc/<pid>/environ` and crash reports. The convention is the
official database images' one: `NAME_FILE` names a file holding `NAME`'s
value, its trailing newline stripped (`echo` and editors add one). Every
secret setting takes it, and the database password too, as
`NOVO_SLACK_DB_PASSWORD_FILE`, put into the `NOVO_SLACK_DB` URL.

pydantic-settings' own `secrets_dir` reads files named after the settings
from one folder; `_FILE` lets each secret live wherever its platform mounts
it, so this is a source of our own, placed before the others. Giving both
`NAME` and `NAME_FILE` is refused: which one wins would be a guess.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, get_args

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

FILE_SUFFIX = "_FILE"
DB_SETTING = "NOVO_SLACK_DB"
DB_PASSWORD_FILE = "NOVO_SLACK_DB_PASSWORD_FILE"


class SecretFileError(ValueError):
    """A `_FILE` setting that can't be used; the message names it."""


def secret_names(settings_cls: type[BaseSettings]) -> list[str]:
    """The environment names of the settings that hold secrets (typed `SecretStr`)."""
    return [
        field.alias
        for field in settings_cls.model_fields.values()
        if field.alias is not None and _is_secret(field)
    ]


def file_setting_names(settings_cls: type[BaseSettings]) -> list[str]:
    """Every `_FILE` name this source reads, in the settings' order."""
    return [name + FILE_SUFFIX for name in secret_names(settings_cls)] + [DB_PASSWORD_FILE]


class SecretFileSource(PydanticBaseSettingsSource):
    """Values read from the files named by `NAME_FILE`, wherever `NAME` could come from.

    `layers` are the other sources' raw values, highest priority first (the
    keyword arguments, the environment, the `.env` file): a `_FILE` name is
    looked up in them as `NAME` would be, and `NAME` there means both were given.
    """

    def __init__(
        self, settings_cls: type[BaseSettings], layers: Iterable[Mapping[str, Any]]
    ) -> None:
        super().__init__(settings_cls)
        self._layers = list(layers)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        raise NotImplementedError  # __call__ reads every name at once

    def __call__(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        problems: list[str] = []
        for name in secret_names(self.settings_cls):
            path = self._given(name + FILE_SUFFIX)
            if path is None:
                continue
            if self._given(name) is not None:
                problems.append(f"{name} and {name}{FILE_SUFFIX} are both set: give one")
                continue
            try:
                values[name] = read_secret(name + FILE_SUFFIX, path)
            except SecretFileError as exc:
                problems.append(str(exc))
        try:
            url = self._db_url()
        except SecretFileError as exc:
            problems.append(str(exc))
        else:
            if url is not None:
                values[DB_SETTING] = url
        if problems:
            raise SecretFileError("; ".join(problems))
        return values

    def _db_url(self) -> str | None:
        """`NOVO_SLACK_DB` with the password from its file, or None if no file is named."""
        path = self._given(DB_PASSWORD_FILE)
        if path is None:
            return None
        target = self._given(DB_SETTING)
        if target is None or "://" not in target:
            raise SecretFileError(
                f"{DB_PASSWORD_FILE} is set but {DB_SETTING} is not a database URL"
            )
        try:
            url = make_url(target)
        except (ArgumentError, ValueError):
            raise SecretFileError(f"{DB_SETTING} is not a valid URL") from None
        if url.password:
            raise SecretFileError(
                f"{DB_SETTING} has a password and {DB_PASSWORD_FILE} is set: give one"
            )
        password = read_secret(DB_PASSWORD_FILE, path)
        return url.set(password=password).render_as_string(hide_password=False)

    def _given(self, name: str) -> str | None:
        """`name`'s value from the first layer that sets it to something not empty."""
        for layer in self._layers:
            value = layer.get(name)
            if value not in (None, ""):
                return str(value)
        return None


def read_secret(setting: str, path: str) -> str:
    """The file's text without its trailing newline; `SecretFileError` naming `setting`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if isinstance(exc, PermissionError):  # most often a 0600 file another user owns
            reason += (
                f" (this process runs as user {os.getuid()}, which must be able to read it:"
                " chown it to that user, or make it readable by its group)"
            )
        raise SecretFileError(f"{setting}: cannot read {path}: {reason}") from None
    return text.rstrip("\r\n")


def _is_secret(field: FieldInfo) -> bool:
    annotation = field.annotation
    return annotation is SecretStr or SecretStr in get_args(annotation)
