"""Whether Slack answers, told by the final answer of every Web API call the bridge makes.

Slack down fails every post, update, DM and Home publish the bridge tries, each in
a job or a click of its own: said by each of them, a ten-minute outage was a
warning per message per retry. The client's answers are seen here instead, once,
the way `call_metrics` counts them: a retry handler that never asks for a retry.
Put last among the client's handlers, it sees only what no handler before it
retried (slack_sdk stops at the first that does), that is the answer the caller
gets: a 5xx or a lost connection that a retry then mended is no outage.

What is an outage is `bot.slack.answers`' to say (no answer, a 5xx, Slack's
"service_unavailable"; never a 429, which is Slack up and pacing us). The outage
itself, said twice with its metric, is `bot.outages.Outage`'s.
"""

from __future__ import annotations

import logging

from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.outages import Outage
from bot.slack.answers import out_of_reach, unavailable
from bot.slack.gateway import method_of

log = logging.getLogger(__name__)


class SlackWatch(AsyncRetryHandler):
    """Tells `outage` of every call's final answer; never asks for a retry."""

    def __init__(self, outage: Outage, where: str) -> None:
        super().__init__(max_retry_count=1 << 30)
        self.outage = outage
        self._where = where

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if error is not None and not out_of_reach(error):
            return False  # no word on Slack either way (an answer it could not read)
        why = _down(response, error)
        if why is None:
            self.outage.answered("Slack at %s answers again", self._where)
        else:
            line = "Slack at %s does not answer (%s: %s); what failed is tried again"
            self.outage.failed(line, self._where, method_of(request), why)
        return False


def watch_slack(client: AsyncWebClient) -> Outage:
    """Put a `SlackWatch` last among the client's retry handlers (once); its outage."""
    handlers = client.retry_handlers
    for handler in handlers:
        if isinstance(handler, SlackWatch):
            return handler.outage
    watch = SlackWatch(Outage("slack", log), client.base_url)
    handlers.append(watch)
    return watch.outage


def _down(response: HttpResponse | None, error: Exception | None) -> str | None:
    """Why the answer says Slack is out of reach, or None when Slack answered."""
    if error is not None:
        return str(error) or type(error).__name__
    if response is None:
        return "no answer"
    body = response.body if isinstance(response.body, dict) else {}
    reported = body.get("error")
    code = reported if isinstance(reported, str) else None
    if not unavailable(response.status_code, code):
        return None
    return f"HTTP {response.status_code}" + (f" {code}" if code else "")
