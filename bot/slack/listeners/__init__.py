"""Bolt listeners: parse the payload, call a service, ack. Nothing else lives here."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.domain import SlackActor
from bot.services.container import Services
from bot.services.decisions import Acknowledge

SERVICES_KEY = "novo_services"


def services_of(context: AsyncBoltContext) -> Services:
    services = context[SERVICES_KEY]
    assert isinstance(services, Services)
    return services


def actor_of(services: Services, body: dict[str, Any]) -> SlackActor:
    """Who clicked, named from the cache or the payload: no lookup delays the ack.

    The decision service completes the name (users.info) when it delivers.
    """
    user = body.get("user") or {}
    return person(
        services, user.get("id"), user.get("name") or user.get("username"), user.get("team_id")
    )


def person(services: Services, user_id: object, name: object, team_id: object) -> SlackActor:
    """A SlackActor from a payload's fields (shapes differ: an interaction's `user`
    object, a slash command's flat fields), named from the cache or the payload."""
    uid = str(user_id or "")
    return SlackActor(
        uid,
        services.slack.cached_name(uid) or str(name or uid),
        team_id=str(team_id) if team_id else None,
    )


def acknowledging(ack: AsyncAck) -> Acknowledge:
    """Bolt's `ack` as the decision service calls it: once the decision is stored."""

    async def acknowledge() -> None:
        await ack()

    return acknowledge


def register_all(app: AsyncApp) -> None:
    from bot.slack.listeners import approvals, commands, groups, home, questions, viewer

    approvals.register(app)
    commands.register(app)
    groups.register(app)
    viewer.register(app)
    questions.register(app)
    home.register(app)
