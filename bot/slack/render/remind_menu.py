"""The "Remind me" options of a pending message's overflow menu.

Which choices show is decided in :mod:`bot.slack.render.snooze_choices` from the
render's `now` and the interaction's deadline; this only words them as
Block Kit options. The approval message puts them in its own overflow (after
*Approve with note…*); a question's come in an overflow of their own, since
the *Dismiss* overflow asks for a confirmation that would cover them too.
"""

from __future__ import annotations

from typing import Any

from bot.novo.models import Interaction
from bot.slack.ids import ActionId
from bot.slack.limits import OPTION_TEXT
from bot.slack.render.common import plain_text
from bot.slack.render.context import MessageContext
from bot.slack.render.snooze_choices import offered_choices


def remind_options(interaction: Interaction, ctx: MessageContext) -> list[dict[str, Any]]:
    """The overflow options for the choices a message rendered at `ctx.now` offers."""
    return [
        {"text": plain_text(choice.label, OPTION_TEXT), "value": choice.value.value}
        for choice in offered_choices(ctx.now, interaction.expires_at)
    ]


def remind_overflow(interaction: Interaction, ctx: MessageContext) -> dict[str, Any] | None:
    """A question's overflow of "Remind me" choices; None when none is offered."""
    options = remind_options(interaction, ctx)
    if not options:
        return None
    return {"type": "overflow", "action_id": ActionId.QUESTION_REMIND.value, "options": options}
