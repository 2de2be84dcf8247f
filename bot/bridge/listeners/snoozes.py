"""A "Remind me" choice in an approval's or a question's overflow: keep it, tell the person."""

from __future__ import annotations

from bot.bridge.listeners import Click
from bot.bridge.wiring import Services
from bot.slack.render.snooze import snooze_answer_text


async def remind(services: Services, click: Click, interaction_id: str, chosen: str) -> None:
    """The person is told in the message's channel, only to them, what was set or why not."""
    user_id = click.actor.user_id
    answer = await services.snoozes.snooze(interaction_id, user_id, chosen)
    await services.presenter.note(user_id, click.channel, snooze_answer_text(answer))
