"""The policy in force, which SIGHUP can replace while the bridge runs.

Every reader asks for the current policy at the moment it decides (a click's
check, a post, a reminder), so a reload applies to what happens next:
interactions already posted keep where they were posted (the store holds
that), while who may decide and how many must agree follow the new file. A
new file with a mistake is refused as a whole and the old policy stays.
"""

from __future__ import annotations

import logging
from pathlib import Path

from bot.config import SettingsError
from bot.novo.models import Interaction
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import Route, route_for

log = logging.getLogger(__name__)


class LivePolicy:
    def __init__(
        self, default_channel: str, file: PolicyFile | None = None, path: Path | None = None
    ) -> None:
        self._default_channel = default_channel
        self._file = file or PolicyFile()
        self._path = path

    @classmethod
    def load(cls, path: Path | None, default_channel: str) -> LivePolicy:
        """The policy at `path`; PolicyError naming the place if it can't be used."""
        return cls(default_channel, load_policy(path), path)

    @classmethod
    def configured(cls, path: Path | None, default_channel: str) -> LivePolicy:
        """The policy `NOVO_SLACK_CONFIG` names, as `run` and `check` both read it: a
        mistake is a setting that is wrong, `SettingsError` with one line (exit 2)."""
        try:
            return cls.load(path, default_channel)
        except PolicyError as exc:
            raise SettingsError(f"NOVO_SLACK_CONFIG: {exc}") from None

    @property
    def current(self) -> PolicyFile:
        return self._file

    @property
    def default_channel(self) -> str:
        return self._default_channel

    def route(self, interaction: Interaction) -> Route:
        return route_for(self._file, interaction, self._default_channel)

    def reload(self) -> bool:
        """Read the file again; on a mistake keep the policy in force and log one line."""
        if self._path is None:
            log.info("SIGHUP: no policy file (NOVO_SLACK_CONFIG) to reload")
            return False
        try:
            fresh = load_policy(self._path)
        except PolicyError as exc:
            log.error("policy not reloaded, the one in force stays: %s", exc)
            return False
        self._file = fresh
        log.info("policy reloaded from %s: %d rule(s)", self._path, len(fresh.rules))
        return True
