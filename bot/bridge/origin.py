"""Only a person in this bot's own workspace, through this app, can decide anything.

A signed payload proves it came through Slack, not whose click it was: an
app shared across workspaces, or a payload with no user, must not resolve an
interaction here. This Bolt middleware acks such payloads (so Slack does
not retry them) and stops them before any listener, logging one line.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncBoltContext
from slack_bolt.response import BoltResponse

from bot.slack.credentials import SlackIdentity

log = logging.getLogger(__name__)

Next = Callable[[], Awaitable[None]]
OriginCheck = Callable[..., Awaitable[BoltResponse | None]]


def refusal(identity: SlackIdentity, context: AsyncBoltContext, body: Any) -> str | None:
    """Why a payload may not act in this workspace, or None when it may."""
    if not context.user_id:
        return "no user"
    team, enterprise = context.team_id, context.enterprise_id
    ours = team == identity.team_id or (
        identity.enterprise_id is not None and enterprise == identity.enterprise_id
    )
    if not ours:
        return f"team {team or '(none)'} is not this bot's team {identity.team_id}"
    app_id = body.get("api_app_id") if isinstance(body, dict) else None
    if identity.app_id and app_id and app_id != identity.app_id:
        return f"app {app_id} is not this app {identity.app_id}"
    return None


def origin_check(identity: SlackIdentity) -> OriginCheck:
    """The Bolt middleware: refused payloads get an empty ack and a WARNING line."""

    async def check_origin(
        context: AsyncBoltContext, body: dict[str, Any], next: Next
    ) -> BoltResponse | None:
        why = refusal(identity, context, body)
        if why is None:
            await next()
            return None
        kind = body.get("type") if isinstance(body, dict) else None
        log.warning("ignored a %s payload from outside this workspace: %s", kind, why)
        return BoltResponse(status=200, body="")

    return check_origin
