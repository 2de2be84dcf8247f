"""A burst of approvals reaches Slack within the pace Slack allows, and decisions jump the queue."""

from __future__ import annotations

import asyncio
import time

from bot.bridge.runtime import Bridge
from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

RATE = 10  # posts per second per channel, for Slack and for the bridge alike
BURST = 30


async def _paced(loop: Loop) -> Bridge:
    """The bridge restarted at Slack's own pace, Slack enforcing it as a token bucket."""
    loop.slack.set_post_message_rate(RATE, retry_after=1, burst=5)
    return await loop.restart(post_rate=float(RATE))


async def test_a_burst_is_posted_once_each_at_the_allowed_pace_with_no_429(loop: Loop) -> None:
    await _paced(loop)
    # all at once: created one by one under load, they reached Novo slower than the
    # allowed pace, and the pace measured was theirs, not the bridge's
    created = await asyncio.gather(*(loop.create("approval_request") for _ in range(BURST)))
    await wait_until(lambda: len(set(loop.posted_ids())) == BURST, message="the burst posted")
    posts = list(loop.slack.calls("chat.postMessage"))
    assert [c.status for c in posts if c.status == 429] == []
    assert sorted(loop.posted_ids()) == sorted(c["id"] for c in created)
    # Slack's bucket refused nothing, so the bridge never went faster than allowed; how
    # close to the allowed pace it keeps is `bench.burst`'s figure (a busy machine is slower)


async def test_a_burst_reuses_its_connections_to_slack(loop: Loop) -> None:
    """Each Web API call on a connection of its own would cost real Slack a TLS handshake
    per post; a burst goes over a few kept open."""
    await _paced(loop)
    for _ in range(BURST):
        await loop.create("approval_request")
    await wait_until(lambda: len(set(loop.posted_ids())) == BURST, message="the burst posted")
    posts = loop.slack.calls("chat.postMessage")
    connections = {c.connection for c in posts}
    assert "" not in connections
    assert len(connections) <= 5, f"{len(posts)} posts over {len(connections)} connections"


async def test_a_decision_goes_before_the_posts_still_waiting(loop: Loop) -> None:
    await _paced(loop)
    first = await loop.create("approval_request")
    ts = await loop.shown(first["id"])
    for _ in range(BURST):
        await loop.create("approval_request")
    await wait_until(lambda: len(loop.posted_ids()) >= 3, message="the burst started posting")
    clicked_at = time.time()
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved")
    await wait_until(lambda: len(set(loop.posted_ids())) == BURST + 1, message="all posted")
    update = next(c for c in loop.slack.calls("chat.update") if c.args.get("ts") == ts)
    later_posts = [c for c in loop.slack.calls("chat.postMessage") if c.at > update.at]
    assert update.at > clicked_at
    assert len(later_posts) >= 5, "the decision's update waited behind the queued posts"


async def test_an_approval_decided_in_slack_costs_one_post_and_one_update(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "Approved")
    assert loop.bridge.jobs is not None
    for _ in range(3):  # later polls see it resolved and find nothing new to show
        await loop.bridge.jobs.poll()
    await loop.bridge.services.publisher.lanes.idle() if loop.bridge.services else None
    calls = [
        c.method
        for c in loop.slack.calls()
        if c.method.startswith("chat.") and (c.args.get("ts") == ts or c.response.get("ts") == ts)
    ]
    assert calls == ["chat.postMessage", "chat.update"]
