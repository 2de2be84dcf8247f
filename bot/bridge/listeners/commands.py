"""`/novo`: acked at once, answered through the command's response_url, to the caller only.

The ack carries nothing: Slack wants it within 3 seconds, and an answer may
need Slack lookups (who the caller is, their groups, links) that can take
longer. Over HTTP and Socket Mode alike, Bolt sends the ack when `ack()` is
called and the answer follows as an ephemeral message.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond

from bot.bridge.listeners import person, services_of
from bot.bridge.wiring import Services
from bot.domain import SlackActor
from bot.slack.command_text import COMMAND


def caller_of(services: Services, command: dict[str, Any]) -> SlackActor:
    """Who typed it, named from the cache or the payload: nothing is looked up before the ack."""
    return person(
        services, command.get("user_id"), command.get("user_name"), command.get("team_id")
    )


def register(app: AsyncApp) -> None:
    @app.command(COMMAND)
    async def novo(
        ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        answer = await services.commands.answer(
            str(command.get("text") or ""), caller_of(services, command)
        )
        await respond(text=answer["text"], blocks=answer["blocks"], response_type="ephemeral")
