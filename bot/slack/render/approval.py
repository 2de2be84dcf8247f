"""The Slack message for a tool call awaiting approval, in every state it goes through.

Layout, top to bottom: header (tool), who asks, where it stands (deadline or
outcome), the engine's preview as fields, the tool input as JSON, and, while
a decision is possible, the buttons. The same layout is kept after the fact
so the channel stays a readable record of what was approved.

Everything the agent wrote (input, preview, tool name, ids) is escaped. The
message keeps under Slack's ~12,000-character total by fixed budgets whose
sum (`TEXT_BUDGET`) is below it, so nothing has to be measured after rendering.
"""

from __future__ import annotations

from typing import Any, cast

from bot.novo.models import Interaction
from bot.slack.ids import (
    APPROVAL_ACTIONS_BLOCK_PREFIX,
    ActionId,
    OverflowValue,
    actions_block_id,
    interaction_in_block_id,
)
from bot.slack.limits import (
    BUTTON_TEXT,
    HEADER_TEXT,
    OPTION_TEXT,
    SECTION_FIELD_TEXT,
    SECTION_FIELDS,
    SECTION_TEXT,
)
from bot.slack.render.common import (
    clean_rendered,
    compact_json,
    escape_inline,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
    pretty_json,
    truncate,
)
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.status import (
    CONTEXT_TEXT,
    STATUS_TEXT,
    accepts_decisions,
    context_block,
    display_state,
    fenced_code,
    inline_code,
    message_metadata,
    status_block,
    status_summary,
)

HEADER_PENDING = "🔧 Approval needed: "
HEADER_DONE = "🔧 Approval request: "
INPUT_LABEL = "*Input*\n"
APPROVE_LABEL = "Approve"
DENY_LABEL = "Deny"
VIEW_INPUT_LABEL = "View full input"
APPROVE_WITH_NOTE_LABEL = "Approve with note…"

INPUT_MAX_LINES = 40
"""Beyond this the message shows the top of the input and points to the viewer."""
INPUT_LARGE_LINES = 20
"""An input this long is offered in the viewer even when the message holds it all."""
PREVIEW_TEXT = 4_000
"""All preview fields together; the preview is a summary, the input is the truth."""
PREVIEW_MAX_FIELDS = 30
PREVIEW_KEY_CHARS = 100
PREVIEW_FIELD_MIN = 60
"""A field with less room than this is not worth showing cut; it is counted as hidden."""
MORE_FIELDS_TEXT = 100
FALLBACK_NAME_CHARS = 100

TEXT_BUDGET = (
    HEADER_TEXT + CONTEXT_TEXT + STATUS_TEXT + PREVIEW_TEXT + MORE_FIELDS_TEXT + SECTION_TEXT
) + 4 * BUTTON_TEXT
"""The most text one approval message can hold; the tests keep it under MESSAGE_TOTAL_TEXT."""

_HEADER_BLOCK_ID = "novo_header"
_PREVIEW_BLOCK_ID = "novo_preview_{index}"
_MORE_FIELDS_BLOCK_ID = "novo_more_fields"
_INPUT_BLOCK_ID = "novo_input"


def render_approval_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    """The whole message for `interaction` as it stands, re-rendered from scratch each time."""
    actionable = accepts_decisions(interaction, ctx)
    preview_blocks, hidden_fields = _preview_blocks(interaction.preview or {})
    input_block, input_cut, input_lines = _input_block(interaction.input)
    offer_viewer = input_cut or hidden_fields > 0 or input_lines > INPUT_LARGE_LINES

    blocks: list[dict[str, Any]] = [
        _header_block(interaction, actionable),
        context_block(interaction),
        status_block(interaction, ctx),
        *preview_blocks,
    ]
    if hidden_fields:
        blocks.append(_more_fields_block(hidden_fields))
    blocks.append(input_block)
    state = display_state(interaction, ctx)
    if actionable:
        blocks.append(_actions_block(interaction.id, decisions=True, viewer=offer_viewer))
    elif state == "queued" and offer_viewer:
        blocks.append(_actions_block(interaction.id, decisions=False, viewer=True))
    message: RenderedMessage = {
        "text": _fallback_text(interaction, ctx, actionable),
        "blocks": blocks,
        "metadata": message_metadata(interaction),
    }
    return cast(RenderedMessage, clean_rendered(message))


def approval_actions_block_id(interaction_id: str) -> str:
    return actions_block_id(APPROVAL_ACTIONS_BLOCK_PREFIX, interaction_id)


def interaction_id_from_block_id(block_id: str) -> str | None:
    return interaction_in_block_id(APPROVAL_ACTIONS_BLOCK_PREFIX, block_id)


def _header_block(interaction: Interaction, actionable: bool) -> dict[str, Any]:
    """Plain text: nothing in it is interpreted by Slack, so it needs no escaping, only a cut."""
    lead = HEADER_PENDING if actionable else HEADER_DONE
    return {
        "type": "header",
        "block_id": _HEADER_BLOCK_ID,
        "text": plain_text(lead + interaction.tool_name.replace("\n", " "), HEADER_TEXT),
    }


def _preview_blocks(preview: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Sections of "*key*\\nvalue" fields within the preview budget; and how many were left out."""
    fields: list[dict[str, Any]] = []
    room = PREVIEW_TEXT
    for key, value in preview.items():
        if len(fields) == PREVIEW_MAX_FIELDS or room < PREVIEW_FIELD_MIN:
            break
        label = escape_inline(truncate(str(key), PREVIEW_KEY_CHARS)) or " "
        text = truncate(f"*{label}*\n{_preview_value(value)}", min(SECTION_FIELD_TEXT, room))
        fields.append(mrkdwn(text, SECTION_FIELD_TEXT))
        room -= len(text)
    sections = [
        {
            "type": "section",
            "block_id": _PREVIEW_BLOCK_ID.format(index=index),
            "fields": fields[start : start + SECTION_FIELDS],
        }
        for index, start in enumerate(range(0, len(fields), SECTION_FIELDS))
    ]
    return sections, len(preview) - len(fields)


def _preview_value(value: Any) -> str:
    """Strings are the agent's markdown (escaped, formatting kept); anything else compact JSON."""
    if isinstance(value, str):
        return escape_mrkdwn(value) or " "
    return inline_code(compact_json(value), SECTION_FIELD_TEXT)


def _more_fields_block(hidden: int) -> dict[str, Any]:
    noun = "field" if hidden == 1 else "fields"
    text = f"…and {hidden} more {noun} — see the full input"
    return {
        "type": "context",
        "block_id": _MORE_FIELDS_BLOCK_ID,
        "elements": [mrkdwn(text, MORE_FIELDS_TEXT)],
    }


def _input_block(value: Any) -> tuple[dict[str, Any], bool, int]:
    """The input as pretty JSON in a code block; (block, whether it was cut, its line count)."""
    full = pretty_json(value)
    lines = full.split("\n")
    shown = full
    if len(lines) > INPUT_MAX_LINES:
        shown = "\n".join([*lines[:INPUT_MAX_LINES], "…"])
    room = SECTION_TEXT - len(INPUT_LABEL)
    block_text = fenced_code(shown, room)
    cut = shown != full or block_text != fenced_code(full, len(full) * 8 + 16)
    block = {
        "type": "section",
        "block_id": _INPUT_BLOCK_ID,
        "text": mrkdwn(INPUT_LABEL + block_text, SECTION_TEXT),
    }
    return block, cut, len(lines)


def _button(label: str, action_id: ActionId, value: str, style: str | None) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "action_id": action_id.value,
        "text": plain_text(label, BUTTON_TEXT),
        "value": value,
    }
    if style:
        button["style"] = style
    return button


def _actions_block(interaction_id: str, *, decisions: bool, viewer: bool) -> dict[str, Any]:
    """Every button's value is the interaction id: listeners need nothing else from the click."""
    elements: list[dict[str, Any]] = []
    if decisions:
        elements.append(_button(APPROVE_LABEL, ActionId.APPROVE, interaction_id, "primary"))
        elements.append(_button(DENY_LABEL, ActionId.DENY, interaction_id, "danger"))
    if viewer:
        elements.append(_button(VIEW_INPUT_LABEL, ActionId.VIEW_INPUT, interaction_id, None))
    if decisions:
        elements.append(
            {
                "type": "overflow",
                "action_id": ActionId.APPROVAL_OVERFLOW.value,
                "options": [
                    {
                        "text": plain_text(APPROVE_WITH_NOTE_LABEL, OPTION_TEXT),
                        "value": OverflowValue.APPROVE_WITH_NOTE.value,
                    }
                ],
            }
        )
    return {
        "type": "actions",
        "block_id": approval_actions_block_id(interaction_id),
        "elements": elements,
    }


def _fallback_text(interaction: Interaction, ctx: MessageContext, actionable: bool) -> str:
    """The notification line: plain words, escaped, no tokens that render only in blocks."""
    lead = "Approval needed" if actionable else "Approval request"
    tool = escape_mrkdwn(truncate(interaction.tool_name, FALLBACK_NAME_CHARS))
    agent = escape_mrkdwn(truncate(interaction.agent_id, FALLBACK_NAME_CHARS))
    return f"{lead}: {tool} by {agent} — {status_summary(interaction, ctx)}"
