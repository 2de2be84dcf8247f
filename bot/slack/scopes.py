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
)
