"""How a decision taken in Slack is labelled in the `reason` sent to Novo.

The API echoes a reason verbatim and never says where it came from, so the
bridge writes the source into it: `Approved in Slack by Ada Lovelace (U0123): note`.
"""

from __future__ import annotations

from bot.novo.rules import MAX_REASON_CHARS
from bot.slack.render.common import truncate
from bot.slack.render.context import SlackActor

NOTE_SEPARATOR = ": "


def slack_reason(verb: str, actor: SlackActor, note: str | None = None) -> str:
    """The labelled reason, cut to the API's limit without ever losing the label."""
    label = f"{verb} in Slack by {actor.display_name} ({actor.user_id})"
    label = truncate(label, MAX_REASON_CHARS)
    note = (note or "").strip()
    if not note:
        return label
    room = MAX_REASON_CHARS - len(label) - len(NOTE_SEPARATOR)
    if room <= 0:
        return label
    return label + NOTE_SEPARATOR + truncate(note, room)
