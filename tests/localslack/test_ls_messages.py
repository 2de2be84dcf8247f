"""chat.* , conversations.history and users.info through slack_sdk's real client."""

from __future__ import annotations

import asyncio
import json
import re
from decimal import Decimal
from typing import Any

import httpx
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack import limits
from novo_dev.localslack import LocalSlack
from tests.localslack.kit import actions, button, radio_block, refusal, section, text_input

CHANNEL = "C0APPROVALS"
METADATA = {"event_type": "novo_interaction", "event_payload": {"interaction_id": "int_1"}}
TS = re.compile(r"^\d{10}\.\d{6}$")


async def test_auth_test_names_the_bot(client: AsyncWebClient, slack: LocalSlack) -> None:
    response = await client.auth_test()
    assert response["user_id"] == slack.identity.bot_user_id
    assert response["bot_id"] == slack.identity.bot_id
    assert response["team_id"] == slack.identity.team_id
    assert {"team", "user", "url"} <= set(response.data)


async def test_wrong_or_missing_token_refused(slack: LocalSlack) -> None:
    wrong = AsyncWebClient(token="xoxb-wrong", base_url=slack.api_url)
    assert (await refusal(wrong.auth_test()))["error"] == "invalid_auth"
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{slack.api_url}chat.postMessage", json={"channel": CHANNEL})
    assert response.status_code == 200
    assert response.json() == {"ok": False, "error": "not_authed"}


async def test_post_update_history_round_trip(client: AsyncWebClient, slack: LocalSlack) -> None:
    first = await client.chat_postMessage(
        channel=CHANNEL, text="first", blocks=[section("one")], metadata=METADATA
    )
    second = await client.chat_postMessage(channel=CHANNEL, text="second")
    assert TS.match(first["ts"]) and TS.match(second["ts"])
    assert Decimal(second["ts"]) > Decimal(first["ts"])
    assert first["channel"] == CHANNEL
    assert first["message"]["metadata"] == METADATA

    updated = await client.chat_update(
        channel=CHANNEL, ts=first["ts"], text="first, edited", blocks=[section("edited")]
    )
    assert updated["ts"] == first["ts"]

    stored = slack.message(CHANNEL, first["ts"])
    assert stored.text == "first, edited"
    assert stored.blocks[0]["text"]["text"] == "edited"
    assert stored.blocks[0]["block_id"]  # Slack names every block
    assert stored.metadata == METADATA  # kept: the update did not send metadata
    assert stored.edited_count == 1
    assert [m.ts for m in slack.messages(CHANNEL)] == [first["ts"], second["ts"]]

    history = await client.conversations_history(channel=CHANNEL, include_all_metadata=True)
    assert [m["ts"] for m in history["messages"]] == [second["ts"], first["ts"]]
    assert history["messages"][1]["metadata"] == METADATA
    assert history["messages"][1]["edited"]["ts"]
    plain = await client.conversations_history(channel=CHANNEL, limit=1)
    assert [m["ts"] for m in plain["messages"]] == [second["ts"]]
    assert plain["has_more"] is True
    rest = await client.conversations_history(
        channel=CHANNEL, cursor=plain["response_metadata"]["next_cursor"]
    )
    assert [m["ts"] for m in rest["messages"]] == [first["ts"]]
    assert "metadata" not in rest["messages"][0]


async def test_update_replaces_metadata_when_sent(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    posted = await client.chat_postMessage(channel=CHANNEL, text="t", metadata=METADATA)
    other = {"event_type": "novo_interaction", "event_payload": {"interaction_id": "int_2"}}
    await client.chat_update(channel=CHANNEL, ts=posted["ts"], text="t2", metadata=other)
    assert slack.message(CHANNEL, posted["ts"]).metadata == other


async def test_form_encoded_post_with_json_string_fields(slack: LocalSlack) -> None:
    form = {
        "channel": CHANNEL,
        "text": "from a form",
        "blocks": '[{"type": "section", "text": {"type": "mrkdwn", "text": "hi"}}]',
        "metadata": json.dumps(METADATA),
    }
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{slack.api_url}chat.postMessage",
            data=form,
            headers={"Authorization": f"Bearer {slack.bot_token}"},
        )
    body = response.json()
    assert body["ok"] is True, body
    stored = slack.message(CHANNEL, body["ts"])
    assert stored.metadata == METADATA
    assert stored.blocks[0]["text"]["text"] == "hi"
    assert slack.calls("chat.postMessage")[0].args["metadata"] == METADATA


async def test_update_of_unknown_message(client: AsyncWebClient) -> None:
    data = await refusal(client.chat_update(channel=CHANNEL, ts="1700000000.000001", text="x"))
    assert data["error"] == "message_not_found"


@pytest.mark.parametrize(
    ("blocks", "pointer"),
    [
        ([section("x" * (limits.SECTION_TEXT + 1))], "/blocks/0/text/text"),
        ([{"type": "divider"}] * (limits.MESSAGE_BLOCKS + 1), "/blocks"),
        ([radio_block(limits.CHOICE_OPTIONS + 1)], "/blocks/0/elements/0/options"),
        (
            [
                actions(
                    {
                        "type": "static_select",
                        "action_id": "s",
                        "options": [
                            {"text": {"type": "plain_text", "text": "v"}, "value": "v" * 80}
                        ],
                    }
                )
            ],
            "/blocks/0/elements/0/options/0/value",
        ),
        ([section("a", block_id="b"), section("b", block_id="b")], "/blocks/1/block_id"),
        ([{"type": "no_such_block"}], "/blocks/0/type"),
        ([text_input("reason", "r")], "/blocks/0/type"),
    ],
    ids=[
        "3001-char-section",
        "51-blocks",
        "11-radio",
        "80-char-value",
        "dup-block-id",
        "unknown",
        "input",
    ],
)
async def test_invalid_blocks_refused_with_slack_shape(
    client: AsyncWebClient, slack: LocalSlack, blocks: list[dict[str, Any]], pointer: str
) -> None:
    data = await refusal(client.chat_postMessage(channel=CHANNEL, text="t", blocks=blocks))
    assert data["ok"] is False
    assert data["error"] == "invalid_blocks"
    messages = data["response_metadata"]["messages"]
    assert any(
        m.startswith("[ERROR] ") and m.endswith(f"[json-pointer:{pointer}]") for m in messages
    )
    assert slack.messages(CHANNEL) == []
    assert slack.calls("chat.postMessage")[0].response == data


async def test_update_validates_blocks_too(client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(channel=CHANNEL, text="t")
    data = await refusal(
        client.chat_update(
            channel=CHANNEL, ts=posted["ts"], text="t", blocks=[{"type": "no_such_block"}]
        )
    )
    assert data["error"] == "invalid_blocks"


async def test_too_much_text_across_blocks(client: AsyncWebClient) -> None:
    blocks = [section("x" * 3000) for _ in range(5)]
    data = await refusal(client.chat_postMessage(channel=CHANNEL, text="t", blocks=blocks))
    assert data["error"] == "msg_blocks_too_long"


async def test_text_missing_with_blocks_accepted_and_long_text_truncated(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    with pytest.warns(UserWarning):  # slack_sdk warns about the missing fallback text
        quiet = await client.chat_postMessage(channel=CHANNEL, blocks=[section("only blocks")])
    assert slack.message(CHANNEL, quiet["ts"]).text == ""
    long = await client.chat_postMessage(
        channel=CHANNEL, text="y" * (limits.MESSAGE_FALLBACK_TEXT + 5)
    )
    assert len(slack.message(CHANNEL, long["ts"]).text) == limits.MESSAGE_FALLBACK_TEXT
    with pytest.warns(UserWarning):
        nothing = await refusal(client.chat_postMessage(channel=CHANNEL))
    assert nothing["error"] == "no_text"


async def test_metadata_must_have_type_and_payload(client: AsyncWebClient) -> None:
    data = await refusal(
        client.chat_postMessage(channel=CHANNEL, text="t", metadata={"event_type": "x"})
    )
    assert data["error"] == "invalid_metadata_format"


async def test_ephemeral_recorded_per_user(client: AsyncWebClient, slack: LocalSlack) -> None:
    alice, bob = (u.id for u in slack.users()[:2])
    response = await client.chat_postEphemeral(channel=CHANNEL, user=alice, text="only you")
    assert TS.match(response["message_ts"])
    await client.chat_postEphemeral(
        channel=CHANNEL, user=bob, text="and you", blocks=[section("b")]
    )
    assert [e.text for e in slack.ephemerals(alice)] == ["only you"]
    assert [e.user for e in slack.ephemerals()] == [alice, bob]
    assert slack.messages(CHANNEL) == []
    data = await refusal(client.chat_postEphemeral(channel=CHANNEL, user="U0NOBODY", text="x"))
    assert data["error"] == "user_not_found"


async def test_permalink(client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(channel=CHANNEL, text="t")
    link = await client.chat_getPermalink(channel=CHANNEL, message_ts=posted["ts"])
    assert link["permalink"].endswith(f"/archives/{CHANNEL}/p{posted['ts'].replace('.', '')}")
    missing = await refusal(client.chat_getPermalink(channel=CHANNEL, message_ts="1.000001"))
    assert missing["error"] == "message_not_found"


async def test_users_info(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.add_user("U0ADA", "ada", "Ada", real_name="Ada Lovelace", tz="Europe/London")
    user = (await client.users_info(user="U0ADA"))["user"]
    assert user["id"] == "U0ADA"
    assert user["name"] == "ada"
    assert user["real_name"] == "Ada Lovelace"
    assert user["tz"] == "Europe/London"
    assert user["profile"]["display_name"] == "Ada"
    assert user["profile"]["real_name"] == "Ada Lovelace"
    assert (await refusal(client.users_info(user="U0NOBODY")))["error"] == "user_not_found"


async def test_posting_to_a_user_lands_in_their_dm(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    user = slack.users()[0].id
    posted = await client.chat_postMessage(channel=user, text="psst")
    assert posted["channel"].startswith("D")
    assert [m.text for m in slack.messages(posted["channel"])] == ["psst"]
    assert (await refusal(client.chat_postMessage(channel="#nowhere", text="x")))["error"] == (
        "channel_not_found"
    )


async def test_unknown_method(client: AsyncWebClient) -> None:
    assert (await refusal(client.api_call("chat.nonsense")))["error"] == "unknown_method"


async def test_calls_and_messages_over_http(client: AsyncWebClient, slack: LocalSlack) -> None:
    posted = await client.chat_postMessage(
        channel=CHANNEL, text="hello", blocks=[actions(button("a", "v"))]
    )
    await client.chat_update(channel=CHANNEL, ts=posted["ts"], text="hello again")
    async with httpx.AsyncClient() as http:
        calls = (await http.get(f"{slack.url}/_test/calls")).json()["calls"]
        shown = (await http.get(f"{slack.url}/_test/messages", params={"channel": CHANNEL})).json()
    assert [c["method"] for c in calls] == ["chat.postMessage", "chat.update"]
    assert calls[0]["response"]["ts"] == posted["ts"]
    assert "token" not in calls[0]["args"]
    assert shown["messages"][0]["text"] == "hello again"
    assert shown["messages"][0]["edited_count"] == 1
    slack.clear_calls()
    assert slack.calls() == []


async def test_wait_for_call_sees_a_later_call(client: AsyncWebClient, slack: LocalSlack) -> None:
    waiter = asyncio.create_task(slack.wait_for_call("chat.postMessage", within=5))
    await client.chat_postMessage(channel=CHANNEL, text="later")
    call = await waiter
    assert call.args["text"] == "later"
    with pytest.raises(AssertionError, match=r"chat\.update"):
        await slack.wait_for_call("chat.update", within=0.05)
