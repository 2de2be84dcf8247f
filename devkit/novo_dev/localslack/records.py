"""What the local Slack holds, and the JSON shapes Slack gives each of them.

Kept apart from the server so tests read plain dataclasses (`StoredMessage`,
`StoredView`, ...) and the wire shapes live in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class Identity:
    """Who the bot is in the local workspace; the driver's payloads agree with it."""

    team_id: str = "T0LOCAL"
    team_name: str = "Novo Local"
    team_domain: str = "novo-local"
    app_id: str = "A0LOCAL"
    bot_id: str = "B0LOCAL"
    bot_user_id: str = "U0LOCALBOT"
    bot_name: str = "novo"


@dataclass(frozen=True)
class RecordedCall:
    """One Web API call (or response_url post) as the server saw and answered it."""

    method: str
    args: dict[str, Any]
    response: dict[str, Any]
    at: float
    status: int = 200
    connection: str = ""  # the caller's address and port: one per connection it opened

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.response.get("ok") is True

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "args": self.args,
            "response": self.response,
            "at": self.at,
            "status": self.status,
        }


@dataclass(frozen=True)
class SlackUser:
    """A person in the workspace, or seen by it through a shared channel.

    `team_id` None means the local workspace's own team; another team's id
    makes them an external (Slack Connect) user, whose clicks carry their own
    team. `is_restricted` is a multi-channel guest, `is_ultra_restricted` a
    single-channel guest; `is_stranger` a user of another org the app only
    meets through a shared channel.
    """

    id: str
    name: str
    display_name: str
    real_name: str
    tz: str = "UTC"
    is_restricted: bool = False
    is_ultra_restricted: bool = False
    team_id: str | None = None
    is_stranger: bool = False

    def home_team(self, workspace_team: str) -> str:
        return self.team_id or workspace_team

    def to_api(self, team_id: str) -> dict[str, Any]:
        """users.info's `user` object, the fields a bot reads (`team_id`: the workspace's)."""
        offset = datetime.now(ZoneInfo(self.tz)).utcoffset()
        user: dict[str, Any] = {
            "id": self.id,
            "team_id": self.home_team(team_id),
            "name": self.name,
            "deleted": False,
            "real_name": self.real_name,
            "tz": self.tz,
            "tz_label": self.tz,
            "tz_offset": int(offset.total_seconds()) if offset is not None else 0,
            "is_bot": False,
            "is_app_user": False,
            # A single-channel guest is a kind of restricted account: Slack sets both.
            "is_restricted": self.is_restricted or self.is_ultra_restricted,
            "is_ultra_restricted": self.is_ultra_restricted,
            "profile": {
                "display_name": self.display_name,
                "display_name_normalized": self.display_name,
                "real_name": self.real_name,
                "real_name_normalized": self.real_name,
            },
        }
        if self.is_stranger:  # Slack leaves it out rather than sending false
            user["is_stranger"] = True
        return user


@dataclass
class UserGroup:
    """A user group (`S…` id, `@handle`); `users` in the order usergroups.users.list gives."""

    id: str
    handle: str
    users: list[str]


@dataclass
class StoredMessage:
    """A message as the channel shows it now (`edited_count` counts chat.update and replaces)."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    metadata: dict[str, Any] | None
    user: str
    bot_id: str
    app_id: str
    team: str
    thread_ts: str | None = None
    edited_count: int = 0
    edited_ts: str | None = None
    reactions: list[str] = field(default_factory=list)
    """Reaction names added to it (reactions.add), one entry each time one was added."""

    def to_api(self, *, include_metadata: bool = True) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "message", "user": self.user, "team": self.team}
        if self.bot_id:  # a person's message carries no bot fields and no subtype
            message.update(subtype="bot_message", bot_id=self.bot_id, app_id=self.app_id)
        message.update(text=self.text, ts=self.ts, blocks=self.blocks)
        if self.thread_ts is not None:
            message["thread_ts"] = self.thread_ts
        if self.edited_ts is not None:
            message["edited"] = {"user": self.user, "ts": self.edited_ts}
        if include_metadata and self.metadata is not None:
            message["metadata"] = self.metadata
        return message


@dataclass(frozen=True)
class StoredEphemeral:
    """An ephemeral message; `via` is "api" (chat.postEphemeral) or "response_url";
    `replaced` counts replace_original posts to a response_url of a click in it."""

    channel: str
    user: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    via: str = "api"
    replaced: int = 0
    thread_ts: str | None = None


@dataclass
class StoredView:
    """A modal or Home tab as Slack stores it: the app's payload plus Slack's own fields.

    `errors` holds the last `response_action: errors` shown on it; `closed`
    turns true when the user's submission (or a `clear`) closed it.
    """

    id: str
    user_id: str
    payload: dict[str, Any]
    hash: str
    root_view_id: str
    previous_view_id: str | None
    team_id: str
    app_id: str
    bot_id: str
    state: dict[str, Any] = field(default_factory=lambda: {"values": {}})
    closed: bool = False
    errors: dict[str, str] | None = None

    @property
    def type(self) -> str:
        return str(self.payload.get("type", "modal"))

    @property
    def callback_id(self) -> str:
        return str(self.payload.get("callback_id", ""))

    @property
    def external_id(self) -> str:
        return str(self.payload.get("external_id", ""))

    @property
    def private_metadata(self) -> str:
        return str(self.payload.get("private_metadata", ""))

    @property
    def blocks(self) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = self.payload.get("blocks", [])
        return blocks

    def to_api(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "team_id": self.team_id,
            "type": self.type,
            "blocks": self.blocks,
            "private_metadata": self.private_metadata,
            "callback_id": self.callback_id,
            "state": self.state,
            "hash": self.hash,
            "title": self.payload.get("title"),
            "clear_on_close": bool(self.payload.get("clear_on_close", False)),
            "notify_on_close": bool(self.payload.get("notify_on_close", False)),
            "close": self.payload.get("close"),
            "submit": self.payload.get("submit"),
            "previous_view_id": self.previous_view_id,
            "root_view_id": self.root_view_id,
            "app_id": self.app_id,
            "external_id": self.external_id,
            "app_installed_team_id": self.team_id,
            "bot_id": self.bot_id,
        }
