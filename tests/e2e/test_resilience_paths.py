"""The paths that only run on a bad day, each driven through the real bridge:
Slack refusing or losing a post, an update failing, Novo down or forgetting
an interaction while it is being finalised, a 409 followed by a 404, a
deadline moved later, and the countdown's own refresh.
"""

from __future__ import annotations

import time

import httpx

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

DENY_ELSEWHERE = "Denied by the on-call lead"


def _deny(interaction_id: str) -> dict[str, object]:
    return {
        "inputResponses": [{"requestId": interaction_id, "optionId": "deny"}],
        "reason": DENY_ELSEWHERE,
    }


async def test_post_whose_answer_was_lost_is_found_not_posted_again(loop: Loop) -> None:
    loop.slack.lose_answers("chat.postMessage", count=1)
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    await wait_until(
        lambda: loop.slack.calls("conversations.history"), message="the bridge looked first"
    )
    # the bridge adopted that message: a click on it decides and updates it
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved")
    assert loop.posted_ids() == [created["id"]]


async def test_a_busy_channel_does_not_hide_the_earlier_post(loop: Loop) -> None:
    loop.slack.lose_answers("chat.postMessage", count=1)
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    async with httpx.AsyncClient() as http:  # 60 people talk before the bridge looks
        for n in range(60):
            answer = await http.post(
                f"{loop.slack.api_url}chat.postMessage",
                headers={"Authorization": f"Bearer {loop.slack.bot_token}"},
                json={"channel": CHANNEL, "text": f"chatter {n}"},
            )
            assert answer.json()["ok"]
    await wait_until(
        lambda: loop.slack.calls("conversations.history"), message="the bridge looked first"
    )
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved")
    assert loop.posted_ids().count(created["id"]) == 1


async def test_a_refused_post_holds_back_only_its_own_interaction(loop: Loop) -> None:
    loop.slack.fail_method("chat.postMessage", count=1, error="internal_error")
    created = [await loop.create("approval_request") for _ in range(3)]
    for item in created:
        await loop.shown(item["id"])
    assert sorted(loop.posted_ids()) == sorted(c["id"] for c in created)


async def test_failed_updates_are_retried_until_the_message_is_true(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    loop.slack.fail_method("chat.update", count=3, error="internal_error")
    await loop.api_resolve(created["id"], _deny(created["id"]))
    await loop.shows(ts, DENY_ELSEWHERE)
    assert ActionId.APPROVE not in loop.action_ids(ts)


async def test_finalising_waits_out_a_novo_outage(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    await loop.fault(routes="get", errorRate=1.0, status=503)
    await loop.api_resolve(created["id"], _deny(created["id"]))
    path = f"/v1/interactions/{created['id']}"

    async def failed_reads() -> bool:
        return any(r["path"] == path and r["status"] == 503 for r in await loop.control.log())

    await wait_until(failed_reads, message="the bridge tried to re-read it during the outage")
    assert ActionId.APPROVE in loop.action_ids(ts)  # nothing is claimed while unknown
    await loop.fault()
    await loop.shows(ts, DENY_ELSEWHERE)


async def test_an_interaction_novo_forgot_says_so(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    await loop.control.reset()
    await loop.shows(ts, "no longer exists")
    assert ActionId.APPROVE not in loop.action_ids(ts)


async def test_a_conflict_then_not_found_is_told_truthfully(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    # the bridge can no longer read Novo, which still takes resolves
    await loop.fault(routes=["list", "get"], errorRate=1.0, status=404)
    await loop.api_resolve(created["id"], _deny(created["id"]))
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)

    async def conflicted() -> bool:
        return 409 in await _statuses(loop, created["id"])

    await wait_until(conflicted, message="the click met a conflict")
    await loop.shows(ts, "no longer exists")
    told = await wait_until(lambda: loop.slack.ephemerals("U0ADA"), message="the clicker was told")
    assert "decided" in told[-1].text.lower() or "exist" in told[-1].text.lower()


async def _statuses(loop: Loop, interaction_id: str) -> list[int]:
    return [int(r["status"]) for r in await loop.resolve_calls(interaction_id)]


async def test_a_deadline_moved_later_is_shown(loop: Loop) -> None:
    created = await loop.create("approval_request", expiresInSeconds=300)
    ts = await loop.shown(created["id"])
    before = loop.message_text(ts)
    moved = await loop.control.extend(created["id"], 3600)
    new_deadline = int(
        time.mktime(time.strptime(moved["expiresAt"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    )
    shown = await loop.shows(ts, f"<!date^{new_deadline}^")
    assert shown != before


async def test_the_countdown_rewords_an_open_message_when_its_words_change(loop: Loop) -> None:
    # nothing but the scheduled countdown job rewords it: it wakes when the words change
    created = await loop.create("approval_request", expiresInSeconds=62.5)
    ts = await loop.shown(created["id"])
    await loop.shows(ts, "expires in less than 5 min")
    # the words change 2.5 s after creation; a job on the old 30 s round would miss this
    await loop.shows(ts, "expires in less than a minute")


async def test_interactions_that_left_the_list_are_reread_several_at_a_time(loop: Loop) -> None:
    created = [await loop.create("approval_request") for _ in range(16)]
    shown = [await loop.shown(c["id"]) for c in created]
    # each re-read held half a second: re-reads sent together overlap, one by one never do
    await loop.fault(routes="get", latencyMs=500)
    for item in created:
        await loop.api_resolve(item["id"], _deny(item["id"]))
    for ts in shown:
        await loop.shows(ts, DENY_ELSEWHERE)
    ids = {item["id"] for item in created}
    rereads = [
        r
        for r in await loop.control.log()
        if r["method"] == "GET" and r["path"].removeprefix("/v1/interactions/") in ids
    ]
    assert len(rereads) >= len(ids)
    assert max(r["alongside"] for r in rereads) >= 3, "re-read one at a time"
