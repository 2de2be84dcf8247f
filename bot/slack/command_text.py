"""What someone typed after `/novo`, read into one of its subcommands.

Slack hands the app the words after the command as one string, typed by a
person: any case, any spacing, possibly nonsense. Reading it is kept apart
from answering it so every reading is a plain value a test can name, and an
answer never has to guess what was meant. Anything not understood is
`Unknown`, which is answered with the help (and the word that was not
understood), never with an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

COMMAND = "/novo"

WINDOWS: dict[str, tuple[timedelta, str]] = {
    "24h": (timedelta(hours=24), "24 hours"),
    "7d": (timedelta(days=7), "7 days"),
    "30d": (timedelta(days=30), "30 days"),
}
"""The periods `/novo stats` covers, by what is typed: (length, words for it)."""
DEFAULT_WINDOW = "24h"


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Pending:
    """What the caller may decide; `words` each narrow it (agent id or name, or tool)."""

    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Show:
    """One interaction's card; `interaction_id` empty when none was given."""

    interaction_id: str


@dataclass(frozen=True)
class Stats:
    window: str = DEFAULT_WINDOW

    @property
    def length(self) -> timedelta:
        return WINDOWS[self.window][0]

    @property
    def words(self) -> str:
        return WINDOWS[self.window][1]


@dataclass(frozen=True)
class Unknown:
    """Not understood: `what` is the part that was not (shown back, escaped, with the help)."""

    what: str


Command = Help | Pending | Show | Stats | Unknown


def parse(text: str) -> Command:
    """The subcommand in `text` (the words after `/novo`)."""
    words = text.split()
    if not words:
        return Help()
    verb, rest = words[0].lower(), words[1:]
    if verb == "help":
        return Help()
    if verb == "pending":
        return Pending(tuple(rest))
    if verb == "show":
        if len(rest) > 1:
            return Unknown(" ".join(words))
        return Show(rest[0] if rest else "")
    if verb == "stats":
        if not rest:
            return Stats()
        window = rest[0].lower()
        if len(rest) > 1 or window not in WINDOWS:
            return Unknown(" ".join(words))
        return Stats(window)
    return Unknown(words[0])
