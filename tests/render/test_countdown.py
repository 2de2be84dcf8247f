"""The countdown changes its words in coarse steps, so an open message costs few updates."""

from __future__ import annotations

from datetime import timedelta

from bot.novo.models import Interaction
from bot.slack.render.common import relative_deadline
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
