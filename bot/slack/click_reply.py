"""Where the answer to a click can go: the click's own `response_url`.

Slack gives every click in a message a `response_url` that posts to that
conversation whatever the bot's membership (30 minutes, 5 uses), and, for a
click in an ephemeral message, the only way to change that message. A notice
sent with `chat.postEphemeral` instead needs the bot in the channel: a card
shown by `/novo show` in a channel the bot is not in would have its notices
refused there and lost. Parsed from a signed payload, so the URL is Slack's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ClickReply:
    response_url: str
    ephemeral: bool
    """The click was in an ephemeral message (a `/novo show` card): nothing else reaches it."""


def reply_of(body: dict[str, Any]) -> ClickReply | None:
    """The click's response_url, or None (a click in a modal or the Home tab has none)."""
    url = body.get("response_url")
    if not isinstance(url, str) or not url:
        return None
    container = body.get("container") or {}
    return ClickReply(url, ephemeral=bool(container.get("is_ephemeral")))
