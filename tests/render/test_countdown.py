"""The countdown changes its words in coarse steps, so an open message costs few updates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.novo.models import Interaction
from bot.slack.render.common import next_deadline_change, relative_deadline
from bot.slack.render.context import MessageContext
from bot.slack.render.message import fingerprint, render_message
from tests.render.conftest import NOW, MakeApproval

REFRESH_EVERY = timedelta(seconds=30)  # the countdown job's interval


def _updates_while_open(approval: Interaction, open_for: timedelta) -> int:
    """How many `chat.update`s the countdown job would send while it waits."""
    shown = fingerprint(render_message(approval, MessageContext(now=NOW)))
    updates = 0
    moment = NOW
    while moment < NOW + open_for:
        moment += REFRESH_EVERY
        now_shown = fingerprint(render_message(approval, MessageContext(now=moment)))
        if now_shown != shown:
            updates += 1
            shown = now_shown
    return updates


def test_an_approval_open_an_hour_until_it_expires_costs_at_most_eight_calls(
    make_approval: MakeApproval,
) -> None:
    approval = make_approval(expires_at=NOW + timedelta(hours=1), created_at=NOW)
    cosmetic = _updates_while_open(approval, timedelta(minutes=59, seconds=59))
    post, expiry_update = 1, 1
    assert post + cosmetic + expiry_update <= 8, f"{cosmetic} countdown updates"


def test_the_words_change_only_at_the_marks() -> None:
    later = NOW + timedelta(hours=3)
    words = {relative_deadline(later, NOW + timedelta(seconds=s)) for s in range(10, 10_800, 10)}
    assert words == {
        "expires in less than 3 h",
        "expires in less than 2 h",
        "expires in less than an hour",
        "expires in less than 30 min",
        "expires in less than 15 min",
        "expires in less than 5 min",
        "expires in less than a minute",
    }
    assert relative_deadline(NOW + timedelta(days=3, hours=5), NOW) == "expires in 3 days"
    assert relative_deadline(NOW, NOW) == "expired"


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-600, max_value=400_000, allow_nan=False))
def test_the_next_change_is_when_the_words_first_differ(seconds_left: float) -> None:
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    now = expires - timedelta(seconds=seconds_left)
    change = next_deadline_change(expires, now)
    words = relative_deadline(expires, now)
    if change is None:
        assert words == "expired"
        return
    assert change > now
    assert relative_deadline(expires, change) != words
    # no earlier change: just before it (or now, if that is sooner) the words still hold
    before = max(now, change - timedelta(milliseconds=2))
    assert relative_deadline(expires, before) == words


def test_marks_fall_where_the_words_say() -> None:
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    in_ten_min = expires - timedelta(minutes=10)
    assert _left_at_change(expires, in_ten_min) == timedelta(minutes=5)
    three_days = expires - timedelta(days=3, hours=5)
    assert _left_at_change(expires, three_days) == timedelta(days=3)


def _left_at_change(expires: datetime, now: datetime) -> timedelta:
    """How much time is left when the words next change, to the second."""
    change = next_deadline_change(expires, now)
    assert change is not None
    return timedelta(seconds=round((expires - change).total_seconds()))
