"""What the page shows, read from the local Slack: one JSON document the page polls.

The page renders Block Kit itself, so the snapshot carries blocks exactly as
the bridge sent them; it only gathers what a person signed in as `user_id`
would see: every channel the bot wrote to and their own DM with it (nobody
else's), with threads under their parent, the ephemerals meant for that
person, the modal open for them with its `response_action: errors`, and the
names mentions of channels and user groups read as.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from novo_dev.localslack.people import dm_id
from novo_dev.localslack.records import StoredMessage, StoredView
from novo_dev.localslack.server import LocalSlack


class ChannelIndex:
    """The channels the page lists: those configured, then every one the bot posted in.

    The local Slack answers per channel, so channels the bridge opens later
    (a DM, another channel) are learnt from its successful `chat.postMessage`
    calls, reading each call once.
    """

    def __init__(self, slack: LocalSlack, channels: list[str]) -> None:
        self._slack = slack
        self._channels = list(dict.fromkeys(channels))
        self._calls_read = 0

    def channels(self) -> list[str]:
        calls = self._slack.calls()
        for call in calls[self._calls_read :]:
            channel = call.response.get("channel")
            posted = call.method == "chat.postMessage" and call.ok and isinstance(channel, str)
            if posted and channel not in self._channels:
                self._channels.append(str(channel))
        self._calls_read = len(calls)
        return list(self._channels)


def snapshot(slack: LocalSlack, index: ChannelIndex, user_id: str | None) -> dict[str, Any]:
    users = [
        {"id": u.id, "name": u.name, "display_name": u.display_name, "real_name": u.real_name}
        for u in slack.users()
    ]
    ident = slack.identity
    return {
        "bot": {"user_id": ident.bot_user_id, "name": ident.bot_name},
        "team": ident.team_name,
        "users": users,
        "user": user_id,
        "channels": [_channel(slack, c, user_id) for c in index.channels() if _sees(c, user_id)],
        "names": {  # how mentions of channels and user groups read
            "channels": {c: n for c, n in slack.channel_names().items() if not c.startswith("D")},
            "groups": {g.id: g.handle for g in slack.usergroups()},
        },
        "modal": _modal(slack, user_id),
    }


def _sees(channel: str, user_id: str | None) -> bool:
    """A DM is between the bot and one person: only they see it, as in Slack."""
    return not channel.startswith("D") or (user_id is not None and channel == dm_id(user_id))


def _channel(slack: LocalSlack, channel: str, user_id: str | None) -> dict[str, Any]:
    messages = slack.messages(channel)
    replies: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        if message.thread_ts and message.thread_ts != message.ts:
            replies.setdefault(message.thread_ts, []).append(_message(message))
    timeline = [
        {**_message(m), "replies": replies.get(m.ts, [])}
        for m in messages
        if not m.thread_ts or m.thread_ts == m.ts
    ]
    for ephemeral in slack.ephemerals(user_id) if user_id else []:
        if ephemeral.channel == channel:
            timeline.append(
                {
                    "ts": ephemeral.ts,
                    "text": ephemeral.text,
                    "blocks": ephemeral.blocks,
                    "ephemeral": True,
                    "replies": [],
                }
            )
    timeline.sort(key=lambda m: Decimal(m["ts"]))
    name = slack.channel_name(channel)
    return {"id": channel, "name": name, "dm": channel.startswith("D"), "messages": timeline}


def _message(message: StoredMessage) -> dict[str, Any]:
    return {
        "ts": message.ts,
        "text": message.text,
        "blocks": message.blocks,
        "edited": message.edited_ts is not None,
        "ephemeral": False,
        "metadata": message.metadata,
    }


def _modal(slack: LocalSlack, user_id: str | None) -> dict[str, Any] | None:
    """The view on top of the newest modal open for the person, as Slack shows one at a time."""
    if user_id is None:
        return None
    open_views = [
        v for v in slack.views() if v.user_id == user_id and v.type == "modal" and not v.closed
    ]
    if not open_views:
        return None
    top = open_views[-1]
    return _view(top, depth=len(slack.view_stack(top.id)))


def _view(view: StoredView, depth: int) -> dict[str, Any]:
    payload = view.payload
    return {
        "id": view.id,
        "hash": view.hash,
        "depth": depth,
        "callback_id": view.callback_id,
        "title": payload.get("title"),
        "submit": payload.get("submit"),
        "close": payload.get("close"),
        "blocks": view.blocks,
        "errors": view.errors or {},
    }
