"""What an on-call engineer graphs, scraped from `/metrics` while the loop runs.

The registry is the process's, shared by every test: each assertion is on
how much a sample moved during the scenario, never on its absolute value.
"""

from __future__ import annotations

from bot.bridge.runtime import Bridge
from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.ops.conftest import CHANNEL, SIGNING_SECRET, Servers, sample
from tests.support import wait_until

RESOLVE = "POST /v1/interactions/{id}/resolve"
LIST = "GET /v1/interactions"


async def _scrape(servers: Servers, bridge: Bridge) -> str:
    return (await servers.http.get(f"{bridge.metrics_url}/metrics")).text


def _value(text: str, name: str, **labels: str) -> float:
    return sample(text, name, **labels) or 0.0


async def _click_approve(servers: Servers, bridge: Bridge, interaction_id: str) -> None:
    ts = await wait_until(lambda: servers.shown_ts(interaction_id), message="message shown")
    assert bridge.url is not None
    async with SlackDriver(bridge.url, SIGNING_SECRET, servers.slack) as driver:
        await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)


async def test_a_click_counts_slack_and_novo_calls_and_the_decision(servers: Servers) -> None:
    servers.slack.rate_limit_post_message(CHANNEL, count=1, retry_after=1)
    async with servers.bridge() as bridge:
        before = await _scrape(servers, bridge)
        interaction_id = await servers.create()
        await _click_approve(servers, bridge, interaction_id)

        async def delivered() -> str | None:
            text = await _scrape(servers, bridge)
            moved = _value(text, "novo_slack_decisions_total", outcome="delivered", source="click")
            was = _value(before, "novo_slack_decisions_total", outcome="delivered", source="click")
            # the message shows it once its lane has sent the update, just after the count
            update = {"method": "chat.update", "error": "ok"}
            updated = _value(text, "novo_slack_slack_calls_total", **update) > _value(
                before, "novo_slack_slack_calls_total", **update
            )
            return text if moved == was + 1 and updated else None

        after: str = await wait_until(delivered, message="the delivered decision counted")

    def moved(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    calls = "novo_slack_slack_calls_total"
    assert moved(calls, method="chat.postMessage", error="ratelimited") == 1  # then retried
    assert moved(calls, method="chat.postMessage", error="ok") >= 1
    assert moved(calls, method="chat.update", error="ok") >= 1
    assert moved("novo_slack_novo_calls_total", route=LIST, status="200") >= 1
    assert moved("novo_slack_novo_calls_total", route=RESOLVE, status="200") == 1
    # one series per route, never one per interaction
    assert interaction_id not in after
    assert sample(after, "novo_slack_outbox_depth") == 0


async def test_the_outbox_gauges_follow_a_decision_novo_cannot_take(servers: Servers) -> None:
    async with servers.bridge() as bridge:
        interaction_id = await servers.create()
        await wait_until(lambda: servers.shown_ts(interaction_id), message="message shown")
        before = await _scrape(servers, bridge)
        await servers.fault(errorRate=1, status=503, routes="resolve")
        await _click_approve(servers, bridge, interaction_id)

        async def waiting_a_while() -> str | None:
            text = await _scrape(servers, bridge)
            age = sample(text, "novo_slack_outbox_oldest_age_seconds") or 0.0
            return text if sample(text, "novo_slack_outbox_depth") == 1 and age > 0.2 else None

        queued = await wait_until(waiting_a_while, message="one decision waiting in the outbox")
        refused = _value(queued, "novo_slack_novo_calls_total", route=RESOLVE, status="503")
        assert refused > _value(before, "novo_slack_novo_calls_total", route=RESOLVE, status="503")

        await servers.fault()

        async def emptied() -> str | None:
            text = await _scrape(servers, bridge)
            return text if sample(text, "novo_slack_outbox_depth") == 0 else None

        done = await wait_until(emptied, message="the outbox emptied")
        assert sample(done, "novo_slack_outbox_oldest_age_seconds") == 0


async def test_a_decision_that_waits_counts_once_as_queued(servers: Servers) -> None:
    async with servers.bridge() as bridge:
        interaction_id = await servers.create()
        await wait_until(lambda: servers.shown_ts(interaction_id), message="message shown")
        before = await _scrape(servers, bridge)
        await servers.fault(errorRate=1, status=503, routes="resolve")
        await _click_approve(servers, bridge, interaction_id)

        async def retried() -> bool:
            text = await _scrape(servers, bridge)
            was = _value(before, "novo_slack_novo_calls_total", route=RESOLVE, status="503")
            now = _value(text, "novo_slack_novo_calls_total", route=RESOLVE, status="503")
            queued = {"outcome": "queued", "source": "click"}
            kept = _value(text, "novo_slack_decisions_total", **queued) > _value(
                before, "novo_slack_decisions_total", **queued
            )
            # the click's own attempt (with its retries) has given up and queued it
            return kept and now - was >= 4

        await wait_until(retried, message="a few failed deliveries")
        await servers.fault()

        async def delivered() -> str | None:
            text = await _scrape(servers, bridge)
            labels = {"outcome": "delivered", "source": "redelivery"}
            moved = _value(text, "novo_slack_decisions_total", **labels)
            return text if moved > _value(before, "novo_slack_decisions_total", **labels) else None

        after: str = await wait_until(delivered, message="delivered by redelivery")
    queued = {"outcome": "queued", "source": "click"}
    moved = _value(after, "novo_slack_decisions_total", **queued)
    assert moved - _value(before, "novo_slack_decisions_total", **queued) == 1
