"""Quorum: distinct deciders' approvals counted durably; one deny decides at once."""

from __future__ import annotations

from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

TWO_OF_THREE = """
rules:
  - name: prod-deploys
    match: {toolName: "deploy_*"}
    deciders: {users: [U0ADA, U0GRACE, U0LIN]}
    quorum: 2
"""


async def _deploy(loop: Loop, **fields: object) -> tuple[str, str]:
    await loop.use_policy(TWO_OF_THREE)
    loop.slack.add_user("U0LIN", "lin", "Lin Chen")
    created = await loop.create("approval_request", toolName="deploy_api", **fields)
    return created["id"], await loop.posted(created["id"])


async def _approve(loop: Loop, user: str, ts: str) -> None:
    response = await loop.driver.click_message_button(user, CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200


async def _told(loop: Loop, user: str, needle: str) -> None:
    await wait_until(
        lambda: any(needle in e.text for e in loop.slack.ephemerals(user)),
        message=f"{user} told {needle!r}",
    )


async def test_two_approvals_across_a_restart_resolve_naming_both(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    assert "Needs 2 approvals" in loop.message_text(ts)
    await _approve(loop, "U0ADA", ts)
    await _told(loop, "U0ADA", "Your approval is counted: 1 of 2")
    await loop.shows(
        ts, "Approvals: 1 of 2 — <@U0ADA> ✓", "Can still approve: <@U0GRACE> or <@U0LIN>"
    )
    assert await loop.resolve_calls(interaction_id) == []

    await loop.restart()
    await _approve(loop, "U0GRACE", ts)
    record = await loop.api_get_final(interaction_id)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace), U0GRACE (Grace Hopper)"
    assert len(await loop.resolve_calls(interaction_id)) == 1
    await loop.shows(ts, "Approved", "(voting closed)")
    assert ActionId.APPROVE not in loop.action_ids(ts)


async def test_a_second_approval_by_the_same_person_is_not_counted(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await _told(loop, "U0ADA", "counted: 1 of 2")
    await _approve(loop, "U0ADA", ts)
    await _told(loop, "U0ADA", "You already approved this one (1 of 2 approvals).")
    assert await loop.resolve_calls(interaction_id) == []


async def test_one_deny_ends_a_quorum_at_once(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2")
    await loop.driver.click_message_button("U0LIN", CHANNEL, ts, ActionId.DENY)
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.DENY_MODAL), None
        ),
        message="deny modal opened",
    )
    reason = {ActionId.REASON_INPUT.value: {"type": "plain_text_input", "value": "not today"}}
    await loop.driver.submit_view("U0LIN", view.id, {REASON_BLOCK_ID: reason})
    record = await loop.api_get_final(interaction_id)
    assert record["decision"] == "deny"
    assert record["reason"] == "Denied in Slack by U0LIN (Lin Chen): not today"
    await loop.shows(ts, "Denied", "<@U0LIN>", "(voting closed)")


async def test_a_withdrawn_approval_no_longer_counts(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2")
    await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.WITHDRAW_APPROVAL
    )
    await _told(loop, "U0ADA", "Your approval is withdrawn.")
    await loop.shows(ts, "Needs 2 approvals")
    await _approve(loop, "U0GRACE", ts)
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0GRACE> ✓")
    assert await loop.resolve_calls(interaction_id) == []


async def test_votes_close_when_the_interaction_expires(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2")
    await loop.control.expire(interaction_id)
    await loop.shows(ts, "Expired", "(voting closed)")
    assert ActionId.APPROVE not in loop.action_ids(ts)
    assert await loop.resolve_calls(interaction_id) == []
