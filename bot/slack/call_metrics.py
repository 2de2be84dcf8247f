"""Counting every Slack Web API answer, by method and error, where the client is built."""

from __future__ import annotations

from typing import Any

from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot.metrics import SLACK_CALLS
from bot.slack.gateway import method_of


class SlackCallCounter(AsyncRetryHandler):
    """Counts every answer slack_sdk gets, by method and error, and never asks for a retry.

    slack_sdk shows each HTTP answer (a 429 its rate-limit handler then waits
    out included) to the client's retry handlers in turn; first in the list,
    this one sees them all, in HTTP and Socket Mode alike, without wrapping
    any call.
    """

    def __init__(self) -> None:
        super().__init__(max_retry_count=1 << 30)

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        method = method_of(request)
        SLACK_CALLS.labels(method, _slack_error(response, error)).inc()
        return False


def install_slack_counter(client: Any) -> None:
    """Put a `SlackCallCounter` first among an AsyncWebClient's retry handlers (once)."""
    handlers = client.retry_handlers
    if not any(isinstance(h, SlackCallCounter) for h in handlers):
        handlers.insert(0, SlackCallCounter())


def _slack_error(response: HttpResponse | None, error: Exception | None) -> str:
    if error is not None:
        return type(error).__name__
    if response is None:
        return "no_response"
    if response.status_code == 429:
        return "ratelimited"
    body = response.body if isinstance(response.body, dict) else {}
    if body.get("ok") is True:
        return "ok"
    reported = body.get("error")
    if isinstance(reported, str) and reported:
        return reported[:64]
    return f"http_{response.status_code}"
