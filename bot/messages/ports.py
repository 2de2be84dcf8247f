"""What the rest of the bridge may ask of its messages, without knowing who keeps them.

Services never import the publisher (`bot.messages.publisher`): a service that changed
what an interaction's messages show asks for a refresh by its id (`Refresh`), and one
that shows an interaction elsewhere (App Home, a digest, a snooze's DM, `/novo show`)
asks for what a message would show (`Messages`). The publisher is the one thing behind
both; tests may stand anything else there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.messages.lanes import SendLanes
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.store import TrackedInteraction


class Refresh(Protocol):
    """Ask for an interaction's messages to be brought in step with the store."""

    async def refresh_soon_by_id(self, interaction_id: str) -> None:
        """Queue a re-render of every message about it (its step group's too); never waits
        for Slack."""


class Messages(Refresh, Protocol):
    """Everything a service asks of the messages: refreshes, what a message would show,
    the send lanes (their pace is everyone's), and an escalation's post."""

    lanes: SendLanes

    async def refresh_group_soon(self, group_id: str) -> None:
        """Queue a re-render of a step group's own message."""

    async def context(self, tracked: TrackedInteraction) -> MessageContext:
        """What its message shows besides its record."""

    async def contexts(self, many: Sequence[TrackedInteraction]) -> dict[str, MessageContext]:
        """`context` of each, by id, read together."""

    async def render(self, tracked: TrackedInteraction) -> RenderedMessage:
        """Its message as the channel shows it."""

    async def post_escalation(self, tracked: TrackedInteraction, target: str) -> bool:
        """Post a tracked escalation message to `target` (audited as `escalated`); True
        when this call posted or found it."""
