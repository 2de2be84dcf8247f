"""Hostile text, records carrying it, and the checks that nothing unsafe reaches Slack."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.novo.models import Interaction
from tests.novo.conftest import approval_wire

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LONE_SURROGATE = "\ud800"
RLO, PDF, LRI, PDI, RLM = "\u202e", "\u202c", "\u2066", "\u2069", "\u200f"
HOSTILE = (
    f"<!channel> <https://evil.example|click> a{LONE_SURROGATE}b c\x00d "
    f"{RLO}deliver{PDF} {LRI}iso{PDI} {RLM}mark &"
)
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
SURROGATE = re.compile("[\ud800-\udfff]")


def record(kind: str = "question", **fields: Any) -> Interaction:
    """A pending interaction as Novo sends it, every agent-written field hostile unless given."""
    wire = approval_wire(
        "int_hostile",
        agentId="agt_" + HOSTILE,
        kind=kind,
        toolName="tool " + HOSTILE,
        hookId=None,
        input=None,
        expiresAt=(NOW + timedelta(minutes=30)).isoformat(),
        createdAt=NOW.isoformat(),
        updatedAt=NOW.isoformat(),
    )
    if kind == "question":
        wire["request"] = hostile_request()
    else:
        wire["input"] = {"command": HOSTILE, HOSTILE: [HOSTILE]}
        wire["preview"] = {HOSTILE: HOSTILE, "nested": {"x": HOSTILE}}
    wire.update(fields)
    return Interaction.model_validate(wire)


def hostile_request(options: int = 3) -> dict[str, Any]:
    return {
        "title": HOSTILE,
        "details": HOSTILE,
        "questions": [
            {
                "id": "q1",
                "prompt": HOSTILE,
                "options": [
                    {"id": f"o{i}", "label": HOSTILE, "description": HOSTILE}
                    for i in range(options)
                ],
            },
            {"id": "q2", "prompt": HOSTILE, "multiline": True},
        ],
        "actions": [{"id": "a1", "label": HOSTILE, "style": "danger"}],
    }


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_clean(rendered: Any) -> None:
    """No string of it holds a lone surrogate, a NUL or a bidi control, and it encodes as UTF-8."""
    for text in strings(rendered):
        assert not SURROGATE.search(text), f"lone surrogate in {text[:80]!r}"
        assert "\x00" not in text, f"NUL in {text[:80]!r}"
        assert not BIDI.search(text), f"bidi control in {text[:80]!r}"
    json.dumps(rendered, ensure_ascii=False).encode("utf-8")


def mrkdwn_of(rendered: Any) -> list[str]:
    """Every mrkdwn text (the only kind Slack interprets) inside a rendered message or view."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
                found.append(node["text"])
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(rendered)
    return found
