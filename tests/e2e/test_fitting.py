"""A message Slack refuses as too long is sent in its compact form, never retried as it was."""

from __future__ import annotations

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until


async def test_a_post_refused_as_too_long_goes_out_compact_once(loop: Loop) -> None:
    loop.slack.fail_method("chat.postMessage", count=1, error="msg_blocks_too_long")
    created = await loop.create(
        "approval_request", input={"rows": list(range(500))}, preview={"Rows": 500}
    )
    ts = await loop.shown(created["id"])
    shown = await loop.shows(ts, "too long to show here in full")
    assert ActionId.VIEW_INPUT in loop.action_ids(ts)
    assert ActionId.APPROVE in loop.action_ids(ts)  # still decidable from the message
    assert "Rows" not in shown  # the preview is what was left out
    refused = [c for c in loop.slack.calls("chat.postMessage") if not c.ok]
    assert len(refused) == 1 and loop.posted_ids() == [created["id"]]


async def test_an_update_refused_as_too_long_goes_out_compact(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    loop.slack.fail_method("chat.update", count=1, error="invalid_blocks")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved", "too long to show here in full")
    updates = loop.slack.calls("chat.update")
    assert [c.ok for c in updates] == [False, True]  # one refusal, one compact update


async def test_a_form_slack_refuses_becomes_a_notice_not_an_error(loop: Loop) -> None:
    request = {"title": "Pick", "questions": [{"id": "q", "prompt": "Which?", "options": []}]}
    created = await loop.create("question", request=request)
    ts = await loop.shown(created["id"])
    loop.slack.fail_method("views.open", count=1, error="invalid_arguments")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.ANSWER)
    opened = await wait_until(lambda: loop.slack.views(), message="a view opened")
    assert "too large for Slack" in str(opened[-1].blocks)
