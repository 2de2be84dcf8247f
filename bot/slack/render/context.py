"""What the bridge knows beyond the API record, handed to every renderer.

The API echoes a reason without saying who gave it, so who decided in Slack,
when, and a decision still waiting to be delivered live here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from bot.domain import SlackActor, SlackDecision

__all__ = ["MessageContext", "RenderedMessage", "SlackActor", "SlackDecision"]


@dataclass(frozen=True)
class MessageContext:
    """Everything a message render needs besides the interaction.

    `now` is passed in (renderers never read the clock) so the countdown is
    testable. `queued` is a decision taken in Slack that Novo has not yet
    acknowledged (it was unreachable); `gone` means Novo answered 404.
    """

    now: datetime
    decided_in_slack: SlackDecision | None = None
    queued: SlackDecision | None = None
    gone: bool = False


class RenderedMessage(TypedDict):
    text: str
    blocks: list[dict[str, Any]]
    metadata: dict[str, Any]
