"""The bot scopes the app asks for: manifest.yml lists the same (a test keeps them equal).

`novo-slack check` wants the token to have every one; the local Slack grants
exactly these unless a test says otherwise, so a feature needing one more
fails there as it would in a real workspace.
"""

from __future__ import annotations

REQUIRED_BOT_SCOPES = (
    "chat:write",
    "users:read",
    "channels:history",
    "groups:history",
    "channels:read",
    "groups:read",
    "usergroups:read",
    "im:write",
    "im:history",
    "commands",
    # the ✅ on a thread reply whose answer Novo took
    "reactions:write",
)

REQUIRED_BOT_EVENTS = (
    "app_home_opened",
    # replies in a question's thread answer it: public and private channels, DMs
    "message.channels",
    "message.groups",
    "message.im",
)
"""The bot events the app subscribes to: manifest.yml lists the same (a test keeps them equal)."""
