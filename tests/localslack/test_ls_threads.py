"""Thread replies: where chat.postMessage may put one, and reading a thread back."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack
from tests.localslack.kit import refusal

CHANNEL = "C0APPROVALS"
OTHER = "C0ELSEWHERE"
BOB = "U0LOCAL02"


async def post(client: AsyncWebClient, text: str, **args: Any) -> str:
    posted = await client.chat_postMessage(channel=args.pop("channel", CHANNEL), text=text, **args)
    return str(posted["ts"])


async def test_replies_sit_under_their_parent(client: AsyncWebClient, slack: LocalSlack) -> None:
    parent = await post(client, "approval")
    first = await post(client, "reminder 1", thread_ts=parent)
    second = await post(client, "reminder 2", thread_ts=parent)
    await post(client, "unrelated")

    thread = slack.replies(CHANNEL, parent)
    assert [(m.ts, m.thread_ts) for m in thread] == [(first, parent), (second, parent)]
    # messages() still shows every message of the channel, replies included.
    assert [m.text for m in slack.messages(CHANNEL)] == [
        "approval",
        "reminder 1",
        "reminder 2",
        "unrelated",
    ]


async def test_history_lists_parents_only_and_replies_reads_the_thread(
    client: AsyncWebClient,
) -> None:
    parent = await post(client, "approval", metadata={"event_type": "e", "event_payload": {}})
    reply = await post(
        client, "card", thread_ts=parent, metadata={"event_type": "e", "event_payload": {"n": 1}}
    )
    alone = await post(client, "unrelated")
    history = await client.conversations_history(channel=CHANNEL, include_all_metadata=True)
    # as in Slack: a channel's history holds its own messages, never thread replies
    assert [m["ts"] for m in history["messages"]] == [alone, parent]
    shown = history["messages"][1]
    assert (shown["thread_ts"], shown["reply_count"], shown["latest_reply"]) == (parent, 1, reply)
    thread = await client.conversations_replies(
        channel=CHANNEL, ts=parent, include_all_metadata=True
    )
    assert [m["ts"] for m in thread["messages"]] == [parent, reply]
    assert thread["messages"][1]["metadata"]["event_payload"] == {"n": 1}


async def test_a_reply_to_a_reply_joins_the_parents_thread(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    parent = await post(client, "approval")
    reply = await post(client, "reminder", thread_ts=parent)
    nested = await post(client, "again", thread_ts=reply)
    assert slack.message(CHANNEL, nested).thread_ts == parent
    assert [m.ts for m in slack.replies(CHANNEL, parent)] == [reply, nested]


async def test_a_reply_needs_its_parent_in_that_channel(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    parent = await post(client, "approval")
    elsewhere = await refusal(client.chat_postMessage(channel=OTHER, text="lost", thread_ts=parent))
    assert elsewhere == {"ok": False, "error": "thread_not_found"}
    deleted = await post(client, "gone")
    await client.chat_delete(channel=CHANNEL, ts=deleted)
    gone = await refusal(client.chat_postMessage(channel=CHANNEL, text="late", thread_ts=deleted))
    assert gone["error"] == "thread_not_found"
    malformed = await refusal(client.chat_postMessage(channel=CHANNEL, text="x", thread_ts="0"))
    assert malformed["error"] == "invalid_thread_ts"
    assert [m.text for m in slack.messages(CHANNEL)] == ["approval"]
    assert slack.messages(OTHER) == []


async def test_conversations_replies_reads_the_thread(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    parent = await post(client, "approval")
    replies = [await post(client, f"reminder {i}", thread_ts=parent) for i in range(3)]

    whole = await client.conversations_replies(channel=CHANNEL, ts=parent)
    head, *rest = whole["messages"]
    assert head["ts"] == parent
    assert (head["thread_ts"], head["reply_count"], head["latest_reply"]) == (
        parent,
        3,
        replies[-1],
    )
    assert head["reply_users"] == [slack.identity.bot_user_id]
    assert [m["ts"] for m in rest] == replies
    assert all(m["thread_ts"] == parent and "parent_user_id" in m for m in rest)
    assert whole["has_more"] is False

    page = await client.conversations_replies(channel=CHANNEL, ts=parent, limit=2)
    assert [m["ts"] for m in page["messages"]] == [parent, replies[0]]
    assert page["has_more"] is True
    cursor = page["response_metadata"]["next_cursor"]
    tail = await client.conversations_replies(channel=CHANNEL, ts=parent, cursor=cursor)
    assert [m["ts"] for m in tail["messages"]] == replies[1:]

    from_a_reply = await client.conversations_replies(channel=CHANNEL, ts=replies[1])
    assert [m["ts"] for m in from_a_reply["messages"]] == [parent, *replies]


async def test_conversations_replies_of_a_lone_message_and_of_nothing(
    client: AsyncWebClient,
) -> None:
    lone = await post(client, "no replies")
    alone = await client.conversations_replies(channel=CHANNEL, ts=lone)
    assert [m["ts"] for m in alone["messages"]] == [lone]
    assert "reply_count" not in alone["messages"][0]
    missing = await refusal(client.conversations_replies(channel=CHANNEL, ts="1.000001"))
    assert missing == {"ok": False, "error": "thread_not_found"}


async def test_conversations_replies_needs_the_history_scope_of_the_conversation(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    slack.set_scopes("chat:write", "channels:history")
    in_dm = await post(client, "psst", channel=BOB)
    refused = await refusal(client.conversations_replies(channel=BOB, ts=in_dm))
    assert (refused["error"], refused["needed"]) == ("missing_scope", "im:history")
    slack.set_scopes("chat:write", "channels:history", "im:history")
    assert (await client.conversations_replies(channel=BOB, ts=in_dm))["ok"] is True
    slack.set_scopes("chat:write")
    public = await post(client, "hello")
    refused = await refusal(client.conversations_replies(channel=CHANNEL, ts=public))
    assert refused["needed"] == "channels:history"
