"""The local workspace: users, channels, messages, and the Web API methods over them.

Pure state, no HTTP: `call(method, args)` answers a method as Slack would or
raises `SlackFailure`. The server adds the wire; tests can also read the
state directly.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from bot.slack import limits
from novo_dev.localslack.members import ChannelMembers
from novo_dev.localslack.modals import ViewStore
from novo_dev.localslack.paging import cursor, cursor_ts, in_range, int_arg, ts_arg
from novo_dev.localslack.people import People, dm_id
from novo_dev.localslack.records import Identity, SlackUser, StoredEphemeral, StoredMessage
from novo_dev.localslack.scopes import needed_scope
from novo_dev.localslack.threads import check_thread_ts, parent_api, replies_page, thread_root
from novo_dev.localslack.validation import check_message_text_total, validate_message_blocks
from novo_dev.localslack.wire import (
    SlackFailure,
    assign_block_ids,
    json_field,
    optional_str,
    required_str,
    truthy,
)

DEFAULT_USERS = (
    SlackUser("U0LOCAL01", "alice", "Alice", "Alice Martin", "Europe/Paris"),
    SlackUser("U0LOCAL02", "bob", "Bob", "Bob Okafor", "America/New_York"),
    SlackUser("U0LOCAL03", "chen", "Chen", "Chen Wei", "Asia/Shanghai"),
)
DEFAULT_CHANNELS = {"C0LOCALGEN": "general", "C0LOCALAPR": "approvals"}

# Slack's history page size when none is asked for, and its ceiling.
_HISTORY_DEFAULT_LIMIT = 100
_HISTORY_MAX_LIMIT = 999
# A response_url works for 30 minutes and 5 posts (Slack's documented rule).
RESPONSE_URL_TTL_SECONDS = 30 * 60
RESPONSE_URL_USES = 5
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,}$")

Method = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass
class _ResponseUrl:
    channel: str
    message_ts: str
    user_id: str | None
    issued_at: float
    uses: int = 0
    ephemeral: bool = False  # a click in an ephemeral: replace_original replaces that one


class Workspace:
    def __init__(
        self, *, identity: Identity, clock: Callable[[], float], trigger_ttl: float
    ) -> None:
        self.identity = identity
        self._clock = clock
        self.users: dict[str, SlackUser] = {u.id: u for u in DEFAULT_USERS}
        self.channels: dict[str, str] = dict(DEFAULT_CHANNELS)
        # Channels the bot was never invited to (it is in every other one).
        self.not_member_of: set[str] = set()
        self._messages: dict[str, dict[str, StoredMessage]] = {}
        self.ephemerals: list[StoredEphemeral] = []
        self.views = ViewStore(identity, clock, trigger_ttl)
        self.people = People(identity, self.users, self.channels)
        self.members = ChannelMembers(
            identity,
            self.users,
            self.resolve_channel,
            self.people.dm_owner,
            self.people.mpims,
            self.not_member_of,
        )
        self._response_urls: dict[str, _ResponseUrl] = {}
        self._last_ts_us = 0
        self._block_ids = itertools.count(1)
        self._methods: dict[str, Method] = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.delete": self._delete,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.getPermalink": self._permalink,
            "reactions.add": self._add_reaction,
            "reactions.remove": self._remove_reaction,
            "conversations.history": self._history,
            "conversations.info": self._conversation_info,
            "conversations.members": self.members.list,
            "conversations.open": self.people.open_conversation,
            "conversations.replies": self._replies,
            "usergroups.users.list": self.people.usergroup_users,
            "users.info": self._users_info,
            "views.open": self.views.open,
            "views.push": self.views.push,
            "views.update": self.views.update,
            "views.publish": lambda args: self.views.publish(args, self.users),
        }

    # ------------------------------------------------------------------ reading

    def call(self, method: str, args: Mapping[str, Any]) -> dict[str, Any]:
        handler = self._methods.get(method)
        if handler is None:
            raise SlackFailure("unknown_method")
        return handler(args)

    def messages(self, channel: str) -> list[StoredMessage]:
        """What the channel shows now, oldest first."""
        stored = self._messages.get(self.resolve_channel(channel), {})
        return sorted(stored.values(), key=lambda m: Decimal(m.ts))

    def message(self, channel: str, ts: str) -> StoredMessage | None:
        return self._messages.get(self.resolve_channel(channel), {}).get(ts)

    def replies(self, channel: str, thread_ts: str) -> list[StoredMessage]:
        """The replies under `thread_ts`, oldest first, without the parent."""
        return [m for m in self.messages(channel) if m.thread_ts == thread_ts and m.ts != thread_ts]

    def needed_scope(self, method: str, args: Mapping[str, Any]) -> str | None:
        return needed_scope(method, args, self._channel_kind)

    def resolve_channel(self, value: object) -> str:
        """A channel id from an id, a `#name`, or a user id (the bot's DM with them)."""
        if not isinstance(value, str) or not value:
            raise SlackFailure("channel_not_found")
        if value in self.channels:
            return value
        if value in self.users:
            dm = dm_id(value)
            self.channels.setdefault(dm, self.users[value].name)
            return dm
        name = value.removeprefix("#")
        for channel_id, channel_name in self.channels.items():
            if channel_name == name:
                return channel_id
        if _CHANNEL_ID.match(value):
            self.channels[value] = value.lower()
            return value
        raise SlackFailure("channel_not_found")

    # ------------------------------------------------------------------ response_url

    def issue_response_url(
        self, channel: str, message_ts: str, user_id: str | None, *, ephemeral: bool = False
    ) -> str:
        """A response_url for an interaction with the message at `message_ts` (an
        ephemeral one, shown to `user_id` only, when `ephemeral`). It works in any
        channel, the bot a member or not, as Slack's does."""
        token = secrets.token_urlsafe(16)
        self._response_urls[token] = _ResponseUrl(
            self.resolve_channel(channel), message_ts, user_id, self._clock(), ephemeral=ephemeral
        )
        return token

    def _ephemeral(self, url: _ResponseUrl) -> StoredEphemeral | None:
        for shown in self.ephemerals:
            if (shown.channel, shown.ts, shown.user) == (url.channel, url.message_ts, url.user_id):
                return shown
        return None

    def respond(self, token: str, body: object) -> dict[str, Any]:
        """A post to a response_url, applied as Slack applies it."""
        url = self._response_urls.get(token)
        if url is None or self._clock() - url.issued_at > RESPONSE_URL_TTL_SECONDS:
            raise SlackFailure("expired_url", status=404)
        if url.uses >= RESPONSE_URL_USES:
            raise SlackFailure("used_url", status=404)
        if not isinstance(body, dict):
            raise SlackFailure("invalid_payload", status=400)
        url.uses += 1
        if truthy(body.get("delete_original")):
            if url.ephemeral:
                self.ephemerals = [e for e in self.ephemerals if e is not self._ephemeral(url)]
                return {"ok": True}
            self._messages.get(url.channel, {}).pop(url.message_ts, None)
            return {"ok": True}
        text, blocks = self._content(body, status=400)
        if truthy(body.get("replace_original")) and url.ephemeral:
            shown = self._ephemeral(url)
            if shown is None:
                raise SlackFailure("message_not_found", status=404)
            now = replace(shown, text=text or "", blocks=blocks or [], replaced=shown.replaced + 1)
            self.ephemerals[self.ephemerals.index(shown)] = now
        elif truthy(body.get("replace_original")):
            message = self.message(url.channel, url.message_ts)
            if message is None:
                raise SlackFailure("message_not_found", status=404)
            self._edit(message, text, blocks, body)
        elif body.get("response_type") == "in_channel":
            thread_ts = optional_str(body, "thread_ts")
            self._store(url.channel, text, blocks, _metadata(body), thread_ts)
        else:
            user = url.user_id or optional_str(body, "user") or ""
            self.ephemerals.append(
                StoredEphemeral(
                    url.channel, user, self._next_ts(), text or "", blocks or [], "response_url"
                )
            )
        return {"ok": True}

    # ------------------------------------------------------------------ methods

    def _auth_test(self, args: Mapping[str, Any]) -> dict[str, Any]:
        ident = self.identity
        return {
            "ok": True,
            "url": f"https://{ident.team_domain}.slack.com/",
            "team": ident.team_name,
            "user": ident.bot_name,
            "team_id": ident.team_id,
            "user_id": ident.bot_user_id,
            "bot_id": ident.bot_id,
            "app_id": ident.app_id,
            "is_enterprise_install": False,
        }

    def _post_message(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        text, blocks = self._content(args)
        thread_ts = optional_str(args, "thread_ts")
        if thread_ts is not None:
            # Slack threads a reply to a reply under that reply's parent.
            check_thread_ts(thread_ts)
            thread_ts = thread_root(self.message(channel, thread_ts))
        message = self._store(channel, text, blocks, _metadata(args), thread_ts)
        return {"ok": True, "channel": channel, "ts": message.ts, "message": message.to_api()}

    def _update(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        ts = required_str(args, "ts", error="message_not_found")
        message = self.message(channel, ts)
        if message is None:
            raise SlackFailure("message_not_found")
        text, blocks = self._content(args)
        self._edit(message, text, blocks, args)
        return {
            "ok": True,
            "channel": channel,
            "ts": ts,
            "text": message.text,
            "message": message.to_api(),
        }

    def _delete(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        ts = required_str(args, "ts", error="message_not_found")
        if self._messages.get(channel, {}).pop(ts, None) is None:
            raise SlackFailure("message_not_found")
        return {"ok": True, "channel": channel, "ts": ts}

    def _post_ephemeral(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        if channel in self.not_member_of:  # unlike a response_url, this needs the bot there
            raise SlackFailure("not_in_channel")
        user = required_str(args, "user", error="user_not_found")
        if user not in self.users:
            raise SlackFailure("user_not_found")
        text, blocks = self._content(args)
        ts = self._next_ts()
        thread_ts = optional_str(args, "thread_ts")
        self.ephemerals.append(
            StoredEphemeral(channel, user, ts, text or "", blocks or [], thread_ts=thread_ts)
        )
        return {"ok": True, "message_ts": ts}

    def _reaction_target(self, args: Mapping[str, Any]) -> tuple[StoredMessage, str]:
        """The message a reactions.* call names and the reaction's name, as Slack checks them."""
        channel = self.resolve_channel(args.get("channel"))
        ts = required_str(args, "timestamp", error="no_item_specified")
        name = required_str(args, "name", error="invalid_name")
        message = self.message(channel, ts)
        if message is None:
            raise SlackFailure("message_not_found")
        return message, name

    def _add_reaction(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """reactions.add: one reaction of the bot's per name on a message."""
        message, name = self._reaction_target(args)
        if name in message.reactions:
            raise SlackFailure("already_reacted")
        message.reactions.append(name)
        return {"ok": True}

    def _remove_reaction(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """reactions.remove: take the bot's reaction of that name off a message."""
        message, name = self._reaction_target(args)
        if name not in message.reactions:
            raise SlackFailure("no_reaction")
        message.reactions.remove(name)
        return {"ok": True}

    def edit_person_message(self, channel: str, ts: str, text: str) -> tuple[StoredMessage, str]:
        """Its author edits a message so it reads `text`: (the message, its text before)."""
        message = self.message(channel, ts)
        if message is None:
            raise KeyError(f"no message {ts} in {channel}")
        previous, message.text = message.text, text
        message.edited_count += 1
        return message, previous

    def delete_person_message(self, channel: str, ts: str) -> StoredMessage:
        """Its author deletes a message: gone from the channel (and its reactions with it)."""
        message = self._messages.get(self.resolve_channel(channel), {}).pop(ts, None)
        if message is None:
            raise KeyError(f"no message {ts} in {channel}")
        return message

    def add_person_message(
        self,
        channel: str,
        user_id: str,
        text: str,
        thread_ts: str | None,
        *,
        bot_id: str = "",
    ) -> StoredMessage:
        """A message someone (or another app, `bot_id`) wrote: in `thread_ts`'s thread, or
        at the top of the channel without one."""
        channel = self.resolve_channel(channel)
        if thread_ts is not None:
            thread_ts = thread_root(self.message(channel, thread_ts))
        message = StoredMessage(
            channel=channel,
            ts=self._next_ts(),
            text=text,
            blocks=[],
            metadata=None,
            user=user_id,
            bot_id=bot_id,
            app_id="A0OTHER" if bot_id else "",
            team=self.identity.team_id,
            thread_ts=thread_ts,
        )
        self._messages.setdefault(channel, {})[message.ts] = message
        return message

    def _permalink(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        ts = required_str(args, "message_ts", error="message_not_found")
        if self.message(channel, ts) is None:
            raise SlackFailure("message_not_found")
        domain = self.identity.team_domain
        link = f"https://{domain}.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}

    def _history(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        limit = int_arg(args, "limit", _HISTORY_DEFAULT_LIMIT)
        limit = max(1, min(limit, _HISTORY_MAX_LIMIT))
        inclusive = truthy(args.get("inclusive"))
        latest = ts_arg(args, "latest")
        oldest = ts_arg(args, "oldest")
        before = cursor_ts(optional_str(args, "cursor"))
        # Slack lists a channel's own messages here, never the replies in their threads
        # (those are conversations.replies'); a parent says it has some
        shown = self.messages(channel)
        newest_first = [m for m in reversed(shown) if m.thread_ts in (None, m.ts)]
        selected = [
            m
            for m in newest_first
            if in_range(Decimal(m.ts), latest, oldest, inclusive)
            and (before is None or Decimal(m.ts) < before)
        ]
        page, rest = selected[:limit], selected[limit:]
        metadata = truthy(args.get("include_all_metadata"))
        next_cursor = cursor(page[-1].ts) if rest else ""
        return {
            "ok": True,
            "messages": [
                parent_api(m, self.replies(channel, m.ts), metadata=metadata) for m in page
            ],
            "has_more": bool(rest),
            "pin_count": 0,
            "response_metadata": {"next_cursor": next_cursor},
        }

    def _replies(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        ts = required_str(args, "ts", error="thread_not_found")
        target = self.message(channel, ts)
        if target is None:
            raise SlackFailure("thread_not_found")
        root = thread_root(target)  # a reply's ts reads its whole thread
        parent = self.message(channel, root) or target
        return replies_page(parent, self.replies(channel, root), args)

    def _conversation_info(self, args: Mapping[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(args.get("channel"))
        return {
            "ok": True,
            "channel": {
                "id": channel,
                "name": self.channels[channel],
                "is_channel": channel.startswith("C"),
                "is_private": channel.startswith("G"),
                "is_im": channel.startswith("D"),
                "is_member": channel not in self.not_member_of,
            },
        }

    def _users_info(self, args: Mapping[str, Any]) -> dict[str, Any]:
        user_id = required_str(args, "user", error="user_not_found")
        user = self.users.get(user_id)
        if user is None:
            raise SlackFailure("user_not_found")
        return {"ok": True, "user": user.to_api(self.identity.team_id)}

    # ------------------------------------------------------------------ internals

    def _channel_kind(self, value: object) -> str | None:
        try:
            channel = self.resolve_channel(value)
        except SlackFailure:
            return None
        if channel.startswith("D"):
            return "im"
        if channel in self.people.mpims:
            return "mpim"
        return "group" if channel.startswith("G") else "channel"

    def _content(
        self, args: Mapping[str, Any], *, status: int = 200
    ) -> tuple[str | None, list[dict[str, Any]] | None]:
        """The text and blocks of a message, as Slack accepts (or refuses) them."""
        blocks = json_field(args, "blocks", error="invalid_blocks_format")
        if blocks is not None:
            problems = validate_message_blocks(blocks)
            if problems:
                raise SlackFailure("invalid_blocks", problems, status=status)
            problems = check_message_text_total(blocks)
            if problems:
                raise SlackFailure("msg_blocks_too_long", problems, status=status)
            blocks = assign_block_ids(blocks, self._block_ids)
        raw_text = args.get("text")
        text = None if raw_text is None else str(raw_text)[: limits.MESSAGE_FALLBACK_TEXT]
        if not text and not blocks:
            raise SlackFailure("no_text", status=status)
        return text, blocks

    def _store(
        self,
        channel: str,
        text: str | None,
        blocks: list[dict[str, Any]] | None,
        metadata: dict[str, Any] | None,
        thread_ts: str | None,
    ) -> StoredMessage:
        ident = self.identity
        message = StoredMessage(
            channel=channel,
            ts=self._next_ts(),
            text=text or "",
            blocks=blocks or [],
            metadata=metadata,
            user=ident.bot_user_id,
            bot_id=ident.bot_id,
            app_id=ident.app_id,
            team=ident.team_id,
            thread_ts=thread_ts,
        )
        self._messages.setdefault(channel, {})[message.ts] = message
        return message

    def _edit(
        self,
        message: StoredMessage,
        text: str | None,
        blocks: list[dict[str, Any]] | None,
        args: Mapping[str, Any],
    ) -> None:
        if text is not None:
            message.text = text
        if blocks is not None:
            message.blocks = blocks
        if "metadata" in args:
            message.metadata = _metadata(args)
        message.edited_count += 1
        message.edited_ts = self._next_ts()

    def _next_ts(self) -> str:
        """Slack-style "1700000000.000100": unique and increasing, even within a microsecond."""
        micros = max(int(self._clock() * 1_000_000), self._last_ts_us + 1)
        self._last_ts_us = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def _metadata(args: Mapping[str, Any]) -> dict[str, Any] | None:
    metadata = json_field(args, "metadata", error="invalid_metadata_format")
    if metadata is None:
        return None
    if (
        not isinstance(metadata, dict)
        or not isinstance(metadata.get("event_type"), str)
        or not isinstance(metadata.get("event_payload"), dict)
    ):
        raise SlackFailure("invalid_metadata_format")
    return {"event_type": metadata["event_type"], "event_payload": metadata["event_payload"]}
