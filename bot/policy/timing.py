"""When before an expiry something happens: "50%" of the window left, or "5m" left.

Operators write these by hand in the policy file, so both forms read the way
people say them; each is turned here into "how long before the expiry" for
one interaction's window (from its creation to its current `expiresAt`), so
a window that moves re-plans every step not yet taken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

_SHARE = re.compile(r"(\d+(?:\.\d+)?)%")
_DURATION = re.compile(r"(\d+)\s*(s|m|h)")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600}


@dataclass(frozen=True)
class Lead:
    """How long before the expiry: a share of the whole window, or a fixed duration."""

    text: str
    share: float | None = None
    seconds: float | None = None

    def due_at(self, created_at: datetime, expires_at: datetime) -> datetime:
        if self.share is not None:
            return expires_at - (expires_at - created_at) * self.share
        assert self.seconds is not None
        return expires_at - timedelta(seconds=self.seconds)


def parse_lead(value: object) -> Lead:
    """`"50%"` or `"5m"` / `"30s"` / `"1h"`; ValueError naming what is accepted."""
    text = str(value).strip() if isinstance(value, str | int) else ""
    if match := _SHARE.fullmatch(text):
        share = float(match.group(1)) / 100
        if not 0 < share < 1:
            raise ValueError(f"{text!r}: a share must be between 0% and 100%")
        return Lead(text, share=share)
    if match := _DURATION.fullmatch(text):
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        if seconds <= 0:
            raise ValueError(f"{text!r}: a duration must be more than zero")
        return Lead(text, seconds=float(seconds))
    raise ValueError(f'{value!r}: use a share of the window ("50%") or a duration ("5m")')
