"""Every signed request acts once: the same bytes, timestamp and signature sent again
within Slack's five minutes (a replay, or a second delivery) are acknowledged and do
nothing, on every replica. Judged by what Slack showed and what Novo was asked."""

from __future__ import annotations

from bot.slack.ids import ActionId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

QUORUM_OF_TWO = """\
rules:
  - name: prod-deploys
    match: {toolName: "deploy_*"}
    deciders: {users: [U0ADA, U0GRACE]}
    quorum: 2
"""


def _told(loop: Loop, user: str) -> list[str]:
    return [e.text for e in loop.slack.ephemerals(user)]


async def test_a_replayed_click_does_not_restore_a_withdrawn_vote(loop: Loop) -> None:
    """Finding: a signed Approve replayed byte for byte after its vote was withdrawn
    counted the vote again."""
    await loop.use_policy(QUORUM_OF_TWO)
    created = await loop.create("approval_request", toolName="deploy_api")
    interaction_id = created["id"]
    ts = await loop.posted(interaction_id)
    response = await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    approve = loop.driver.last_sent
    assert approve is not None
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0ADA> ✓")
    await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.WITHDRAW_APPROVAL
    )
    await wait_until(
        lambda: [t for t in _told(loop, "U0ADA") if "withdrawn" in t.lower()],
        message="Ada told her approval is withdrawn",
    )
    told = len(_told(loop, "U0ADA"))
    replayed = await loop.driver.replay(approve)
    assert replayed.status_code == 200
    # Grace's approval would complete a quorum with a restored vote: it must not
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0GRACE> ✓")
    assert "<@U0ADA> ✓" not in loop.message_text(ts)
    assert await loop.resolve_calls(interaction_id) == []
    assert len(_told(loop, "U0ADA")) == told  # the replay said nothing either
