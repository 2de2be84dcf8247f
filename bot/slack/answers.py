"""What a failed Slack Web API call said, whatever came back.

slack_sdk raises `SlackApiError` for Slack's `{"ok": false, "error": "…"}`, but
also for answers that are not Slack's at all: a 404 page from a URL that is not
the Web API (the local Slack without `/api/`), plain text, a body that is not
JSON. Its `response` is then a string-bodied response, or even aiohttp's raw
one, and `response.get("error")` raises `AttributeError`. Every caller that
turns a refusal into a line for a person reads it through here, so such an
answer reads "not Slack's Web API" instead of ending in a traceback.
"""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.outages import out_of_reach as outage_failure

NOT_JSON = "an answer that is not JSON"
UNAVAILABLE = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout"})
"""Slack's own words for "not now, I am not up": the call was not done, and no fault of it."""


def unavailable(status: int, error: str | None) -> bool:
    """An answer saying Slack is down (a 5xx, or an error code saying so), not a refusal.

    A 429 is no outage: Slack is up and says when to come back (the client waits it out).
    """
    return status >= 500 or error in UNAVAILABLE


@outage_failure
def out_of_reach(exc: BaseException) -> bool:
    """A failed call that is Slack out of reach (no answer at all, or a "down" answer):
    the Slack outage's to say (bot.slack.availability), not the caller's."""
    if isinstance(exc, SlackApiError):
        return unavailable(http_status(exc), slack_error(exc))
    return isinstance(exc, aiohttp.ClientError | TimeoutError | OSError)


def slack_error(exc: SlackApiError) -> str | None:
    """Slack's `error` code (`invalid_auth`), or None when the answer is not Slack's shape."""
    data = getattr(exc.response, "data", None)
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    return error if isinstance(error, str) and error else None


def http_status(exc: SlackApiError) -> int:
    """The HTTP status of the answer (slack_sdk's response or aiohttp's); 0 when unknown."""
    response = exc.response
    for name in ("status_code", "status"):
        value = getattr(response, name, None)
        if isinstance(value, int):
            return value
    return 0


def describe(exc: SlackApiError) -> str:
    """Slack's error code, or `HTTP 404` (`not JSON` when even that is unknown)."""
    error = slack_error(exc)
    if error is not None:
        return error
    status = http_status(exc)
    return f"HTTP {status}" if status else NOT_JSON


def not_web_api(method: str, exc: SlackApiError) -> str:
    """The one line for an answer that is not Slack's Web API, naming SLACK_API_URL."""
    return (
        f"SLACK_API_URL does not answer like Slack's Web API ({method}: {describe(exc)});"
        " it is the base the methods hang off, e.g. https://slack.com/api/"
    )
