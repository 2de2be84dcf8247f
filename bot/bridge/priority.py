"""Clicks first: the Bolt app marks each click from its arrival until its ack.

What a person did and waits to see acknowledged (a button, a menu choice, a
form submitted or closed, a slash command) must be acked within Slack's 3
seconds, whatever else is going on. Heavy requests (type-ahead, Home) wait
at their checkpoints while a click is marked (`HeavyWork`). Bolt's
`async_dispatch` returns the response Slack gets, over HTTP and Socket Mode
alike, once the listener acked (or the middleware answered), so marking
around it marks exactly the wait Slack's side sees.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.services.heavy import HeavyWork

CLICK_TYPES = frozenset(
    {"block_actions", "view_submission", "view_closed", "shortcut", "message_action"}
)
"""Interaction payloads a person waits on; `block_suggestion` (type-ahead) is not one."""


def is_click(body: Any) -> bool:
    """A payload of something a person did and waits to see acked (a slash command too)."""
    if not isinstance(body, dict):
        return False
    return body.get("type") in CLICK_TYPES or "command" in body


class ClicksFirstApp(AsyncApp):
    """Bolt's app, marking every click in `heavy` until its response is ready."""

    def __init__(self, heavy: HeavyWork, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._heavy = heavy

    async def async_dispatch(self, req: AsyncBoltRequest) -> BoltResponse:
        if not is_click(req.body):
            return await super().async_dispatch(req)
        async with self._heavy.click():
            return await super().async_dispatch(req)
