"""The Slack message for a tool call awaiting approval, in every state it goes through.

Layout while a decision is possible, top to bottom: the header says what is
asked in words (the preview's title, else the tool's name in words), the
status line who asks and by when, then the engine's preview as labelled
fields, a few lines of the tool input (all of it in the viewer), the buttons,
and a short details line (tool, run, step). Once the interaction has ended
the message shrinks to header, outcome and a *Details* button: the channel
stays readable as a record, and the full record is one click away.

Everything the agent wrote (input, preview, tool name, ids) is escaped, its
Markdown translated (see :mod:`markdown`). The message keeps under Slack's
~12,000-character total by fixed budgets whose sum (`TEXT_BUDGET`) is below
it, so nothing has to be measured after rendering.
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
from bot.slack.render.allowance import STANDING_LABELS_TEXT, allowance_blocks, offer_options
from bot.slack.render.common import (
    ELLIPSIS,
    clean_rendered,
    compact_json,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
    pretty_json,
    truncate,
)
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.preview import (
    humanize_tool,
    plain_title,
    preview_label,
    preview_value,
    title_key,
)
from bot.slack.render.quorum import quorum_block
from bot.slack.render.record import CONTEXT_TEXT, asker_plain, context_block, details_block
from bot.slack.render.remind_menu import remind_options
from bot.slack.render.snooze_choices import REMIND_LABELS_TEXT
from bot.slack.render.status import (
    STATUS_TEXT,
    accepts_decisions,
    fenced_code,
    is_ended,
    message_metadata,
    status_block,
    status_summary,
)

HEADER_ICON = "🔧 "
UNNAMED_TOOL = "Tool call"
INPUT_LABEL = "*Input*\n"
APPROVE_LABEL = "Approve"
DENY_LABEL = "Deny"
VIEW_INPUT_LABEL = "View full input"
APPROVE_WITH_NOTE_LABEL = "Approve with note…"
WITHDRAW_LABEL = "Withdraw my approval"

MAX_OVERFLOW_OPTIONS = 5
INPUT_MAX_LINES = 20
"""Without a preview the input is the summary: this much of it shows, the viewer has the rest."""
INPUT_PREVIEW_LINES = 6
INPUT_PREVIEW_CHARS = 800
GLANCE_LINE_CHARS = 100
"""With a preview the input only backs it up: a glance, not a second copy."""
INPUT_LARGE_LINES = 15
"""An input this long is offered in the viewer even when the message holds it all."""
PREVIEW_TEXT = 3_000
"""All preview fields together; the preview is a summary, the input is the truth."""
PREVIEW_MAX_FIELDS = 30
PREVIEW_KEY_CHARS = 60
PREVIEW_FIELD_MIN = 60
"""A field with less room for its value than this is not worth showing; it is counted as hidden."""
MORE_FIELDS_TEXT = 60
FALLBACK_WHAT_CHARS = 150

TEXT_BUDGET = (
    (HEADER_TEXT + CONTEXT_TEXT + STATUS_TEXT + PREVIEW_TEXT + MORE_FIELDS_TEXT + SECTION_TEXT)
    + 3 * BUTTON_TEXT
    + OPTION_TEXT
    + STANDING_LABELS_TEXT
    + REMIND_LABELS_TEXT
)
"""The most text one approval message can hold; the tests keep it under MESSAGE_TEXT_BUDGET."""

_HEADER_BLOCK_ID = "novo_header"
_PREVIEW_BLOCK_ID = "novo_preview_{index}"
_MORE_FIELDS_BLOCK_ID = "novo_more_fields"
_INPUT_BLOCK_ID = "novo_input"


def render_approval_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    """The whole message for `interaction` as it stands, re-rendered from scratch each time."""
    blocks = [_header_block(interaction), status_block(interaction, ctx)]
    if ctx.quorum is not None:
        votes = quorum_block(ctx.quorum, open_=accepts_decisions(interaction, ctx))
        blocks.extend([votes] if votes is not None else [])
    if is_ended(interaction, ctx):
        # an allowance is granted with an approval, so its lines come with the short form
        blocks.extend(allowance_blocks(ctx.allowances, ctx.now))
        blocks.append(details_block(interaction.id))
    else:
        blocks.extend(_body_blocks(interaction, ctx))
    message: RenderedMessage = {
        "text": _fallback_text(interaction, ctx),
        "blocks": blocks,
        "metadata": message_metadata(interaction),
    }
    return cast(RenderedMessage, clean_rendered(message))


def approval_actions_block_id(interaction_id: str) -> str:
    return actions_block_id(APPROVAL_ACTIONS_BLOCK_PREFIX, interaction_id)


def interaction_id_from_block_id(block_id: str) -> str | None:
    return interaction_in_block_id(APPROVAL_ACTIONS_BLOCK_PREFIX, block_id)


def approval_title(interaction: Interaction, limit: int = HEADER_TEXT) -> str:
    """What is asked, in words and plain text: the preview's title, else the tool's name."""
    preview = interaction.preview or {}
    key = title_key(preview)
    if key is not None:
        return plain_title(str(preview[key]), limit)
    return plain_title(humanize_tool(interaction.tool_name), limit) or UNNAMED_TOOL


def _body_blocks(interaction: Interaction, ctx: MessageContext) -> list[dict[str, Any]]:
    """What a decision needs: preview, a glance at the input, the buttons, the details line."""
    preview = interaction.preview or {}
    preview_blocks, hidden_fields = _preview_blocks(preview)
    input_block, input_cut, input_lines = _input_block(interaction.input, bool(preview))
    offer_viewer = input_cut or hidden_fields > 0 or input_lines > INPUT_LARGE_LINES
    blocks = list(preview_blocks)
    if hidden_fields:
        blocks.append(_more_fields_block(hidden_fields))
    blocks.append(input_block)
    if accepts_decisions(interaction, ctx):
        remind = remind_options(interaction, ctx)
        withdraw = ctx.quorum is not None and bool(ctx.quorum.approvers)
        standing = offer_options(interaction.tool_name, ctx.standing)
        blocks.append(
            _actions_block(
                interaction.id,
                decisions=True,
                viewer=offer_viewer,
                remind=remind,
                withdraw=withdraw,
                standing=standing,
            )
        )
    elif offer_viewer:
        blocks.append(_actions_block(interaction.id, decisions=False, viewer=True))
    blocks.append(context_block(interaction, ctx))
    return blocks


def _header_block(interaction: Interaction) -> dict[str, Any]:
    """Plain text: nothing in it is interpreted by Slack, so it needs no escaping, only a cut."""
    title = approval_title(interaction, HEADER_TEXT - len(HEADER_ICON))
    return {
        "type": "header",
        "block_id": _HEADER_BLOCK_ID,
        "text": plain_text(HEADER_ICON + title, HEADER_TEXT),
    }


def _preview_blocks(preview: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Sections of "*Label*\nvalue" fields within the preview budget; and how many were left out.

    The title, shown in the header, is not repeated as a field.
    """
    skip = title_key(preview)
    fields: list[dict[str, Any]] = []
    room = PREVIEW_TEXT
    wanted = 0
    for key, value in preview.items():
        if key == skip:
            continue
        wanted += 1
        label = f"*{preview_label(key, PREVIEW_KEY_CHARS)}*\n"
        value_room = min(SECTION_FIELD_TEXT, room) - len(label)
        if len(fields) == PREVIEW_MAX_FIELDS or value_room < PREVIEW_FIELD_MIN:
            continue
        text = label + preview_value(value, value_room)
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
    return sections, wanted - len(fields)


def _more_fields_block(hidden: int) -> dict[str, Any]:
    noun = "field" if hidden == 1 else "fields"
    text = f"…and {hidden} more {noun} — see the full input"
    return {
        "type": "context",
        "block_id": _MORE_FIELDS_BLOCK_ID,
        "elements": [mrkdwn(text, MORE_FIELDS_TEXT)],
    }


def _input_block(value: Any, has_preview: bool) -> tuple[dict[str, Any], bool, int]:
    """The top of the input in a code block; (block, whether it was cut, its line count).

    Alone, the input is the summary: its pretty JSON shows, up to
    ``INPUT_MAX_LINES``. Beside a preview it only backs the preview up: an
    object shows one compact line per key, a few keys at most, so a list of
    forty addresses is one line, not forty.
    """
    full = pretty_json(value)
    lines = full.split("\n")
    if has_preview and isinstance(value, dict) and value:
        shown, glance_cut = _glance(value)
        room = INPUT_PREVIEW_CHARS
    else:
        max_lines = INPUT_PREVIEW_LINES if has_preview else INPUT_MAX_LINES
        room = INPUT_PREVIEW_CHARS if has_preview else SECTION_TEXT - len(INPUT_LABEL)
        shown = full
        if len(lines) > max_lines:
            shown = "\n".join([*lines[:max_lines], ELLIPSIS])
        glance_cut = shown != full
    block_text = fenced_code(shown, room)
    cut = glance_cut or block_text != fenced_code(shown, len(shown) * 8 + 16)
    block = {
        "type": "section",
        "block_id": _INPUT_BLOCK_ID,
        "text": mrkdwn(INPUT_LABEL + block_text, SECTION_TEXT),
    }
    return block, cut, len(lines)


def _glance(value: dict[str, Any]) -> tuple[str, bool]:
    """One ``"key": compact JSON`` line per key, each cut short; and whether anything was left."""
    lines = []
    cut = len(value) > INPUT_PREVIEW_LINES
    for key, item in list(value.items())[:INPUT_PREVIEW_LINES]:
        line = f"{compact_json(str(key))}: {compact_json(item)}"
        cut = cut or len(line) > GLANCE_LINE_CHARS
        lines.append(truncate(line, GLANCE_LINE_CHARS))
    if len(value) > INPUT_PREVIEW_LINES:
        lines.append(ELLIPSIS)
    return "\n".join(lines), cut


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


def _actions_block(
    interaction_id: str,
    *,
    decisions: bool,
    viewer: bool,
    remind: list[dict[str, Any]] | None = None,
    withdraw: bool = False,
    standing: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Every button's value is the interaction id: listeners need nothing else from the click.

    The overflow holds *Approve with note…*, *Withdraw my approval* once a
    quorum has votes, the *Approve, and allow …* choices a rule with
    `allow_standing` offers (never with a quorum, so never beside *Withdraw*),
    then the "Remind me" choices offered now, as many as Slack's five options
    leave room for.
    """
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
                    },
                    *(
                        [
                            {
                                "text": plain_text(WITHDRAW_LABEL, OPTION_TEXT),
                                "value": OverflowValue.WITHDRAW_APPROVAL.value,
                            }
                        ]
                        if withdraw
                        else []
                    ),
                    *(standing or []),
                    *(remind or [])[
                        : MAX_OVERFLOW_OPTIONS - 1 - int(withdraw) - len(standing or [])
                    ],
                ],
            }
        )
    return {
        "type": "actions",
        "block_id": approval_actions_block_id(interaction_id),
        "elements": elements,
    }


def _fallback_text(interaction: Interaction, ctx: MessageContext) -> str:
    """The notification line: what, who, by when, in plain words; no tokens, no mentions."""
    what = escape_mrkdwn(approval_title(interaction, FALLBACK_WHAT_CHARS))
    summary = status_summary(interaction, ctx)
    if accepts_decisions(interaction, ctx):
        return f"{what} — {asker_plain(interaction, ctx)} asks for approval · {summary}"
    return f"{what} · {summary}"
