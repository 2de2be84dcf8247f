"""The policy in force, which SIGHUP can replace while the bridge runs.

Every reader asks for the current policy at the moment it decides (a click's
check, a post, a reminder), so a reload applies to what happens next:
interactions already posted keep where they were posted (the store holds
that), while who may decide and how many must agree follow the new file. A
new file with a mistake is refused as a whole and the old policy stays.

Where no one can send a signal, the file itself says it changed: a
Kubernetes ConfigMap update swaps the symlink the mounted file resolves
through, and an editor writes it anew. Each poll interval `reload_if_changed`
compares the file's identity, size and modification time (one `stat`, no
read) with those of the file last read, and reloads as SIGHUP does once the
new file has held still for one interval. A file written in place is empty for
a moment (truncated, not yet written), and an empty policy is a valid one in
which anyone decides: read at that moment, it would be in force, and stay in
force if the finished file had a mistake. A SIGHUP, sent once the file is
written, reads it at once.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from pathlib import Path

from bot.config import SettingsError
from bot.metrics import REDACTIONS
from bot.novo.models import Interaction
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import Route, route_for
from bot.redaction import redact_interaction
from bot.redaction.record import withheld

log = logging.getLogger(__name__)

SHOWN_CACHE = 4096
"""Shown copies kept, one per version of a record: a poll or a Home tab reads hundreds
of records again and again, and each version is scanned once."""
Stamp = tuple[int, int, int, int]
"""What tells a file changed without reading it: device, inode, size, mtime (ns)."""


class LivePolicy:
    def __init__(
        self,
        default_channel: str,
        file: PolicyFile | None = None,
        path: Path | None = None,
        stamp: Stamp | None = None,
    ) -> None:
        self._default_channel = default_channel
        self._file = file or PolicyFile()
        self._path = path
        self._shown: OrderedDict[tuple[str, str], Interaction] = OrderedDict()
        self._routes: OrderedDict[tuple[str, str], Route] = OrderedDict()
        self._stamp = stamp  # of the file `file` was read from
        self._changing: Stamp | None = None  # a new stamp seen once, read if it holds

    @classmethod
    def load(cls, path: Path | None, default_channel: str) -> LivePolicy:
        """The policy at `path`; PolicyError naming the place if it can't be used."""
        stamp = _stamp(path) if path is not None else None  # before reading: a change made
        return cls(default_channel, load_policy(path), path, stamp)  # meanwhile is seen next

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
        """The policy in force's route for this version of the record.

        Kept per version, like `shown`: a record's route is asked for by every render,
        click and reminder, and a rule's condition reads its whole input (a 200 KB input
        is converted for CEL in milliseconds). A reload empties it.
        """
        key = _version(interaction)
        cached = self._routes.get(key)
        if cached is not None:
            self._routes.move_to_end(key)
            return cached
        route = route_for(self._file, interaction, self._default_channel)
        self._routes[key] = route
        if len(self._routes) > SHOWN_CACHE:
            self._routes.popitem(last=False)
        return route

    def shown(self, interaction: Interaction) -> Interaction:
        """The copy of a record that may be shown: secrets masked as its rule says.

        Scanned once per version of the record (and policy in force), counted
        in `novo_slack_redactions_total`. Should the scan itself fail, nothing
        the agent wrote is shown rather than everything.
        """
        key = _version(interaction)
        cached = self._shown.get(key)
        if cached is not None:
            self._shown.move_to_end(key)
            return cached
        try:
            redacted = redact_interaction(interaction, self.route(interaction).redact)
            shown = redacted.shown
            for finding in redacted.findings:
                REDACTIONS.labels(finding.kind).inc()
        except Exception as exc:  # a fault in the scan must show less, never more
            log.error(
                "could not check %s for secrets (%s); none of its text is shown",
                interaction.id,
                type(exc).__name__,
            )
            shown = withheld(interaction)
        self._shown[key] = shown
        if len(self._shown) > SHOWN_CACHE:
            self._shown.popitem(last=False)
        return shown

    def reload(self) -> bool:
        """Read the file again; on a mistake keep the policy in force and log one line."""
        if self._path is None:
            log.info("SIGHUP: no policy file (NOVO_SLACK_CONFIG) to reload")
            return False
        self._stamp = _stamp(self._path)  # a file refused once is not read again until it changes
        try:
            fresh = load_policy(self._path)
        except PolicyError as exc:
            log.error("policy not reloaded, the one in force stays: %s", exc)
            return False
        self._file = fresh
        self._shown.clear()  # what is hidden may have changed with the file
        self._routes.clear()
        log.info("policy reloaded from %s: %d rule(s)", self._path, len(fresh.rules))
        return True

    def reload_if_changed(self) -> bool:
        """Reload, as on SIGHUP, if the file is not the one last read and has not changed
        since the last look (it may still be being written); True if reloaded."""
        if self._path is None:
            return False
        stamp = _stamp(self._path)
        if stamp == self._stamp:
            self._changing = None
            return False
        if stamp is None:
            log.warning("policy file %s is gone; the one in force stays", self._path)
            self._stamp = self._changing = None
            return False
        if stamp != self._changing:
            self._changing = stamp
            return False
        self._changing = None
        return self.reload()


def _version(interaction: Interaction) -> tuple[str, str]:
    """What tells one version of a record from another, as Novo reports it."""
    return (interaction.id, f"{interaction.updated_at.isoformat()} {interaction.status}")


def _stamp(path: Path) -> Stamp | None:
    try:
        info = os.stat(path)  # follows symlinks: a swapped ConfigMap link is a new inode
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
