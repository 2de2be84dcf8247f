"""How a decision taken in Slack is labelled in the `reason` sent to Novo.

The API echoes a reason verbatim and never says where it came from, so the
bridge writes the source into it. The Slack user id comes first and the
display name only after it, in brackets: people choose their own display
names, so a name alone ("Security Team") would let anyone pass for anyone.
`Approved in Slack by U0ALICE (Alice Liddell): note`; a quorum names every
approver: `Approved in Slack by U0ALICE (Alice), U0BOB (Bob)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain import SlackActor
from bot.novo.rules import MAX_REASON_CHARS
from bot.slack.render.common import truncate

NOTE_SEPARATOR = ": "


def _named(actor: SlackActor) -> str:
    name = actor.display_name.strip()
    if not name or name == actor.user_id:
        return actor.user_id
    return f"{actor.user_id} ({name})"


def slack_reason(
    verb: str, actors: SlackActor | Sequence[SlackActor], note: str | None = None
) -> str:
    """The labelled reason, cut to the API's limit without ever losing the label."""
    deciders = [actors] if isinstance(actors, SlackActor) else list(actors)
    label = f"{verb} in Slack by {', '.join(_named(a) for a in deciders)}"
    label = truncate(label, MAX_REASON_CHARS)
    note = (note or "").strip()
    if not note:
        return label
    room = MAX_REASON_CHARS - len(label) - len(NOTE_SEPARATOR)
    if room <= 0:
        return label
    return label + NOTE_SEPARATOR + truncate(note, room)
