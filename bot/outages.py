"""An outage of something the bridge depends on (Novo, Slack, the database), said twice.

A dependency that is down fails every poll, retry and reconnect until it is
back: logged each time, a 30 s Novo outage was 13 WARNING lines, and a night's
was over a thousand, burying whatever else happened. Here the outage is said
once at WARNING when it starts and once at WARNING when it ends (with how long
it lasted and how many tries failed); every failure in between is a DEBUG line.
The metrics carry the rest: `novo_slack_dependency_up{dependency}` (0 while
down) to alert on, `novo_slack_outages_total{dependency}` to count them.

Each dependency's outage has one owner, the one place that sees every try:
Novo's is the poll (and the probe at start-up, bot.bridge.jobs), Slack's is the
Web API client's answers (bot.slack.availability), the database's is the timed
jobs, which touch it every poll interval on every replica (bot.bridge.jobs).
Whoever else meets the same failure (a post, an update, a DM, a Home tab) logs
its own line at `level(exc)`: DEBUG when the failure is a dependency out of
reach, which its owner has already said; WARNING when it is news of its own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.metrics import DEPENDENCY_UP, OUTAGES

OutOfReach = Callable[[BaseException], bool]
_OUT_OF_REACH: list[OutOfReach] = []


def out_of_reach(predicate: OutOfReach) -> OutOfReach:
    """Make `predicate` one that tells a dependency out of reach from a failure of its own.

    Each dependency knows its own (`bot.slack.answers.out_of_reach`,
    `bot.store.errors.unreachable` are so marked); this module knows none of them, so
    it imports nothing of theirs.
    """
    _OUT_OF_REACH.append(predicate)
    return predicate


def level(exc: BaseException) -> int:
    """The level of a caller's own line about a failed call: DEBUG when the failure is a
    dependency out of reach (that outage's owner says it, once), else WARNING."""
    if any(said(exc) for said in _OUT_OF_REACH):
        return logging.DEBUG
    return logging.WARNING


class Outage:
    """One dependency's state as this process saw it last: up, or down since when."""

    def __init__(self, dependency: str, log: logging.Logger) -> None:
        self.dependency = dependency
        self._log = log
        self._since: float | None = None
        self._failures = 0
        DEPENDENCY_UP.labels(dependency).set(1)

    @property
    def down(self) -> bool:
        return self._since is not None

    def failed(self, line: str, *args: object) -> None:
        """A try failed: the first of an outage at WARNING (`line`), the rest at DEBUG."""
        self._failures += 1
        if self._since is None:
            self._since = time.monotonic()
            DEPENDENCY_UP.labels(self.dependency).set(0)
            OUTAGES.labels(self.dependency).inc()
            self._log.warning(line, *args)
        else:
            self._log.debug(line, *args)

    def answered(self, line: str, *args: object) -> None:
        """A try worked: the end of an outage at WARNING, followed by how long it lasted and
        how many tries failed; nothing when there was none."""
        since, self._since = self._since, None
        failures, self._failures = self._failures, 0
        if since is None:
            return
        DEPENDENCY_UP.labels(self.dependency).set(1)
        lasted = time.monotonic() - since
        self._log.warning(
            f"{line} (down %.0fs, %d failed tr%s)",
            *args,
            lasted,
            failures,
            "y" if failures == 1 else "ies",
        )
