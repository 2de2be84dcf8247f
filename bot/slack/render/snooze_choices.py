"""The "Remind me" choices on a pending message: what each means, when each is offered.

Pure, and shared by the renderers (which choices a message offers) and the
snooze service (when a chosen one falls due, and whether it still can), so
the menu and the service never disagree on what a choice means. The
durations live here and nowhere else.

Which choices a message offers, given how long is left before it expires:

* *Remind me in 15 min* and *in 1 hour*: with no deadline, or with at least
  twice the wait left (30 min, 2 h), so the reminder still leaves at least as
  long to act as it waited. Closer to the deadline *5 min before it expires*
  is the better offer.
* *Remind me 5 min before it expires*: with at least 5 min left.

Those thresholds are the countdown's own marks (see
`render.common.relative_deadline`): the menu changes only when the
countdown words do, so it never costs a message update of its own.

A menu is as old as its message's last render, so a click is judged again
when it arrives: a reminder that would fall due at or after the expiry (or
before the click) is refused with a word, never kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.slack.ids import OverflowValue

BEFORE_EXPIRY = timedelta(minutes=5)
"""How long before the expiry *5 min before it expires* comes."""


@dataclass(frozen=True)
class SnoozeChoice:
    """One "Remind me" option: `after` the click, or `before_expiry` the deadline."""

    value: OverflowValue
    label: str
    words: str
    """How a sentence names it: "in 15 min", "5 min before it expires"."""
    after: timedelta | None = None
    before_expiry: timedelta | None = None

    def due_at(self, now: datetime, expires_at: datetime | None) -> datetime | None:
        """When the DM is due; None for a reminder before an expiry there isn't."""
        if self.after is not None:
            return now + self.after
        if self.before_expiry is None or expires_at is None:
            return None
        return expires_at - self.before_expiry

    def accepts(self, now: datetime, expires_at: datetime | None) -> bool:
        """Whether a click now can be kept: not due in the past, and due before any expiry."""
        due = self.due_at(now, expires_at)
        if due is None or due < now:
            return False
        return expires_at is None or due < expires_at

    def offered(self, now: datetime, expires_at: datetime | None) -> bool:
        """Whether a message rendered at `now` shows it (see the module's rules)."""
        if not self.accepts(now, expires_at):
            return False
        if self.after is None or expires_at is None:
            return True
        return expires_at - now >= 2 * self.after


IN_15_MIN = SnoozeChoice(
    OverflowValue.REMIND_15_MIN,
    "Remind me in 15 min",
    "in 15 min",
    after=timedelta(minutes=15),
)
IN_1_HOUR = SnoozeChoice(
    OverflowValue.REMIND_1_HOUR,
    "Remind me in 1 hour",
    "in 1 hour",
    after=timedelta(hours=1),
)
BEFORE_IT_EXPIRES = SnoozeChoice(
    OverflowValue.REMIND_BEFORE_EXPIRY,
    "Remind me 5 min before it expires",
    "5 min before it expires",
    before_expiry=BEFORE_EXPIRY,
)
CHOICES: tuple[SnoozeChoice, ...] = (IN_15_MIN, IN_1_HOUR, BEFORE_IT_EXPIRES)
"""Every choice, in menu order."""

REMIND_LABELS_TEXT = sum(len(choice.label) for choice in CHOICES)
"""All the choices' labels together, for the renderers' text budgets."""


def offered_choices(
    now: datetime, expires_at: datetime | None, choices: Sequence[SnoozeChoice] = CHOICES
) -> list[SnoozeChoice]:
    """The choices a message rendered at `now` shows, in menu order."""
    return [choice for choice in choices if choice.offered(now, expires_at)]


def choice_for(value: str | None, choices: Sequence[SnoozeChoice] = CHOICES) -> SnoozeChoice | None:
    """The choice an overflow option's value names; None for any other value."""
    return next((choice for choice in choices if choice.value == value), None)
