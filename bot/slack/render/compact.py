"""The compact form of a message Slack refused as too long.

Slack rejects a message whose blocks hold more than about 12,000 characters
(`msg_blocks_too_long`) even when every block is within its own limit, and
its count is not quite ours (escapes, emoji). Retrying the same payload would
fail forever, so a refused message is sent again in this form: what is
asked, where it stands, and its buttons, with everything long (preview,
input, question lists) behind *View full input*, which opens the full record.
"""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId
from bot.slack.limits import BUTTON_TEXT, SECTION_TEXT
from bot.slack.render.common import mrkdwn, plain_text, truncate
from bot.slack.render.context import RenderedMessage

COMPACT_NOTE = "_This request is too long to show here in full: use *View full input*._"
VIEW_INPUT_LABEL = "View full input"
COMPACT_TEXT_CHARS = 1_000
KEPT_BLOCK_TYPES = ("header", "actions", "context", "divider")
STATUS_BLOCK_IDS = ("novo_status",)


def compact_message(message: RenderedMessage, interaction_id: str) -> RenderedMessage:
    """`message` without its long parts; its buttons and status kept as they are."""
    kept: list[dict[str, Any]] = []
    for block in message["blocks"]:
        if block.get("type") in KEPT_BLOCK_TYPES or block.get("block_id") in STATUS_BLOCK_IDS:
            kept.append(block)
    kept.insert(min(2, len(kept)), {"type": "section", "text": mrkdwn(COMPACT_NOTE, SECTION_TEXT)})
    if not _offers_viewer(kept):
        kept.append(_viewer_block(interaction_id))
    return {
        "text": truncate(message["text"], COMPACT_TEXT_CHARS),
        "blocks": kept,
        "metadata": message["metadata"],
    }


def _offers_viewer(blocks: list[dict[str, Any]]) -> bool:
    return any(
        element.get("action_id") == ActionId.VIEW_INPUT.value
        for block in blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    )


def _viewer_block(interaction_id: str) -> dict[str, Any]:
    return {
        "type": "actions",
        "block_id": "novo_compact_viewer",
        "elements": [
            {
                "type": "button",
                "action_id": ActionId.VIEW_INPUT.value,
                "text": plain_text(VIEW_INPUT_LABEL, BUTTON_TEXT),
                "value": interaction_id,
            }
        ],
    }
