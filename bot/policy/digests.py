"""The `digest:` entries of the policy file: who gets a summary, and when.

```yaml
digest:
  - to: C0MANAGERS            # a channel, or a user (their DM)
    cron: "0 9 * * 1-5"       # standard 5-field crontab
    timezone: Europe/Berlin   # IANA zone the cron is read in; UTC when left out
    rules: [prod-deploys]     # only these rules ("defaults": what no rule matched)
```

The cron is a standard crontab, read the way cron reads it, and APScheduler's
`CronTrigger` computes its fire times. APScheduler 3.x differs from crontab in
two places, so the expression is adjusted before it gets there (see
:func:`crontab_trigger`): it numbers weekdays from Monday (crontab's `1-5`
would be Tuesday to Saturday), and it requires both day fields to match
where crontab fires when either does.

An entry is known by its `key`, a hash of what it says: the same entry keeps
its key across restarts, replicas and reloads (so each scheduled time is sent
once), and an entry changed by a reload is a new digest.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.combining import OrTrigger
from apscheduler.triggers.cron import CronTrigger
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

CRON_EXAMPLE = '"0 9 * * 1-5" (minute hour day-of-month month day-of-week)'

_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
"""Crontab's numbering: 0 (and 7) is Sunday. The names mean the same in APScheduler."""
_WEEKDAY_ITEM = re.compile(
    r"(?P<first>\*|\d+|[a-z]{3})(?:-(?P<last>\d+|[a-z]{3}))?(?:/(?P<step>\d+))?", re.IGNORECASE
)


def _weekday_number(token: str, *, last: bool) -> int:
    """A crontab weekday as a number 0–7; "sun" ending a range is 7 (`fri-sun`)."""
    if token.isdigit():
        number = int(token)
        if number > 7:
            raise ValueError(f"day of week {number} is out of range (0-7, or sun-sat)")
        return number
    name = token.lower()
    if name not in _WEEKDAYS:
        raise ValueError(f'"{token}" is not a day of the week (0-7, or sun-sat)')
    return 7 if last and name == "sun" else _WEEKDAYS.index(name)


def crontab_weekdays(field: str) -> str:
    """A crontab day-of-week field as APScheduler must be told it: the days by name.

    Only the numbering differs, so each item (`1-5`, `*/2`, `0,6`, `mon-fri`)
    is read as crontab reads it and the days it means are named (`mon,tue`);
    names mean the same to both.
    """
    if field == "*":
        return field
    days: set[int] = set()
    for item in field.split(","):
        match = _WEEKDAY_ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f'"{item}" is not a day of the week (0-7, or sun-sat)')
        first, last, step = match["first"], match["last"], match["step"]
        if first == "*":
            if last is not None:
                raise ValueError(f'"{item}" is not a day of the week (0-7, or sun-sat)')
            start, end = 0, 6
        else:
            start = _weekday_number(first, last=False)
            end = _weekday_number(last, last=True) if last else (6 if step else start)
        if start > end:
            raise ValueError(f'"{item}": a range of days must go forward (e.g. 1-5)')
        stride = int(step) if step else 1
        if stride < 1:
            raise ValueError(f'"{item}": a step must be at least 1')
        days.update(day % 7 for day in range(start, end + 1, stride))
    return ",".join(_WEEKDAYS[day] for day in sorted(days))


def zone(name: str) -> tzinfo:
    """The time zone named; UTC needs no time zone database installed."""
    return UTC if name == "UTC" else ZoneInfo(name)


def crontab_trigger(expression: str, timezone: tzinfo) -> Any:
    """APScheduler's trigger firing when crontab would fire `expression` in `timezone`.

    When both the day of month and the day of week are restricted, crontab
    fires on either; APScheduler only on both, so that case is two triggers,
    either of which fires. ValueError (with APScheduler's reason) when the
    expression is not a 5-field crontab.
    """
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(
            f"not a 5-field cron expression: got {len(fields)} field(s), expected {CRON_EXAMPLE}"
        )
    minute, hour, day, month, weekday = fields
    days = crontab_weekdays(weekday)

    def trigger(day: str, days: str) -> Any:
        return CronTrigger.from_crontab(f"{minute} {hour} {day} {month} {days}", timezone)

    # crontab's own test: a field starting with "*" is unrestricted
    if not day.startswith("*") and not weekday.startswith("*"):
        return OrTrigger([trigger(day, "*"), trigger("*", days)])
    return trigger(day, days)


PRECISION = timedelta(seconds=1)
"""Cron times fall on whole minutes; a second is fine enough to tell them apart."""


def next_fire(trigger: Any, moment: datetime) -> datetime | None:
    """The trigger's first fire time at or after `moment`, in UTC."""
    fired = trigger.get_next_fire_time(None, moment)
    return fired.astimezone(UTC) if fired is not None else None


def latest_fire(trigger: Any, now: datetime, lookback: timedelta) -> datetime | None:
    """The latest time at or before `now`, and within `lookback` of it, that `trigger` fires.

    APScheduler only answers "the next fire time from a moment", which never
    goes down as the moment goes up, so the last moment whose next fire time
    is not after `now` is found by bisection: some twenty questions for a
    month back, whatever the cron (stepping forward through an every-minute
    cron would take thousands).
    """
    low, high = now - lookback, now
    first = next_fire(trigger, low)
    if first is None or first > now:
        return None
    while high - low > PRECISION:
        middle = low + (high - low) / 2
        fired = next_fire(trigger, middle)
        if fired is not None and fired <= now:
            low = middle
        else:
            high = middle
    return next_fire(trigger, low)


def _destination(value: str) -> str:
    if not value.startswith(("C", "G", "U", "W")):
        raise ValueError(f'"{value}" is not a channel id (C…) or a user id (U…)')
    return value


class DigestEntry(BaseModel):
    """One digest: where it goes, when, in which time zone, about which rules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    to: str
    cron: str
    timezone: str = "UTC"
    rules: tuple[str, ...] | None = None

    @field_validator("to")
    @classmethod
    def _to(cls, value: str) -> str:
        return _destination(value)

    @field_validator("cron")
    @classmethod
    def _cron(cls, value: str) -> str:
        try:
            crontab_trigger(value, UTC)
        except ValueError as exc:
            raise ValueError(f'"{value}": {exc}') from None
        return " ".join(value.split())

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            zone(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f'"{value}" is not an IANA time zone (e.g. Europe/Berlin, UTC)'
            ) from None
        return value

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and not value:
            raise ValueError("name at least one rule, or leave rules out for all of them")
        return value

    @model_validator(mode="after")
    def _fires(self) -> DigestEntry:
        self.trigger()  # each part was checked alone; this one can no longer fail
        return self

    @property
    def key(self) -> str:
        """Stable for what the entry says: the store knows each digest's times by it."""
        said = [self.to, self.cron, self.timezone, sorted(self.rules) if self.rules else None]
        return "digest-" + hashlib.sha256(json.dumps(said).encode()).hexdigest()[:16]

    def trigger(self) -> Any:
        """APScheduler's trigger for the cron in the entry's time zone."""
        return crontab_trigger(self.cron, zone(self.timezone))

    def covers(self, rule: str) -> bool:
        """Whether an interaction routed by `rule` belongs in this digest."""
        return self.rules is None or rule in self.rules
