"""Escaping, truncation and small Block Kit builders every renderer shares.

Agent-supplied text is untrusted: it must never mention a user or a channel
and never break out of its formatting, however it is written. Everything
here is a pure function.

Besides escaping, which is per piece of text, one function owns what is
unsafe in *any* text that reaches Slack, whoever wrote it: :func:`clean_rendered`
walks a finished message, view or notification line and passes every string
through :func:`clean_text`. Each renderer applies it once, to what it returns,
so no field can be forgotten. Agent data nested deeper than ``MAX_DEPTH``
is cut before it is ever serialised (:func:`pretty_json`, :func:`compact_json`).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

ELLIPSIS = "…"
REPLACEMENT = "\ufffd"
MAX_DEPTH = 40
"""Levels of agent data shown; deeper parts show as "…". Real tool inputs are far shallower,
and a fixed bound keeps every walk over agent data well inside Python's recursion limit."""
_ZWSP = "\u200b"
ZERO_WIDTH_SPACE = _ZWSP
ID_DISPLAY_CHARS = 100
"""Ids are shown, not parsed, from the message: a cut one still identifies the run."""
_BROADCASTS = ("@channel", "@here", "@everyone")

_SURROGATE = re.compile("[\ud800-\udfff]")
_BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Embeddings, overrides and isolates: they reorder whole runs (a header read backwards)."""
_BIDI_MARKS = "\u200e\u200f\u061c"
"""Zero-width marks; an RLM first makes a paragraph right-to-left and swaps word order."""
_UNSAFE = {
    0: None,
    **dict.fromkeys(map(ord, _BIDI_CONTROLS), REPLACEMENT),
    **dict.fromkeys(map(ord, _BIDI_MARKS), None),
}
_TEXT_OBJECTS = frozenset({"plain_text", "mrkdwn"})
_ALLOWED_TOKEN = re.compile(r"<@[UW][A-Z0-9]{2,30}>|<!subteam\^S[A-Z0-9]{2,30}>|&(?:amp|lt|gt);")


def clean_text(text: str) -> str:
    """``text`` made safe to show anywhere, whoever wrote it.

    * a lone UTF-16 surrogate (valid JSON, invalid Unicode) becomes U+FFFD:
      it cannot be encoded as UTF-8, so it would break hashing and sending;
    * NUL is dropped;
    * bidi embeddings, overrides and isolates become U+FFFD, visibly: they
      let an agent make text read backwards or reorder words, so the reader
      should see that something was there;
    * bidi marks (LRM, RLM, ALM) are dropped: they are invisible and can still
      flip a paragraph's direction, while text reads correctly without them.
    """
    if text.isascii():
        return text.replace("\x00", "") if "\x00" in text else text
    if _SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.translate(_UNSAFE)


_NEEDS_CLEANING = re.compile(
    f"[\ud800-\udfff{_BIDI_CONTROLS}{_BIDI_MARKS}]" + r'|\\u0000|"text": ""'
)
"""In a rendered value serialised as JSON (`ensure_ascii=False`, so only NUL and the other
control characters are escaped): anything :func:`clean_rendered` would change."""


def clean_rendered(value: Any) -> Any:
    """A rendered message, view, option list or text with every string cleaned.

    The one place that applies :func:`clean_text`: renderers call it on what
    they return rather than on each field, so a new field cannot slip past.
    Rendered output is our own shape (a few levels deep), so recursion is safe.

    Most messages hold nothing to clean: serialised once, a search finds whether any
    string does (every post renders, and the walk below costs several times that), and
    then the value is returned as it is (renderers build a fresh one for every call, and
    nothing changes a rendered message in place); only one that does is walked string
    by string, into a copy.
    """
    try:
        dumped = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return _cleaned(value)
    if _NEEDS_CLEANING.search(dumped) is None:
        return value
    return _cleaned(value)


def _cleaned(value: Any) -> Any:
    """:func:`clean_rendered`, walking every string."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        cleaned = {clean_text(k): _cleaned(v) for k, v in value.items()}
        if cleaned.get("type") in _TEXT_OBJECTS and cleaned.get("text") == "":
            cleaned["text"] = " "  # Slack refuses empty text; a NUL-only label would leave none
        return cleaned
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    return value


def cut_depth(value: Any, depth: int = MAX_DEPTH) -> Any:
    """``value`` with whatever lies deeper than ``depth`` levels replaced by "…"."""
    if isinstance(value, dict | list | tuple):
        if depth <= 0:
            return ELLIPSIS
        if isinstance(value, dict):
            return {k: cut_depth(v, depth - 1) for k, v in value.items()}
        return [cut_depth(v, depth - 1) for v in value]
    return value


def defuse_mrkdwn(text: str) -> str:
    """Our own mrkdwn with whatever was left unescaped in it escaped, the rest untouched.

    Notices and ephemeral messages are mrkdwn built by us: mentions we put
    there (``<@U123>``, a user group from the policy ``<!subteam^S123>``) must
    work and pieces already escaped must not be escaped again (``&amp;amp;``).
    Anything else that could act (``<!channel>``, a ``<https://…|link>``, a
    bare ``&``) is escaped, so a piece someone forgot to escape still cannot
    ping or link.
    """
    out: list[str] = []
    position = 0
    for token in _ALLOWED_TOKEN.finditer(text):
        out.append(escape_mrkdwn(text[position : token.start()]))
        out.append(token.group())
        position = token.end()
    out.append(escape_mrkdwn(text[position:]))
    return "".join(out)


def truncate(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """Cut `text` to at most `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    if limit <= len(marker):
        return text[:limit]
    return text[: limit - len(marker)] + marker


def escape_mrkdwn(text: str) -> str:
    """Neutralise Slack control sequences: `<!channel>`, `<@U…>`, links, `@here`.

    Slack's own rule is to escape `&`, `<` and `>`; bare broadcast words get a
    zero-width space so no client or future flag can turn them into pings.
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for word in _BROADCASTS:
        text = text.replace(word, "@" + _ZWSP + word[1:])
    return text


def escape_inline(text: str) -> str:
    """Escape text shown inside mrkdwn prose: also defuse `*`, `_`, `~`, `` ` `` runs."""
    escaped = escape_mrkdwn(text)
    for char in ("*", "_", "~", "`"):
        escaped = escaped.replace(char, char + _ZWSP)
    return escaped


def code_block(text: str, limit: int) -> str:
    """A ``` block holding `text` verbatim (escaped), the whole block at most `limit` chars."""
    # a zero-width space between every two backticks: no run of them can close the fence
    body = re.sub(r"`(?=`)", "`" + _ZWSP, escape_mrkdwn(text))
    fence = "```"
    room = limit - 2 * len(fence) - 2
    return f"{fence}\n{truncate(body, room)}\n{fence}"


def pretty_json(value: Any) -> str:
    """Readable JSON for humans; never raises, whatever the agent sent or how deep.

    A string of several lines (a script, a commit message) shows as those lines, in a
    YAML-style `|` block under its key, rather than as one line full of `\\n`: people
    read it, nothing parses it.
    """
    blocks: list[str] = []
    try:
        text = json.dumps(
            _mark_multiline(cut_depth(value), blocks), indent=2, ensure_ascii=False, default=str
        )
    except (TypeError, ValueError):
        return repr(cut_depth(value))
    return _unmark_multiline(text, blocks) if blocks else text


_MULTILINE_MARK = "\x00novo-lines-{}\x00"
_MARKED = re.compile(
    r'^(?P<head>\s*(?:"(?:[^"\\]|\\.)*": )?)"\\u0000novo-lines-(?P<n>\d+)\\u0000",?$'
)


def _mark_multiline(value: Any, blocks: list[str]) -> Any:
    """`value` with each string of several lines swapped for a numbered mark."""
    if isinstance(value, str) and "\n" in value.strip("\n"):
        blocks.append(value)
        return _MULTILINE_MARK.format(len(blocks) - 1)
    if isinstance(value, dict):
        return {key: _mark_multiline(item, blocks) for key, item in value.items()}
    if isinstance(value, list):
        return [_mark_multiline(item, blocks) for item in value]
    return value


def _unmark_multiline(text: str, blocks: list[str]) -> str:
    out: list[str] = []
    for line in text.split("\n"):
        found = _MARKED.match(line)
        if found is None:
            out.append(line)
            continue
        head = found["head"]
        indent = " " * (len(head) - len(head.lstrip()) + 2)
        out.append(f"{head}|")  # no trailing comma: the lines below end the value
        out.extend(indent + part for part in blocks[int(found["n"])].strip("\n").split("\n"))
    return "\n".join(out)


def compact_json(value: Any) -> str:
    """One-line JSON for a preview field; never raises, whatever the agent sent or how deep."""
    try:
        shallow = cut_depth(value)
        return json.dumps(shallow, ensure_ascii=False, separators=(", ", ": "), default=str)
    except (TypeError, ValueError):
        return repr(cut_depth(value))


def plain_text(text: str, limit: int, *, emoji: bool = True) -> dict[str, Any]:
    """A plain_text object; Slack rejects empty text, so an empty string becomes a space."""
    return {"type": "plain_text", "text": truncate(text, limit) or " ", "emoji": emoji}


def mrkdwn(text: str, limit: int) -> dict[str, Any]:
    """A mrkdwn text object from already-escaped text, cut to `limit`."""
    return {"type": "mrkdwn", "text": truncate(text, limit) or " "}


def date_token(when: datetime, fmt: str = "{date_short_pretty} at {time}") -> str:
    """A Slack date token: each viewer sees `when` in their own time zone."""
    fallback = when.strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(when.timestamp())}^{fmt}|{fallback}>"


# Countdown wording changes only at these marks (minutes left), so an open
# message is re-sent a handful of times in its life, not once a minute: the
# `<!date^…>` token beside it already shows the exact time in each reader's zone.
COUNTDOWN_MARKS_MINUTES = (1, 5, 15, 30, 60)
CHANGE_MARGIN = timedelta(milliseconds=1)
LAST_HOURLY = 48 * 3600.0  # from here on the words count days
_BOUNDARIES = (
    0.0,
    *(m * 60.0 for m in COUNTDOWN_MARKS_MINUTES),
    *(h * 3600.0 for h in range(1, 48)),
)


def relative_deadline(expires_at: datetime, now: datetime) -> str:
    """'expires in less than 15 min' / 'expired' — coarse steps, see COUNTDOWN_MARKS_MINUTES."""
    seconds = (expires_at - now).total_seconds()
    if seconds <= 0:
        return "expired"
    for mark in COUNTDOWN_MARKS_MINUTES:
        if seconds < mark * 60:
            if mark == 1:
                return "expires in less than a minute"
            if mark == 60:
                return "expires in less than an hour"
            return f"expires in less than {mark} min"
    hours = int(seconds // 3600) + 1
    if hours <= 48:
        return f"expires in less than {hours} h"
    return f"expires in {int(seconds // 86400)} days"


def next_deadline_change(expires_at: datetime, now: datetime) -> datetime | None:
    """When `relative_deadline` next says something else, or None once it says 'expired'.

    The words change as the time left crosses a mark, an hour (up to 48 h) or a
    day beyond that: the latest such boundary still ahead is the next change.
    """
    seconds = (expires_at - now).total_seconds()
    if seconds <= 0:
        return None
    if seconds >= LAST_HOURLY:
        boundary = max(LAST_HOURLY, seconds // 86400 * 86400)
    else:
        boundary = max(b for b in _BOUNDARIES if b <= seconds)
    # the words change just after the boundary is crossed: `seconds < mark` is strict
    return expires_at - timedelta(seconds=boundary) + CHANGE_MARGIN


def cut_words(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """``text`` in at most ``limit`` characters, cut at a word break: names are never cut mid-word.

    Only a first word longer than the whole room is cut inside, since there is
    no break to cut at.
    """
    if len(text) <= limit:
        return text
    room = limit - len(marker)
    if room <= 0:
        return text[:limit]
    head = text[: room + 1]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space <= 0:
        return text[:room] + marker
    return text[:space].rstrip() + marker


def inline_code(text: str, limit: int = ID_DISPLAY_CHARS) -> str:
    """`text` as an inline code span that no character of it can close or break.

    Inside a span `*`, `_` and `~` are inert, so no zero-width spaces are
    needed (ids stay copyable); a backtick would close the span and a newline
    would end it, so they are replaced by look-alikes. The cut is made after
    escaping so `limit` bounds what is sent, whatever the id holds.
    """
    plain = text.replace("`", "ˋ").replace("\n", " ").replace("\r", " ")
    return f"`{truncate(escape_mrkdwn(plain), limit) or ' '}`"
