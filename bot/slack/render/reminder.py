"""The reminder posted in an interaction's thread: how long is left, and who is meant."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

ICON_REMINDER = "⏰"


def time_left(expires_at: datetime, now: datetime) -> str:
    """ "5 minutes", "40 seconds", "2 hours": rounded the way a person would say it."""
    seconds = max(0, round((expires_at - now).total_seconds()))
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(minutes / 60)
    return f"{hours} hour{'s' if hours != 1 else ''}"


def reminder_text(expires_at: datetime, now: datetime, mentions: Sequence[str]) -> str:
    """ "⏰ 5 minutes left — <!here>"; without mentions the line ends at "left"."""
    line = f"{ICON_REMINDER} {time_left(expires_at, now)} left"
    return f"{line} — {' '.join(mentions)}" if mentions else line
