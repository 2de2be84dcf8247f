"""Readers for rendered messages, so tests assert on what a person would see."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bot.slack.render.context import RenderedMessage

DATE_TOKEN = re.compile(r"<!date\^\d+\^\{date_short_pretty\} at \{time\}\|[0-9: UTC-]+>")
MENTION = re.compile(r"<@[UW][A-Z0-9]+>")
LINK = re.compile(r"<https?://[^\s<>|]+\|[^<>\n]*>")
"""An http(s) link as agent Markdown becomes: it can lead somewhere, never ping anyone."""
BARE_BROADCAST = re.compile(r"@(channel|here|everyone)")


def block(message: RenderedMessage | dict[str, Any], block_id: str) -> dict[str, Any]:
    found = [b for b in message["blocks"] if b.get("block_id") == block_id]
    assert len(found) == 1, f"expected one block {block_id!r}, got {len(found)}"
    return found[0]


def block_ids(message: RenderedMessage | dict[str, Any]) -> list[str]:
    return [b["block_id"] for b in message["blocks"]]


TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})


def texts(node: Any, types: frozenset[str] = TEXT_TYPES) -> Iterator[str]:
    """Every text object's text inside `node`, of the given types."""
    if isinstance(node, dict):
        if node.get("type") in types and isinstance(node.get("text"), str):
            yield node["text"]
        for value in node.values():
            yield from texts(value, types)
    elif isinstance(node, list):
        for value in node:
            yield from texts(value, types)


def mrkdwn_texts(node: Any) -> Iterator[str]:
    """Only mrkdwn is interpreted by Slack; plain_text shows `<!here>` as written."""
    return texts(node, frozenset({"mrkdwn"}))


def all_text(message: RenderedMessage | dict[str, Any]) -> str:
    return "\n".join(texts(message["blocks"]))


def buttons(message: RenderedMessage | dict[str, Any]) -> list[dict[str, Any]]:
    return [
        element for b in message["blocks"] if b["type"] == "actions" for element in b["elements"]
    ]


def action_ids(message: RenderedMessage | dict[str, Any]) -> list[str]:
    return [element["action_id"] for element in buttons(message)]


def assert_inert(
    text: str, allowed_mentions: frozenset[str] = frozenset(), *, allow_links: bool = False
) -> None:
    """No mention, broadcast, channel link or URL survives, except our own tokens.

    Every Slack control sequence starts with `<`, so once our date tokens, the
    mentions we put there ourselves and (when allowed) http(s) links are
    removed, no `<` may remain.
    """
    rest = DATE_TOKEN.sub("", text)
    if allow_links:
        rest = LINK.sub("", rest)
    for mention in MENTION.findall(rest):
        assert mention in allowed_mentions, f"unexpected mention {mention!r}"
    rest = MENTION.sub("", rest)
    assert "<" not in rest, f"control sequence in {rest[max(rest.find('<') - 40, 0) :][:120]!r}"
    assert not BARE_BROADCAST.search(rest), "bare broadcast word"


def code_body(section_text: str, lead: str = "") -> str:
    """The inside of the one code block a section holds, checked to be whole and unbroken."""
    assert section_text.startswith(lead + "```\n"), section_text[:80]
    assert section_text.endswith("\n```"), section_text[-80:]
    body = section_text[len(lead) + 4 : -4]
    assert "```" not in body, "a fence inside the block would close it early"
    return body


def unescape(text: str) -> str:
    """Undo Slack escaping and our zero-width spaces (tests keep ZWSP out of their inputs)."""
    text = text.replace("\u200b", "")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
