"""Who is in a channel: conversations.members, paged as Slack pages it.

The bridge asks it to tell who can read a channel (what the App Home's
team queue and `/novo` may show them). A channel's members are whoever a test
made them (`LocalSlack.set_channel_members`); one never set has every user of
the workspace in it, and the bot. A DM has its person and the bot. As in
Slack, a private channel the bot is not in is `channel_not_found`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from novo_dev.localslack.paging import int_arg
from novo_dev.localslack.records import Identity, SlackUser
from novo_dev.localslack.wire import SlackFailure, optional_str

# Slack's page size when none is asked for, and its ceiling.
_DEFAULT_LIMIT = 100
_MAX_LIMIT = 1000


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _offset(value: str | None) -> int:
    if not value:
        return 0
    try:
        return int(base64.urlsafe_b64decode(value.encode()).decode().removeprefix("offset:"))
    except ValueError as exc:
        raise SlackFailure("invalid_cursor") from exc


class ChannelMembers:
    def __init__(
        self,
        identity: Identity,
        users: dict[str, SlackUser],
        resolve: Callable[[object], str],
        dm_owner: Callable[[str], str | None],
        mpims: Mapping[str, tuple[str, ...]],
        not_member_of: set[str],
    ) -> None:
        self._identity = identity
        self._users = users
        self._resolve = resolve
        self._dm_owner = dm_owner
        self._mpims = mpims
        self._not_member_of = not_member_of
        self._members: dict[str, list[str]] = {}

    def set(self, channel: str, users: list[str]) -> None:
        unknown = [u for u in users if u not in self._users]
        if unknown:
            raise KeyError(f"no such users: {unknown} (add_user them first)")
        self._members[self._resolve(channel)] = list(users)

    def of(self, channel: str) -> list[str]:
        """Everyone in `channel` (an id), the bot included when it is in it."""
        bot = [] if channel in self._not_member_of else [self._identity.bot_user_id]
        owner = self._dm_owner(channel)
        if owner is not None:
            return [owner, *bot]
        if channel in self._mpims:
            return [*self._mpims[channel], *bot]
        people = self._members.get(channel, list(self._users))
        return [*people, *bot]

    def list(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """conversations.members."""
        channel = self._resolve(args.get("channel"))
        if channel.startswith("G") and channel in self._not_member_of:
            raise SlackFailure("channel_not_found")
        limit = max(1, min(int_arg(args, "limit", _DEFAULT_LIMIT), _MAX_LIMIT))
        start = _offset(optional_str(args, "cursor"))
        everyone = self.of(channel)
        page = everyone[start : start + limit]
        rest = start + limit < len(everyone)
        return {
            "ok": True,
            "members": page,
            "response_metadata": {"next_cursor": _cursor(start + limit) if rest else ""},
        }
