"""How a decision taken in Slack is labelled in the `reason` sent to Novo.

The API echoes a reason verbatim and never says where it came from, so the
bridge writes the source into it. The Slack user id comes first and the
display name only after it, in brackets: people choose their own display
names, so a name alone ("Security Team") would let anyone pass for anyone.
`Approved in Slack by U0ALICE (Alice Liddell): note`; a quorum names every
approver, and every note given with a vote reaches Novo, each by its giver's id
(a conditional approval must never arrive unconditional):
`Approved in Slack by U0ALICE (Alice), U0BOB (Bob): U0ALICE: after 18:00; U0BOB: ok`.
An approval a standing approval took names its granter and until when it held:
`Approved in Slack by standing approval of U0ALICE (Alice), until 15:00 UTC`.
A decision given otherwise than by a button or a form says how, after the names:
`Answered in Slack by U0GRACE (Grace Hopper), replying in the thread`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.domain import Approval, SlackActor
from bot.novo.rules import MAX_REASON_CHARS
from bot.slack.render.common import truncate

NOTE_SEPARATOR = ": "


def _named(actor: SlackActor) -> str:
    name = actor.display_name.strip()
    if not name or name == actor.user_id:
        return actor.user_id
    return f"{actor.user_id} ({name})"


NOTES_SEPARATOR = "; "


def slack_reason(
    verb: str,
    deciders: SlackActor | Sequence[Approval],
    note: str | None = None,
    *,
    via: str | None = None,
) -> str:
    """The labelled reason, cut to the API's limit without ever losing the label."""
    approvals = [Approval(deciders, note)] if isinstance(deciders, SlackActor) else list(deciders)
    label = f"{verb} in Slack by {', '.join(_named(a.actor) for a in approvals)}"
    if via:
        label += f", {via}"
    label = truncate(label, MAX_REASON_CHARS)
    note = _notes(approvals)
    if not note:
        return label
    room = MAX_REASON_CHARS - len(label) - len(NOTE_SEPARATOR)
    if room <= 0:
        return label
    return label + NOTE_SEPARATOR + truncate(note, room)


def _notes(approvals: Sequence[Approval]) -> str:
    """One decider's note as they wrote it; several approvers' notes each by its giver."""
    given = [(a.actor, (a.note or "").strip()) for a in approvals if (a.note or "").strip()]
    if len(approvals) == 1:
        return given[0][1] if given else ""
    return NOTES_SEPARATOR.join(f"{actor.user_id}: {text}" for actor, text in given)


def standing_reason(verb: str, granter: SlackActor, until: datetime) -> str:
    """The reason of an approval a standing approval took (no note: nobody wrote one)."""
    when = until.astimezone(UTC).strftime("%H:%M UTC")
    label = f"{verb} in Slack by standing approval of {_named(granter)}, until {when}"
    return truncate(label, MAX_REASON_CHARS)
