"""The bridge's only door to Slack's Web API.

Everything Slack-bound goes through `SlackGateway`, so rate limits and
transient failures are handled once: slack_sdk's own retry handlers (the
429 one is off by default in slack_sdk and must be added) do the waiting.

A 429 is always safe to retry (Slack did nothing). A lost connection or a
5xx is not, for `chat.postMessage`: Slack may have accepted the post before
the answer was lost, and a blind retry would post it twice. Those failures
reach the sync engine instead, which looks the message up before posting.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.slack.ids import METADATA_EVENT_TYPE
from bot.slack.render.context import RenderedMessage

log = logging.getLogger(__name__)

RESPOND_SECONDS = 10  # a response_url post: a notice, never a decision, waits no longer
RATE_LIMIT_RETRIES = 5
SERVER_ERROR_RETRIES = 2
CONNECTION_RETRIES = 2
WEB_API_TIMEOUT_SECONDS = 30  # slack_sdk's default for a call
HISTORY_PAGE = 15  # Slack's cap for non-Marketplace apps
NAME_LOOKUP_SECONDS = 2.0  # a slow users.info must not hold a decision back
# Slack's answers for a payload it will never take as it is: retrying it unchanged
# would fail forever, so callers send a smaller form instead.
MESSAGE_REFUSED_ERRORS = frozenset({"msg_blocks_too_long", "invalid_blocks"})
VIEW_REFUSED_ERRORS = frozenset({"invalid_arguments", "invalid_blocks", "view_too_large"})
# Methods that create something: a retry after a lost answer could create it twice.
NOT_IDEMPOTENT = frozenset({"chat.postMessage"})


def method_of(request: HttpRequest) -> str:
    """The Web API method a request calls (`chat.postMessage`), from its URL."""
    return request.url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class _IdempotentOnly(AsyncRetryHandler):
    """Delegates to a slack_sdk handler, but never retries a method that creates something."""

    def __init__(self, inner: AsyncRetryHandler) -> None:
        super().__init__(inner.max_retry_count, inner.interval_calculator)
        self._inner = inner

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if method_of(request) in NOT_IDEMPOTENT:
            return False
        return await self._inner._can_retry_async(
            state=state, request=request, response=response, error=error
        )


def build_web_client(
    token: str, base_url: str | None = None, *, session: aiohttp.ClientSession | None = None
) -> AsyncWebClient:
    """An AsyncWebClient that honours 429 Retry-After and retries transient failures.

    The handlers are given explicitly: slack_sdk installs a connection-error
    retry by default, which would re-send a `chat.postMessage` blindly. A long-lived
    process passes a `session` (see `keep_alive_session`); without one slack_sdk opens
    a connection, and a TLS handshake, for every call.
    """
    kwargs: dict[str, Any] = {"token": token}
    if session is not None:
        kwargs["session"] = session
    if base_url:
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    handlers: list[AsyncRetryHandler] = [
        AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        _IdempotentOnly(AsyncServerErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES)),
        _IdempotentOnly(AsyncConnectionErrorRetryHandler(max_retry_count=CONNECTION_RETRIES)),
    ]
    return AsyncWebClient(**kwargs, retry_handlers=handlers)


def keep_alive_session() -> aiohttp.ClientSession:
    """One connection pool for every Web API call of a process, made in its event loop.

    slack_sdk applies its own timeout only to sessions it makes, so this one carries
    the same total. Connections idle longer than aiohttp's keep-alive (15 s) are
    closed by us before Slack would drop them; a post that still meets a dropped
    connection is in doubt like any lost answer, and is looked for, not re-sent.
    """
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WEB_API_TIMEOUT_SECONDS))


def is_user_id(slack_id: str) -> bool:
    """A user (`U…`, or `W…` on Enterprise Grid), as a route's `dm:` list names them."""
    return slack_id.startswith(("U", "W"))


def _tagged(messages: list[dict[str, Any]], event_type: str, key: str) -> list[tuple[str, str]]:
    """(the id its metadata names, its ts) of each message carrying `event_type`."""
    tagged: list[tuple[str, str]] = []
    for message in messages:
        metadata = message.get("metadata") or {}
        payload = metadata.get("event_payload") or {}
        if metadata.get("event_type") == event_type and isinstance(payload.get(key), str):
            tagged.append((payload[key], str(message["ts"])))
    return tagged


def slack_ts(moment: datetime) -> str:
    """A datetime as a Slack message timestamp (`oldest`/`latest` of history calls)."""
    return f"{moment.timestamp():.6f}"


class SlackGateway:
    """Typed, minimal wrapper over the Web API methods the bridge calls."""

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client
        self._names: dict[str, str] = {}
        self._dms: dict[str, str] = {}  # user id -> the bot's DM with them (an id lookup)

    async def post_message(self, channel: str, message: RenderedMessage) -> str:
        return (await self.post_message_to(channel, message))[1]

    async def post_message_to(
        self, channel: str, message: RenderedMessage, *, thread_ts: str | None = None
    ) -> tuple[str, str]:
        """Post; (the channel Slack put it in, its ts). Posted to a user id, that is
        the DM's own id, which later updates must name. `thread_ts`: as a reply in
        that message's thread (a card under its step group)."""
        response = await self.client.chat_postMessage(
            channel=channel,
            text=message["text"],
            blocks=message["blocks"],
            metadata=message["metadata"] or None,
            thread_ts=thread_ts,
            unfurl_links=False,
            unfurl_media=False,
        )
        return str(response["channel"]), str(response["ts"])

    async def post_reply(self, channel: str, thread_ts: str, text: str) -> str:
        """A plain reply in a message's thread (a reminder), mentions allowed."""
        response = await self.client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, text=text, unfurl_links=False
        )
        return str(response["ts"])

    async def post_text(self, channel: str, text: str) -> str:
        """A plain message (a word to someone in their DM with the bot)."""
        response = await self.client.chat_postMessage(
            channel=channel, text=text, unfurl_links=False, unfurl_media=False
        )
        return str(response["ts"])

    async def permalink(self, channel: str, ts: str) -> str:
        response = await self.client.chat_getPermalink(channel=channel, message_ts=ts)
        return str(response["permalink"])

    async def update_message(self, channel: str, ts: str, message: RenderedMessage) -> None:
        await self.client.chat_update(
            channel=channel,
            ts=ts,
            text=message["text"],
            blocks=message["blocks"],
            metadata=message["metadata"] or None,
        )

    async def post_ephemeral(
        self,
        channel: str,
        user_id: str,
        text: str,
        *,
        thread_ts: str | None = None,
        blocks: list[dict[str, Any]] | None = None,
    ) -> None:
        """Shown only to `user_id`; `thread_ts`: in that message's thread."""
        await self.client.chat_postEphemeral(
            channel=channel, user=user_id, text=text, thread_ts=thread_ts, blocks=blocks
        )

    async def add_reaction(self, channel: str, ts: str, name: str) -> None:
        """React to a message (✅ on a reply whose answer Novo took); once is enough."""
        try:
            await self.client.reactions_add(channel=channel, timestamp=ts, name=name)
        except SlackApiError as exc:
            if exc.response.get("error") != "already_reacted":
                raise

    async def remove_reaction(self, channel: str, ts: str, name: str) -> None:
        """Take the bot's reaction off a message (a ✅ whose reply no longer says what was
        sent); one already gone is no error."""
        try:
            await self.client.reactions_remove(channel=channel, timestamp=ts, name=name)
        except SlackApiError as exc:
            if exc.response.get("error") not in ("no_reaction", "message_not_found"):
                raise

    async def respond(
        self,
        response_url: str,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        *,
        replace_original: bool = False,
    ) -> bool:
        """Post to a click's response_url (shown only to the clicker; `replace_original`:
        in place of the message clicked in). False when Slack did not take it (expired,
        used five times, refused): the caller has another way or logs the loss."""
        client = AsyncWebhookClient(response_url, timeout=RESPOND_SECONDS)
        try:
            answer = await client.send(
                text=text,
                blocks=blocks,
                response_type="ephemeral",
                replace_original=replace_original,
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("a response_url post got no answer: %r", exc)
            return False
        if answer.status_code != 200:
            log.warning("Slack refused a response_url post: %s %s", answer.status_code, answer.body)
            return False
        return True

    async def find_posted(
        self,
        channel: str,
        interaction_id: str,
        oldest: datetime | None = None,
        *,
        event_type: str = METADATA_EVENT_TYPE,
        key: str = "interaction_id",
        thread_ts: str | None = None,
    ) -> str | None:
        """The ts of a message we posted for `interaction_id`, found by its metadata
        (a step group's message: `event_type` and `key` name its group id).

        Only for the crash window between posting and recording the ts, so it
        searches from `oldest` (the claim time, less a margin) through every
        page since: a busy channel must not hide the earlier post. It is never
        an index: conversations.history is heavily rate-limited.

        `thread_ts`: the message is a reply in that thread (a step group's card).
        """
        since = slack_ts(oldest) if oldest is not None else None
        async for page in self._history(channel, since, thread_ts):
            for found, ts in _tagged(page, event_type, key):
                if found == interaction_id:
                    return ts
        return None

    async def posted_since(
        self,
        channel: str,
        oldest: str | None,
        *,
        thread_ts: str | None = None,
        event_type: str = METADATA_EVENT_TYPE,
        key: str = "interaction_id",
    ) -> dict[str, str]:
        """Every message of ours newer than the ts `oldest` in a channel (or in the thread
        of `thread_ts`), by the id its metadata names: the ts of each.

        One walk answers for every claim in doubt there after a crash, where looking
        for each one alone would cost a walk apiece at Slack's stingiest pace.
        """
        found: dict[str, str] = {}
        async for page in self._history(channel, oldest, thread_ts):
            for tagged, ts in _tagged(page, event_type, key):
                found.setdefault(tagged, ts)
        return found

    async def _history(
        self, channel: str, oldest: str | None, thread_ts: str | None
    ) -> AsyncIterator[list[dict[str, Any]]]:
        """The pages of a channel's history (or a thread's replies) newer than `oldest`.

        Slack's conversations.history lists a channel's own messages only, never
        the replies in threads, so a reply is looked for with conversations.replies
        of its parent; a parent that is gone holds no reply.
        """
        cursor: str | None = None
        while True:
            try:
                if thread_ts is None:
                    response = await self.client.conversations_history(
                        channel=channel,
                        limit=HISTORY_PAGE,
                        include_all_metadata=True,
                        cursor=cursor,
                        oldest=oldest,
                    )
                else:
                    response = await self.client.conversations_replies(
                        channel=channel,
                        ts=thread_ts,
                        limit=HISTORY_PAGE,
                        include_all_metadata=True,
                        cursor=cursor,
                        oldest=oldest,
                    )
            except SlackApiError as exc:
                if thread_ts is not None and exc.response.get("error") == "thread_not_found":
                    return
                raise
            yield response.get("messages") or []
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not response.get("has_more") or not cursor:
                return

    def cached_name(self, user_id: str) -> str | None:
        """The display name if already known; never calls Slack (clicks must not wait)."""
        return self._names.get(user_id)

    async def display_name(self, user_id: str, fallback: str | None = None) -> str:
        """The name people know the user by; cached, bounded in time, never fatal."""
        if user_id in self._names:
            return self._names[user_id]
        try:
            async with asyncio.timeout(NAME_LOOKUP_SECONDS):
                response = await self.client.users_info(user=user_id)
        except SlackApiError as exc:
            log.warning("users.info failed for %s: %s", user_id, exc.response.get("error"))
            return fallback or user_id
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("users.info for %s got no answer: %r", user_id, exc)
            return fallback or user_id
        user = response.get("user") or {}
        profile = user.get("profile") or {}
        name = (
            profile.get("display_name")
            or profile.get("real_name")
            or user.get("real_name")
            or user.get("name")
            or fallback
            or user_id
        )
        self._names[user_id] = str(name)
        return str(name)

    async def open_view(self, trigger_id: str, view: dict[str, Any]) -> str:
        response = await self.client.views_open(trigger_id=trigger_id, view=view)
        return str(response["view"]["id"])

    async def push_view(self, trigger_id: str, view: dict[str, Any]) -> str:
        response = await self.client.views_push(trigger_id=trigger_id, view=view)
        return str(response["view"]["id"])

    async def update_view(self, view_id: str, view: dict[str, Any]) -> None:
        await self.client.views_update(view_id=view_id, view=view)

    async def publish_view(self, user_id: str, view: dict[str, Any]) -> None:
        """Replace what the person's App Home tab shows (views.publish, no scope needed)."""
        await self.client.views_publish(user_id=user_id, view=view)

    async def open_dm(self, user_id: str) -> str:
        """The id (`D…`) of the bot's DM with a user (conversations.open, scope `im:write`).

        A post may name the user, but chat.update, conversations.history,
        chat.getPermalink and thread replies want the DM's own id. Cached per user:
        the DM of a bot and a person never changes, so this is a lookup, not state.
        """
        known = self._dms.get(user_id)
        if known is not None:
            return known
        response = await self.client.conversations_open(users=user_id)
        channel = str(response["channel"]["id"])
        self._dms[user_id] = channel
        return channel

    async def conversation_for(self, destination: str) -> str:
        """Where to post for a route's destination: a channel as it is, a user's DM by its id."""
        return await self.open_dm(destination) if is_user_id(destination) else destination
