"""Bolt listeners: parse the payload, call a service, ack. Nothing else lives here."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from bot.services.container import Services
from bot.slack.render.context import SlackActor

SERVICES_KEY = "novo_services"


def services_of(context: AsyncBoltContext) -> Services:
    services = context[SERVICES_KEY]
    assert isinstance(services, Services)
    return services


async def actor_of(services: Services, body: dict[str, Any]) -> SlackActor:
    """Who clicked, with the name people know them by (users.info, cached)."""
    user = body.get("user") or {}
    user_id = str(user.get("id", ""))
    fallback = user.get("name") or user.get("username")
    return SlackActor(user_id, await services.slack.display_name(user_id, fallback))


def register_all(app: AsyncApp) -> None:
    from bot.slack.listeners import approvals, questions, viewer

    approvals.register(app)
    viewer.register(app)
    questions.register(app)
