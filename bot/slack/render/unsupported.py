"""The message for an interaction of a kind this bridge cannot show.

Novo may add kinds before the bridge learns them. Such an interaction still
waits on a person, so it gets one plain message that says so and points to
Novo, and is kept true like any other (the status block says how it ended).
It offers no buttons: the bridge cannot build a valid answer for it.
"""

from __future__ import annotations

from typing import cast

from bot.novo.models import Interaction
from bot.slack.limits import SECTION_TEXT
from bot.slack.render.common import clean_rendered, escape_mrkdwn, mrkdwn, truncate
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.record import record_block
from bot.slack.render.status import (
    inline_code,
    message_metadata,
    status_block,
    status_summary,
)

KIND_SHOWN_CHARS = 60
TEXT_CHARS = 300


def unsupported_text(kind: str) -> str:
    """The one sentence such a message leads with (plain text, already escaped)."""
    shown = escape_mrkdwn(truncate(kind, KIND_SHOWN_CHARS)) or "unnamed"
    return f"This bridge can't show a {shown} interaction — resolve it in Novo."


def render_unsupported_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    lead = (
        f"This bridge can't show a {inline_code(interaction.kind, KIND_SHOWN_CHARS)}"
        " interaction — resolve it in Novo."
    )
    blocks = [
        {"type": "section", "text": mrkdwn(lead, SECTION_TEXT)},
        status_block(interaction, ctx),
        record_block(interaction),
    ]
    summary = status_summary(interaction, ctx)
    text = truncate(f"{unsupported_text(interaction.kind)} {summary}", TEXT_CHARS)
    message = {"text": text, "blocks": blocks, "metadata": message_metadata(interaction)}
    return cast(RenderedMessage, clean_rendered(message))
