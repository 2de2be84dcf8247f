"""Escaping, truncation and small Block Kit builders every renderer shares.

Agent-supplied text is untrusted: it must never mention a user or a channel
and never break out of its formatting, however it is written. Everything
here is a pure function.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

ELLIPSIS = "…"
_ZWSP = "\u200b"
_BROADCASTS = ("@channel", "@here", "@everyone")


def truncate(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """Cut `text` to at most `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    if limit <= len(marker):
        return text[:limit]
    return text[: limit - len(marker)] + marker


def escape_mrkdwn(text: str) -> str:
    """Neutralise Slack control sequences: `<!channel>`, `<@U…>`, links, `@here`.

    Slack's own rule is to escape `&`, `<` and `>`; bare broadcast words get a
    zero-width space so no client or future flag can turn them into pings.
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for word in _BROADCASTS:
        text = text.replace(word, "@" + _ZWSP + word[1:])
    return text


def escape_inline(text: str) -> str:
    """Escape text shown inside mrkdwn prose: also defuse `*`, `_`, `~`, `` ` `` runs."""
    escaped = escape_mrkdwn(text)
    for char in ("*", "_", "~", "`"):
        escaped = escaped.replace(char, char + _ZWSP)
    return escaped


def code_block(text: str, limit: int) -> str:
    """A ``` block holding `text` verbatim (escaped), the whole block at most `limit` chars."""
    # a zero-width space between every two backticks: no run of them can close the fence
    body = re.sub(r"`(?=`)", "`" + _ZWSP, escape_mrkdwn(text))
    fence = "```"
    room = limit - 2 * len(fence) - 2
    return f"{fence}\n{truncate(body, room)}\n{fence}"


def pretty_json(value: Any) -> str:
    """Readable JSON for humans; never raises, whatever the agent sent."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def plain_text(text: str, limit: int, *, emoji: bool = True) -> dict[str, Any]:
    """A plain_text object; Slack rejects empty text, so an empty string becomes a space."""
    return {"type": "plain_text", "text": truncate(text, limit) or " ", "emoji": emoji}


def mrkdwn(text: str, limit: int) -> dict[str, Any]:
    """A mrkdwn text object from already-escaped text, cut to `limit`."""
    return {"type": "mrkdwn", "text": truncate(text, limit) or " "}


def date_token(when: datetime, fmt: str = "{date_short_pretty} at {time}") -> str:
    """A Slack date token: each viewer sees `when` in their own time zone."""
    fallback = when.strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(when.timestamp())}^{fmt}|{fallback}>"


def relative_deadline(expires_at: datetime, now: datetime) -> str:
    """'expires in 4 min' / 'expired' — Slack cannot render a countdown, so we do."""
    seconds = (expires_at - now).total_seconds()
    if seconds <= 0:
        return "expired"
    if seconds < 60:
        return "expires in less than a minute"
    minutes = int(seconds // 60)
    if minutes < 120:
        return f"expires in {minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"expires in {hours} h {minutes % 60} min"
    return f"expires in {hours // 24} days"
