"""An approval's preview as a person reads it: a title, then labelled values.

The preview is the engine's summary for humans, but its keys are code
(``estimatedRows``) and its values are JSON. Here keys become words
("Estimated rows"), values are written by type (numbers with thousands
separators, ``Yes``/``No``, dates readable in the reader's own zone, lists as
a short comma list with "+N more"), and strings, which are the agent's
Markdown, become mrkdwn through :mod:`markdown`. A title-like key, when there
is one, is what the message is about, so it leads the message instead of
sitting among the fields.

Every function here guarantees its own length bound: the approval renderer
adds budgets up instead of measuring what it built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

from bot.slack.render.common import (
    ELLIPSIS,
    compact_json,
    cut_words,
    date_token,
    escape_inline,
    truncate,
)
from bot.slack.render.markdown import fit_markdown, markdown_plain
from bot.slack.render.status import inline_code

TITLE_KEYS = ("title", "headline", "summary")
"""Preview keys, any case, whose value says what is asked; earlier ones win."""
TITLE_MAX_CHARS = 150
"""A longer "summary" is prose, not a title: it stays a field."""
LIST_SHOWN = 5
LIST_ITEM_CHARS = 60
EMPTY_VALUE = "—"
DATE_TOKEN_YEARS = range(1970, 2101)
"""Dates Slack's date token surely renders; others are written out."""

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_KEY_SEPARATORS = re.compile(r"[_\-\s]+")
_NAME_SEPARATORS = re.compile(r"[_\-\s./:]+")


def humanize(key: str, separators: re.Pattern[str] = _KEY_SEPARATORS) -> str:
    """``estimatedRows`` → "Estimated rows", ``snake_case`` → "Snake case"; acronyms kept (URL)."""
    spaced = _CAMEL.sub(" ", key)
    words = [w for w in separators.split(spaced) if w]
    if not words:
        return key.strip()
    shown = [w if len(w) > 1 and w.isupper() else w.lower() for w in words]
    first = shown[0]
    shown[0] = first[:1].upper() + first[1:]
    return " ".join(shown)


def humanize_tool(tool_name: str) -> str:
    """``deploy_service`` → "Deploy service"; dots, slashes and colons separate words too."""
    return humanize(tool_name, _NAME_SEPARATORS)


def title_key(preview: dict[str, Any]) -> str | None:
    """The preview key holding a one-line title, if any (``title``, ``Title``, ``summary``…)."""
    by_name: dict[str, str] = {}
    for key, value in preview.items():
        name = str(key).strip().lower()
        if name in TITLE_KEYS and name not in by_name and _is_title(value):
            by_name[name] = key
    return next((by_name[name] for name in TITLE_KEYS if name in by_name), None)


def _is_title(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    plain = " ".join(markdown_plain(value).split())
    return 0 < len(plain) <= TITLE_MAX_CHARS and "\n" not in value.strip()


def plain_title(text: str, limit: int) -> str:
    """Agent Markdown as one plain line of at most ``limit`` chars, cut at a word break."""
    return cut_words(" ".join(markdown_plain(text).split()), limit)


def preview_label(key: Any, limit: int) -> str:
    """The field's bold label: the key in words, escaped, whole words only."""
    words = cut_words(humanize(str(key)), limit // 2) or " "
    label = escape_inline(words)
    return label if len(label) <= limit else escape_inline(truncate(words, limit // 6))


def preview_value(value: Any, room: int) -> str:
    """``value`` as mrkdwn in at most ``room`` characters, written for its type."""
    shown = _value(value, room)
    return shown if len(shown) <= room else ELLIPSIS[: max(room, 0)]


def _value(value: Any, room: int) -> str:
    if value is None:
        return EMPTY_VALUE
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, int | float):
        return truncate(_number(value), room)
    if isinstance(value, str):
        when = _readable_date(value, room)
        if when is not None:
            return when
        return fit_markdown(value, room) or EMPTY_VALUE
    if isinstance(value, list | tuple):
        return _short_list(value, room)
    return inline_code(compact_json(value), max(room - 2, 1))


def _number(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,}"


def _readable_date(text: str, room: int) -> str | None:
    """An ISO date or timestamp written for people; None when ``text`` is not one."""
    stripped = text.strip()
    if _ISO_DATE.fullmatch(stripped):
        try:
            day = date.fromisoformat(stripped)
        except ValueError:
            return None
        return truncate(f"{day.day} {day:%b %Y}", room)
    if not _ISO_DATETIME.fullmatch(stripped):
        return None
    try:
        when = datetime.fromisoformat(stripped)
    except ValueError:
        return None
    written = f"{when.day} {when:%b %Y, %H:%M}"
    if when.tzinfo is None:
        return truncate(written, room)  # no zone given: shown as written, not guessed
    when = when.astimezone(UTC)
    token = date_token(when)
    if when.year in DATE_TOKEN_YEARS and len(token) <= room:
        return token
    return truncate(f"{when.day} {when:%b %Y, %H:%M} UTC", room)


def _short_list(items: Iterable[Any], room: int) -> str:
    """ "a, b, c, +37 more": the first few items, each short, then how many were left."""
    values = list(items)
    if not values:
        return EMPTY_VALUE
    shown: list[str] = []
    for item in values[:LIST_SHOWN]:
        text = _list_item(item)
        rest = len(values) - len(shown) - 1
        tail = f", +{rest} more" if rest else ""
        if len(", ".join([*shown, text])) + len(tail) > room:
            break
        shown.append(text)
    hidden = len(values) - len(shown)
    if not shown:
        return truncate(f"{len(values)} items", room)
    return ", ".join(shown) + (f", +{hidden} more" if hidden else "")


def _list_item(item: Any) -> str:
    if isinstance(item, str):
        return escape_inline(truncate(" ".join(markdown_plain(item).split()), LIST_ITEM_CHARS))
    if isinstance(item, bool) or item is None or isinstance(item, int | float):
        return preview_value(item, LIST_ITEM_CHARS)
    return inline_code(compact_json(item), LIST_ITEM_CHARS)
