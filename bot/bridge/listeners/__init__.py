"""Bolt listeners: take the parsed payload, call a service, tell. Nothing else lives here.

An interactive payload is parsed once, by a middleware (`bot.bridge.app`), into a
`Click` (who, where, the way back to them); Bolt hands it to every listener as the
`click` keyword argument, as it hands `context`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.wiring import Services
from bot.domain import SlackActor
from bot.services.acking import ACK_BUDGET_SECONDS, AckWindow
from bot.slack.click_reply import ClickReply, reply_of

SERVICES_KEY = "novo_services"
CLICK_KEY = "click"
"""The parsed payload's key in Bolt's context, and so the listeners' argument name."""
ARRIVED_KEY = "novo_arrived"
"""When the request reached the app, on the event loop's clock (set by the first middleware)."""


def services_of(context: AsyncBoltContext) -> Services:
    services = context[SERVICES_KEY]
    assert isinstance(services, Services)
    return services


@dataclass(frozen=True)
class Click:
    """An interactive request as listeners need it: who clicked or submitted, in which
    channel (None in a modal or the Home tab), how to answer them, the trigger."""

    actor: SlackActor
    channel: str | None
    reply: ClickReply | None
    trigger_id: str | None


def click_of(services: Services, body: dict[str, Any]) -> Click | None:
    """The `Click` of an interactive payload; None for events and commands."""
    if not isinstance(body.get("user"), dict):
        return None
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
        "channel_id"
    )
    trigger = body.get("trigger_id")
    return Click(
        actor_of(services, body),
        str(channel) if channel else None,
        reply_of(body),
        str(trigger) if trigger else None,
    )


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


def arrived(context: AsyncBoltContext) -> float:
    """When the request arrived (loop time): Slack's 3 s count from there."""
    stamped = context.get(ARRIVED_KEY)
    return float(stamped) if stamped is not None else asyncio.get_running_loop().time()


def acknowledging(ack: AsyncAck, context: AsyncBoltContext) -> AckWindow:
    """Bolt's `ack` as the services call it (once the decision is stored), with the
    deadline the work before it must meet."""

    async def acknowledge() -> None:
        await ack()

    return AckWindow(acknowledge, arrived(context) + ACK_BUDGET_SECONDS)


def register_all(app: AsyncApp) -> None:
    from bot.bridge.listeners import (
        approvals,
        commands,
        groups,
        home,
        questions,
        thread_replies,
        viewer,
    )

    approvals.register(app)
    commands.register(app)
    groups.register(app)
    viewer.register(app)
    questions.register(app)
    home.register(app)
    thread_replies.register(app)
