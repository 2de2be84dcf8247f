"""The bridge's only door to Slack's Web API.

Everything Slack-bound goes through `SlackGateway`, so rate limits and
transient failures are handled once: slack_sdk's own retry handlers (the
429 one is off by default in slack_sdk and must be added) do the waiting.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.ids import METADATA_EVENT_TYPE
from bot.slack.render.context import RenderedMessage

log = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 5
SERVER_ERROR_RETRIES = 2
CONNECTION_RETRIES = 2
HISTORY_PAGE = 15  # Slack's cap for non-Marketplace apps


def build_web_client(token: str, base_url: str | None = None) -> AsyncWebClient:
    """An AsyncWebClient that honours 429 Retry-After and retries transient failures."""
    kwargs: dict[str, Any] = {"token": token}
    if base_url:
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    client = AsyncWebClient(**kwargs)
    client.retry_handlers.extend(
        [
            AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
            AsyncServerErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES),
            AsyncConnectionErrorRetryHandler(max_retry_count=CONNECTION_RETRIES),
        ]
    )
    return client


class SlackGateway:
    """Typed, minimal wrapper over the Web API methods the bridge calls."""

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client
        self._names: dict[str, str] = {}

    async def post_message(self, channel: str, message: RenderedMessage) -> str:
        response = await self.client.chat_postMessage(
            channel=channel,
            text=message["text"],
            blocks=message["blocks"],
            metadata=message["metadata"],
            unfurl_links=False,
            unfurl_media=False,
        )
        return str(response["ts"])

    async def update_message(self, channel: str, ts: str, message: RenderedMessage) -> None:
        await self.client.chat_update(
            channel=channel,
            ts=ts,
            text=message["text"],
            blocks=message["blocks"],
            metadata=message["metadata"],
        )

    async def post_ephemeral(self, channel: str, user_id: str, text: str) -> None:
        await self.client.chat_postEphemeral(channel=channel, user=user_id, text=text)

    async def find_posted(self, channel: str, interaction_id: str, pages: int = 3) -> str | None:
        """The ts of a message we posted for `interaction_id`, found by its metadata.

        Only for the crash window between posting and recording the ts:
        conversations.history is heavily rate-limited, so it is never an index.
        """
        cursor: str | None = None
        for _ in range(pages):
            response = await self.client.conversations_history(
                channel=channel, limit=HISTORY_PAGE, include_all_metadata=True, cursor=cursor
            )
            messages: list[dict[str, Any]] = response.get("messages") or []
            for message in messages:
                metadata = message.get("metadata") or {}
                payload = metadata.get("event_payload") or {}
                if (
                    metadata.get("event_type") == METADATA_EVENT_TYPE
                    and payload.get("interaction_id") == interaction_id
                ):
                    return str(message["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not response.get("has_more") or not cursor:
                return None
        return None

    async def display_name(self, user_id: str, fallback: str | None = None) -> str:
        """The name people know the user by; cached, and never fatal if Slack won't say."""
        if user_id in self._names:
            return self._names[user_id]
        try:
            response = await self.client.users_info(user=user_id)
        except SlackApiError as exc:
            log.warning("users.info failed for %s: %s", user_id, exc.response.get("error"))
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
