"""Who is who beyond a single user: user groups, and the DMs the bot opens.

Policies that name a user group, or that send someone a DM, need Slack to
answer usergroups.users.list and conversations.open as it does; kept apart
from the message store because they only read the workspace's users and add
conversations to its channel list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from novo_dev.localslack.records import Identity, SlackUser, UserGroup
from novo_dev.localslack.wire import SlackFailure, optional_str, required_str, truthy

# conversations.open takes 1 to 8 people besides the caller (Slack's documented bounds).
MAX_MPIM_USERS = 8
_LAST_READ_NEVER = "0000000000.000000"


def dm_id(user_id: str) -> str:
    """The id of the bot's DM with `user_id`: stable, so tests can name it in advance."""
    return "D" + user_id[1:]


class People:
    def __init__(
        self, identity: Identity, users: dict[str, SlackUser], channels: dict[str, str]
    ) -> None:
        self._identity = identity
        self._users = users
        self._channels = channels  # the workspace's own table: DMs opened here are added to it
        self.groups: dict[str, UserGroup] = {}
        # Multi-person DMs: channel id -> members other than the bot, as first opened.
        self.mpims: dict[str, tuple[str, ...]] = {}

    # ------------------------------------------------------------------ setting up

    def set_group(self, group_id: str, handle: str, users: list[str]) -> UserGroup:
        self._check_known(users)
        group = UserGroup(group_id, handle.removeprefix("@"), list(users))
        self.groups[group_id] = group
        return group

    def set_members(self, group_id: str, users: list[str]) -> None:
        if group_id not in self.groups:
            raise KeyError(f"no user group {group_id} (add_usergroup it first)")
        self._check_known(users)
        self.groups[group_id].users = list(users)

    def dm_owner(self, channel_id: str) -> str | None:
        """The person whose DM with the bot `channel_id` is, if it is one."""
        if not channel_id.startswith("D"):
            return None
        return next((u for u in self._users if dm_id(u) == channel_id), None)

    # ------------------------------------------------------------------ methods

    def usergroup_users(self, args: Mapping[str, Any]) -> dict[str, Any]:
        group = self.groups.get(required_str(args, "usergroup"))
        if group is None:
            raise SlackFailure("no_such_subteam")
        return {"ok": True, "users": list(group.users)}

    def open_conversation(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """conversations.open: a 1:1 DM (`D…`) for one user, a multi-person DM for 2–8.

        `prevent_creation` is not modelled: the conversation is always opened.
        """
        channel = optional_str(args, "channel")
        if channel is not None:
            return self._resume(channel)
        listed = optional_str(args, "users")
        if listed is None:
            raise SlackFailure("users_list_not_supplied")
        users = [u.strip() for u in listed.split(",") if u.strip()]
        for user in users:
            if user not in self._users and user != self._identity.bot_user_id:
                raise SlackFailure("user_not_found")
        others = tuple(dict.fromkeys(u for u in users if u != self._identity.bot_user_id))
        if not others:
            raise SlackFailure("not_enough_users")
        if len(others) > MAX_MPIM_USERS:
            raise SlackFailure("too_many_users")
        channel_id = dm_id(others[0]) if len(others) == 1 else self._mpim_id(others)
        already_open = channel_id in self._channels
        if len(others) == 1:
            self._channels.setdefault(channel_id, self._users[others[0]].name)
        else:
            self.mpims.setdefault(channel_id, others)
            self._channels.setdefault(channel_id, self._mpim_name(others))
        answer: dict[str, Any] = {"ok": True}
        if already_open:
            answer.update(no_op=True, already_open=True)
        answer["channel"] = (
            self._im_object(channel_id) if truthy(args.get("return_im")) else {"id": channel_id}
        )
        return answer

    # ------------------------------------------------------------------ internals

    def _resume(self, channel: str) -> dict[str, Any]:
        owner = self.dm_owner(channel)
        if channel in self.mpims or owner is not None:
            answer: dict[str, Any] = {"ok": True}
            if channel in self._channels:
                answer.update(no_op=True, already_open=True)
            elif owner is not None:
                self._channels[channel] = self._users[owner].name
            answer["channel"] = {"id": channel}
            return answer
        if channel in self._channels:
            raise SlackFailure("method_not_supported_for_channel_type")
        raise SlackFailure("channel_not_found")

    def _im_object(self, channel_id: str) -> dict[str, Any]:
        """The conversation object `return_im` asks for, the fields Slack documents."""
        members = self.mpims.get(channel_id)
        base: dict[str, Any] = {
            "id": channel_id,
            "created": 0,
            "is_im": members is None,
            "is_mpim": members is not None,
            "is_open": True,
            "last_read": _LAST_READ_NEVER,
            "latest": None,
            "unread_count": 0,
            "unread_count_display": 0,
        }
        if members is None:
            base["user"] = self.dm_owner(channel_id)
        else:
            base["name"] = self._channels[channel_id]
            base["members"] = [self._identity.bot_user_id, *members]
        return base

    def _mpim_id(self, members: tuple[str, ...]) -> str:
        """The same set of people always gets the same conversation, as Slack promises."""
        digest = hashlib.sha1(",".join(sorted(members)).encode()).hexdigest()[:8].upper()
        return "G" + digest

    def _mpim_name(self, members: tuple[str, ...]) -> str:
        names = [self._identity.bot_name, *(self._users[u].name for u in members)]
        return "mpdm-" + "--".join(names) + "-1"

    def _check_known(self, users: list[str]) -> None:
        unknown = [u for u in users if u not in self._users]
        if unknown:
            raise ValueError(f"unknown users {unknown} (add_user them first)")
