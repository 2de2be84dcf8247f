"""The driver: Slack's payload shapes, its signature, and what it does with acks."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.localslack.conftest import SIGNING_SECRET, CapturedRequest, FakeBridge
from tests.localslack.kit import actions, button, choice_input, modal, option, section, text_input

CHANNEL = "C0APPROVALS"
ALICE = "U0LOCAL01"
OVERFLOW = {
    "type": "overflow",
    "action_id": "more",
    "options": [option("approve_note", "Approve with a note"), option("dismiss", "Dismiss")],
}


def payload_of(request: CapturedRequest) -> dict[str, Any]:
    fields = parse_qs(request.body.decode())
    assert list(fields) == ["payload"]
    payload: dict[str, Any] = json.loads(fields["payload"][0])
    return payload


async def post_buttons(client: AsyncWebClient) -> str:
    response = await client.chat_postMessage(
        channel=CHANNEL,
        text="Deploy billing-api?",
        blocks=[
            section("Deploy *billing-api*?"),
            actions(
                button("approve", "int_1", "Approve", style="primary"),
                button("deny", "int_1", "Deny", style="danger"),
                OVERFLOW,
                block_id="decide",
            ),
            # the same action_id may repeat across blocks (never within one)
            actions(button("pick", "opt_a", "A"), block_id="pick_a"),
            actions(button("pick", "opt_b", "B"), block_id="pick_b"),
        ],
        metadata={"event_type": "novo_interaction", "event_payload": {"interaction_id": "int_1"}},
    )
    ts: str = response["ts"]
    return ts


async def test_click_is_signed_like_slack(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient
) -> None:
    ts = await post_buttons(client)
    response = await driver.click_message_button(ALICE, CHANNEL, ts, "approve")
    assert response.status_code == 200
    request = bridge.received[0]
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    verifier = SignatureVerifier(SIGNING_SECRET)
    timestamp = request.headers["X-Slack-Request-Timestamp"]
    signature = request.headers["X-Slack-Signature"]
    assert signature.startswith("v0=")
    assert verifier.is_valid(body=request.body.decode(), timestamp=timestamp, signature=signature)
    assert not SignatureVerifier("another-secret").is_valid(
        body=request.body.decode(), timestamp=timestamp, signature=signature
    )


async def test_message_click_payload_shape(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    ts = await post_buttons(client)
    await driver.click_message_button(ALICE, CHANNEL, ts, "deny")
    payload = payload_of(bridge.received[0])
    assert payload["type"] == "block_actions"
    assert payload["user"] == {
        "id": ALICE,
        "username": "alice",
        "name": "alice",
        "team_id": "T0LOCAL",
    }
    assert payload["team"]["id"] == "T0LOCAL"
    assert payload["api_app_id"] == "A0LOCAL"
    assert payload["channel"] == {"id": CHANNEL, "name": slack.channel_name(CHANNEL)}
    assert payload["container"] == {
        "type": "message",
        "message_ts": ts,
        "channel_id": CHANNEL,
        "is_ephemeral": False,
    }
    assert payload["message"]["ts"] == ts
    assert payload["message"]["text"] == "Deploy billing-api?"
    assert payload["message"]["blocks"] == slack.message(CHANNEL, ts).blocks
    assert payload["state"] == {"values": {}}
    (action,) = payload["actions"]
    assert action["type"] == "button"
    assert action["action_id"] == "deny"
    assert action["block_id"] == "decide"
    assert action["value"] == "int_1"
    assert action["text"]["text"] == "Deny"
    assert action["style"] == "danger"
    assert float(action["action_ts"]) > 0


async def test_trigger_and_response_url_in_the_payload_work(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    ts = await post_buttons(client)
    await driver.click_message_button(ALICE, CHANNEL, ts, "approve")
    payload = payload_of(bridge.received[0])
    opened = await client.views_open(trigger_id=payload["trigger_id"], view=modal(section("hi")))
    assert slack.view(opened["view"]["id"]).user_id == ALICE
    assert payload["response_url"].startswith(slack.url)


async def test_button_chosen_by_value(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient
) -> None:
    ts = await post_buttons(client)
    await driver.click_message_button(ALICE, CHANNEL, ts, "pick", value="opt_b")
    await driver.click_message_button(ALICE, CHANNEL, ts, "pick", block_id="pick_a")
    chosen = [payload_of(r)["actions"][0] for r in bridge.received]
    assert [(a["block_id"], a["value"]) for a in chosen] == [
        ("pick_b", "opt_b"),
        ("pick_a", "opt_a"),
    ]


async def test_missing_button_is_a_test_failure(
    driver: SlackDriver, client: AsyncWebClient
) -> None:
    ts = await post_buttons(client)
    with pytest.raises(AssertionError, match="no_such_action"):
        await driver.click_message_button(ALICE, CHANNEL, ts, "no_such_action")
    with pytest.raises(AssertionError, match="opt_z"):
        await driver.click_message_button(ALICE, CHANNEL, ts, "pick", value="opt_z")
    with pytest.raises(AssertionError, match="no message"):
        await driver.click_message_button(ALICE, CHANNEL, "1.000001", "approve")
    with pytest.raises(AssertionError, match="no user"):
        await driver.click_message_button("U0NOBODY", CHANNEL, ts, "approve")


async def test_overflow_choice(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient
) -> None:
    ts = await post_buttons(client)
    await driver.choose_overflow(ALICE, CHANNEL, ts, "more", "approve_note")
    (action,) = payload_of(bridge.received[0])["actions"]
    assert action["type"] == "overflow"
    assert action["selected_option"] == option("approve_note", "Approve with a note")
    with pytest.raises(AssertionError, match="nope"):
        await driver.choose_overflow(ALICE, CHANNEL, ts, "more", "nope")


async def open_form(client: AsyncWebClient, slack: LocalSlack) -> str:
    view = modal(
        section("Why?"),
        text_input("reason", "reason_input"),
        choice_input("env", "env_pick", "checkboxes", ["staging", "prod"]),
        choice_input("when", "when_pick", "static_select", ["tonight", "weekend"], optional=True),
        actions(button("next_page", "2", "Next"), block_id="nav"),
        private_metadata='{"id":"int_1"}',
    )
    response = await client.views_open(trigger_id=slack.issue_trigger(ALICE), view=view)
    view_id: str = response["view"]["id"]
    return view_id


async def test_view_button_payload_and_push(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    typed = {"reason": {"reason_input": {"type": "plain_text_input", "value": "half"}}}
    await driver.click_view_button(ALICE, view_id, "next_page", state_values=typed)
    payload = payload_of(bridge.received[0])
    assert payload["type"] == "block_actions"
    assert payload["container"] == {"type": "view", "view_id": view_id}
    assert payload["view"]["id"] == view_id
    assert payload["view"]["private_metadata"] == '{"id":"int_1"}'
    assert payload["view"]["state"]["values"] == typed
    assert "response_url" not in payload
    assert payload["actions"][0]["block_id"] == "nav"
    pushed = await client.views_push(
        trigger_id=payload["trigger_id"], view=modal(section("page 2"))
    )
    assert pushed["view"]["previous_view_id"] == view_id


async def test_submission_payload_fills_slack_state(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    values = {
        "reason": {"reason_input": {"value": "not during the freeze"}},
        "env": {"env_pick": driver.selected_options(view_id, "env", "env_pick", ["prod"])},
    }
    response = await driver.submit_view(ALICE, view_id, values)
    assert response.status_code == 200
    payload = payload_of(bridge.received[0])
    assert payload["type"] == "view_submission"
    view = payload["view"]
    assert (view["id"], view["callback_id"], view["hash"]) == (
        view_id,
        "local_modal",
        slack.view(view_id).hash,
    )
    assert view["private_metadata"] == '{"id":"int_1"}'
    assert view["state"]["values"] == {
        "reason": {"reason_input": {"type": "plain_text_input", "value": "not during the freeze"}},
        "env": {
            "env_pick": {"type": "checkboxes", "selected_options": [option("prod")]},
        },
        "when": {"when_pick": {"type": "static_select", "selected_option": None}},
    }
    assert slack.view(view_id).closed  # an empty ack closes the modal


async def test_submission_refuses_what_slack_would_not_send(
    driver: SlackDriver, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    picked = driver.selected_options(view_id, "env", "env_pick", ["prod"])
    with pytest.raises(AssertionError, match="required input reason/reason_input"):
        await driver.submit_view(ALICE, view_id, {"env": {"env_pick": picked}})
    with pytest.raises(AssertionError, match="no element"):
        await driver.submit_view(ALICE, view_id, {"nope": {"x": {"value": "v"}}})
    bogus = {"selected_option": option("yesterday")}
    with pytest.raises(AssertionError, match="yesterday"):
        await driver.submit_view(
            ALICE,
            view_id,
            {
                "reason": {"reason_input": {"value": "r"}},
                "env": {"env_pick": picked},
                "when": {"when_pick": bogus},
            },
        )
    with pytest.raises(AssertionError, match="no option"):
        driver.selected_option(view_id, "when", "when_pick", "yesterday")


async def filled(driver: SlackDriver, view_id: str) -> dict[str, Any]:
    return {
        "reason": {"reason_input": {"value": "r"}},
        "env": {"env_pick": driver.selected_options(view_id, "env", "env_pick", ["staging"])},
    }


async def test_ack_errors_and_update_applied(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    bridge.reply = {"response_action": "errors", "errors": {"reason": "Say more"}}
    await driver.submit_view(ALICE, view_id, await filled(driver, view_id))
    assert slack.view(view_id).errors == {"reason": "Say more"}
    assert not slack.view(view_id).closed

    bridge.reply = {"response_action": "update", "view": modal(section("Submitting…"))}
    await driver.submit_view(ALICE, view_id, await filled(driver, view_id))
    assert slack.view(view_id).blocks[0]["text"]["text"] == "Submitting…"
    assert not slack.view(view_id).closed


async def test_ack_slack_would_refuse_fails_the_test(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    bridge.reply = {"response_action": "errors", "errors": {"nav": "not an input"}}
    with pytest.raises(AssertionError, match="not input blocks"):
        await driver.submit_view(ALICE, view_id, await filled(driver, view_id))
    bridge.reply = {"response_action": "update", "view": modal(section("x" * 3001))}
    with pytest.raises(AssertionError, match="3000"):
        await driver.submit_view(ALICE, view_id, await filled(driver, view_id))


async def test_closed_view_cannot_be_used(
    driver: SlackDriver, client: AsyncWebClient, slack: LocalSlack
) -> None:
    view_id = await open_form(client, slack)
    await driver.submit_view(ALICE, view_id, await filled(driver, view_id))
    with pytest.raises(AssertionError, match="closed"):
        await driver.click_view_button(ALICE, view_id, "next_page")


async def test_block_suggestion_payload(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    external = {
        "type": "input",
        "block_id": "search",
        "label": {"type": "plain_text", "text": "Find"},
        "element": {"type": "external_select", "action_id": "find", "min_query_length": 1},
    }
    opened = await client.views_open(trigger_id=slack.issue_trigger(ALICE), view=modal(external))
    view_id = opened["view"]["id"]
    bridge.reply = {"options": [option("prod")]}
    response = await driver.load_options(ALICE, view_id, "find", "search", "pro")
    assert response.json() == {"options": [option("prod")]}
    payload = payload_of(bridge.received[0])
    assert payload["type"] == "block_suggestion"
    assert (payload["action_id"], payload["block_id"], payload["value"]) == (
        "find",
        "search",
        "pro",
    )
    assert payload["view"]["id"] == view_id
    assert payload["container"] == {"type": "view", "view_id": view_id}


async def test_send_raw_passes_bad_headers_through(driver: SlackDriver, bridge: FakeBridge) -> None:
    body = SlackDriver.encode({"type": "block_actions"})
    await driver.send_raw(body, timestamp="1", signature="v0=bad")
    request = bridge.received[0]
    assert request.headers["X-Slack-Request-Timestamp"] == "1"
    assert request.headers["X-Slack-Signature"] == "v0=bad"
    assert request.body == body
    await driver.send_raw(body, content_type="application/json")
    second = bridge.received[1]
    assert second.headers["Content-Type"] == "application/json"
    assert SignatureVerifier(SIGNING_SECRET).is_valid(
        body=second.body.decode(),
        timestamp=second.headers["X-Slack-Request-Timestamp"],
        signature=second.headers["X-Slack-Signature"],
    )


async def test_unknown_view_for_helpers(driver: SlackDriver) -> None:
    with pytest.raises(KeyError, match="V_NOPE"):
        driver.selected_option("V_NOPE", "b", "a", "v")
