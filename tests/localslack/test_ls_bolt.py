"""A real Bolt app against the local Slack and the driver: the pair fits what Bolt expects.

Bolt verifies the driver's signature, calls auth.test, opens a modal with
the payload's trigger_id, answers through the response_url and acks a
submission; the local Slack must accept all of it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.localslack.conftest import SIGNING_SECRET
from tests.localslack.kit import actions, button, modal, section, text_input
from tests.localslack.serving import served
from tests.support import wait_until

CHANNEL = "C0APPROVALS"
ALICE = "U0LOCAL01"


def bolt_app(slack: LocalSlack) -> AsyncApp:
    app = AsyncApp(
        signing_secret=SIGNING_SECRET,
        client=AsyncWebClient(token=slack.bot_token, base_url=slack.api_url),
    )

    @app.action("deny")
    async def deny(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(
            trigger_id=body["trigger_id"],
            view=modal(
                text_input("reason", "reason_input"), private_metadata=body["message"]["ts"]
            ),
        )

    @app.action("approve")
    async def approve(ack: AsyncAck, respond: AsyncRespond, body: dict[str, Any]) -> None:
        await ack()
        await respond(replace_original=True, text=f"Approved by <@{body['user']['id']}>")

    @app.view("local_modal")
    async def submitted(ack: AsyncAck, view: dict[str, Any]) -> None:
        reason = view["state"]["values"]["reason"]["reason_input"]["value"]
        await ack(response_action="update", view=modal(section(f"Denied: {reason}")))

    return app


@pytest.fixture
async def bolt_url(slack: LocalSlack) -> AsyncIterator[str]:
    async with served(bolt_app(slack)) as url:
        yield url


async def post(client: AsyncWebClient) -> str:
    response = await client.chat_postMessage(
        channel=CHANNEL,
        text="Deploy?",
        blocks=[section("Deploy?"), actions(button("approve", "i"), button("deny", "i"))],
    )
    ts: str = response["ts"]
    return ts


async def test_bolt_accepts_clicks_and_submissions(
    slack: LocalSlack, bolt_url: str, client: AsyncWebClient
) -> None:
    ts = await post(client)
    async with SlackDriver(bolt_url, SIGNING_SECRET, slack) as driver:
        assert (await driver.click_message_button(ALICE, CHANNEL, ts, "approve")).status_code == 200
        await wait_until(lambda: slack.message(CHANNEL, ts).text == "Approved by <@U0LOCAL01>")
        assert slack.calls("auth.test")

        assert (await driver.click_message_button(ALICE, CHANNEL, ts, "deny")).status_code == 200
        opened = (
            await wait_until(
                lambda: [c for c in slack.calls("views.open") if c.ok], message="a view"
            )
        )[0]
        view_id = opened.response["view"]["id"]
        assert slack.view(view_id).private_metadata == ts

        values = {"reason": {"reason_input": {"value": "freeze"}}}
        response = await driver.submit_view(ALICE, view_id, values)
        assert response.status_code == 200
        assert response.json()["response_action"] == "update"
        assert slack.view(view_id).blocks[0]["text"]["text"] == "Denied: freeze"


async def test_bolt_refuses_bad_signature_and_stale_timestamp(
    slack: LocalSlack, bolt_url: str
) -> None:
    async with SlackDriver(bolt_url, SIGNING_SECRET, slack) as driver:
        body = SlackDriver.encode({"type": "block_actions", "actions": []})
        assert (await driver.send_raw(body, signature="v0=" + "0" * 64)).status_code == 401
        stale = str(int(time.time()) - 600)
        assert (await driver.send_raw(body, timestamp=stale)).status_code == 401
