"""One line per click on the page, for the demo transcript running beside it.

The transcript already prints what Slack shows and what Novo receives; this
adds who did what on the page, in the words the page showed them, so a
reader can tell a person's click from the bridge's reaction to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from novo_dev.localslack.payloads import all_options, iter_elements
from novo_dev.localslack.server import LocalSlack
from novo_dev.playground.intents import (
    ClickMessage,
    Close,
    Intent,
    LoadOptions,
    PickOverflow,
    Submit,
)


def describe(intent: Intent, slack: LocalSlack) -> str | None:
    """`Ada Lovelace presses Approve`; None for what is not worth a line (type-ahead)."""
    user = slack.user(intent.user)
    who = user.display_name if user else intent.user
    if isinstance(intent, ClickMessage | PickOverflow):
        message = slack.find_message(intent.channel, intent.ts)
        blocks = message.blocks if message else []
    elif isinstance(intent, LoadOptions):
        return None
    else:
        found = [v for v in slack.views() if v.id == intent.view_id]
        blocks = found[0].blocks if found else []
        title = _text(found[0].payload.get("title")) if found else intent.view_id
        if isinstance(intent, Submit):
            return f"{who} submits “{title}”"
        if isinstance(intent, Close):
            return f"{who} closes “{title}”"
    element = _element(blocks, intent.action_id)
    if isinstance(intent, PickOverflow):
        label = next(
            (_text(o.get("text")) for o in all_options(element) if o.get("value") == intent.option),
            intent.option,
        )
        return f"{who} picks {label} from the menu"
    return f"{who} presses {_text(element.get('text')) or intent.action_id}"


def _element(blocks: list[dict[str, Any]], action_id: str) -> Mapping[str, Any]:
    for _, element in iter_elements(blocks):
        if element.get("action_id") == action_id:
            return element
    return {}


def _text(node: object) -> str:
    return str(node.get("text", "")) if isinstance(node, Mapping) else ""
