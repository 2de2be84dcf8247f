"""A dependency's outage is said once when it starts and once when it ends.

Everything between (each failed poll, each retry of a call, each redelivery of a
decision that waits) is a DEBUG line; the metrics say the rest. Judged by what
the log holds at WARNING, and by the outage metrics on the operator port.
"""

from __future__ import annotations

import logging

import pytest

from bot.bridge.runtime import Bridge
from bot.logs import SkippedRunsToDebug
from bot.slack.gateway import RATE_LIMIT_RETRIES
from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.ops.conftest import CHANNEL, SIGNING_SECRET, Servers, sample
from tests.postgres import Relay, fresh_database
from tests.support import wait_until

FAILED_POLLS = 6
"""Enough failed polls for the backoff to reach several seconds: a 30 s outage's worth
of retries at the test's poll interval (0.1 s) without waiting 30 s."""


async def _scrape(servers: Servers, bridge: Bridge) -> str:
    return (await servers.http.get(f"{bridge.metrics_url}/metrics")).text


def _moved(after: str, before: str, name: str, **labels: str) -> float:
    return (sample(after, name, **labels) or 0.0) - (sample(before, name, **labels) or 0.0)


async def test_a_novo_outage_is_two_warning_lines_and_a_metric(
    servers: Servers, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot")
    async with servers.bridge() as bridge:
        interaction_id = await servers.create()
        ts = await wait_until(lambda: servers.shown_ts(interaction_id), message="message shown")
        before = await _scrape(servers, bridge)
        caplog.clear()

        await servers.fault(errorRate=1, status=503)  # every route: polls and the click
        assert bridge.url is not None
        async with SlackDriver(bridge.url, SIGNING_SECRET, servers.slack) as driver:
            await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)

        async def long_down() -> str | None:
            text = await _scrape(servers, bridge)
            failed = _moved(text, before, "novo_slack_polls_total", result="failed")
            return text if failed >= FAILED_POLLS else None

        during: str = await wait_until(long_down, timeout=60, message="polls failing a while")
        assert sample(during, "novo_slack_dependency_up", dependency="novo") == 0
        assert sample(during, "novo_slack_outbox_depth") == 1  # the click waits

        await servers.fault()

        async def back() -> str | None:
            text = await _scrape(servers, bridge)
            up = sample(text, "novo_slack_dependency_up", dependency="novo") == 1
            return text if up and sample(text, "novo_slack_outbox_depth") == 0 else None

        after: str = await wait_until(back, timeout=60, message="Novo back, the decision in")

    assert _moved(after, before, "novo_slack_outages_total", dependency="novo") == 1
    lines = [r for r in caplog.records if r.name.startswith("bot")]
    warnings = [r.getMessage() for r in lines if r.levelno >= logging.WARNING]
    outage = [m for m in warnings if "Novo at" in m]
    assert len(outage) == 2, warnings
    assert "does not answer" in outage[0] and "retrying" in outage[0]
    assert "answers again (down " in outage[1]
    # the one decision that had to wait is said once, however often it was retried
    waited = [
        m for m in warnings if m.startswith(f"could not deliver decision on {interaction_id}")
    ]
    assert len(waited) == 1, warnings
    assert set(warnings) == {*outage, *waited}, warnings
    quiet = [r for r in lines if r.levelno == logging.DEBUG and "poll failed" in r.getMessage()]
    assert len(quiet) >= FAILED_POLLS - 1  # the tries are there, at DEBUG


FAILED_TICKS = 10
"""Enough timed-job ticks failing on the database for an outage, not one slow query."""

FAILED_CALLS = 15
"""Enough failed calls for each waiting post to have been tried, then looked for in the
channel's history again and again (its back-off doubling from 2 s): a long outage's
worth of retries, not one blip."""


@pytest.mark.parametrize("http_status", [503, None], ids=["5xx", "no-answer"])
async def test_a_slack_outage_is_two_warning_lines_and_a_metric(
    servers: Servers, caplog: pytest.LogCaptureFixture, http_status: int | None
) -> None:
    """Slack down while the bridge runs: posts, an update, retried, failing all along."""
    caplog.set_level(logging.DEBUG, logger="bot")
    async with servers.bridge() as bridge:
        shown = await servers.create()
        await wait_until(lambda: servers.shown_ts(shown), message="message shown")
        before = await _scrape(servers, bridge)
        caplog.clear()
        servers.slack.clear_calls()

        servers.slack.go_down(http_status)  # 503s, or every connection cut unanswered
        waiting = [await servers.create() for _ in range(3)]  # posts that fail
        await servers.control.extend(shown, 600)  # and an update that fails

        def long_down() -> bool:
            return len(servers.slack.calls()) >= FAILED_CALLS

        await wait_until(long_down, timeout=60, message="Slack calls failing a while")
        during = await _scrape(servers, bridge)
        assert sample(during, "novo_slack_dependency_up", dependency="slack") == 0
        assert not [i for i in waiting if servers.shown_ts(i)]

        servers.slack.come_back()
        for interaction_id in waiting:
            await wait_until(
                lambda i=interaction_id: servers.shown_ts(i), timeout=60, message="posted"
            )
        after = await _scrape(servers, bridge)

    assert sample(after, "novo_slack_dependency_up", dependency="slack") == 1
    assert _moved(after, before, "novo_slack_outages_total", dependency="slack") == 1
    lines = [r for r in caplog.records if r.name.startswith("bot")]
    warnings = [r.getMessage() for r in lines if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("Slack at ") and "does not answer" in warnings[0]
    assert warnings[1].startswith("Slack at ") and "answers again (down " in warnings[1]
    # the tries are there, at DEBUG: every failed call (slack_sdk's own retries of one
    # call count as one), and each caller's line about what failed
    quiet = [r for r in lines if r.levelno == logging.DEBUG and "Slack at" in r.getMessage()]
    assert len(quiet) >= 3
    assert [r for r in lines if r.levelno == logging.DEBUG and "handling int_" in r.getMessage()]


async def test_a_database_outage_is_two_warning_lines_and_a_metric(
    servers: Servers, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL out of reach while the bridge runs: every connection dropped, new ones
    refused, each timed job failing on it every tick, then the server back."""
    caplog.set_level(logging.DEBUG)
    async with (
        fresh_database() as url,
        Relay(url) as relay,
        servers.bridge(NOVO_SLACK_DB=relay.url) as bridge,
    ):
        shown = await servers.create()
        await wait_until(lambda: servers.shown_ts(shown), message="message shown")
        before = await _scrape(servers, bridge)
        caplog.clear()

        await relay.cut()
        waiting = await servers.create()  # a poll would post it: it can't claim it

        def long_down() -> bool:
            said = [r for r in caplog.records if "the database at" in r.getMessage()]
            return len(said) >= FAILED_TICKS

        await wait_until(long_down, timeout=60, message="timed jobs failing a while")
        during = await _scrape(servers, bridge)
        assert sample(during, "novo_slack_dependency_up", dependency="database") == 0
        assert servers.shown_ts(waiting) is None

        await relay.mend()
        await wait_until(lambda: servers.shown_ts(waiting), timeout=60, message="posted")
        after = await _scrape(servers, bridge)

    assert sample(after, "novo_slack_dependency_up", dependency="database") == 1
    assert _moved(after, before, "novo_slack_outages_total", dependency="database") == 1
    for record in caplog.records:  # as `novo-slack run` logs them (bot.logs)
        SkippedRunsToDebug().filter(record)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("the database at ") and "does not answer" in warnings[0]
    assert warnings[1].startswith("the database at ") and "answers again (down " in warnings[1]


async def test_slack_pacing_the_bridge_is_no_outage(
    servers: Servers, caplog: pytest.LogCaptureFixture
) -> None:
    """429s are Slack up and saying when to come back: even one the client gave up
    waiting out is no outage, and nothing is said of Slack being down."""
    caplog.set_level(logging.DEBUG, logger="bot")
    async with servers.bridge() as bridge:
        before = await _scrape(servers, bridge)
        servers.slack.rate_limit_post_message(CHANNEL, count=RATE_LIMIT_RETRIES + 2)
        interaction_id = await servers.create()
        await wait_until(
            lambda: servers.shown_ts(interaction_id), timeout=60, message="posted at last"
        )
        after = await _scrape(servers, bridge)
    limited = [c for c in servers.slack.calls("chat.postMessage") if c.status == 429]
    assert len(limited) == RATE_LIMIT_RETRIES + 2  # the client gave up once, then tried anew
    assert _moved(after, before, "novo_slack_outages_total", dependency="slack") == 0
    assert sample(after, "novo_slack_dependency_up", dependency="slack") == 1
    assert not [r for r in caplog.records if r.name == "bot.slack.availability"]


async def test_a_5xx_the_client_retried_away_is_no_outage(
    servers: Servers, caplog: pytest.LogCaptureFixture
) -> None:
    """Only the answer a caller gets counts: one 503 that slack_sdk's own retry of an
    update mended is a blip nobody needs to hear of."""
    caplog.set_level(logging.DEBUG, logger="bot")
    async with servers.bridge() as bridge:
        interaction_id = await servers.create()
        await wait_until(lambda: servers.shown_ts(interaction_id), message="message shown")
        before = await _scrape(servers, bridge)
        servers.slack.fail_method("chat.update", error="service_unavailable", http_status=503)
        await servers.control.extend(interaction_id, 600)

        def updated() -> bool:
            return [c.status for c in servers.slack.calls("chat.update")][-2:] == [503, 200]

        await wait_until(updated, timeout=30, message="the update retried and taken")
        after = await _scrape(servers, bridge)
    assert _moved(after, before, "novo_slack_outages_total", dependency="slack") == 0
    assert not [r for r in caplog.records if r.name == "bot.slack.availability"]
