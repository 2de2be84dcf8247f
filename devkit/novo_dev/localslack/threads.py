"""Threads: where a reply may go, and conversations.replies' answer.

Reminders and decision notes are posted as thread replies; a reply aimed at
a message that is not there must fail here as it would in Slack, and tests
need to read a thread the way the bridge would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from novo_dev.localslack.paging import cursor, cursor_ts, in_range, int_arg, ts_arg
from novo_dev.localslack.records import StoredMessage
from novo_dev.localslack.wire import SlackFailure, optional_str, truthy

# conversations.replies' page size when none is asked for, and its ceiling.
_REPLIES_DEFAULT_LIMIT = 1000
_REPLIES_MAX_LIMIT = 1000
_TS = re.compile(r"^\d+\.\d+$")


def check_thread_ts(value: str) -> None:
    """Slack refuses a thread_ts that is no timestamp at all (`invalid_thread_ts`)."""
    if not _TS.match(value):
        raise SlackFailure("invalid_thread_ts", [f"[ERROR] {value} is not a valid thread_ts"])


def thread_root(target: StoredMessage | None) -> str:
    """The thread a reply aimed at `target` joins: its own, or its parent's if it is a reply."""
    if target is None:
        raise SlackFailure("thread_not_found")
    return target.thread_ts or target.ts


def replies_page(
    parent: StoredMessage, replies: Sequence[StoredMessage], args: Mapping[str, Any]
) -> dict[str, Any]:
    """conversations.replies: the parent first, then its replies oldest first, paged."""
    limit = max(1, min(int_arg(args, "limit", _REPLIES_DEFAULT_LIMIT), _REPLIES_MAX_LIMIT))
    inclusive = truthy(args.get("inclusive"))
    latest = ts_arg(args, "latest")
    oldest = ts_arg(args, "oldest")
    after = cursor_ts(optional_str(args, "cursor"))
    selected = [
        m
        for m in replies
        if in_range(Decimal(m.ts), latest, oldest, inclusive)
        and (after is None or Decimal(m.ts) > after)
    ]
    shown = ([parent] if after is None else []) + selected
    page, rest = shown[:limit], shown[limit:]
    metadata = truthy(args.get("include_all_metadata"))
    messages = [
        parent_api(m, replies, metadata=metadata)
        if m is parent
        else _reply_api(m, parent, metadata)
        for m in page
    ]
    return {
        "ok": True,
        "messages": messages,
        "has_more": bool(rest),
        "response_metadata": {"next_cursor": cursor(page[-1].ts) if rest else ""},
    }


def parent_api(
    parent: StoredMessage, replies: Sequence[StoredMessage], *, metadata: bool
) -> dict[str, Any]:
    """A thread's parent as history and replies show it: with its thread's counts."""
    message = parent.to_api(include_metadata=metadata)
    if replies:
        users = list(dict.fromkeys(r.user for r in replies))
        message.update(
            thread_ts=parent.ts,
            reply_count=len(replies),
            reply_users=users,
            reply_users_count=len(users),
            latest_reply=replies[-1].ts,
        )
    return message


def _reply_api(reply: StoredMessage, parent: StoredMessage, metadata: bool) -> dict[str, Any]:
    return {**reply.to_api(include_metadata=metadata), "parent_user_id": parent.user}
