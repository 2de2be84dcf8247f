"""Events API deliveries from the local Slack: signed JSON over HTTP, the url_verification
challenge, and `events_api` envelopes over Socket Mode, as a real Bolt app takes them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.localslack.conftest import SIGNING_SECRET, FakeBridge
from tests.localslack.kit import section
from tests.localslack.serving import over_socket, served
from tests.support import wait_until

ALICE = "U0LOCAL01"


def home_app(slack: LocalSlack) -> AsyncApp:
    """A Bolt app that publishes a Home tab naming the tab's view hash it was told of."""
    app = AsyncApp(
        signing_secret=SIGNING_SECRET,
        client=AsyncWebClient(token=slack.bot_token, base_url=slack.api_url),
    )

    @app.event("app_home_opened")
    async def opened(event: dict[str, Any], client: AsyncWebClient) -> None:
        seen = (event.get("view") or {}).get("hash", "none")
        view = {"type": "home", "blocks": [section(f"{event['tab']} after {seen}")]}
        await client.views_publish(user_id=event["user"], view=view)

    return app


@pytest.fixture
async def bolt_url(slack: LocalSlack) -> AsyncIterator[str]:
    async with served(home_app(slack)) as url:
        yield url


@pytest.fixture
async def socket_app(slack: LocalSlack) -> AsyncIterator[AsyncSocketModeHandler]:
    async with over_socket(home_app(slack), slack) as handler:
        yield handler


def _home_text(slack: LocalSlack, user: str) -> str | None:
    view = slack.home_view(user)
    return None if view is None else str(view.blocks[0]["text"]["text"])


async def test_an_event_is_signed_json_in_its_callback_wrapper(
    bridge: FakeBridge, driver: SlackDriver, slack: LocalSlack
) -> None:
    assert (await driver.open_home(ALICE)).status_code == 200
    request = bridge.received[-1]
    assert request.headers["Content-Type"] == "application/json"
    verifier = SignatureVerifier(SIGNING_SECRET)
    timestamp = request.headers["X-Slack-Request-Timestamp"]
    assert verifier.is_valid(request.body, timestamp, request.headers["X-Slack-Signature"])
    body = json.loads(request.body)
    assert body["type"] == "event_callback"
    assert (body["team_id"], body["api_app_id"]) == ("T0LOCAL", "A0LOCAL")
    assert body["event_id"].startswith("Ev") and isinstance(body["event_time"], int)
    event = body["event"]
    assert event["type"] == "app_home_opened" and event["tab"] == "home"
    assert event["user"] == ALICE and event["channel"] == slack.channel_id(ALICE)
    assert "view" not in event  # nothing published to this person yet


async def test_the_home_view_rides_along_once_published(
    bridge: FakeBridge, driver: SlackDriver, slack: LocalSlack, client: AsyncWebClient
) -> None:
    view = {"type": "home", "blocks": [section("hello")]}
    published = await client.views_publish(user_id=ALICE, view=view)
    await driver.open_home(ALICE)
    event = json.loads(bridge.received[-1].body)["event"]
    assert event["view"]["id"] == published["view"]["id"]
    assert event["view"]["type"] == "home" and event["view"]["hash"]
    await driver.open_home(ALICE, tab="messages")
    assert "view" not in json.loads(bridge.received[-1].body)["event"]


async def test_url_verification_is_a_signed_challenge(
    bridge: FakeBridge, driver: SlackDriver
) -> None:
    await driver.verify_url("ch4llenge")
    body = json.loads(bridge.received[-1].body)
    assert body == {"token": body["token"], "challenge": "ch4llenge", "type": "url_verification"}


async def test_bolt_answers_the_challenge_and_the_event_over_http(
    slack: LocalSlack, bolt_url: str
) -> None:
    async with SlackDriver(bolt_url, SIGNING_SECRET, slack) as driver:
        answer = await driver.verify_url("ch4llenge")
        assert answer.status_code == 200 and answer.json() == {"challenge": "ch4llenge"}
        assert (await driver.open_home(ALICE)).status_code == 200
        await wait_until(lambda: _home_text(slack, ALICE) == "home after none")
        first = slack.home_view(ALICE)
        assert first is not None
        shown_hash = first.hash  # the stored view is updated in place by the next publish
        await driver.open_home(ALICE)
        await wait_until(lambda: _home_text(slack, ALICE) != "home after none")
        assert _home_text(slack, ALICE) == f"home after {shown_hash}"


async def test_bolt_acks_an_events_api_envelope_over_socket_mode(
    slack: LocalSlack, socket_app: AsyncSocketModeHandler
) -> None:
    async with SlackDriver("http://127.0.0.1:9", SIGNING_SECRET, slack) as driver:
        ack = await driver.open_home_over_socket(ALICE)
        assert ack.payload is None
        await wait_until(lambda: _home_text(slack, ALICE) == "home after none")
