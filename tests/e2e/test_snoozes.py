"""The "Remind me" choices end to end: chosen in an overflow, a word back, a DM when due.

The bridge's clock is moved forward (`Loop.clock`) instead of waiting 15
minutes; Novo's is not, so its deadlines stay real and far away.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from bot.slack.ids import ActionId, OverflowValue
from bot.slack.render.approval import approval_title
from novo_dev.localslack.records import StoredMessage
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

ADA = "U0ADA"
GRACE = "U0GRACE"
QUARTER = timedelta(minutes=15)


async def _approval(loop: Loop, seconds: float) -> tuple[str, str]:
    created: dict[str, Any] = await loop.create("approval_request", expiresInSeconds=seconds)
    return created["id"], await loop.shown(created["id"])


async def _choose(loop: Loop, ts: str, value: OverflowValue, user: str = ADA) -> str:
    """Pick a "Remind me" choice in an approval's overflow; what the person was told."""
    before = len(loop.slack.ephemerals(user))
    response = await loop.driver.choose_overflow(
        user, CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, value
    )
    assert response.status_code == 200
    told: str = await wait_until(
        lambda: next((e.text for e in loop.slack.ephemerals(user)[before:]), None),
        message=f"{user} told about their reminder",
    )
    return told


def _overflow_values(loop: Loop, ts: str, action_id: str) -> list[str]:
    message = loop.slack.message(CHANNEL, ts)
    assert message is not None
    return [
        str(option["value"])
        for block in message.blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
        if element.get("action_id") == action_id
        for option in element.get("options", [])
    ]


async def _dm(loop: Loop, user: str = ADA) -> StoredMessage:
    found: StoredMessage = await wait_until(
        lambda: next(iter(loop.slack.messages(user)), None), message=f"a DM to {user}"
    )
    return found


async def _snoozes_counted(loop: Loop, result: str, at_least: float) -> None:
    """Wait until the bridge has counted `at_least` snoozes `sent` or `dropped` (/metrics)."""

    async def probe() -> bool:
        return await loop.metric("novo_slack_snoozes_total", result=result) >= at_least

    await wait_until(probe, message=f"{at_least:.0f} snooze(s) {result}")


async def test_a_snooze_is_delivered_as_a_dm_with_a_link(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop, 3 * 3600)
    assert _overflow_values(loop, ts, ActionId.APPROVAL_OVERFLOW) == [
        OverflowValue.APPROVE_WITH_NOTE,
        OverflowValue.REMIND_15_MIN,
        OverflowValue.REMIND_1_HOUR,
        OverflowValue.REMIND_BEFORE_EXPIRY,
    ]
    told = await _choose(loop, ts, OverflowValue.REMIND_15_MIN)
    assert told.startswith("⏰ I'll remind you at <!date^") and "(in 15 min)" in told
    assert loop.slack.messages(ADA) == []
    loop.clock.forward(QUARTER)
    dm = await _dm(loop)
    text = loop.message_text_in(ADA, dm.ts)
    tracked = await loop.tracked(interaction_id)
    assert tracked is not None
    assert approval_title(tracked.snapshot) in text
    assert "Still waiting for a decision" in text
    assert re.search(r"\*Time left:\* 2 h 45 min \(expires <!date\^", text)
    assert f"/archives/{CHANNEL}/p{ts.replace('.', '')}|Open the request>" in text
    assert f"*Asked:* <#{CHANNEL}>" in text
    assert len(loop.slack.messages(ADA)) == 1


async def test_five_minutes_before_it_expires(loop: Loop) -> None:
    _, ts = await _approval(loop, 20 * 60)
    assert _overflow_values(loop, ts, ActionId.APPROVAL_OVERFLOW) == [
        OverflowValue.APPROVE_WITH_NOTE,
        OverflowValue.REMIND_BEFORE_EXPIRY,  # 20 min left: "in 15 min" would come too late
    ]
    told = await _choose(loop, ts, OverflowValue.REMIND_BEFORE_EXPIRY)
    assert "(5 min before it expires)" in told
    loop.clock.forward(QUARTER)
    dm = await _dm(loop)
    assert "*Time left:* 5 min (expires" in loop.message_text_in(ADA, dm.ts)


async def test_a_snooze_is_dropped_when_the_interaction_is_decided_first(loop: Loop) -> None:
    _, ts = await _approval(loop, 3 * 3600)
    dropped_before = await loop.metric("novo_slack_snoozes_total", result="dropped")
    await _choose(loop, ts, OverflowValue.REMIND_15_MIN)
    await _choose(loop, ts, OverflowValue.REMIND_1_HOUR, user=GRACE)
    await loop.driver.click_message_button(GRACE, CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved")
    assert _overflow_values(loop, ts, ActionId.APPROVAL_OVERFLOW) == []  # no menu once ended
    loop.clock.forward(QUARTER)
    await _snoozes_counted(loop, "dropped", dropped_before + 2)  # the later one too, at once
    assert loop.slack.messages(ADA) == [] and loop.slack.messages(GRACE) == []


async def test_a_snooze_that_would_fall_after_the_expiry_is_refused(loop: Loop) -> None:
    _, ts = await _approval(loop, 31 * 60)
    assert OverflowValue.REMIND_15_MIN in _overflow_values(loop, ts, ActionId.APPROVAL_OVERFLOW)
    # 14 minutes left by the bridge's clock, but the menu shown is older: Slack
    # refuses its updates, so it still offers "in 15 min"
    loop.slack.fail_method("chat.update", count=1_000)
    loop.clock.forward(timedelta(minutes=17))
    told = await _choose(loop, ts, OverflowValue.REMIND_15_MIN)
    assert told.startswith("⌛ No reminder set: it expires at <!date^")
    assert told.endswith("before a reminder in 15 min would come.")


async def test_a_snooze_survives_a_restart(loop: Loop) -> None:
    _, ts = await _approval(loop, 3 * 3600)
    await _choose(loop, ts, OverflowValue.REMIND_15_MIN)
    told = await _choose(loop, ts, OverflowValue.REMIND_1_HOUR)
    assert "This replaces your reminder at" in told
    await loop.restart()
    loop.clock.forward(timedelta(hours=1))
    dm = await _dm(loop)
    assert "Still waiting for a decision" in loop.message_text_in(ADA, dm.ts)
    await _snoozes_counted(loop, "sent", 1)
    assert len(loop.slack.messages(ADA)) == 1  # the replaced one never went


async def test_a_question_offers_them_while_it_waits(loop: Loop) -> None:
    options = [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]
    question = {"id": "q1", "prompt": "Ship?", "options": options}
    request = {"title": "Ship the release?", "questions": [question]}
    created = await loop.create("question", request=request, expiresInSeconds=3600)
    ts = await loop.shown(created["id"])
    assert _overflow_values(loop, ts, ActionId.QUESTION_REMIND) == [
        OverflowValue.REMIND_15_MIN,
        OverflowValue.REMIND_BEFORE_EXPIRY,
    ]
    await loop.driver.choose_overflow(
        ADA, CHANNEL, ts, ActionId.QUESTION_REMIND, OverflowValue.REMIND_15_MIN
    )
    await wait_until(
        lambda: any("I'll remind you" in e.text for e in loop.slack.ephemerals(ADA)),
        message="Ada told her reminder is set",
    )
    loop.clock.forward(QUARTER)
    dm = await _dm(loop)
    text = loop.message_text_in(ADA, dm.ts)
    assert "Ship the release?" in text and "Still waiting for an answer" in text
    await loop.driver.click_message_button(GRACE, CHANNEL, ts, ActionId.QUESTION_DISMISS)
    await loop.shows(ts, "Dismissed")
    assert _overflow_values(loop, ts, ActionId.QUESTION_REMIND) == []
