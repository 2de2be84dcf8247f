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

from slack_sdk.errors import SlackApiError

NOT_JSON = "an answer that is not JSON"


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
