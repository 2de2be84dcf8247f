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

from bot.localslack.payloads import VERIFICATION_TOKEN
from bot.localslack.records import Identity


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


def url_verification(challenge: str) -> dict[str, Any]:
    """What Slack sends when the Events request URL is saved; the app echoes `challenge`."""
    return {"token": VERIFICATION_TOKEN, "challenge": challenge, "type": "url_verification"}
