"""Rate limits, scripted failures, and response_urls."""

from __future__ import annotations

import httpx
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from novo_dev.localslack import LocalSlack
from tests.localslack.kit import refusal, section
from tests.support import FakeClock

CHANNEL = "C0APPROVALS"
OTHER = "C0OTHER"


async def post_raw(slack: LocalSlack, channel: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(
            f"{slack.api_url}chat.postMessage",
            json={"channel": channel, "text": "hi"},
            headers={"Authorization": f"Bearer {slack.bot_token}"},
        )


async def test_scripted_429_has_retry_after_and_slack_body(slack: LocalSlack) -> None:
    slack.rate_limit_post_message(CHANNEL, count=1, retry_after=7)
    limited = await post_raw(slack, CHANNEL)
    assert limited.status_code == 429
    assert limited.headers["Retry-After"] == "7"
    assert limited.json() == {"ok": False, "error": "ratelimited"}
    assert (await post_raw(slack, OTHER)).status_code == 200  # other channels unaffected
    assert (await post_raw(slack, CHANNEL)).status_code == 200  # only `count` calls
    assert [c.status for c in slack.calls("chat.postMessage")] == [429, 200, 200]
    assert len(slack.messages(CHANNEL)) == 1


async def test_slack_sdk_retry_handler_recovers(slack: LocalSlack) -> None:
    slack.rate_limit_post_message(CHANNEL, count=2, retry_after=0)
    client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=2))
    response = await client.chat_postMessage(channel=CHANNEL, text="eventually")
    assert response["ok"] is True
    assert [c.status for c in slack.calls("chat.postMessage")] == [429, 429, 200]
    assert [m.text for m in slack.messages(CHANNEL)] == ["eventually"]


async def test_without_a_retry_handler_the_429_surfaces(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    slack.rate_limit_post_message(CHANNEL, count=1)
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=CHANNEL, text="x")
    assert caught.value.response.status_code == 429
    assert caught.value.response.headers["Retry-After"] == "1"


async def test_automatic_limit_per_channel_per_second(
    timed_slack: LocalSlack, clock: FakeClock
) -> None:
    timed_slack.set_post_message_rate(2, retry_after=3)
    statuses = [(await post_raw(timed_slack, CHANNEL)).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert (await post_raw(timed_slack, OTHER)).status_code == 200
    clock.advance(1.01)
    assert (await post_raw(timed_slack, CHANNEL)).status_code == 200
    timed_slack.set_post_message_rate(None)
    assert all([(await post_raw(timed_slack, CHANNEL)).status_code == 200 for _ in range(5)])


@pytest.mark.parametrize(("error", "status"), [("internal_error", 200), ("fatal_error", 500)])
async def test_fail_method(
    client: AsyncWebClient, slack: LocalSlack, error: str, status: int
) -> None:
    slack.fail_method("chat.update", count=1, error=error, http_status=status)
    posted = await client.chat_postMessage(channel=CHANNEL, text="t")
    with pytest.raises(SlackApiError) as caught:
        await client.chat_update(channel=CHANNEL, ts=posted["ts"], text="t2")
    assert caught.value.response.status_code == status
    assert caught.value.response["error"] == error
    assert slack.message(CHANNEL, posted["ts"]).text == "t"
    await client.chat_update(channel=CHANNEL, ts=posted["ts"], text="t2")
    assert slack.message(CHANNEL, posted["ts"]).text == "t2"


async def posted_message(client: AsyncWebClient) -> str:
    response = await client.chat_postMessage(
        channel=CHANNEL, text="original", blocks=[section("o")]
    )
    ts: str = response["ts"]
    return ts


async def test_response_url_replace_original(client: AsyncWebClient, slack: LocalSlack) -> None:
    ts = await posted_message(client)
    url = slack.issue_response_url(CHANNEL, ts, user_id=slack.users()[0].id)
    webhook = AsyncWebhookClient(url)
    response = await webhook.send(text="replaced", blocks=[section("new")], replace_original=True)
    assert response.status_code == 200
    message = slack.message(CHANNEL, ts)
    assert message.text == "replaced"
    assert message.blocks[0]["text"]["text"] == "new"
    assert message.edited_count == 1
    call = slack.calls("response_url")[0]
    assert call.args["replace_original"] is True


async def test_response_url_ephemeral_in_channel_and_delete(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    ts = await posted_message(client)
    user = slack.users()[1].id
    url = slack.issue_response_url(CHANNEL, ts, user_id=user)
    webhook = AsyncWebhookClient(url)
    await webhook.send(text="just for you")
    await webhook.send(text="for everyone", response_type="in_channel")
    assert [(e.user, e.text, e.via) for e in slack.ephemerals()] == [
        (user, "just for you", "response_url")
    ]
    assert [m.text for m in slack.messages(CHANNEL)] == ["original", "for everyone"]
    await webhook.send_dict({"delete_original": True})
    assert [m.text for m in slack.messages(CHANNEL)] == ["for everyone"]


async def test_response_url_refusals(client: AsyncWebClient, slack: LocalSlack) -> None:
    ts = await posted_message(client)
    url = slack.issue_response_url(CHANNEL, ts)
    webhook = AsyncWebhookClient(url)
    bad = await webhook.send_dict({"replace_original": True, "blocks": [{"type": "nope"}]})
    assert bad.status_code == 400
    assert slack.message(CHANNEL, ts).text == "original"
    for _ in range(4):
        assert (await webhook.send(text="again", replace_original=True)).status_code == 200
    assert (await webhook.send(text="sixth", replace_original=True)).status_code == 404
    unknown = AsyncWebhookClient(f"{slack.url}/_response/nope")
    assert (await unknown.send(text="x")).status_code == 404


async def test_a_response_url_replaces_the_ephemeral_clicked_in_even_where_the_bot_is_not(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    user = slack.users()[0].id
    slack.remove_bot_from(CHANNEL)
    refused = await refusal(client.chat_postEphemeral(channel=CHANNEL, user=user, text="x"))
    assert refused["error"] == "not_in_channel"  # chat.postEphemeral needs the bot there
    # a slash command's answer (an ephemeral card), then a click in it
    answer = AsyncWebhookClient(slack.issue_response_url(CHANNEL, "", user_id=user))
    assert (await answer.send(text="card", blocks=[section("buttons")])).status_code == 200
    card = slack.ephemerals(user)[-1]
    url = slack.issue_response_url(CHANNEL, card.ts, user_id=user, ephemeral=True)
    click = AsyncWebhookClient(url)
    assert (await click.send(text="a notice")).status_code == 200
    replaced = await click.send(text="done", blocks=[section("outcome")], replace_original=True)
    assert replaced.status_code == 200
    shown = [(e.ts == card.ts, e.text, e.replaced) for e in slack.ephemerals(user)]
    assert shown == [(True, "done", 1), (False, "a notice", 0)]
    assert slack.messages(CHANNEL) == []  # no channel message was touched
