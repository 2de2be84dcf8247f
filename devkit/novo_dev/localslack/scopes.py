"""The OAuth scope a Web API method needs, for the methods where the local Slack checks it.

A feature that calls a method the app was never granted works against a
lenient fake and fails in the real workspace; Slack answers `missing_scope`
naming the scope it wanted. Only the methods below are checked (those added
with the people and thread features); the older ones answer whatever the
token's scopes are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from novo_dev.localslack.wire import SlackFailure

_FIXED = {
    "usergroups.users.list": "usergroups:read",
    "reactions.add": "reactions:write",
    "reactions.remove": "reactions:write",
}
# Reading a conversation needs the history scope of its kind.
_HISTORY = {
    "channel": "channels:history",
    "group": "groups:history",
    "im": "im:history",
    "mpim": "mpim:history",
}

# Listing a conversation's members needs the read scope of its kind.
_READ = {"channel": "channels:read", "group": "groups:read", "im": "im:read", "mpim": "mpim:read"}

ChannelKind = Callable[[object], str | None]


def needed_scope(method: str, args: Mapping[str, Any], kind_of: ChannelKind) -> str | None:
    """The scope `method` needs with these `args`; None when the local Slack does not check.

    `kind_of` names a conversation's kind ("channel", "group", "im", "mpim"),
    None when there is no such conversation (the method then reports that).
    """
    if method in _FIXED:
        return _FIXED[method]
    if method == "conversations.replies":
        kind = kind_of(args.get("channel"))
        return _HISTORY[kind] if kind is not None else None
    if method == "conversations.members":
        kind = kind_of(args.get("channel"))
        return _READ[kind] if kind is not None else None
    if method == "conversations.open":
        if args.get("channel"):
            return "mpim:write" if kind_of(args.get("channel")) == "mpim" else "im:write"
        users = {u.strip() for u in str(args.get("users") or "").split(",") if u.strip()}
        return "mpim:write" if len(users) > 1 else "im:write"
    return None


def missing_scope(needed: str, granted: tuple[str, ...]) -> SlackFailure:
    """Slack's answer: `needed` names the scope, `provided` lists what the token has."""
    return SlackFailure("missing_scope", fields={"needed": needed, "provided": ",".join(granted)})
