"""Agent Markdown shown the way its author meant it, and still unable to act.

Agents write Markdown (``**bold**``, ``[text](url)``, lists); Slack speaks
mrkdwn (``*bold*``, ``<url|text>``, no list syntax). Passing Markdown through
leaves stray asterisks; escaping it all leaves them too. So the few
constructs people use are translated, and everything else is text:

* every piece of text is escaped (``&``, ``<``, ``>``; broadcast words get a
  zero-width space), so nothing an agent writes can mention a person, a
  channel or ``@here``;
* a Markdown link becomes a Slack link only for an ``http(s)`` URL holding no
  character that could end the link early; any other link is shown as text;
* a formatting character left over (``2 * 3``, a lone ``~``) is defused with a
  zero-width space, so it cannot pair with another and format half a line.

:func:`agent_mrkdwn` converts, :func:`fit_markdown` converts within a length
(cutting the agent's text, never the converted one, so no link, escape or
code fence is ever cut open), :func:`markdown_plain` drops the markup for
plain_text places (headers, labels, notification lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.slack.render.common import ELLIPSIS, escape_mrkdwn

ZWSP = "\u200b"
RAW_FACTOR = 3
"""Agent text longer than this many times the room is cut before converting: markup never
shrinks text by that much, and it keeps the work bounded for any input."""
WORD_BACKOFF = 30
"""A cut moves back to a word break when one lies this close: prose is not cut mid-word."""

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)(\d{1,9})[.)]\s+(.*)$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_URL = r"https?://[^\s<>|()\"'`]+"
_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_body>[^`\n]+?)(?P=code)(?!`)"
    r"|\[(?P<link_text>[^\[\]\n]{1,500})\]\((?P<link_url>[^()\s]{1,2000})\)"
    r"|\*\*(?P<bold>\S(?:[^\n]*?\S)?)\*\*"
    r"|__(?P<bold2>\S(?:[^\n]*?\S)?)__"
    r"|~~(?P<strike>\S(?:[^\n]*?\S)?)~~"
    r"|(?<![\w*])\*(?P<italic>[^\s*](?:[^*\n]*?[^\s*])?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<italic2>[^\s_](?:[^_\n]*?[^\s_])?)_(?![\w_])"
)
_SAFE_URL = re.compile(_URL)
_MARKUP = re.compile(r"[*_`\[~#>+\-]")
"""Characters some construct starts with; text without any is its own plain form (the fast
path that keeps a form of thousands of option labels quick to build)."""
_LONE_MARK = re.compile(r"[*~`]|(?<!\w)_|_(?!\w)")


def agent_mrkdwn(text: str) -> str:
    """Agent Markdown as escaped Slack mrkdwn: formatting kept, nothing live but http(s) links."""
    out: list[str] = []
    fence: list[str] | None = None
    for line in text.split("\n"):
        if fence is not None:
            if _FENCE.match(line):
                out.append(_code_block(fence))
                fence = None
            else:
                fence.append(line)
            continue
        if _FENCE.match(line):
            fence = []
            continue
        out.append(_block_line(line))
    if fence is not None:
        out.append(_code_block(fence))
    return "\n".join(out)


def markdown_plain(text: str) -> str:
    """The words of agent Markdown without its markup, for plain_text and one-line summaries.

    The result is raw text: a caller putting it in mrkdwn still escapes it.
    """
    if not _MARKUP.search(text):
        return text
    lines = []
    for line in text.split("\n"):
        if _FENCE.match(line):
            continue
        if (heading := _HEADING.match(line)) is not None:
            line = heading.group(1)
        elif (bullet := _BULLET.match(line)) is not None:
            line = f"{bullet.group(1)}• {bullet.group(2)}"
        elif (quoted := _QUOTE.match(line)) is not None:
            line = quoted.group(1)
        lines.append(_INLINE.sub(_plain_match, line))
    return "\n".join(lines)


def fit_markdown(text: str, limit: int, convert: Callable[[str], str] = agent_mrkdwn) -> str:
    """``convert(text)`` in at most ``limit`` characters, cut on the agent's text.

    Cutting the converted text could split ``&amp;``, a link or a code fence;
    cutting the source first never can, since the converter closes whatever a
    cut left open. Conversion is not monotonic in length, so the bisection
    keeps the invariant "the shorter prefix fits" rather than seeking the
    longest one; a cut falls back to a word break when one is near.
    """
    if limit <= len(ELLIPSIS):
        return ELLIPSIS[:limit] if text else ""
    if len(text) <= limit * RAW_FACTOR:
        whole = convert(text)
        if len(whole) <= limit:
            return whole
    raw = text[: limit * RAW_FACTOR]

    def fits(end: int) -> bool:
        return len(convert(raw[:end]).rstrip()) + len(ELLIPSIS) <= limit

    low, high = 0, len(raw)
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    space = raw.rfind(" ", max(0, low - WORD_BACKOFF), low + 1)
    if space > 0 and fits(space):
        low = space
    return convert(raw[:low]).rstrip() + ELLIPSIS


def _block_line(line: str) -> str:
    if _RULE.match(line):
        return "───"
    if (heading := _HEADING.match(line)) is not None:
        title = _defuse(escape_mrkdwn(markdown_plain(heading.group(1))))
        return f"*{title}*" if title.strip() else ""
    if (bullet := _BULLET.match(line)) is not None:
        return f"{bullet.group(1)}• {_inline(bullet.group(2))}"
    if (numbered := _NUMBERED.match(line)) is not None:
        indent, number, rest = numbered.groups()
        return f"{indent}{number}. {_inline(rest)}"
    if (quoted := _QUOTE.match(line)) is not None:
        return ">" + _inline(quoted.group(1))  # a literal ">" is inert: no "<" survives escaping
    return _inline(line)


def _inline(text: str) -> str:
    out: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        out.append(_text(text[position : match.start()]))
        out.append(_convert_match(match))
        position = match.end()
    out.append(_text(text[position:]))
    return "".join(out)


def _convert_match(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups["code"] is not None:
        return _code_span(groups["code_body"])
    if groups["link_text"] is not None:
        label = _defuse(escape_mrkdwn(markdown_plain(groups["link_text"]))).replace("|", "¦")
        url = groups["link_url"]
        if _SAFE_URL.fullmatch(url):
            return f"<{escape_mrkdwn(url)}|{label or escape_mrkdwn(url)}>"
        return f"{label} ({_defuse(escape_mrkdwn(url))})"
    for name, mark in (("bold", "*"), ("bold2", "*"), ("strike", "~")):
        if groups[name] is not None:
            return _wrap(mark, groups[name])
    inner = groups["italic"] if groups["italic"] is not None else groups["italic2"]
    return _wrap("_", inner)


def _wrap(mark: str, inner: str) -> str:
    """Slack formats ``*x*`` only around text that starts and ends with a non-space."""
    converted = _inline(inner).strip()
    return f"{mark}{converted}{mark}" if converted else ""


def _plain_match(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups["code"] is not None:
        return str(groups["code_body"])
    if groups["link_text"] is not None:
        return markdown_plain(groups["link_text"])
    for name in ("bold", "bold2", "strike", "italic", "italic2"):
        if groups[name] is not None:
            return markdown_plain(groups[name])
    return match.group()


def _text(text: str) -> str:
    return _defuse(escape_mrkdwn(text))


def _defuse(text: str) -> str:
    """A formatting character that is not part of a pair we wrote cannot pair with another."""
    return _LONE_MARK.sub(lambda m: m.group() + ZWSP, text)


def _code_span(body: str) -> str:
    """Inside a span Slack formats nothing; a backtick is impossible (the pattern excludes it)."""
    return f"`{escape_mrkdwn(body)}`"


def _code_block(lines: list[str]) -> str:
    body = escape_mrkdwn("\n".join(lines)).replace("`", "ˋ")
    return f"```\n{body or ' '}\n```"
