"""The arguments Slack's message-reading methods share: limits, time bounds, cursors.

conversations.history and conversations.replies page the same way, so the
rules (what a bad `limit` or `latest` is called, what a cursor holds) are
written once.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from novo_dev.localslack.wire import SlackFailure, optional_str


def int_arg(args: Mapping[str, Any], name: str, default: int) -> int:
    value = args.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise SlackFailure("invalid_limit" if name == "limit" else "invalid_arguments") from exc


def ts_arg(args: Mapping[str, Any], name: str) -> Decimal | None:
    value = optional_str(args, name)
    if value is None:
        return None
    try:
        return Decimal(value)
    except InvalidOperation as exc:
        raise SlackFailure("invalid_ts_" + name) from exc


def in_range(ts: Decimal, latest: Decimal | None, oldest: Decimal | None, inclusive: bool) -> bool:
    if latest is not None and (ts > latest or (ts == latest and not inclusive)):
        return False
    return not (oldest is not None and (ts < oldest or (ts == oldest and not inclusive)))


def cursor(ts: str) -> str:
    return base64.urlsafe_b64encode(f"next_ts:{ts}".encode()).decode()


def cursor_ts(value: str | None) -> Decimal | None:
    if value is None:
        return None
    try:
        return Decimal(base64.urlsafe_b64decode(value.encode()).decode().removeprefix("next_ts:"))
    except (ValueError, InvalidOperation) as exc:
        raise SlackFailure("invalid_cursor") from exc
