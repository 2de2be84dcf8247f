"""One entry point that renders any interaction's message, whatever its kind."""

from __future__ import annotations

import hashlib
import json

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.question import render_question_message
from bot.slack.render.unsupported import render_unsupported_message


def render_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    """The renderer of its kind answers; each returns what `common.clean_rendered` made of
    its message (cleaning it here too was a second copy of every post)."""
    if interaction.kind == "approval_request":
        return render_approval_message(interaction, ctx)
    if interaction.kind == "question" and interaction.request is not None:
        return render_question_message(interaction, ctx)
    return render_unsupported_message(interaction, ctx)


def fingerprint(message: RenderedMessage) -> str:
    """A stable hash of what a message shows, so unchanged messages are never re-sent.

    It must never raise: it runs after the message was posted, and a failure
    there would leave the post unrecorded and re-post it on every poll. Rendered
    messages are already clean; `surrogatepass` covers any other caller, and
    leaves the hash of valid text as it always was.
    """
    canonical = json.dumps(message, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
