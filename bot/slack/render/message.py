"""One entry point that renders any interaction's message, whatever its kind."""

from __future__ import annotations

import hashlib
import json

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.question import render_question_message


def render_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    if interaction.kind == "approval_request":
        return render_approval_message(interaction, ctx)
    return render_question_message(interaction, ctx)


def fingerprint(message: RenderedMessage) -> str:
    """A stable hash of what a message shows, so unchanged messages are never re-sent."""
    canonical = json.dumps(message, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
