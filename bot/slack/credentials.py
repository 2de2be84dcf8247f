"""The Slack tokens checked before the bridge says it has started.

A wrong bot token would otherwise surface at the first post, minutes later,
and a wrong app token would make Socket Mode retry forever; `auth.test` and
`apps.connections.open` tell at once. Slack refusing a token is a settings
error; Slack being unreachable or busy is waited out (with backoff, and
cancellable, so a signal still stops the process).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import SettingsError
from bot.slack.answers import UNAVAILABLE, http_status, not_web_api, slack_error

log = logging.getLogger(__name__)

RETRY_FIRST_SECONDS = 0.5
RETRY_MAX_SECONDS = 15.0
# Answers that say "not now" rather than "not this token".
_TRANSIENT = UNAVAILABLE | {"ratelimited"}


@dataclass(frozen=True)
class SlackIdentity:
    """Who the bot token belongs to: what payloads from this workspace must agree with.

    `url` is the workspace's address (`https://<domain>.slack.com/`): links to
    messages are built from it without asking Slack for each one.
    """

    team_id: str
    enterprise_id: str | None = None
    app_id: str | None = None
    bot_user_id: str | None = None
    url: str | None = None


async def check_bot_token(client: AsyncWebClient) -> SlackIdentity:
    """`auth.test` with the bot token; `SettingsError` naming SLACK_BOT_TOKEN when refused."""
    body = await _until_answered("SLACK_BOT_TOKEN", "auth.test", client.auth_test)
    return SlackIdentity(
        team_id=str(body.get("team_id") or ""),
        enterprise_id=body.get("enterprise_id") or None,
        app_id=body.get("app_id") or None,
        bot_user_id=body.get("user_id") or None,
        url=body.get("url") or None,
    )


async def check_app_token(client: AsyncWebClient, app_token: str) -> str:
    """`apps.connections.open` with the app token; returns the WebSocket URL it hands out."""

    async def call() -> Any:
        return await client.apps_connections_open(app_token=app_token)

    body = await _until_answered("SLACK_APP_TOKEN", "apps.connections.open", call)
    return str(body["url"])


def refused(setting: str, method: str, error: str) -> str:
    """The one line for a token Slack refuses: `run` stops with it, `check` shows it."""
    return f"{setting} was refused by Slack ({method}: {error})"


def is_transient(error: str | None, status: int) -> bool:
    """Slack says "not now" (busy, rate limited, a 5xx), rather than "not this token"."""
    return error in _TRANSIENT or status >= 500


async def _until_answered(
    setting: str, method: str, call: Callable[[], Awaitable[Any]]
) -> dict[str, Any]:
    delay = RETRY_FIRST_SECONDS
    while True:
        try:
            response = await call()
            return dict(response.data) if hasattr(response, "data") else dict(response)
        except SlackApiError as exc:
            status = http_status(exc)
            error = slack_error(exc)  # None: not Slack's {"ok": false, "error": "..."} shape
            if error is None and status < 500:
                raise SettingsError(not_web_api(method, exc)) from None
            if error not in _TRANSIENT and status < 500:
                raise SettingsError(refused(setting, method, str(error))) from None
            why = str(error or f"HTTP {status}")
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            why = str(exc) or type(exc).__name__
        # DEBUG: Slack out of reach is said once, by the client's watch (bot.slack.availability)
        log.debug("Slack did not answer %s (%s); trying again in %.1fs", method, why, delay)
        await asyncio.sleep(delay)
        delay = min(delay * 2, RETRY_MAX_SECONDS)
