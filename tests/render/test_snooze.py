"""The "Remind me" choices: which a message offers, what they are told, the DM they get."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.slack.ids import ActionId, OverflowValue
from bot.slack.render.approval import render_approval_message
from bot.slack.render.common import relative_deadline
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.question import render_question_message
from bot.slack.render.snooze import (
    NOT_WAITING_TEXT,
    SnoozeFacts,
    render_snooze_reminder,
    snooze_refused_text,
    snooze_set_text,
    time_left,
)
from bot.slack.render.snooze_choices import (
    BEFORE_IT_EXPIRES,
    CHOICES,
    IN_1_HOUR,
    IN_15_MIN,
    choice_for,
    offered_choices,
)
from novo_dev.localslack.validation import assert_valid_message
from tests.render_question.conftest import make_interaction, question

from .conftest import NOW, MakeApproval, MakeDecision, state_cases
from .helpers import all_text, assert_inert, buttons

LINK = "https://novo.slack.com/archives/C0APPROVALS/p1741944600000100"
M15, H1, BEFORE = (
    OverflowValue.REMIND_15_MIN,
    OverflowValue.REMIND_1_HOUR,
    OverflowValue.REMIND_BEFORE_EXPIRY,
)


def _assert_valid_dm(message: RenderedMessage) -> None:
    """The gateway sends empty metadata as none; everything else as any message."""
    assert message["metadata"] == {}
    assert_valid_message({"text": message["text"], "blocks": message["blocks"]})


def _offered(left: timedelta | None) -> list[OverflowValue]:
    expires = NOW + left if left is not None else None
    return [c.value for c in offered_choices(NOW, expires)]


@pytest.mark.parametrize(
    ("left", "offered"),
    [
        (None, [M15, H1]),  # no deadline: nothing to count back from
        (timedelta(hours=3), [M15, H1, BEFORE]),
        (timedelta(hours=2), [M15, H1, BEFORE]),
        (timedelta(hours=2) - timedelta(seconds=1), [M15, BEFORE]),
        (timedelta(minutes=30), [M15, BEFORE]),
        (timedelta(minutes=30) - timedelta(seconds=1), [BEFORE]),
        (timedelta(minutes=5), [BEFORE]),
        (timedelta(minutes=5) - timedelta(seconds=1), []),
    ],
)
def test_which_choices_show_by_time_left(
    left: timedelta | None, offered: list[OverflowValue]
) -> None:
    assert _offered(left) == offered


def test_the_menu_changes_only_when_the_countdown_words_do() -> None:
    """So a menu change never costs a `chat.update` of its own."""
    expires = NOW + timedelta(hours=3)
    step = timedelta(seconds=10)
    moment = NOW
    while moment < expires:
        later = moment + step
        if offered_choices(moment, expires) != offered_choices(later, expires):
            assert relative_deadline(expires, moment) != relative_deadline(expires, later), later
        moment = later


def test_a_click_is_judged_when_it_arrives() -> None:
    expires = NOW + timedelta(minutes=14)
    assert not IN_15_MIN.accepts(NOW, expires)  # it would fall after the expiry
    assert not IN_15_MIN.accepts(NOW, NOW + timedelta(minutes=15))  # at it, too
    assert IN_15_MIN.accepts(NOW, NOW + timedelta(minutes=15, seconds=1))
    assert IN_1_HOUR.accepts(NOW, None)
    assert not BEFORE_IT_EXPIRES.accepts(NOW, None)
    assert BEFORE_IT_EXPIRES.accepts(NOW, NOW + timedelta(minutes=5))  # due now: sent at once
    assert not BEFORE_IT_EXPIRES.accepts(NOW, NOW + timedelta(minutes=4, seconds=59))
    assert BEFORE_IT_EXPIRES.due_at(NOW, expires) == expires - timedelta(minutes=5)
    assert IN_1_HOUR.due_at(NOW, expires) == NOW + timedelta(hours=1)
    assert choice_for("remind_1h") is IN_1_HOUR and choice_for("approve_note") is None
    assert [c.value for c in CHOICES] == [M15, H1, BEFORE]


def _remind_values(message: dict[str, object]) -> list[str]:
    return [
        str(option["value"])
        for element in buttons(message)
        if element["type"] == "overflow"
        for option in element["options"]
        if str(option["value"]).startswith("remind_")
    ]


def test_a_pending_approval_offers_them_in_its_overflow(make_approval: MakeApproval) -> None:
    message = render_approval_message(
        make_approval(expires_at=NOW + timedelta(hours=3)), MessageContext(now=NOW)
    )
    (overflow,) = [e for e in buttons(message) if e["type"] == "overflow"]
    assert overflow["action_id"] == ActionId.APPROVAL_OVERFLOW and "confirm" not in overflow
    assert [o["value"] for o in overflow["options"]] == ["approve_note", M15, H1, BEFORE]
    assert [o["text"]["text"] for o in overflow["options"][1:]] == [
        "Remind me in 15 min",
        "Remind me in 1 hour",
        "Remind me 5 min before it expires",
    ]
    assert_valid_message(message)


@pytest.mark.parametrize(
    "state",
    [
        "approved_in_slack",
        "denied_in_slack",
        "approved_elsewhere",
        "expired",
        "cancelled",
        "queued",
        "gone",
    ],
)
def test_only_pending_approvals_offer_them(state: str) -> None:
    interaction, ctx = state_cases()[state]
    assert _remind_values(dict(render_approval_message(interaction, ctx))) == []


def test_a_decided_approval_offers_none(
    make_approval: MakeApproval, make_decision: MakeDecision
) -> None:
    ctx = MessageContext(now=NOW, decided_in_slack=make_decision())
    message = render_approval_message(make_approval(expires_at=NOW + timedelta(hours=3)), ctx)
    assert _remind_values(dict(message)) == []


def test_a_question_offers_them_apart_from_dismiss() -> None:
    request = {"title": "Which region?", "questions": [question(options=[{"id": "a"}])]}
    pending = make_interaction(request, expiresAt=(NOW + timedelta(hours=3)).isoformat())
    message = render_question_message(pending, MessageContext(now=NOW))
    (remind,) = [e for e in buttons(message) if e["type"] == "overflow"]  # the one ⋮ menu
    (dismiss,) = [e for e in buttons(message) if e["action_id"] == ActionId.QUESTION_DISMISS]
    assert remind["action_id"] == ActionId.QUESTION_REMIND
    assert [o["value"] for o in remind["options"]] == [M15, H1, BEFORE]
    assert "confirm" not in remind and "confirm" in dismiss  # the confirmation is Dismiss's own
    assert_valid_message(message)
    late = make_interaction(request, expiresAt=(NOW + timedelta(minutes=4)).isoformat())
    late_message = render_question_message(late, MessageContext(now=NOW))
    assert ActionId.QUESTION_REMIND not in [e["action_id"] for e in buttons(late_message)]
    answered = make_interaction(request, status="resolved")
    assert _remind_values(dict(render_question_message(answered, MessageContext(now=NOW)))) == []


def test_what_the_person_is_told() -> None:
    due = NOW + timedelta(minutes=15)
    text = snooze_set_text(IN_15_MIN, due, None)
    assert text == (
        f"⏰ I'll remind you at <!date^{int(due.timestamp())}^{{time}}|2025-03-14 09:45 UTC>"
        " (in 15 min) if it is still waiting then."
    )
    earlier = NOW + timedelta(hours=1)
    replaced = snooze_set_text(BEFORE_IT_EXPIRES, due, earlier)
    assert "(5 min before it expires)" in replaced
    assert replaced.endswith(
        f"This replaces your reminder at <!date^{int(earlier.timestamp())}^{{time}}"
        "|2025-03-14 10:30 UTC>."
    )
    expires = NOW + timedelta(minutes=10)
    after = snooze_refused_text(IN_15_MIN, NOW, expires)
    assert after == (
        f"⌛ No reminder set: it expires at <!date^{int(expires.timestamp())}^{{time}}"
        "|2025-03-14 09:40 UTC>, before a reminder in 15 min would come."
    )
    soon = snooze_refused_text(BEFORE_IT_EXPIRES, NOW, NOW + timedelta(minutes=3))
    assert soon.endswith(", less than 5 min from now.")
    assert "no deadline" in snooze_refused_text(BEFORE_IT_EXPIRES, NOW, None)
    assert NOT_WAITING_TEXT.startswith("⌛ No reminder set")


def test_the_dm_says_what_waits_how_long_is_left_and_links_to_it(
    make_approval: MakeApproval,
) -> None:
    approval = make_approval(
        expires_at=NOW + timedelta(minutes=5),
        preview={"title": "Deploy <!channel> *now*", "Service": "billing"},
    )
    ctx = MessageContext(now=NOW, agent_names={"agt_deployer": "Release Bot"}, asked_in="C0APP")
    message = render_snooze_reminder(approval, ctx, SnoozeFacts(LINK))
    _assert_valid_dm(message)
    text = all_text(message)
    assert "⏰ Deploy <!channel> now" in text  # the header is plain text: shown, never acted on
    assert "*Still waiting for a decision* — you asked to be reminded." in text
    assert "*From:* *Release Bot*" in text
    assert "*Time left:* 5 min (expires <!date^" in text
    assert "*Asked:* <#C0APP>" in text
    assert f"<{LINK}|Open the request>" in text
    assert message["text"].startswith("⏰ Reminder: Deploy &lt;!channel&gt; now is still waiting")
    mrkdwn = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    for section in mrkdwn:
        assert_inert(section.replace("<#C0APP>", ""), allow_links=True)


def test_a_dm_without_a_link_or_deadline_still_says_what_it_is() -> None:
    request = {"title": "Which region?", "questions": [question()]}
    asked = make_interaction(request, expiresAt=None)
    message = render_snooze_reminder(asked, MessageContext(now=NOW), SnoozeFacts(None))
    _assert_valid_dm(message)
    text = all_text(message)
    assert "Which region?" in text and "*Still waiting for an answer*" in text
    assert "*Time left:* no deadline" in text and "Open the request" not in text
    assert message["text"].endswith("(no deadline)")


def test_time_left_is_said_to_the_nearest_minute() -> None:
    assert time_left(NOW + timedelta(minutes=5), NOW + timedelta(seconds=1)) == "5 min"
    assert time_left(NOW + timedelta(hours=2, minutes=45, seconds=20), NOW) == "2 h 45 min"
    assert time_left(NOW + timedelta(seconds=40), NOW) == "40 s"
    assert time_left(NOW, NOW + timedelta(seconds=3)) == "0 s"
