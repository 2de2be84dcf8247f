"""Slash commands from the local Slack: form fields over HTTP, envelopes over Socket Mode.

The driver must send exactly what Slack sends (signed plain form fields, no
`payload=`), the socket must carry a `slash_commands` envelope and hand back
the app's ack, and a real Bolt app must answer both through the
response_url.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl

import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.signature import SignatureVerifier

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.localslack.conftest import SIGNING_SECRET, FakeBridge
from tests.localslack.serving import over_socket, served
from tests.localslack.test_ls_bolt import bolt_app
from tests.support import wait_until

CHANNEL = "C0LOCALAPR"
ALICE = "U0LOCAL01"
FIELDS = {
    "token",
    "team_id",
    "team_domain",
    "channel_id",
    "channel_name",
    "user_id",
    "user_name",
    "command",
    "text",
    "api_app_id",
    "is_enterprise_install",
    "response_url",
    "trigger_id",
}


def command_app(slack: LocalSlack) -> AsyncApp:
    app = bolt_app(slack)

    @app.command("/deploy")
    async def deploy(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        await respond(f"Deploying {command['text']} for <@{command['user_id']}>")

    @app.command("/echo")
    async def echo(ack: AsyncAck, command: dict[str, Any]) -> None:
        await ack(f"echo: {command['text']}")

    return app


@pytest.fixture
async def bolt_url(slack: LocalSlack) -> AsyncIterator[str]:
    async with served(command_app(slack)) as url:
        yield url


@pytest.fixture
async def socket_app(slack: LocalSlack) -> AsyncIterator[AsyncSocketModeHandler]:
    async with over_socket(command_app(slack), slack) as handler:
        yield handler


async def test_a_command_is_signed_form_fields_as_slack_posts_them(
    bridge: FakeBridge, driver: SlackDriver, slack: LocalSlack
) -> None:
    response = await driver.send_command(ALICE, "/deploy", "api now", channel=CHANNEL)
    assert response.status_code == 200
    request = bridge.received[-1]
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    verifier = SignatureVerifier(SIGNING_SECRET)
    timestamp = request.headers["X-Slack-Request-Timestamp"]
    assert verifier.is_valid(request.body, timestamp, request.headers["X-Slack-Signature"])
    fields = dict(parse_qsl(request.body.decode(), keep_blank_values=True))
    assert set(fields) == FIELDS  # plain fields: no `payload=` as interactions have
    assert fields["command"] == "/deploy" and fields["text"] == "api now"
    assert (fields["user_id"], fields["user_name"]) == (ALICE, "alice")
    assert (fields["channel_id"], fields["channel_name"]) == (CHANNEL, "approvals")
    assert (fields["team_id"], fields["api_app_id"]) == ("T0LOCAL", "A0LOCAL")
    assert fields["response_url"].startswith(f"{slack.url}/_response/")


async def test_bolt_answers_a_command_over_http(slack: LocalSlack, bolt_url: str) -> None:
    async with SlackDriver(bolt_url, SIGNING_SECRET, slack) as driver:
        response = await driver.send_command(ALICE, "/deploy", "api", channel=CHANNEL)
        assert response.status_code == 200
        await wait_until(lambda: bool(slack.ephemerals(ALICE)))
        answer = slack.ephemerals(ALICE)[0]
        assert (answer.channel, answer.via) == (CHANNEL, "response_url")
        assert answer.text == f"Deploying api for <@{ALICE}>"


async def test_bolt_acks_a_command_envelope_over_socket_mode(
    slack: LocalSlack, socket_app: AsyncSocketModeHandler
) -> None:
    async with SlackDriver("http://127.0.0.1:9", SIGNING_SECRET, slack) as driver:
        ack = await driver.send_command_over_socket(ALICE, "/deploy", "web", channel=CHANNEL)
        assert ack.payload is None
        await wait_until(lambda: bool(slack.ephemerals(ALICE)))
        assert slack.ephemerals(ALICE)[0].text == f"Deploying web for <@{ALICE}>"

        echoed = await driver.send_command_over_socket(ALICE, "/echo", "hi", channel=CHANNEL)
        assert echoed.payload == {"text": "echo: hi"}  # an answer in the ack itself

        with pytest.raises(AssertionError, match="no ack of the slash_commands envelope"):
            await driver.send_command_over_socket(
                ALICE, "/unknown", "", channel=CHANNEL, within=0.5
            )


async def test_no_socket_means_nothing_to_deliver_over(slack: LocalSlack) -> None:
    async with SlackDriver("http://127.0.0.1:9", SIGNING_SECRET, slack) as driver:
        with pytest.raises(AssertionError, match="no Socket Mode connection"):
            await driver.send_command_over_socket(ALICE, "/deploy", channel=CHANNEL)
