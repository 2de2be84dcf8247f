"""Events API deliveries as Slack makes them: the `event_callback` wrapper and its events.

Over HTTP Slack POSTs the wrapper as a JSON body (`application/json`, signed
like every request), and once, when the request URL is set, a
`url_verification` challenge the app must echo. In Socket Mode the same
wrapper is the `payload` of an `events_api` envelope. Shapes follow Slack's
Events API reference (`app_home_opened`: `user`, `channel` (the DM with the
app), `tab`, `event_ts`, and `view` once a Home view was published).
"""

from __future__ import annotations

import secrets
from typing import Any

from novo_dev.localslack.payloads import VERIFICATION_TOKEN
from novo_dev.localslack.records import Identity, StoredMessage


def event_callback(ident: Identity, event: dict[str, Any], *, at: float) -> dict[str, Any]:
    """The outer payload every Events API delivery carries."""
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": ident.team_id,
        "api_app_id": ident.app_id,
        "event": event,
        "type": "event_callback",
        "event_id": f"Ev{secrets.token_hex(5).upper()}",
        "event_time": int(at),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": ident.team_id,
                "user_id": ident.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
    }


def app_home_opened(
    user_id: str, channel: str, *, tab: str, at: float, view: dict[str, Any] | None
) -> dict[str, Any]:
    """Someone entered the app's Home (`tab` "home") or its Messages tab."""
    event: dict[str, Any] = {
        "type": "app_home_opened",
        "user": user_id,
        "channel": channel,
        "tab": tab,
        "event_ts": f"{at:.6f}",
    }
    if view is not None:
        event["view"] = view
    return event


def channel_type(channel: str) -> str:
    """The `channel_type` a message event carries: a DM, a private channel, or a channel."""
    if channel.startswith("D"):
        return "im"
    return "group" if channel.startswith("G") else "channel"


def message_event(message: StoredMessage) -> dict[str, Any]:
    """A new message (`message.channels`, `.groups`, `.im`): a person's has no subtype,
    another app's is a `bot_message` with its `bot_id`; a reply names its `thread_ts`."""
    event: dict[str, Any] = {
        "type": "message",
        "channel": message.channel,
        "user": message.user,
        "text": message.text,
        "ts": message.ts,
        "event_ts": message.ts,
        "channel_type": channel_type(message.channel),
        "team": message.team,
    }
    if message.bot_id:
        event.update(subtype="bot_message", bot_id=message.bot_id)
    if message.thread_ts is not None:
        event["thread_ts"] = message.thread_ts
    return event


def message_changed_event(message: StoredMessage, previous: str, *, at: float) -> dict[str, Any]:
    """Someone edited `message` (its text was `previous`): Slack's `message_changed`."""
    now = message.to_api(include_metadata=False)
    return {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "channel": message.channel,
        "channel_type": channel_type(message.channel),
        "message": {**now, "edited": {"user": message.user, "ts": f"{at:.6f}"}},
        "previous_message": {**now, "text": previous},
        "ts": f"{at:.6f}",
        "event_ts": f"{at:.6f}",
    }


def message_deleted_event(message: StoredMessage, *, at: float) -> dict[str, Any]:
    """Someone deleted `message`: Slack's `message_deleted`, naming it by `deleted_ts`."""
    return {
        "type": "message",
        "subtype": "message_deleted",
        "hidden": True,
        "channel": message.channel,
        "channel_type": channel_type(message.channel),
        "deleted_ts": message.ts,
        "previous_message": message.to_api(include_metadata=False),
        "ts": f"{at:.6f}",
        "event_ts": f"{at:.6f}",
    }


def url_verification(challenge: str) -> dict[str, Any]:
    """What Slack sends when the Events request URL is saved; the app echoes `challenge`."""
    return {"token": VERIFICATION_TOKEN, "challenge": challenge, "type": "url_verification"}
