"""Approvals under stress: restarts, forged requests, races and Novo outages."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import timedelta

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop, fast_bridge
from tests.support import wait_until


async def test_restart_neither_duplicates_nor_forgets(loop: Loop) -> None:
    before = [await loop.create("approval_request") for _ in range(3)]
    for created in before:
        await loop.posted(created["id"])
    await loop.bridge.stop()
    # while the bridge is down: two new ones arrive, one is decided elsewhere
    during = [await loop.create("approval_request") for _ in range(2)]
    await loop.api_resolve(
        before[0]["id"],
        {"inputResponses": [{"requestId": before[0]["id"], "optionId": "approve"}], "reason": "ok"},
    )
    bridge = fast_bridge(loop.settings)
    await bridge.start()
    loop.bridge = bridge
    for created in during:
        await loop.posted(created["id"])
    tracked = await loop.tracked(before[0]["id"])
    assert tracked is not None and tracked.ts is not None
    await loop.shows(tracked.ts, "outside Slack")
    posted = loop.posted_ids()
    assert sorted(posted) == sorted(c["id"] for c in before + during)


async def test_crash_between_post_and_record_is_reconciled_not_reposted(loop: Loop) -> None:
    created = await loop.create("approval_request")
    await loop.posted(created["id"])
    await loop.bridge.stop()
    # the crash window: the message exists in Slack, the store never learned its ts
    with sqlite3.connect(loop.settings.db_path) as db:
        db.execute(
            "UPDATE messages SET state = 'posting', ts = NULL"
            " WHERE interaction_id = ? AND purpose = 'channel'",
            (created["id"],),
        )
    bridge = fast_bridge(loop.settings)
    await bridge.start()
    loop.bridge = bridge
    ts = await loop.posted(created["id"])
    assert loop.posted_ids() == [created["id"]]
    assert loop.slack.message(CHANNEL, ts) is not None


async def test_bad_signature_and_stale_timestamp_are_refused(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    message = loop.slack.message(CHANNEL, ts)
    payload = {
        "type": "block_actions",
        "user": {"id": "U0ADA", "name": "ada"},
        "team": {"id": "T0LOCAL"},
        "trigger_id": "x",
        "channel": {"id": CHANNEL},
        "container": {"type": "message", "channel_id": CHANNEL, "message_ts": ts},
        "message": {"ts": ts, "blocks": message.blocks},
        "actions": [{"type": "button", "action_id": ActionId.APPROVE, "value": created["id"]}],
    }
    body = loop.driver.encode(payload)
    now = str(int(time.time()))
    forged = await loop.driver.send_raw(body, timestamp=now, signature="v0=" + "0" * 64)
    assert forged.status_code == 401
    stale_ts = str(int(time.time()) - 600)
    stale = await loop.driver.send_raw(
        body, timestamp=stale_ts, signature=loop.driver.sign(body, stale_ts)
    )
    assert stale.status_code == 401
    genuine = await loop.driver.send_raw(body, timestamp=now, signature=loop.driver.sign(body, now))
    assert genuine.status_code == 200  # the same body, correctly signed, is accepted
    await wait_until(
        lambda: loop.resolve_calls(created["id"]), message="the genuine click resolved"
    )
    assert len(await loop.resolve_calls(created["id"])) == 1


async def test_two_people_racing_give_exactly_one_decision(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    await asyncio.gather(
        loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE),
        loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE),
        loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE),
    )

    async def decided() -> dict[str, object] | None:
        record = await loop.api_get(created["id"])
        return record if record["status"] == "resolved" else None

    record = await wait_until(decided, message="one decision recorded")
    text = await loop.shows(ts, "Approved")
    winner = "U0ADA" if "U0ADA" in str(record["reason"]) else "U0GRACE"
    assert f"<@{winner}>" in text
    loser = "U0GRACE" if winner == "U0ADA" else "U0ADA"
    # everyone else is told who decided; nobody's click produced a second outcome
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals(loser) if "already" in e.text],
        message="the slower person told it was already decided",
    )
    successful = [r for r in await loop.resolve_calls(created["id"]) if r["status"] == 200]
    assert len(successful) == 1


async def test_conflicting_decision_elsewhere_is_reported_truthfully(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    await loop.api_resolve(
        created["id"],
        {"inputResponses": [{"requestId": created["id"], "optionId": "deny"}], "reason": "by hand"},
    )
    # click before the bridge has noticed: Novo answers 409 or the bridge already knows
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0ADA") if "denied" in e.text],
        message="clicker told it was already denied",
    )
    await loop.shows(ts, "Denied", "by hand")
    assert (await loop.api_get(created["id"]))["decision"] == "deny"


async def test_decision_during_a_novo_outage_lands_once_when_it_is_back(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    await loop.fault(errorRate=1.0, status=503, routes="resolve")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0ADA") if "Couldn't reach Novo" in e.text],
        message="clicker told the decision is kept",
    )
    await loop.shows(ts, "<@U0ADA>")  # the message shows the decision is on its way
    assert ActionId.APPROVE not in loop.action_ids(ts)
    assert (await loop.api_get(created["id"]))["status"] == "pending"
    await loop.fault()  # Novo is back

    async def delivered() -> dict[str, object] | None:
        record = await loop.api_get(created["id"])
        return record if record["status"] == "resolved" else None

    record = await wait_until(delivered, message="the kept decision delivered")
    await wait_until(
        lambda: "Novo is unreachable" not in loop.message_text(ts), message="queued note gone"
    )
    await loop.shows(ts, "Approved", "<@U0ADA>")
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    successful = [r for r in await loop.resolve_calls(created["id"]) if r["status"] == 200]
    assert len(successful) == 1


async def test_a_clock_stepped_back_an_hour_does_not_hold_a_queued_decision(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    await loop.fault(errorRate=1.0, status=503, routes="resolve")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0ADA") if "Couldn't reach Novo" in e.text],
        message="clicker told the decision is kept",
    )
    # an NTP correction (or a restored VM) sets the bridge's wall clock back one hour:
    # the retry planned a moment ahead now reads as an hour ahead
    loop.clock.forward(timedelta(hours=-1))
    await loop.fault()  # Novo is back

    async def delivered() -> dict[str, object] | None:
        record = await loop.api_get(created["id"])
        return record if record["status"] == "resolved" else None

    record = await wait_until(delivered, message="the kept decision delivered")
    assert record["decision"] == "allow"
    successful = [r for r in await loop.resolve_calls(created["id"]) if r["status"] == 200]
    assert len(successful) == 1


async def test_slack_rate_limit_delays_but_loses_no_message(loop: Loop) -> None:
    loop.slack.rate_limit_post_message(CHANNEL, count=2, retry_after=1)
    created = await loop.create("approval_request")
    await loop.posted(created["id"])
    limited = [c for c in loop.slack.calls("chat.postMessage") if c.status == 429]
    assert len(limited) == 2
    assert loop.posted_ids() == [created["id"]]
